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
from dippouch.cli.words import figure, said, tell
from dippouch.core.messages import Msg, msg, nmsg, pmsg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

tournament_app = command_group(
    help="Tournaments: a set of games under one scoring system, and their standings.", no_args_is_help=True
)
app.add_typer(tournament_app, name="tournament")

GamesArgument = typer.Argument(..., help="The games to add.")

_GAME_STATUSES: dict[str, Msg] = {
    "counted": pmsg("a tournament game's status", "counted"),
    "in progress": pmsg("a tournament game's status", "in progress"),
    "unscored": pmsg("a tournament game's status", "unscored"),
    "practice": pmsg("a tournament game's status", "practice"),
    "missing": pmsg("a tournament game's status", "missing"),
}
"""A tournament game's status as people read it (the stored word is what the JSON API gives)."""


def _heading(table: Table, heading: Msg, *, right: bool = False) -> None:
    """A column headed in the locale's language (escaped: rich reads a heading as markup); numbers align right."""
    table.add_column(escape(said(heading)), justify="right" if right else "left")


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
    title = system_of(t).title
    if t.variant:
        made = msg(
            "Tournament %(name)s created, scored under %(system)s, %(variant)s games only.",
            name=t.name,
            system=title,
            variant=t.variant,
        )
    else:
        made = msg("Tournament %(name)s created, scored under %(system)s.", name=t.name, system=title)
    tell(out, made)


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
        tell(
            out,
            nmsg(
                "Game %(game)s added to %(tournament)s (%(num)d game).",
                "Game %(game)s added to %(tournament)s (%(num)d games).",
                len(t.games),
                game=game,
                tournament=t.name,
            ),
        )


@tournament_app.command("remove")
@friendly
def remove(name: str, game: str, db: str | None = DbOption) -> None:
    """Take a game out of a tournament (the game itself is untouched)."""
    from dippouch.play.tournaments import remove_game

    t = remove_game(_store(db), name, game)
    tell(
        out,
        nmsg(
            "Game %(game)s taken out of %(tournament)s (%(num)d game).",
            "Game %(game)s taken out of %(tournament)s (%(num)d games).",
            len(t.games),
            game=game,
            tournament=t.name,
        ),
    )


@tournament_app.command("list")
@friendly
def listed(db: str | None = DbOption) -> None:
    """List the tournaments, newest first."""
    from dippouch.play.tournaments import list_tournaments

    found = list_tournaments(_store(db))
    if not found:
        tell(out, msg("No tournament yet: create one with `dippouch tournament new NAME --system NAME`."))
        return
    table = Table(title=escape(said(msg("Tournaments"))), title_justify="left")
    for heading in (msg("Tournament"), msg("System"), msg("Variant")):
        _heading(table, heading)
    _heading(table, msg("Games"), right=True)
    _heading(table, msg("Finished"), right=True)
    for s in found:
        t = s.tournament
        variant = t.variant or said(msg("any"))
        table.add_row(escape(t.name), t.system, escape(variant), str(len(t.games)), str(s.finished))
    out.print(table)


@tournament_app.command("standings")
@friendly
def standings(name: str, db: str | None = DbOption) -> None:
    """Print a tournament's standings and its games, recomputed from the games."""
    from dippouch.play.tournaments import standings as compute

    s = compute(_store(db), name)
    tell(
        out,
        msg(
            "Tournament %(name)s: %(system)s (%(source)s)",
            name=s.tournament.name,
            system=s.system.title,
            source=s.system.source,
        ),
    )
    if s.lines:
        after = nmsg("Standings after %(num)d counted game", "Standings after %(num)d counted games", s.counted)
        table = Table(title=escape(said(after)), title_justify="left")
        _heading(table, msg("Rank"), right=True)
        _heading(table, msg("Player"))
        for heading in (msg("Id"), msg("Total"), msg("Games"), msg("Best")):
            _heading(table, heading, right=True)
        deleted = escape(said(msg("(deleted)")))
        for line in s.lines:
            table.add_row(
                str(line.rank),
                escape(line.name) if line.name is not None else deleted,
                str(line.person_id) if line.person_id is not None else "-",
                figure(line.total, 2),
                str(line.games),
                figure(line.best, 2),
            )
        out.print(table)
    else:
        tell(out, msg("No finished game counted yet."))
    if s.games:
        table = Table(title=escape(said(msg("Games"))), title_justify="left")
        for heading in (msg("Round"), msg("Game"), msg("Status"), msg("Note")):
            _heading(table, heading)
        for g in s.games:
            status = said(_GAME_STATUSES.get(g.status, g.status))
            note = said(g.note) if g.note else ""
            table.add_row(str(g.round) if g.round is not None else "-", escape(g.game), escape(status), escape(note))
        out.print(table)
    if s.hidden:
        tell(out, nmsg("%(num)d private game left out.", "%(num)d private games left out.", s.hidden))
