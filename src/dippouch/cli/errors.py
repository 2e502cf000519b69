"""What a user did wrong, in one line: the single place that turns an exception into a message for the CLI.

Commands import their heavy libraries (SQLAlchemy, the store, the renderer) only when they run, so this
module cannot catch those libraries' exceptions by class: it recognises them by the module that defines
them. Anything it does not recognise is a bug and keeps its traceback: a bare ``KeyError`` among them, since a
name the user got wrong raises :class:`~dippouch.core.errors.NotFound` (a ``DippouchError``).
"""

from __future__ import annotations

__all__ = ["cli_language", "user_problem"]


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
    from dippouch.core.errors import DippouchError

    if isinstance(e, DippouchError):
        from dippouch.said import told

        # A layer's text not made a message value yet is read back (said.told) while dippouch.said stays.
        return told(e.msg, cli_language())
    module = type(e).__module__ or ""
    if module.startswith("sqlalchemy"):
        orig = getattr(e, "orig", None)
        detail = str(orig if orig is not None else e).strip().splitlines()
        return f"the database cannot be used: {detail[0] if detail else type(e).__name__}"
    if isinstance(e, UnicodeError):
        return f"the text cannot be read or written as UTF-8 ({e.__class__.__name__})"
    if isinstance(e, OSError):
        where = f": {e.filename}" if e.filename else ""
        return f"{e.strerror or e}{where}"
    return None
