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

import sys

import typer

app = typer.Typer(
    name="dippouch",
    help="Run games of Diplomacy variants: adjudicate, coordinate, report.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

_COMMAND_MODULES = ("variants", "adjudicate", "game", "serve", "mapcheck", "mail", "worker", "map", "mapgen")
"""Modules under ``dippouch.cli`` whose import registers commands; a missing optional one is skipped."""


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


def _register() -> None:
    for name in _COMMAND_MODULES:
        try:
            __import__(f"dippouch.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"dippouch.cli.{name}":
                raise


def main() -> None:
    try:
        _register()
        app()
    except KeyboardInterrupt:
        # Ctrl-C, even during start-up: stop quietly with the shell's usual status for it.
        sys.stderr.write("\ninterrupted\n")
        sys.exit(130)
    except Exception as e:
        from dippouch.cli.errors import user_problem

        problem = user_problem(e)
        if problem is None:
            raise
        sys.stderr.write(f"error: {problem}\n")
        sys.exit(2)
