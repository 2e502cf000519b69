"""Fog of war at the DAIDE door: a client seated in a fog game is told only what its power sees (NOW, SCO, ORD,
HST, and THX's notes: an order for a unit out of sight is answered as one for no unit), an observer no unit
while the game runs and the whole board once it has ended; the same game without fog tells everything."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from typing import Any

from daidesupport import Raw
from dippouch.core.sight import sight
from dippouch.game import GameSettings, position_from_data
from dippouch.interop.daide.board import DaideBoard
from dippouch.play.daide import daide_server
from dippouch.play.orders import send_orders
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import variant_copy as variant_copy

UNIT = re.compile(r"\( (\w{3}) (AMY|FLT) (?:\( )?(\w{3})")
"""A unit in a NOW or an ORD: its power, kind and province (a coast's bracket skipped)."""


def _play_spring(store: GameStore, *, fog: bool) -> dict[str, Any]:
    """Game ``g`` (fog or not): a client takes Austria and moves, the others hold; what it and an observer
    were told of the turn."""
    store_games.create_game(store, "g", "standard", now=datetime.now(UTC), settings=GameSettings(fog=fog))

    def others_ready() -> None:
        for power in ("England", "France", "Germany", "Italy", "Russia", "Turkey"):
            send_orders(store, "g", power, "", source="cli", ready=True, replace_with_nothing=True)

    async def body(port: int) -> dict[str, Any]:
        c = await Raw.open(port)
        power, _ = await c.join()
        c.send("SCO")
        sco_before = await c.until("SCO")
        c.send("NOW")
        now_before = await c.until("NOW")
        watcher = await Raw.open(port)
        watcher.send("OBS")
        await watcher.until("MAP")
        watcher.send("YES (MAP ('standard'))")
        watched = [await watcher.until("SCO"), await watcher.until("NOW")]
        c.send("SUB ((AUS AMY MUN) HLD) ((AUS AMY VEN) HLD)")  # Germany's army out of sight, Italy's in it
        probed = [await c.until("THX"), await c.until("THX")]
        c.send("SUB ((AUS FLT TRI) MTO ADR) ((AUS AMY VIE) MTO GAL) ((AUS AMY BUD) HLD)")
        for _ in range(3):
            await c.until("THX")
        await asyncio.to_thread(others_ready)
        told = []
        while not (t := await c.text()).startswith("NOW"):
            told.append(t)
        c.send("ORD")
        asked: list[str] = []
        while len(asked) < len([m for m in told if m.startswith("ORD")]):
            asked.append(await c.until("ORD"))
        c.send("HST (SPR 1901)")
        history = []
        while not (h := await c.text()).startswith("NOW"):
            history.append(h)
        watched.append(await watcher.until("NOW"))
        return {
            "power": power,
            "sco_before": sco_before,
            "now_before": now_before,
            "told": told,
            "now": t,
            "ord": asked,
            "history": history,
            "history_now": h,
            "watched": watched,
            "probed": probed,
        }

    async def main() -> dict[str, Any]:
        server = daide_server(store, "g", poll=0.1)
        port = await server.start("127.0.0.1", 0)
        try:
            return await asyncio.wait_for(body(port), 60)
        finally:
            await server.close()

    return asyncio.run(main())


def _sights(store: GameStore) -> tuple[set[str], set[str]]:
    """The DAIDE names of the provinces Austria saw before and after Spring 1901, by the core's rule."""
    variant = variant_copy.variant_of(store, "g")
    board = DaideBoard(variant)
    record = store_history.phase_record(store, "g", "Spring 1901 Movement")
    before = sight(variant, position_from_data(variant, record["position"]), "Austria")
    after = sight(variant, position_from_data(variant, record["next_position"]), "Austria")
    return (
        {board.prov_names[p] for p in before.provinces},
        {board.prov_names[p] for p in after.provinces},
    )


def _units(text: str) -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in UNIT.finditer(text)]


def _centres(sco: str) -> set[str]:
    return {w for group in re.findall(r"\( (\w{3}(?: \w{3})*) \)", sco) for w in group.split()[1:]}


