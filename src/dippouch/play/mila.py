"""Games to and from MILA ``diplomacy`` saved games: the converter (:mod:`dippouch.interop.mila`) applied to
stored games, through the store's public methods.

Export writes the current line of play (abandoned phases are not part of a MILA game). Import does not trust
another engine's results: it replays the saved orders phase by phase through dippouch's own adjudicator, so
the imported game has a full dippouch history (submissions, results, reports) from the first phase.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from dippouch.catalog import load_variant
from dippouch.core.messages import PhaseName, msg
from dippouch.game import GameError, position_from_data
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import transfer as store_transfer
from dippouch.store import variant_copy as variant_copy
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

__all__ = ["export_mila", "import_mila"]


def export_mila(store: GameStore, game: str) -> dict[str, Any]:
    from dippouch.core.notation import parse_order
    from dippouch.interop.mila import PhaseRecord, to_mila_saved_game

    data = store_transfer.export_game(store, game)
    gd = data["game"]
    v = variant_copy.variant_of(store, game)  # the game's own copy: a user variant's file may be out of reach
    records: list[PhaseRecord] = []
    active = [p for p in data["phases"] if p["status"] != "abandoned"]
    for p in active:
        pos = position_from_data(v, p["position"])
        if p["status"] == "processed" and p["next_position"] is not None:
            kind = v.calendar.kind(pos.phase)
            orders = {pw: [parse_order(v, t, phase_kind=kind) for t in ts] for pw, ts in (p["orders"] or {}).items()}
            records.append(PhaseRecord(pos, orders))
        elif p["status"] == "open":
            records.append(PhaseRecord(pos, {}))
    if active and active[-1]["status"] == "processed" and active[-1]["next_position"] is not None:
        records.append(PhaseRecord(position_from_data(v, active[-1]["next_position"]), {}))
    return to_mila_saved_game(v, records, game_id=gd["name"])


def import_mila(store: GameStore, data: Mapping[str, Any], *, name: str | None, now: datetime) -> str:
    from dippouch.core.notation import format_order
    from dippouch.game import position_to_data
    from dippouch.interop.mila import from_mila_saved_game

    v = load_variant("standard")
    try:
        records = from_mila_saved_game(v, data)
    except (TypeError, AttributeError, ValueError, KeyError) as e:
        raise GameError(
            msg("not a usable MILA saved game (%(kind)s: %(reason)s)", kind=type(e).__name__, reason=str(e))
        ) from None
    game = (name or str(data.get("id") or "")).strip()
    if not game:
        raise GameError(msg("the saved game has no id; give the imported game a name with --name"))
    store_games.create_game(store, game, "standard", now=now, position=position_to_data(v, records[0].position))
    for rec in records[:-1]:
        kind = v.calendar.kind(rec.position.phase)
        st = store_status.status(store, game, now=now)
        if st.ending is not None:
            break
        expected = v.calendar.name(rec.position.phase)
        if st.phase != expected:
            raise GameError(
                msg(
                    "replaying the saved game reached %(phase)s, but the saved game has %(next)s next",
                    phase=PhaseName(st.phase or ""),
                    next=PhaseName(expected),
                )
            )
        for power, orders in rec.orders.items():
            must = next((p for p in st.powers if p.power == power), None)
            if must is None or not must.must_act or not orders:
                continue
            text = "\n".join(format_order(v, o, phase_kind=kind) for o in orders)
            store_submissions.submit(store, game, power, text, now=now, ready=True)
        store_processing.process(store, game, now=now, force=True)
    return game
