"""Bot commands: seat a bot on a power, a game's civil-disorder policy, and ``dippouch bot`` for outside bots."""

from __future__ import annotations

import typer

from dippouch.cli import app
from dippouch.cli.game import DbOption, NowOption, _now, _store, err, friendly, out


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
    from dippouch.bots.seats import play_seats
    from dippouch.play.seats import seat_bot

    store = _store(db)
    got = seat_bot(store, game, power, level, now=_now(now))
    moves = play_seats(store, now=_now(now), games=[game])
    sent = next((m for m in moves if m.power == got.power and m.version is not None), None)
    note = f"; it sent version {sent.version} for {sent.phase}" if sent else ""
    out.print(f"{got.change.player} now plays {got.power} in {game}{note}.")


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
        out.print(f"Powers in civil disorder in {game} are no longer handed to a bot.")
    else:
        out.print(f"Powers in civil disorder in {game} are handed to a {chosen} bot until a person takes the seat.")


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
        raise GameError("--years must be at least 1 and --timeout above 0")
    outside = OutsideBot(program, timeout=timeout)
    try:
        if game is not None:
            if len(power) != 1:
                raise GameError("with --game, name the one power the program plays: --power NAME")
            from dippouch.bots.seats import play_outside

            move = play_outside(_store(db), game, power[0], outside, now=_now(now))
            if move is None:
                out.print(f"{power[0]} has nothing to order in {game} now.")
            else:
                out.print(f"{move.power} sent version {move.version} for {move.phase} in {game} (source bot).")
        else:
            from dippouch.bots.play import play_game
            from dippouch.catalog import load_variant

            v = load_variant(variant)
            mine = [v.power(p).name for p in power] or [v.power_names[0]]
            other = make_bot(others)
            record = play_game(v, {p: outside if p in mine else other for p in v.power_names}, seed, max_years=years)
            out.print(f"{v.title}: {record.ending} after {record.years} game year(s), {record.phases} phases.")
            for p in v.power_names:
                who = "program" if p in mine else others
                out.print(f"  {p:<28} {record.centres[p]:>3} centres  ({who})")
        for line in outside.dropped:
            err.print(f"dropped an order the program sent: {line}", markup=False)
        for line in outside.failures:
            err.print(line, markup=False)
        if outside.silent:
            err.print(f"the program gave no usable answer {outside.silent} time(s) (its units held)")
    finally:
        outside.close()
