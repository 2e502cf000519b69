"""``dippouch tournament ...``: create a tournament, add or remove its games, print its standings and the list.

The numbers are :mod:`dippouch.play.tournaments`'s, the same the web's tournament page and
``GET /api/tournaments/{name}`` show, recomputed from the games. The command line speaks for whoever holds the
database (the installation's coordinator): it checks no key, as every other command.
"""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from dippouch.cli import app, command_group
from dippouch.cli.game import DbOption, NowOption, _now, _store, friendly, out

tournament_app = command_group(
    help="Tournaments: a set of games under one scoring system, and their standings.", no_args_is_help=True
)
app.add_typer(tournament_app, name="tournament")

GamesArgument = typer.Argument(..., help="The games to add.")


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


@tournament_app.command("new")
@friendly
def new(
    name: str,
    system: str = typer.Option(..., "--system", help="The scoring system (dss, sos, carnage, tribute ...)."),
    variant: str | None = typer.Option(None, "--variant", help="Only games of this variant may join."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Create a tournament scored under --system NAME (of --variant NAME's games only, when given)."""
    from dippouch.play.tournaments import new_tournament, system_of

    t = new_tournament(_store(db), name, system, variant=variant, now=_now(now))
    of = f", {t.variant} games only" if t.variant else ""
    out.print(f"Tournament {escape(t.name)} created, scored under {escape(system_of(t).title)}{escape(of)}.")


@tournament_app.command("add")
@friendly
def add(
    name: str,
    games: list[str] = GamesArgument,
    round_: str | None = typer.Option(None, "--round", help="The round they are played in (1 to 99)."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Add existing games to a tournament (not practice games, not private ones), in --round N."""
    from dippouch.play.tournaments import add_game

    store = _store(db)
    for game in games:
        t = add_game(store, name, game, in_round=round_, now=_now(now))
        out.print(f"Game {escape(game)} added to {escape(t.name)} ({_games(len(t.games))}).")


@tournament_app.command("remove")
@friendly
def remove(name: str, game: str, db: str | None = DbOption) -> None:
    """Take a game out of a tournament (the game itself is untouched)."""
    from dippouch.play.tournaments import remove_game

    t = remove_game(_store(db), name, game)
    out.print(f"Game {escape(game)} taken out of {escape(t.name)} ({_games(len(t.games))}).")


@tournament_app.command("list")
@friendly
def listed(db: str | None = DbOption) -> None:
    """List the tournaments, newest first."""
    from dippouch.play.tournaments import list_tournaments

    found = list_tournaments(_store(db))
    if not found:
        out.print("No tournament yet: create one with `dippouch tournament new NAME --system NAME`.")
        return
    table = Table(title="Tournaments", title_justify="left")
    for column in ("Tournament", "System", "Variant", "Games", "Finished"):
        table.add_column(column, justify="right" if column in ("Games", "Finished") else "left")
    for s in found:
        t = s.tournament
        table.add_row(escape(t.name), t.system, escape(t.variant or "any"), str(len(t.games)), str(s.finished))
    out.print(table)


@tournament_app.command("standings")
@friendly
def standings(name: str, db: str | None = DbOption) -> None:
    """Print a tournament's standings and its games, recomputed from the games."""
    from dippouch.play.tournaments import standings as compute

    s = compute(_store(db), name)
    out.print(f"Tournament {escape(s.tournament.name)}: {escape(s.system.title)} ({s.system.source})")
    if s.lines:
        table = Table(title=f"Standings after {s.counted} counted games", title_justify="left")
        for column in ("Rank", "Player", "Id", "Total", "Games", "Best"):
            table.add_column(column, justify="left" if column == "Player" else "right")
        for line in s.lines:
            table.add_row(
                str(line.rank),
                escape(line.name) if line.name is not None else "(deleted)",
                str(line.person_id) if line.person_id is not None else "-",
                f"{line.total:.2f}",
                str(line.games),
                f"{line.best:.2f}",
            )
        out.print(table)
    else:
        out.print("No finished game counted yet.")
    if s.games:
        table = Table(title="Games", title_justify="left")
        for column in ("Round", "Game", "Status", "Note"):
            table.add_column(column)
        for g in s.games:
            table.add_row(
                str(g.round) if g.round is not None else "-", escape(g.game), g.status, escape(str(g.note or ""))
            )
        out.print(table)
    if s.hidden:
        out.print(f"{s.hidden} private game(s) left out.")
