"""``dippouch ratings``: the leaderboards from the stored ratings, overall or one variant's, and the hall of
fame's solos; ``dippouch ratings update`` takes the finished games in; ``dippouch ratings check [--fix]``
recomputes every rating from scratch and compares it with what is stored.

The numbers are :mod:`dippouch.play.ratings`'s, the same the web's ratings page and ``GET /api/ratings`` show,
read from the database: the worker's task keeps them up to date as games finish (``update`` does the same by
hand, for an installation without a worker or after an upgrade).
"""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from dippouch.cli import app, command_group
from dippouch.cli.game import DbOption, _store, friendly, out
from dippouch.cli.words import figure, said, share, tell
from dippouch.core.messages import msg, nmsg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

ratings_app = command_group(
    help="Ratings: the leaderboards and the hall of fame; take finished games in; check against a recomputation.",
    invoke_without_command=True,
)
app.add_typer(ratings_app, name="ratings")

SHOWN = 20
"""Differences ``check`` prints before it counts the rest."""


@ratings_app.callback()
@friendly
def ratings(
    ctx: typer.Context,
    variant: str | None = typer.Option(None, "--variant", help="Only this variant's leaderboard."),
    top: int = typer.Option(20, "--top", min=1, help="The most lines each list shows."),
    page: int = typer.Option(1, "--page", min=1, help="Which page of --top lines the leaderboard shows."),
    db: str | None = DbOption,
) -> None:
    """Print the ratings leaderboard (overall, and one per variant, or --variant NAME's) and the solos."""
    if ctx.invoked_subcommand is not None:
        return
    from dippouch.play.ratings import board, groups, hall_of_fame, unscored
    from dippouch.store.finished_games import person_names

    store = _store(db)
    offset = (page - 1) * top
    chosen: list[str | None] = [variant] if variant else [None, *groups(store)]
    boards = [(g, board(store, g, offset=offset, limit=top)) for g in chosen]  # an unknown variant is refused first
    if not any(b.people for _, b in boards):
        tell(out, msg("Nobody is rated yet: ratings come from finished games with at least two players."))
    deleted = said(msg("(deleted)"))
    for group, b in boards:
        if not b.places:
            continue
        title = msg(
            "%(board)s: %(games)s, %(people)s",
            board=msg("Overall") if group is None else msg("Variant %(variant)s", variant=group),
            games=nmsg("%(num)d rated game", "%(num)d rated games", b.games),
            people=nmsg("%(num)d person", "%(num)d people", b.people),
        )
        # A Text, not markup: a variant's name is a file's.
        table = Table(title=Text(said(title)), title_justify="left")
        table.add_column(said(msg("Rank")), justify="right")
        table.add_column(said(msg("Person")), justify="left")
        table.add_column(said(msg("Id")), justify="right")
        table.add_column(said(msg("Rating")), justify="right")
        table.add_column(said(msg("Games")), justify="right")
        table.add_column(said(msg("Reliability")), justify="right")
        for p in b.places:
            table.add_row(
                str(p.rank),
                escape(p.name) if p.name is not None else deleted,
                str(p.person_id),
                figure(p.rating, 2),
                str(p.games),
                share(p.finished * 100) if p.finished is not None else "-",
            )
        out.print(table)
    solos = hall_of_fame(store, solo=True, group=variant, limit=top)
    if solos:
        names = person_names(store, (h.person_id for h in solos))
        table = Table(title=Text(said(msg("Hall of fame: solos"))), title_justify="left")
        for column in (msg("Game"), msg("Person"), msg("Power"), msg("Ended")):
            table.add_column(said(column))
        for h in solos:
            who = names.get(h.person_id)
            table.add_row(
                escape(h.game),
                escape(who.name) if who is not None and not who.deleted else deleted,
                escape(h.power),
                h.ended_at.strftime("%Y-%m-%d"),
            )
        out.print(table)
    for game, why in unscored(store):
        tell(out, msg("Not scored: %(game)s: %(why)s", game=game, why=why))


@ratings_app.command("update")
@friendly
def update(
    deep: bool = typer.Option(
        False, "--deep", help="Also take in again every game whose event log has grown since it was taken in."
    ),
    db: str | None = DbOption,
) -> None:
    """Take in the finished games the stored ratings have not (what the worker does at every look)."""
    from dippouch.play.ratings import update_ratings

    done = update_ratings(_store(db), deep=deep)
    if not done.changed:
        tell(out, msg("The ratings are up to date."))
        return
    took = quantity(done.seconds, 2)
    tell(
        out,
        nmsg(
            "%(num)d game taken in, %(out)s taken out; the standings replayed from the stored results (%(took)s s).",
            "%(num)d games taken in, %(out)s taken out; the standings replayed from the stored results (%(took)s s).",
            done.entered,
            out=done.taken_out,
            took=took,
        )
        if done.replayed
        else nmsg(
            "%(num)d game taken in, %(out)s taken out; the standings continued (%(took)s s).",
            "%(num)d games taken in, %(out)s taken out; the standings continued (%(took)s s).",
            done.entered,
            out=done.taken_out,
            took=took,
        ),
    )


@ratings_app.command("check")
@friendly
def check(
    fix: bool = typer.Option(False, "--fix", help="Rewrite the stored ratings from the recomputation."),
    db: str | None = DbOption,
) -> None:
    """Recompute every rating from scratch (every finished game scored again) and compare it with the stored
    ratings, exactly; exit status 1 when they differ (and, with --fix, 0 once rewritten)."""
    from dippouch.play.ratings_check import check_ratings, recompute, rewrite_ratings

    store = _store(db)
    fresh = recompute(store)
    result = check_ratings(store, fresh)
    tell(
        out,
        nmsg(
            "%(num)d finished game, %(rated)s rated somebody; %(people)s people rated overall.",
            "%(num)d finished games, %(rated)s rated somebody; %(people)s people rated overall.",
            result.games,
            rated=result.rated,
            people=result.people,
        ),
    )
    if result.equal:
        tell(out, msg("The stored ratings equal the recomputation."))
        return
    if result.pending:
        tell(
            out,
            nmsg(
                "%(num)d game is not taken in as it stands now (`dippouch ratings update`).",
                "%(num)d games are not taken in as they stand now (`dippouch ratings update`).",
                result.pending,
            ),
        )
    tell(out, nmsg("%(num)d difference:", "%(num)d differences:", len(result.differences)))
    for line in result.differences[:SHOWN]:
        out.print(f"  {escape(line)}", soft_wrap=True)
    if len(result.differences) > SHOWN:
        more = msg("... and %(num)s more", num=len(result.differences) - SHOWN)
        tell(out, more, indent="  ")
    if not fix:
        raise typer.Exit(1)
    fixed = rewrite_ratings(store, fresh)
    if not fixed.equal:
        tell(
            out,
            nmsg(
                "Rewritten, yet %(num)d difference remains (games finished meanwhile?).",
                "Rewritten, yet %(num)d differences remain (games finished meanwhile?).",
                len(fixed.differences),
            ),
        )
        raise typer.Exit(1)
    tell(out, msg("Rewritten from the recomputation: the stored ratings now equal it."))
