"""What a user did wrong, in one line: the single place that turns an exception into a message for the CLI.

Commands import their heavy libraries (SQLAlchemy, the store, the renderer) only when they run, so this
module cannot catch those libraries' exceptions by class: it recognises them by the module that defines
them. Anything it does not recognise is a bug and keeps its traceback: a bare ``KeyError`` among them, since a
name the user got wrong raises :class:`~dippouch.core.errors.NotFound` (a ``DippouchError``).
"""

from __future__ import annotations

from dippouch.core.messages import Msg, as_msg, msg

__all__ = ["I18N_DOMAIN", "cli_language", "user_problem", "user_problem_msg"]

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""


def cli_language() -> str:
    """The language the command line speaks: the locale's messages language (dippouch.settings: ``LC_ALL``,
    then ``LC_MESSAGES``, then ``LANG``: ``de_DE.UTF-8`` is German), English when it names none of ours (``C``,
    ``POSIX``, unset)."""
    from dippouch.i18n import DEFAULT, LANGUAGES
    from dippouch.settings import current

    lang = current().cli_language
    return lang if lang in LANGUAGES else DEFAULT


def user_problem(e: BaseException) -> str | None:
    """The message for an error the user can fix, in the locale's language (:func:`cli_language`; a hint as
    the layers write it, naming the command), or ``None`` when ``e`` is a bug in dippouch."""
    problem = user_problem_msg(e)
    if problem is None:
        return None
    from dippouch.saying import say

    return say(problem, cli_language())


def user_problem_msg(e: BaseException) -> Msg | None:
    """What :func:`user_problem` says, as a message value (for a door that says it in its own reader's
    language), or ``None`` when ``e`` is a bug."""
    from dippouch.core.errors import DippouchError

    if isinstance(e, DippouchError):
        return e.msg
    module = type(e).__module__ or ""
    if module.startswith("sqlalchemy"):
        orig = getattr(e, "orig", None)
        detail = str(orig if orig is not None else e).strip().splitlines()
        return msg("the database cannot be used: %(error)s", error=detail[0] if detail else type(e).__name__)
    if isinstance(e, UnicodeError):
        return msg("the text cannot be read or written as UTF-8 (%(error)s)", error=e.__class__.__name__)
    if isinstance(e, OSError):
        why = str(e.strerror or e)
        if e.filename:
            return msg("%(error)s: %(file)s", error=why, file=str(e.filename))
        return as_msg(why)  # the system's own words, as it gives them
    return None
