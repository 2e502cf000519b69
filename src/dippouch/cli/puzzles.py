"""``dippouch puzzles generate``: look for puzzles in the installation's finished games (and in files of
recorded positions) and store the new ones; ``dippouch puzzles list``: what is stored.

The search is :mod:`dippouch.play.puzzles`'s; its cost is about two seconds a movement position on one core
(benchmarks/README.md), so a big installation's first run takes a while and later runs skip nothing: a
corner met before is found again and not stored twice.
"""

from __future__ import annotations

from pathlib import Path

import typer

from dippouch.cli import app as root
from dippouch.cli import command_group
from dippouch.cli.game import DbOption, NowOption, _now, _store, friendly, out
from dippouch.cli.words import said, tell
from dippouch.core.messages import Msg, msg, nmsg, pmsg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

_GOALS: dict[str, Msg] = {"take": pmsg("a puzzle's goal", "take"), "keep": pmsg("a puzzle's goal", "keep")}
"""A puzzle's goal as the list names it (the stored word is what programs read)."""

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
            # Typer prints the message as given: said here, in the locale's language.
            raise typer.BadParameter(said(msg("no file %(path)s", path=str(path))), param_hint="--corpus")
    sources = itertools.chain(
        store_sources(finished_positions(store)) if games else (),
        *(corpus_sources(p) for p in corpus),
    )
    started = time.perf_counter()
    found = []
    for p in find_puzzles(sources, limit=limit):
        found.append(p.as_json())
        tell(out, _found(p.source, p.power, p.goal, p.target, p.difficulty))
    added = add_puzzles(store, found, now=_now(now))
    took = time.perf_counter() - started
    tell(
        out,
        nmsg(
            "%(num)d puzzle found, %(new)s new, in %(seconds)s s.",
            "%(num)d puzzles found, %(new)s new, in %(seconds)s s.",
            len(found),
            new=added,
            seconds=quantity(round(took, 1)),
        ),
    )


def _found(source: str, power: str, goal: str, target: str, difficulty: int) -> Msg:
    """A puzzle found, as a whole line for each goal (the verb's place differs by language)."""
    if goal == "take":
        return msg(
            "%(source)s: %(power)s take %(target)s (difficulty %(difficulty)s)",
            source=source,
            power=power,
            target=target,
            difficulty=difficulty,
        )
    if goal == "keep":
        return msg(
            "%(source)s: %(power)s keep %(target)s (difficulty %(difficulty)s)",
            source=source,
            power=power,
            target=target,
            difficulty=difficulty,
        )
    return msg(
        "%(source)s: %(power)s %(goal)s %(target)s (difficulty %(difficulty)s)",
        source=source,
        power=power,
        goal=goal,
        target=target,
        difficulty=difficulty,
    )


@app.command("list")
@friendly
def list_puzzles(db: str | None = DbOption) -> None:
    """List the stored puzzles: id, difficulty, power, goal and where each comes from."""
    from dippouch.store.learning.puzzles import puzzles

    stored = puzzles(_store(db))
    if not stored:
        tell(out, msg("No puzzle yet: `dippouch puzzles generate` looks for them in the finished games."))
        return
    for sp in stored:
        d = sp.data
        goal = said(_GOALS.get(str(d["goal"]), str(d["goal"])))
        stars = "*" * int(d["difficulty"])
        # A listing, one puzzle a line in columns: only the goal is a word, said in the locale's language.
        out.print(f"{sp.id}  {stars}  {d['power']} {goal} {d['target']}  {d['source']}", markup=False)
