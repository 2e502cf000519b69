"""``dippouch propose``, ``ballot`` and ``withdraw``: the table's proposals from the command line, for a seat's
player the installation acts for (a game played by mail, a test), through the same use case as the player's page
and the JSON API (:mod:`dippouch.play.votes`)."""

from __future__ import annotations

import typer

from dippouch.cli import app
from dippouch.cli.game import DbOption, NowOption, _now, _store, friendly, out
from dippouch.cli.words import tell

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

_POWERS = typer.Option([], "--power", help="A draw's power (repeat; none: every surviving power).")


@app.command()
@friendly
def propose(
    game: str,
    power: str,
    kind: str = typer.Argument(
        ...,
        help="pause, extend, cancel, concede, draw; in a game its players run also process, rollback, replace, unseal.",
    ),
    hours: float | None = typer.Option(None, "--hours", help="A pause's or an extension's length in hours."),
    to: str | None = typer.Option(None, "--to", help="The power conceded to, or whose player is replaced."),
    powers: list[str] = _POWERS,
    phase: str | None = typer.Option(None, "--phase", help="The phase a roll back opens again."),
    player: str | None = typer.Option(None, "--player", help="A replacement's name."),
    email: str | None = typer.Option(None, "--email", help="A replacement's address."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """POWER proposes KIND to the table (its own yes counted); it passes by the game's vote rule and then acts."""
    from dippouch.play.votes import propose as make

    got = make(
        _store(db),
        game,
        power,
        kind,
        now=_now(now),
        hours=hours,
        to=to,
        powers=powers,
        phase=phase,
        player=player,
        email=email,
    )
    tell(out, got.told)


@app.command()
@friendly
def ballot(
    game: str,
    power: str,
    proposal: int,
    yes: bool = typer.Option(..., "--yes/--no", help="POWER's ballot."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """POWER votes yes or no on PROPOSAL (its number on the player's page)."""
    from dippouch.play.votes import ballot as cast

    tell(out, cast(_store(db), game, proposal, power, yes, now=_now(now)).told)


@app.command()
@friendly
def withdraw(game: str, power: str, proposal: int, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """POWER withdraws PROPOSAL, which it made."""
    from dippouch.play.votes import withdraw as take_back

    tell(out, take_back(_store(db), game, proposal, power, now=_now(now)).told)
