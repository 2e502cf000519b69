"""The ``dippouch`` command. Each group of commands lives in its own module and registers on ``app``.

Errors a user can make are :class:`dippouch.core.errors.DippouchError`; :func:`main` turns them into a
message and a non-zero exit instead of a traceback.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from dippouch.core.errors import DippouchError

app = typer.Typer(
    name="dippouch",
    help="Run games of Diplomacy variants: adjudicate, coordinate, report.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
err = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Run games of Diplomacy variants: adjudicate, coordinate, report."""


def _register() -> None:
    # Importing a module registers its commands on ``app``.
    from dippouch.cli import variants  # noqa: F401

    for optional in ("adjudicate", "game", "serve", "mapcheck", "mail"):
        try:
            __import__(f"dippouch.cli.{optional}")
        except ModuleNotFoundError as e:
            if e.name != f"dippouch.cli.{optional}":
                raise


def main() -> None:
    _register()
    try:
        app()
    except DippouchError as e:
        err.print(f"[red]error:[/red] {e}", highlight=False)
        sys.exit(2)
    except KeyError as e:
        err.print(f"[red]error:[/red] {e.args[0] if e.args else e}", highlight=False)
        sys.exit(2)