def test_a_fog_client_is_told_only_what_its_power_sees(store: GameStore) -> None:
    seen = _play_spring(store, fog=True)
    assert seen["power"] == "AUS"
    saw_before, saw_after = _sights(store)
    ords = [m for m in seen["told"] if m.startswith("ORD")]
    assert ords and ords == seen["ord"] == [h for h in seen["history"] if h.startswith("ORD")]
    for message in ords:
        assert _units(message)[0][2] in saw_before, message  # the first unit of an ORD is the one ordered
    assert "ORD ( SPR 1901 ) ( ( AUS FLT TRI ) MTO ADR ) ( SUC )" in ords
    assert "ORD ( SPR 1901 ) ( ( ITA AMY VEN ) HLD ) ( SUC )" in ords  # a neighbour's unit is seen holding
    assert len(ords) < 22
    for now, saw in ((seen["now_before"], saw_before), (seen["now"], saw_after), (seen["history_now"], saw_after)):
        units = _units(now)
        assert units and all(u[2] in saw for u in units), now
        assert not any(u[0] in ("ENG", "FRA", "TUR") for u in units), now
    assert ("RUS", "AMY", "WAR") in _units(seen["now"])  # seen from Galicia after the move
    centres = _centres(seen["sco_before"])
    assert {"VIE", "BUD", "TRI", "VEN", "SER"} <= centres <= saw_before
    assert not {"LON", "PAR", "BUL"} & set(seen["sco_before"].split())  # unseen centres are not told unowned
    for sco in [m for m in seen["told"] + seen["history"] if m.startswith("SCO")]:
        assert _centres(sco) <= saw_after, sco
    assert seen["probed"] == ["THX ( ( AUS AMY MUN ) HLD ) ( NSU )", "THX ( ( AUS AMY VEN ) HLD ) ( NYU )"]
    assert seen["watched"][0] == "SCO" and seen["watched"][1:] == ["NOW ( SPR 1901 )", "NOW ( FAL 1901 )"]


def test_the_same_game_without_fog_tells_everything(store: GameStore) -> None:
    seen = _play_spring(store, fog=False)
    ords = [m for m in seen["told"] if m.startswith("ORD")]
    assert len(ords) == 22 and ords == seen["ord"]
    assert "ORD ( SPR 1901 ) ( ( ENG FLT LON ) HLD ) ( SUC )" in ords
    assert len(_units(seen["now"])) == 22 and len(_units(seen["now_before"])) == 22
    assert {"LON", "LVP", "EDI", "BUL", "PAR"} <= _centres(seen["sco_before"])
    assert seen["probed"] == ["THX ( ( AUS AMY MUN ) HLD ) ( NYU )", "THX ( ( AUS AMY VEN ) HLD ) ( NYU )"]
    assert len(_units(seen["watched"][1])) == 22 and len(_units(seen["watched"][2])) == 22


def test_an_observer_of_a_fog_game_sees_the_whole_board_once_it_has_ended(store: GameStore) -> None:
    from dippouch.play.votes import vote

    store_games.create_game(store, "g", "standard", now=datetime.now(UTC), settings=GameSettings(fog=True))

    async def observe(port: int) -> list[str]:
        c = await Raw.open(port)
        c.send("OBS")
        await c.until("MAP")
        c.send("YES (MAP ('standard'))")
        return [await c.until("SCO"), await c.until("NOW")]

    async def main() -> dict[str, Any]:
        server = daide_server(store, "g", poll=0.1)
        port = await server.start("127.0.0.1", 0)
        try:
            running = await asyncio.wait_for(observe(port), 30)
            c = await Raw.open(port)
            c.send("OBS")
            await c.until("MAP")
            c.send("YES (MAP ('standard'))")
            await c.until("NOW")

            def all_draw() -> None:
                for power in variant_copy.variant_of(store, "g").power_names:
                    vote(store, "g", power, True, now=datetime.now(UTC))

            await asyncio.to_thread(all_draw)
            ending = await asyncio.wait_for(c.until("SCO"), 30)
        finally:
            await server.close()
        server = daide_server(store, "g", poll=0.1)
        port = await server.start("127.0.0.1", 0)
        try:
            ended = await asyncio.wait_for(observe(port), 30)
        finally:
            await server.close()
        return {"running": running, "ending": ending, "ended": ended}

    seen = asyncio.run(main())
    assert seen["running"] == ["SCO", "NOW ( SPR 1901 )"]
    assert {"LON", "PAR", "VIE", "MOS"} <= _centres(seen["ending"])
    assert {"LON", "PAR", "VIE", "MOS"} <= _centres(seen["ended"][0])
    assert len(_units(seen["ended"][1])) == 22
