"""``dippouch adjudicate``: the adjudication contract over a pipe (the contract itself: :mod:`dippouch.contract`)."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from dippouch.cli import app
from dippouch.core.messages import msg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own refusals (said in the locale's language: dippouch.cli.errors)."""

_CONTRACT_NAMES = frozenset({"handle_line", "handle_request", "serve_stream", "RequestError"})


def __getattr__(name: str) -> Any:
    # The contract's functions lived here before dippouch.contract; callers that import them from here still
    # get them, without every CLI start-up importing the core.
    if name in _CONTRACT_NAMES:
        import dippouch.contract

        return getattr(dippouch.contract, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@app.command("adjudicate")
def adjudicate_command(
    file: Annotated[Path | None, typer.Argument(help="JSON Lines file of requests; standard input if omitted.")] = None,
) -> None:
    """Adjudicate phases given as JSON Lines (one request a line, one response a line; see docs)."""
    from dippouch.contract import RequestError, serve_stream

    # JSON is UTF-8 whatever the locale says; undecodable bytes become U+FFFD in that request only.
    for stream in (sys.stdin, sys.stdout):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="replace" if stream is sys.stdin else "strict")
    try:
        if file is None:
            serve_stream(sys.stdin, sys.stdout)
            return
        try:
            source = file.open(encoding="utf-8", errors="replace")
        except OSError as e:
            raise RequestError(msg("cannot read %(file)s: %(error)s", file=str(file), error=str(e.strerror))) from None
        with source:
            serve_stream(source, sys.stdout)
    except BrokenPipeError:
        # The reader went away: nobody is left to answer. Exit quietly, as Unix filters do.
        sys.stderr.close()
