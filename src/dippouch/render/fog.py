"""A stored phase as a fog-of-war player may see it (:mod:`dippouch.core.sight`): what every door that shows a
phase (its maps, its page, its report, the game's JSON) draws from instead of the phase itself.

The positions before and after the phase are veiled by what the powers saw in each. An order or result of
another power is kept only when every province it names was seen before or after the phase (an army seen
leaving for a province nobody of theirs can see would tell where it went); a kept result's reason is dropped
when it names a province where a hidden unit stood. The versions a phase's players sent are kept for the
reader's own powers only. Applied at display, never in the adjudicator.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.notation import OrderParseError, parse_order
from dippouch.core.position import Position
from dippouch.core.sight import Sight, sight_of, veil
from dippouch.core.variant import Variant
from dippouch.game import GameError, position_from_data, position_to_data

__all__ = ["fog_record", "hidden_provinces", "order_provinces"]

_PLACES = ("loc", "dest", "target")
"""The fields of an order that name a location (the core's orders and the variants' own kinds alike)."""


def order_provinces(
    variant: Variant, text: str, kind: PhaseKind | str | None
) -> tuple[int | None, frozenset[int], bool] | None:
    """The province of the unit an order's text orders (None for none), every province it names, and whether
    it builds; None when it cannot be read (then it is shown to nobody but its power). Kept on the variant: a
    game's orders are read again for each reader and picture."""
    kept: dict[tuple[str, str], Any] = variant.derived.setdefault("render.fog.orders", {})
    key = (text, str(kind))
    if key in kept:
        return kept[key]  # type: ignore[no-any-return]
    got = _order_provinces(variant, text, kind)
    if len(kept) > 50_000:
        kept.clear()
    kept[key] = got
    return got


def _order_provinces(
    variant: Variant, text: str, kind: PhaseKind | str | None
) -> tuple[int | None, frozenset[int], bool] | None:
    try:
        order = parse_order(variant, text, phase_kind=kind)
    except OrderParseError:
        return None
    if not dataclasses.is_dataclass(order):
        return None
    out = set()
    for f in dataclasses.fields(order):
        value = getattr(order, f.name, None)
        if f.name in _PLACES and isinstance(value, int):
            out.add(variant.map.province_of(value))
    loc = order.unit_loc
    unit = variant.map.province_of(loc) if isinstance(loc, int) else None
    return unit, frozenset(out), type(order).__name__ == "Build"


def hidden_provinces(position: Position, seen: Sight) -> set[int]:
    """The provinces of ``position`` where a unit stands that ``seen`` does not show."""
    return {p for p in position.units if p not in seen.units} | {
        p for p in position.dislodged if p not in seen.dislodged
    }


def _namer(variant: Variant, provinces: Iterable[int]) -> re.Pattern[str] | None:
    """A pattern finding any name or abbreviation of a location in ``provinces`` (None for none)."""
    wanted = set(provinces)
    words = {w.lower() for loc in variant.map.locations if loc.province in wanted for w in (loc.name, loc.abbr) if w}
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?:{alternatives})(?![\w])", re.I)


def _position(variant: Variant, data: Any) -> Position | None:
    if not data:
        return None
    try:
        return position_from_data(variant, data)
    except GameError:
        return None


def fog_record(variant: Variant, record: Mapping[str, Any], powers: Iterable[str]) -> dict[str, Any]:
    """``record`` (a stored phase: ``position``, ``orders``, ``results``, ``next_position``, maybe
    ``submissions``) with only what ``powers`` saw of it. A position that cannot be read is left out whole."""
    who = frozenset(powers)
    out = dict(record)
    before = _position(variant, record.get("position"))
    after = _position(variant, record.get("next_position"))
    seen_before = sight_of(variant, before, who) if before is not None else None
    seen_after = sight_of(variant, after, who) if after is not None else None
    m = variant.map
    out["sight_powers"] = sorted(who)  # the report tells the others' centre changes and adjustments by it
    if seen_before is not None:
        out["seen"] = sorted(m.provinces[p].abbr for p in seen_before.provinces)
    if seen_after is not None:
        out["seen_after"] = sorted(m.provinces[p].abbr for p in seen_after.provinces)
    if "position" in record:
        out["position"] = (
            position_to_data(variant, veil(before, seen_before))
            if before is not None and seen_before is not None
            else None
        )
    if record.get("next_position") is not None:
        out["next_position"] = (
            position_to_data(variant, veil(after, seen_after)) if after is not None and seen_after is not None else None
        )
    seen: set[int] = set()
    hidden: set[int] = set()
    for pos, s in ((before, seen_before), (after, seen_after)):
        if pos is not None and s is not None:
            seen |= s.provinces
            hidden |= hidden_provinces(pos, s)
    was_seen = seen_before.provinces if seen_before is not None else frozenset()
    now_seen = seen_after.provinces if seen_after is not None else frozenset()
    kind = variant.calendar.kind(before.phase) if before is not None else None

    def shown(power: Any, text: Any) -> bool:
        """Another power's order is told when its unit stood in sight (a build: stands in sight after), and
        every place it names was seen before or after."""
        if power in who:
            return True
        read = order_provinces(variant, str(text), kind)
        if read is None:
            return False
        unit, named, build = read
        if build:
            return bool(named) and named <= now_seen
        return unit is not None and unit in was_seen and named <= seen

    orders = record.get("orders")
    if isinstance(orders, Mapping):
        out["orders"] = {
            p: [line for line in lines if shown(p, line)]
            for p, lines in orders.items()
            if isinstance(lines, list) and (p in who or any(shown(p, line) for line in lines))
        }
    results = record.get("results")
    if isinstance(results, list):
        namer = _namer(variant, hidden)
        kept = []
        for r in results:
            if not isinstance(r, Mapping) or not shown(r.get("power"), r.get("order", "")):
                continue
            r = dict(r)
            told = json.dumps([r.get("reason"), r.get("why")], ensure_ascii=False)
            if namer is not None and namer.search(told):
                r["reason"] = ""
                r.pop("why", None)
            kept.append(r)
        out["results"] = kept
    if isinstance(record.get("submissions"), list):
        out["submissions"] = [s for s in record["submissions"] if isinstance(s, Mapping) and s.get("power") in who]
    return out
