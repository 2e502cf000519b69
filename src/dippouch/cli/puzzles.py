"""``dippouch puzzles generate``: look for puzzles in the installation's finished games (and in files of
recorded positions) and store the new ones; ``dippouch puzzles list``: what is stored.

The search is :mod:`dippouch.play.puzzles`'s; its cost is about two seconds a movement position on one core
(benchmarks/README.md), so a big installation's first run takes a while and later runs skip nothing: a
corner met before is found again and not stored twice.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from dippouch.cli import app as root
from dippouch.cli import command_group
from dippouch.cli.game import DbOption, NowOption, _now, _store, friendly, out
from dippouch.core.messages import msg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own refusals (said in the locale's language: dippouch.cli.errors)."""

app = command_group(help="Puzzles from recorded games: generate them, list them.", no_args_is_help=True)
root.add_typer(app, name="puzzles")


@app.command()
@friendly
def generate(
    corpus: list[Path] | None = typer.Option(  # noqa: B008
        None, "--corpus", help="A file of recorded positions (JSON lines: game, variant, positions); repeatable."
    ),
    games: bool = typer.Option(True, "--games/--no-games", help="Read the installation's finished public games."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Stop after this many puzzles are found."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Look for puzzles in the finished games (and --corpus files) and store the new ones."""
    import itertools
    import time

    from dippouch.play.puzzles import corpus_sources, find_puzzles, store_sources
    from dippouch.store.learning.puzzles import add_puzzles, finished_positions

    store = _store(db)
    corpus = corpus or []
    for path in corpus:
        if not path.is_file():
            from dippouch.cli.errors import cli_language
            from dippouch.saying import say

            # Typer prints the message as given: said here, in the locale's language.
            raise typer.BadParameter(
                say(msg("no file %(path)s", path=str(path)), cli_language()), param_hint="--corpus"
            )
    sources = itertools.chain(
        store_sources(finished_positions(store)) if games else (),
        *(corpus_sources(p) for p in corpus),
    )
    started = time.perf_counter()
    found = []
    for p in find_puzzles(sources, limit=limit):
        found.append(p.as_json())
        out.print(f"{escape(p.source)}: {escape(p.power)} {p.goal} {p.target} (difficulty {p.difficulty})")
    added = add_puzzles(store, found, now=_now(now))
    took = time.perf_counter() - started
    out.print(f"{len(found)} puzzles found, {added} new, in {took:.1f} s.")


@app.command("list")
@friendly
def list_puzzles(db: str | None = DbOption) -> None:
    """List the stored puzzles: id, difficulty, power, goal and where each comes from."""
    from dippouch.store.learning.puzzles import puzzles

    for sp in puzzles(_store(db)):
        d = sp.data
        out.print(
            f"{sp.id}  {'*' * int(d['difficulty'])}  {escape(str(d['power']))} {d['goal']} {d['target']}"
            f"  {escape(str(d['source']))}"
        )
