"""What a DAIDE server takes from its clients, over real sockets on 127.0.0.x (issue 52, the security review's
findings 5 and 6): passcodes guessed in 5,660 tries in 0.2 s, idle connections never closed, no cap on
connections, and a 65,534-byte message whose echo raised in the connection's handler. Also the seat a client
holds ends when the game gives it to a person by another door (its passcode opens nothing then)."""

from __future__ import annotations

import asyncio
import logging
import re
import struct
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from daidesupport import Raw
from dippouch.interop.daide.codec import ErrorCode, Wire, frame
from dippouch.interop.daide.server import DaideServer, Limits
from dippouch.interop.daide.tokens import BRA
from dippouch.play.daide import USE_CASES
from dippouch.play.seats import seat
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status

OTHER = "127.0.0.2"
"""A second loopback address: a client there is another address for the limits."""


class Timer:
    """The server's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.at = 1000.0

    def __call__(self) -> float:
        return self.at


def _serve(
    store: GameStore,
    body: Callable[[DaideServer, int], Awaitable[Any]],
    *,
    limits: Limits | None = None,
    timer: Timer | None = None,
    poll: float = 0.1,
) -> Any:
    store_games.create_game(store, "g", "standard", now=datetime.now(UTC))

    async def main() -> Any:
        server = DaideServer(store, "g", use=USE_CASES, poll=poll, limits=limits, timer=timer or Timer())
        port = await server.start("127.0.0.1", 0)
        try:
            return await asyncio.wait_for(body(server, port), 60)
        finally:
            await server.close()

    return asyncio.run(main())


async def _iam(port: int, power: str, code: int, *, source: str | None = None) -> tuple[Raw, str]:
    c = await Raw.open(port, source=source)
    c.send(f"IAM ({power}) ({code})")
    return c, await c.text()


def test_passcode_guessing_is_stopped_per_connection_and_per_address(store: GameStore) -> None:
    timer = Timer()

    async def body(server: DaideServer, port: int) -> None:
        holder = await Raw.open(port)
        power, passcode = await holder.join("holder")
        holder.writer.close()
        await asyncio.sleep(0.3)
        wrong = [n for n in range(1, 40) if n != passcode]
        # One connection gets three wrong passcodes, then it is closed.
        guesser = await Raw.open(port, source=OTHER)
        for n in wrong[:3]:
            guesser.send(f"IAM ({power}) ({n})")
            assert (await guesser.text()).startswith("REJ ( IAM")
        assert await guesser.closed()
        # Ten from the address within ten minutes bar it: its connections are closed, new ones refused, and even
        # the right passcode is refused from it while the bar lasts.
        for chunk in (wrong[3:6], wrong[6:9]):
            guesser = await Raw.open(port, source=OTHER)
            for n in chunk:
                guesser.send(f"IAM ({power}) ({n})")
                assert (await guesser.text()).startswith("REJ ( IAM")
            assert await guesser.closed()
        waiting = await Raw.open(port, source=OTHER)  # a seatless connection of the address, open at the bar
        guesser = await Raw.open(port, source=OTHER)
        guesser.send(f"IAM ({power}) ({wrong[9]})")
        assert (await guesser.text()).startswith("REJ ( IAM")
        assert await guesser.closed() and await waiting.closed()
        refused = Raw(*await asyncio.open_connection("127.0.0.1", port, local_addr=(OTHER, 0)))
        assert await refused.closed()
        # The seat's own client, at its own address, comes back with its passcode all the while.
        back, said = await _iam(port, power, passcode)
        assert said.startswith(f"YES ( IAM ( {power} )")
        back.writer.close()
        await asyncio.sleep(0.3)
        # The bar ends: the address is served again (and its next wrong passcodes are counted afresh).
        timer.at += 601
        late, said = await _iam(port, power, passcode, source=OTHER)
        assert said.startswith(f"YES ( IAM ( {power} )")
        late.writer.close()

    _serve(store, body, timer=timer)


def test_an_idle_connection_is_closed_and_a_seated_one_may_wait(store: GameStore) -> None:
    async def body(server: DaideServer, port: int) -> None:
        seated = await Raw.open(port)
        await seated.join("patient")
        never = await Raw.open(port, hello=False)  # not even the initial message
        idle = await Raw.open(port)  # the initial message, then nothing
        observer = await Raw.open(port)
        observer.send("OBS")
        assert (await observer.text()) == "YES ( OBS )"
        kind, payload = await idle.read()
        assert kind == Wire.EM and int.from_bytes(payload, "big") == ErrorCode.TIMEOUT
        assert await idle.closed(2)
        kind, payload = await never.read()
        assert kind == Wire.EM and int.from_bytes(payload, "big") == ErrorCode.TIMEOUT
        # Longer silent than the idle limit, a client in the game and an observer are still served.
        await asyncio.sleep(1.0)
        for c in (seated, observer):
            c.send("MAP")
            assert await c.until("MAP") == "MAP ( 'standard' )"

    _serve(store, body, limits=Limits(idle=0.5))


def test_the_connection_cap_refuses_one_more_and_takes_one_when_a_place_is_free(store: GameStore) -> None:
    async def body(server: DaideServer, port: int) -> None:
        first = [await Raw.open(port) for _ in range(2)]
        other = await Raw.open(port, source=OTHER)
        # Two from one address at most: a third from it is closed at once, before any message.
        extra = Raw(*await asyncio.open_connection("127.0.0.1", port))
        assert await extra.closed()
        # Three at most: one from a new address is refused too.
        third = Raw(*await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.3", 0)))
        assert await third.closed()
        # A place freed is taken again.
        first[0].writer.close()
        await asyncio.sleep(0.3)
        again = await Raw.open(port)
        again.send("MAP")
        assert await again.text() == "MAP ( 'standard' )"
        other.send("MAP")
        assert await other.text() == "MAP ( 'standard' )"

    _serve(store, body, limits=Limits(connections=3, per_address=2))


@pytest.mark.parametrize("limit", [Limits().message, 0xFFFF])
def test_a_65534_byte_message_is_refused_with_an_error_message_not_an_exception(
    store: GameStore, caplog: pytest.LogCaptureFixture, limit: int
) -> None:
    """The review's message: 32,767 tokens whose brackets do not match, so the answer would echo it (PRN) in a
    message longer than DAIDE's header can say. Refused from its header by default; taken in (a server whose
    limit is DAIDE's own), its echo is refused instead. Either way error message 0x09 and the connection closed,
    nothing logged as an unhandled exception, and the server serves the next client."""

    async def body(server: DaideServer, port: int) -> None:
        c = await Raw.open(port)
        c.writer.write(frame(Wire.DM, struct.pack(">H", BRA) * 32767))
        kind, payload = await c.read()
        assert kind == Wire.EM and int.from_bytes(payload, "big") == ErrorCode.LENGTH
        assert await c.closed()
        after = await Raw.open(port)
        after.send("MAP")
        assert await after.text() == "MAP ( 'standard' )"

    with caplog.at_level(logging.INFO):
        _serve(store, body, limits=Limits(message=limit))
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records if "Unhandled exception" in r.getMessage()]


def test_a_seat_the_game_gives_a_person_is_the_clients_no_more(store: GameStore) -> None:
    """A coordinator seats a person where a DAIDE client played: the client is told OFF and closed, its passcode
    opens nothing, and orders it sent before the server noticed are refused, not recorded for the person."""

    async def body(server: DaideServer, port: int) -> None:
        c = await Raw.open(port)
        power, passcode = await c.join("leaver")
        name = {"AUS": "Austria"}[power]
        await asyncio.to_thread(lambda: seat(store, "g", name, "Hugo", now=datetime.now(UTC), replace=True))
        assert await c.until("OFF") == "OFF"
        assert await c.closed()
        _, said = await _iam(port, power, passcode)
        assert said.startswith(f"REJ ( IAM ( {power} )")
        assert {p: cur for p, cur, _ in store_games.players(store, "g")}[name] == "Hugo"

    _serve(store, body)


def test_orders_sent_before_the_server_notices_a_new_player_are_refused(store: GameStore) -> None:
    async def body(server: DaideServer, port: int) -> str:
        c = await Raw.open(port)
        power, _ = await c.join("late")
        await asyncio.to_thread(lambda: seat(store, "g", "Austria", "Hugo", now=datetime.now(UTC), replace=True))
        c.send(f"SUB (({power} AMY VIE) HLD)")
        return await c.until("REJ|THX")

    # The server looks at the game only every 60 seconds here: the seat's holder is checked with the orders.
    said = _serve(store, body, poll=60)
    assert re.match(r"REJ \( SUB", said), said
    assert store_status.status(store, "g", now=datetime.now(UTC)).powers[0].version is None
