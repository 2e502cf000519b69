"""Typed errors that say exactly what is wrong, where, and what would have been right.

Every error a user can cause derives from :class:`DippouchError`, so the shell (CLI, web, the JSON
contract) catches one class and prints its message instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

from dippouch.core.messages import Msg, as_msg


class DippouchError(Exception):
    """Base class of every error caused by input rather than by a bug. It carries its message as a value
    (:attr:`msg`, said in the reader's language where it is shown: :func:`dippouch.saying.say`); ``str()`` of
    the error is the message's English, for logs, the command line and programs."""

    msg: Msg
    """What the error tells people: an id and its values (a text not made a message yet is its own id)."""

    def __init__(self, message: Msg | str = "", *args: object) -> None:
        self.msg = as_msg(message if isinstance(message, Msg) else str(message))
        super().__init__(str(self.msg) if isinstance(message, Msg) else message, *args)


class NotFound(DippouchError, KeyError):
    """A name or number the user gave (a game, person, phase, channel, power, province) names nothing here.

    A ``KeyError`` too, so code that asks "is this name known?" with ``except KeyError`` keeps working; but the
    doors treat only this class as the user's miss (404, or the CLI's one-line message): a bare ``KeyError`` is
    a bug and is reported as one."""

    def __str__(self) -> str:
        # KeyError's own str() quotes its argument as a repr; the message is a sentence for a person.
        return str(self.args[0]) if self.args else "not found"


@dataclass(frozen=True, slots=True)
class VariantProblem:
    where: str
    """Place in the variant file: a TOML key path, with a line number when known."""
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class VariantError(DippouchError):
    """A variant file is wrong; carries every problem found, not just the first."""

    def __init__(self, source: str, problems: list[VariantProblem]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        # English, as the problems it lists are (a variant file's problems stay English: docs/translating.md).
        counted = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
        super().__init__(f"variant {source} has {counted}:\n{lines}")


class UnknownVariantError(NotFound):
    def __init__(self, name: str, known: list[str], suggestion: str | None = None) -> None:
        self.name = name
        hint = f"; did you mean {suggestion!r}?" if suggestion else "."
        super().__init__(f"no variant {name!r}{hint} Known variants: {', '.join(known)}")


class PhaseError(DippouchError):
    """A phase name that the variant's calendar does not know."""
