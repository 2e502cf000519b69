"""``dippouch ratings``: the leaderboards from every finished game, overall or one variant's, and the hall of
fame's solos.

The numbers are :mod:`dippouch.play.ratings`'s, the same the web's ratings page and ``GET /api/ratings`` show;
computed here from scratch (the command line keeps no cache).
"""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from dippouch.cli import app
from dippouch.cli.game import DbOption, _store, friendly, out


@app.command()
@friendly
def ratings(
    variant: str | None = typer.Option(None, "--variant", help="Only this variant's leaderboard."),
    top: int = typer.Option(20, "--top", min=1, help="The most lines each list shows."),
    db: str | None = DbOption,
) -> None:
    """Print the ratings leaderboard (overall, and one per variant, or --variant NAME's) and the solos."""
    from dippouch.play.ratings import compute_standings, leaderboard
    from dippouch.store.finished_games import person_names

    store = _store(db)
    standings = compute_standings(store)
    groups: list[str | None] = [variant] if variant else [None, *standings.groups]
    boards = [(g, leaderboard(store, standings, g, top)) for g in groups]  # an unknown variant is refused first
    if not standings.ratings.overall:
        out.print("Nobody is rated yet: ratings come from finished games with at least two players.")
    for group, places in boards:
        if not places:
            continue
        title = "Overall" if group is None else f"Variant {group}"
        table = Table(title=f"{title}: {standings.rated_games(group)} rated games", title_justify="left")
        for column in ("Rank", "Person", "Id", "Rating", "Games", "Reliability", "Finished"):
            table.add_column(column, justify="left" if column == "Person" else "right")
        for p in places:
            table.add_row(
                str(p.rank),
                escape(p.name) if p.name is not None else "(deleted)",
                str(p.person_id),
                f"{p.rating:.2f}",
                str(p.games),
                f"{p.reliability}%" if p.reliability is not None else "-",
                f"{p.finished * 100:.0f}%" if p.finished is not None else "-",
            )
        out.print(table)
    solos = standings.solos(variant, top)
    if solos:
        names = person_names(store, (h.person_id for h in solos))
        table = Table(title="Hall of fame: solos", title_justify="left")
        for column in ("Game", "Person", "Power", "Ended"):
            table.add_column(column)
        for h in solos:
            who = names.get(h.person_id)
            table.add_row(
                escape(h.game),
                escape(who.name) if who is not None and not who.deleted else "(deleted)",
                escape(h.power),
                h.ended_at.strftime("%Y-%m-%d"),
            )
        out.print(table)
    for game, why in standings.unscored:
        out.print(f"Not scored: {escape(game)}: {escape(why)}")
