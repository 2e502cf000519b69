"""The ``dippouch`` command. Each group of commands lives in its own module and registers on ``app``.

Start-up speed is part of the interface: a coordinator types thirty commands a phase. So every module
here imports at its top only the standard library, typer, rich and :mod:`dippouch.cli`; everything a
command needs beyond that (the core, the game layer, SQLAlchemy and the store, the web app, the renderer)
is imported inside the command's function. ``dippouch --help`` and the commands that open no database then
never load SQLAlchemy (a test holds this). New command modules follow the same pattern and are listed in
``_COMMAND_MODULES``.

Errors a user can make end in one line (``error: ...``) and exit status 2, never a traceback:
:func:`dippouch.cli.errors.user_problem` decides what counts as the user's mistake.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import sys
from collections.abc import Iterator
from typing import Any

import typer
from typer.core import TyperGroup

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""


class Group(TyperGroup):
    """Help as plain text (click's layout), each command listed with the whole of its first sentence.

    typer's boxed help imports Markdown, Pygments and rich's tracebacks to draw it: about 80 ms, a third of
    ``dippouch --help``. Plain help reads as well in a terminal, a pipe or an e-mail, and its usage errors
    are one line like dippouch's own ``error:`` lines.
    """

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=300)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def command_group(**kwargs: Any) -> typer.Typer:
    """A typer app (the root or a group of subcommands) with dippouch's plain help."""
    kwargs.setdefault("cls", Group)
    return typer.Typer(rich_markup_mode=None, **kwargs)


app = command_group(
    name="dippouch",
    help="Run games of Diplomacy variants: adjudicate, coordinate, report.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

_COMMAND_MODULES = (
    "variants",
    "adjudicate",
    "game",
    "serve",
    "mapcheck",
    "mail",
    "worker",
    "map",
    "mapgen",
    "bots",
    "notify",
    "score",
    "ratings",
    "tournaments",
    "daide",
    "votes",
    "puzzles",
    "people",
)
"""Modules under ``dippouch.cli`` whose import registers commands; a missing optional one is skipped."""

_COMMAND_HOME = {
    "variants": "variants",
    "adjudicate": "adjudicate",
    **dict.fromkeys(
        [
            "new",
            "upgrade-variant",
            "games",
            "players",
            "submit",
            "vote",
            "status",
            "process",
            "report",
            "show",
            "replay",
            "history",
            "extend",
            "pause",
            "resume",
            "rollback",
            "export",
            "import",
            "calendar",
        ],
        "game",
    ),
    "serve": "serve",
    "mapcheck": "mapcheck",
    "mail": "mail",
    "worker": "worker",
    "map": "map",
    "mapgen": "mapgen",
    **dict.fromkeys(["seat-bot", "bot-policy", "bot"], "bots"),
    "notify": "notify",
    "score": "score",
    "ratings": "ratings",
    "tournament": "tournaments",
    "daide": "daide",
    **dict.fromkeys(["propose", "ballot", "withdraw"], "votes"),
    "puzzles": "puzzles",
    **dict.fromkeys(["people", "reports"], "people"),
}
"""Which module registers each top-level command, so that ``dippouch submit`` imports and builds one module's
commands instead of all of them (typer builds every registered command's parser before it runs one: 25 ms,
plus 40 ms of imports, on each of the thirty commands a coordinator types a phase). A test keeps this
table equal to what the modules register."""


def _version(value: bool) -> None:
    if value:
        from dippouch import __version__

        typer.echo(f"dippouch {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print dippouch's version and exit."
    ),
) -> None:
    """Run games of Diplomacy variants: adjudicate, coordinate, report."""


def register_commands(argv: list[str] | None = None) -> None:
    """Import the command modules: only the one that defines the command named in ``argv`` when it names a
    known command; all of them otherwise (``--help``, no command, or a misspelt one, which gets typer's
    "did you mean" from the full list)."""
    wanted = _named_command(argv) if argv is not None else None
    for name in (_COMMAND_HOME[wanted],) if wanted is not None else _COMMAND_MODULES:
        try:
            __import__(f"dippouch.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"dippouch.cli.{name}":
                raise


@contextlib.contextmanager
def _only(argv: list[str]) -> Iterator[None]:
    """While a command named in ``argv`` runs, the app holds that command alone: typer builds a parser for
    every registered command before it runs one, and a module may hold twenty. (Put back afterwards, for
    callers in the same process, such as tests.)"""
    wanted = _named_command(argv)
    if wanted is None:
        yield
        return
    commands, groups = app.registered_commands, app.registered_groups
    app.registered_commands = [c for c in commands if _command_name(c) == wanted]
    app.registered_groups = [g for g in groups if g.name == wanted]
    try:
        yield
    finally:
        app.registered_commands, app.registered_groups = commands, groups


def _command_name(info: typer.models.CommandInfo) -> str | None:
    if info.name:
        return info.name
    return info.callback.__name__.lower().replace("_", "-") if info.callback is not None else None


def _named_command(argv: list[str]) -> str | None:
    """The top-level command ``argv`` (without the program name) names, if it is a known one."""
    for arg in argv:
        if arg == "--":
            return None
        if arg.startswith("-"):
            continue  # the root has only flags (--version, --help): no option takes a value
        return arg if arg in _COMMAND_HOME else None
    return None


def main() -> None:
    # A command is one short process that imports a great deal (SQLAlchemy above all). The cyclic garbage
    # collector would walk those objects again and again while they are imported and once more at exit, about
    # 15% of a W3K `submit`; none of it frees anything a short command needs back. So it is off for the
    # command (the few that keep running switch it on again: `keep_running`), and at exit what the command
    # made is frozen out of the last collection, after every other exit handler (registered first, it runs
    # last); flushing and closing happen as usual.
    gc.disable()
    atexit.register(gc.freeze)
    _run()


def keep_running() -> None:
    """Called by the commands that run until stopped (``serve``, ``worker``) or long (``mapgen``): collect
    garbage as usual."""
    gc.enable()


def _interrupted() -> str:
    """The word for a stop by Ctrl-C in the locale's language; in English when saying it fails (a second Ctrl-C while the
    catalogues are read, or a start-up broken before they could be): the stop must stay quiet and prompt."""
    try:
        from dippouch.cli.words import said
        from dippouch.core.messages import msg

        return said(msg("interrupted"))
    except (Exception, KeyboardInterrupt):
        return "interrupted"


def _run() -> None:
    try:
        register_commands(sys.argv[1:])
        with _only(sys.argv[1:]):
            app()
    except KeyboardInterrupt:
        # Ctrl-C, even during start-up: stop quietly with the shell's usual status for it.
        sys.stderr.write(f"\n{_interrupted()}\n")
        sys.exit(130)
    except Exception as e:
        from dippouch.cli.errors import user_problem

        problem = user_problem(e)
        if problem is None:
            raise
        sys.stderr.write(f"error: {problem}\n")
        sys.exit(2)
