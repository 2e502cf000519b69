"""``dippouch daide``: serve a stored game over DAIDE (``serve``), or seat one of our bots on a DAIDE server
(``join``). The protocol's modules are imported inside the commands, to keep start-up light."""

from __future__ import annotations

import typer

from dippouch.cli import app, command_group, keep_running
from dippouch.cli.game import DbOption, _store, err, friendly, out
from dippouch.cli.words import tell
from dippouch.core.messages import msg, nmsg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

daide = command_group(help="DAIDE, the protocol of the hobby's bots: serve a game to them, or join their server.")
app.add_typer(daide, name="daide")


@daide.command("serve")
@friendly
def serve(
    game: str = typer.Option(..., "--game", help="The stored game DAIDE clients take seats in."),
    port: int = typer.Option(16713, "--port", help="TCP port (0: any free port, printed)."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every IPv4 interface; ::, every interface)."
    ),
    power: list[str] = typer.Option(  # noqa: B008
        [],
        "--power",
        help="A power DAIDE clients may take (repeatable; default: every power), each only while its seat is "
        "empty or a program's.",
    ),
    poll: float = typer.Option(1.0, "--poll", help="Seconds between looks at the game for phases processed."),
    connections: int = typer.Option(64, "--max-connections", help="Connections at once (more are closed at once)."),
    idle: float = typer.Option(
        60.0, "--idle", help="Seconds a connection that holds no seat and observes nothing may stay silent."
    ),
    db: str | None = DbOption,
) -> None:
    """Serve GAME over DAIDE until it ends (Ctrl-C stops): each client that says NME gets a power whose seat is
    empty or a program's (a bot's) when it asks; a person's seat is never taken."""
    import asyncio

    from dippouch.game import GameError
    from dippouch.interop.daide.board import NotServable
    from dippouch.interop.daide.server import Limits
    from dippouch.play.daide import daide_server

    if poll <= 0 or not 0 <= port <= 65535:
        raise GameError(msg("--poll must be above 0 and --port between 0 and 65535"))
    if connections < 1 or idle <= 0:
        raise GameError(msg("--max-connections must be at least 1 and --idle above 0 seconds"))
    limits = Limits(connections=connections, per_address=min(connections, Limits.per_address), idle=idle)
    keep_running()
    store = _store(db)

    async def run() -> None:
        try:
            server = daide_server(store, game, seats=power or None, poll=poll, limits=limits)
        except NotServable as e:
            raise GameError(e.msg) from None
        bound = await server.start(host, port)
        seats = ", ".join(server.wanted or server.variant.power_names)
        address = f"{host}:{bound}"
        serving = msg(
            "Serving %(game)s (%(variant)s, map %(map)s) over DAIDE on %(address)s.",
            game=game,
            variant=server.variant.title,
            map=server.board.map_name,
            address=address,
        )
        tell(out, serving)
        tell(
            out,
            msg(
                "Seats for DAIDE clients: %(powers)s, each while its seat is empty or a bot's when a client asks.",
                powers=seats,
            ),
        )
        try:
            await server.finished.wait()
            tell(out, msg("%(game)s has ended; the DAIDE clients were told.", game=game))
        finally:
            await server.close()

    asyncio.run(run())


@daide.command("join")
@friendly
def join(
    host: str = typer.Option("127.0.0.1", "--host", help="The DAIDE server's address."),
    port: int = typer.Option(16713, "--port", help="The DAIDE server's port."),
    level: str = typer.Option("heuristic", "--level", help="Our bot's level: hold, random, heuristic or search."),
    name: str = typer.Option("", "--name", help="The name the bot gives in NME (default: dippouch-LEVEL)."),
    seed: int = typer.Option(1, "--seed"),
    draw_from: int | None = typer.Option(None, "--draw-from", help="Vote for a draw every turn from this year on."),
) -> None:
    """Seat one of our bots on a DAIDE server: it plays the power the server gives it until the game ends."""
    import asyncio

    from dippouch.bots import make_bot
    from dippouch.bots.seats import check_level
    from dippouch.interop.daide.client import DaideClient

    chosen = check_level(level)
    client = DaideClient(make_bot(chosen), name=name or f"dippouch-{chosen}", seed=seed, draw_from=draw_from)
    try:
        report = asyncio.run(client.play(host, port))
    except OSError as e:
        from dippouch.game import GameError

        raise GameError(
            msg("cannot reach a DAIDE server at %(host)s:%(port)s: %(error)s", host=host, port=port, error=str(e))
        ) from None
    if report.power is None:
        tell(err, msg("The server gave the bot no seat (or a map it does not know)."))
        raise typer.Exit(1)
    played = nmsg(
        "Played %(power)s: orders for %(num)d turn, %(refused)s refused.",
        "Played %(power)s: orders for %(num)d turns, %(refused)s refused.",
        report.turns,
        power=report.power,
        refused=len(report.refused),
    )
    tell(out, played)
    for line in report.refused:
        tell(err, msg("refused: %(order)s", order=line))
    if report.ending:
        tell(out, msg("The game ended: %(ending)s", ending=report.ending))
