"""Bot commands: seat a bot on a power, a game's civil-disorder policy, and ``dippouch bot`` for outside bots."""

from __future__ import annotations

import typer

from dippouch.cli import app
from dippouch.cli.game import DbOption, NowOption, _now, _store, err, friendly, out
from dippouch.cli.words import tell
from dippouch.core.messages import Msg, PhaseName, msg, nmsg, pmsg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

_ENDINGS: dict[str, Msg] = {
    "victory": pmsg("a practice game's end", "victory"),
    "ranked": pmsg("a practice game's end", "ranked"),
    "last_year": pmsg("a practice game's end", "last year"),
    "no_powers": pmsg("a practice game's end", "no power left"),
    "year limit": pmsg("a practice game's end", "year limit"),
}
"""How a practice game ended, as people read it (the kind is what programs read: the ladder, the tests)."""


@app.command("seat-bot")
@friendly
def seat_bot_command(
    game: str,
    power: str,
    level: str = typer.Argument(..., help="hold, random, heuristic or search"),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Seat a bot of LEVEL on POWER; it sends orders as soon as each phase opens (`players replace` hands the
    seat back to a person)."""
    from dippouch.bots.seats import play_seats, player_words
    from dippouch.play.seats import seat_bot

    store = _store(db)
    got = seat_bot(store, game, power, level, now=_now(now))
    moves = play_seats(store, now=_now(now), games=[game])
    sent = next((m for m in moves if m.power == got.power and m.version is not None), None)
    player, power = player_words(got.change.player), got.power
    if sent is None:
        tell(out, msg("%(player)s now plays %(power)s in %(game)s.", player=player, power=power, game=game))
    else:
        tell(
            out,
            msg(
                "%(player)s now plays %(power)s in %(game)s; it sent version %(version)s for %(phase)s.",
                player=player,
                power=power,
                game=game,
                version=sent.version if sent.version is not None else "-",
                phase=PhaseName(sent.phase),
            ),
        )


@app.command("bot-policy")
@friendly
def bot_policy(
    game: str,
    level: str = typer.Argument(..., help="a bot level that takes over powers in civil disorder, or 'off'"),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """A bot of LEVEL takes over every power of GAME that falls into civil disorder, until a person takes the seat."""
    from dippouch.bots.seats import set_disorder_bot

    chosen = set_disorder_bot(_store(db), game, None if level.strip().lower() == "off" else level, now=_now(now))
    if chosen is None:
        tell(out, msg("Powers in civil disorder in %(game)s are no longer handed to a bot.", game=game))
    else:
        tell(
            out,
            msg(
                "Powers in civil disorder in %(game)s are handed to a %(level)s bot until a person takes the seat.",
                game=game,
                level=chosen,
            ),
        )


ProgramArgument = typer.Argument(..., help="The bot's program and its arguments (after --).")
PowerOption = typer.Option([], "--power", help="The power(s) the program plays (default: the first).")


@app.command("bot", context_settings={"allow_interspersed_args": False})
@friendly
def bot(
    program: list[str] = ProgramArgument,
    variant: str = typer.Option("standard", "--variant", help="A practice game of this variant."),
    power: list[str] = PowerOption,
    others: str = typer.Option("heuristic", "--others", help="The bot level of the other powers."),
    years: int = typer.Option(3, "--years", help="Game years to play at most."),
    seed: int = typer.Option(1, "--seed"),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds the program has for each answer."),
    game: str | None = typer.Option(None, "--game", help="Play the open phase of this stored game instead."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Run an outside bot: PROGRAM reads one JSON request a line and answers with orders (docs/bots.md)."""
    from dippouch.bots import make_bot
    from dippouch.bots.outside import OutsideBot
    from dippouch.game import GameError

    if years < 1 or timeout <= 0:
        raise GameError(msg("--years must be at least 1 and --timeout above 0"))
    outside = OutsideBot(program, timeout=timeout)
    try:
        if game is not None:
            if len(power) != 1:
                raise GameError(msg("with --game, name the one power the program plays: --power NAME"))
            from dippouch.bots.seats import play_outside

            move = play_outside(_store(db), game, power[0], outside, now=_now(now))
            if move is None:
                tell(out, msg("%(power)s has nothing to order in %(game)s now.", power=power[0], game=game))
            else:
                sent_by = msg(
                    "%(power)s sent version %(version)s for %(phase)s in %(game)s (source bot).",
                    power=move.power,
                    version=move.version if move.version is not None else "-",
                    phase=PhaseName(move.phase),
                    game=game,
                )
                tell(out, sent_by)
        else:
            from dippouch.bots.play import play_game
            from dippouch.catalog import load_variant

            v = load_variant(variant)
            mine = [v.power(p).name for p in power] or [v.power_names[0]]
            other = make_bot(others)
            record = play_game(v, {p: outside if p in mine else other for p in v.power_names}, seed, max_years=years)
            ending = _ENDINGS.get(record.ending, record.ending)
            tell(
                out,
                nmsg(
                    "%(variant)s: %(ending)s after %(num)d game year, %(phases)s phases.",
                    "%(variant)s: %(ending)s after %(num)d game years, %(phases)s phases.",
                    record.years,
                    variant=v.title,
                    ending=ending,
                    phases=record.phases,
                ),
            )
            for p in v.power_names:
                tell(out, _centres(f"{p:<28}", record.centres[p], None if p in mine else others), indent="  ")
        for line in outside.dropped:
            tell(err, msg("dropped an order the program sent: %(order)s", order=line))
        for line in outside.failures:
            err.print(line, markup=False)  # the bot module's own account of the program's failure, as it gives it
        if outside.silent:
            tell(
                err,
                nmsg(
                    "the program gave no usable answer %(num)d time (its units held)",
                    "the program gave no usable answer %(num)d times (its units held)",
                    outside.silent,
                ),
            )
    finally:
        outside.close()


def _centres(power: str, centres: int, level: str | None) -> Msg:
    """A power's line of a practice game's table: ``power`` padded to its column, the count right-aligned, and
    who played it (the program under test when ``level`` is None, else a bot of that level)."""
    if level is None:
        return nmsg(
            "%(power)s %(num)3d centre  (program)", "%(power)s %(num)3d centres  (program)", centres, power=power
        )
    return nmsg(
        "%(power)s %(num)3d centre  (%(level)s)",
        "%(power)s %(num)3d centres  (%(level)s)",
        centres,
        power=power,
        level=level,
    )
