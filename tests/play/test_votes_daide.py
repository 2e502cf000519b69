"""DAIDE's DRW with powers (``DRW (AUS ENG)``) is the table's draw proposal (dippouch.play.votes.draw_of): the
first such DRW proposes it, the next with the same powers votes yes on it, the last yes ends the game in a draw of
those powers; a DRW naming a draw the scoring system refuses is answered REJ and records nothing. On a real
DAIDE socket."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from daidesupport import Raw
from dippouch.game import GameSettings
from dippouch.play import votes
from dippouch.play.daide import daide_server
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status


def _serve(store: GameStore, body: Any, **settings: Any) -> Any:
    store_games.create_game(store, "g", "standard", now=datetime.now(UTC), settings=GameSettings(**settings))

    async def main() -> Any:
        server = daide_server(store, "g", poll=0.1)
        port = await server.start("127.0.0.1", 0)
        try:
            return await asyncio.wait_for(body(port), 60)
        finally:
            await server.close()

    return asyncio.run(main())


def test_drw_with_powers_proposes_a_draw_of_them_and_the_last_yes_ends_the_game(store: GameStore) -> None:
    async def body(port: int) -> list[str]:
        a, b = await Raw.open(port), await Raw.open(port)
        pa, _ = await a.join()
        pb, _ = await b.join()
        a.send(f"DRW ({pa} {pb})")
        first = await a.text()
        b.send(f"DRW ({pb} {pa})")
        second = await b.text()
        return [pa, pb, first, second]

    _, _, first, second = _serve(store, body)
    assert first.startswith("YES") and second.startswith("YES"), (first, second)
    now = datetime.now(UTC)
    [p] = [p for p in votes.proposals(store, "g", now=now) if p.status == "open"]
    assert p.kind == "draw" and p.yes == 2
    named = p.values["powers"]
    for power in p.voters:
        if p.ballots.get(power) is None:
            d = votes.draw_of(store, "g", power, named, now=now)
    st = store_status.status(store, "g", now=now)
    assert st.ending is not None and st.ending.kind == "draw" and sorted(st.ending.powers) == sorted(named)
    assert d.proposal.status == "passed"


def test_drw_with_powers_is_refused_rej_where_the_scoring_system_refuses_it(store: GameStore) -> None:
    async def body(port: int) -> str:
        a = await Raw.open(port)
        pa, _ = await a.join()
        other = "ENG" if pa != "ENG" else "FRA"
        a.send(f"DRW ({pa} {other})")
        return await a.text()

    said = _serve(store, body, scoring="sos")
    assert said.startswith("REJ"), said
    assert votes.proposals(store, "g", now=datetime.now(UTC)) == []
