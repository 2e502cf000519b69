"""``dippouch score``: a finished game's scores under its own scoring system, another one, or every one; and
the game's choice of system.

The numbers are :mod:`dippouch.play.records`'s, the same the game's records page and its JSON call show.
"""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from dippouch.cli import app
from dippouch.cli.game import DbOption, NowOption, _now, _store, friendly, out
from dippouch.cli.words import figure, said, tell
from dippouch.core.messages import msg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""


@app.command()
@friendly
def score(
    game: str,
    system: str | None = typer.Option(None, "--system", help="Score under this system (default: the game's own)."),
    every: bool = typer.Option(False, "--all", help="Print the scores under every shipped system."),
    choose: str | None = typer.Option(
        None, "--choose", help='Make this system the game\'s own ("default" goes back to draw-size scoring).'
    ),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Print a finished game's scores (under its own scoring system, --system NAME, or --all of them)."""
    from dippouch.game import GameError
    from dippouch.play.records import choose_scoring, find_system, score_all, score_game

    store = _store(db)
    if choose is not None:
        chosen = choose_scoring(store, game, None if choose.lower() == "default" else choose, now=_now(now))
        tell(
            out,
            msg(
                "Game %(game)s is scored under %(system)s (%(name)s).",
                game=game,
                system=chosen.title,
                name=chosen.name,
            ),
        )
        return
    if every and system:
        find_system(system)  # a misspelt name is still refused, naming the closest
        raise GameError(msg("give --system NAME or --all, not both"))
    for scored in score_all(store, game) if every else [score_game(store, game, system)]:
        title = (
            msg("%(game)s: %(system)s (the game's system)", game=scored.game, system=scored.system.title)
            if scored.own
            else msg("%(game)s: %(system)s", game=scored.game, system=scored.system.title)
        )
        # A Text, not markup: the game's name is the coordinator's own words.
        table = Table(title=Text(said(title)), title_justify="left")
        table.add_column(said(msg("Power")))
        table.add_column(said(msg("Centres")), justify="right")
        table.add_column(said(msg("Score")), justify="right")
        for row in scored.rows:
            table.add_row(escape(row.power), str(row.centres), figure(row.score, 2))
        out.print(table)
    if scored.ending is not None:
        tell(out, scored.ending)
