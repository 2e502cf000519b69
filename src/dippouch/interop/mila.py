"""MILA ``diplomacy`` saved games, both directions.

The MILA ``diplomacy`` package (and the large game datasets built with it) stores a game as one JSON object:
``{"id", "map", "rules", "phases": [{"name": "S1901M", "state": {...}, "orders": {...}, "results": {...},
"messages": [...]}]}`` (what ``diplomacy.utils.export.to_saved_game_format`` writes and
``from_saved_game_format`` reads). This module converts between that object and a neutral list of
:class:`PhaseRecord` (position, orders, results), so the game layer can import and export without knowing the
format, and this module needs no part of the MILA package itself: it is plain data in, plain data out.

Only maps laid out like the standard one can be expressed: MILA names provinces by the same three-letter
abbreviations and powers by upper-case names, and its map is fixed by the ``"map"`` field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from dippouch.catalog import load_variant
from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Dislodged, Position, Unit
from dippouch.core.results import OrderResult, Outcome
from dippouch.core.variant import Variant

I18N_DOMAIN = "rules"
"""The catalogue of the MILA conversion's refusals, said in the reader's language where they are shown
(dippouch.saying)."""

__all__ = [
    "MILA_RULES",
    "MilaFormatError",
    "PhaseRecord",
    "from_mila_saved_game",
    "order_from_mila",
    "order_to_mila",
    "phase_from_mila",
    "phase_to_mila",
    "position_from_mila_state",
    "position_to_mila_state",
    "to_mila_saved_game",
]

#: Rules MILA writes for an ordinary standard game (its defaults minus the ones its exporter drops).
MILA_RULES = ("NO_PRESS", "POWER_CHOICE")


class MilaFormatError(DippouchError):
    """A MILA saved game (or a game to be written as one) that cannot be converted; says where and why."""


class PhaseRecord(NamedTuple):
    """One phase of a game's history, in dippouch's terms.

    ``orders`` maps power name -> orders in submitted order; it is empty for a phase not yet played.
    ``results`` are the adjudicator's results when known (an import leaves them ``None``: dippouch
    re-adjudicates rather than trusting another engine's verdicts).
    """

    position: Position
    orders: Mapping[str, Sequence[Order]]
    results: Sequence[OrderResult] | None = None


# --- names -----------------------------------------------------------------------------------------------


def _map_signature(variant: Variant) -> tuple[frozenset[tuple[str, ...]], frozenset[str]]:
    m = variant.map
    names = [loc.abbr for loc in m.locations]
    edges = frozenset(
        (names[a], "A" if army else "F", names[b])
        for army, adj in ((True, m.army_adj), (False, m.fleet_adj))
        for a, targets in enumerate(adj)
        for b in targets
    )
    return edges | frozenset((n,) for n in names), frozenset(p.upper() for p in variant.power_names)


def _check_variant(variant: Variant) -> None:
    """MILA's saved games name their map, and only its standard map is supported: the variant must use it.

    Comparing provinces, adjacency and powers (not the variant's name) lets variants on the standard board,
    such as 1897, through.
    """
    if _map_signature(variant) != _map_signature(load_variant("standard")):
        raise MilaFormatError(
            msg(
                "variant %(variant)s cannot be converted to or from a MILA saved game: MILA games here use the "
                "standard map and powers, and this variant's board or powers differ",
                variant=variant.name,
            )
        )


def phase_to_mila(variant: Variant, phase: Phase) -> str:
    """``S1901M``: season initial, year, phase kind initial."""
    season = variant.calendar.season(phase)
    kind = variant.calendar.kind(phase)
    return f"{season[:1].upper()}{phase.year}{kind.value[0].upper()}"


def phase_from_mila(variant: Variant, name: str) -> Phase:
    try:
        return variant.calendar.parse(name)
    except DippouchError as e:
        raise MilaFormatError(msg("phase %(phase)s: %(why)s", phase=repr(name), why=e.msg)) from None


def _power_from_mila(variant: Variant, name: str, where: str) -> str:
    try:
        return variant.power(name).name
    except KeyError as e:
        said = e.msg if isinstance(e, DippouchError) else str(e.args[0])
        raise MilaFormatError(msg("%(where)s: %(why)s", where=where, why=said)) from None


def _loc_to_mila(variant: Variant, loc: int) -> str:
    return variant.map.locations[loc].abbr.upper()


def _loc_from_mila(variant: Variant, text: str, where: str) -> int:
    try:
        return variant.map.loc(text)
    except KeyError:
        raise MilaFormatError(
            msg(
                "%(where)s: no province or coast %(place)s on the %(variant)s map",
                where=where,
                place=repr(text),
                variant=variant.name,
            )
        ) from None


def _table(value: Any, where: str) -> Mapping[str, Any]:
    """A JSON object from the file, or a clear error (a missing one reads as empty)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MilaFormatError(
            msg("%(where)s: expected an object, found %(found)s", where=where, found=type(value).__name__)
        )
    return value


def _texts(value: Any, where: str) -> list[str]:
    """A JSON list of strings from the file, or a clear error (a missing one reads as empty)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MilaFormatError(
            msg("%(where)s: expected a list of strings, found %(found)s", where=where, found=repr(value)[:60])
        )
    return value


def _unit_to_mila(variant: Variant, kind: str, loc: int) -> str:
    return f"{kind} {_loc_to_mila(variant, loc)}"


def _unit_from_mila(variant: Variant, text: str, where: str) -> tuple[str, int]:
    parts = text.split()
    if len(parts) != 2 or parts[0] not in ("A", "F"):
        raise MilaFormatError(
            msg("%(where)s: unit %(unit)s should read like 'A PAR' or 'F STP/SC'", where=where, unit=repr(text))
        )
    return parts[0], _loc_from_mila(variant, parts[1], where)


# --- orders ----------------------------------------------------------------------------------------------


def _kind_at(position: Position, loc: int, given: str | None, variant: Variant) -> str:
    """MILA needs the unit type everywhere; take it from the order, else from the unit standing there."""
    if given:
        return given
    province = variant.map.province_of(loc)
    unit = position.units.get(province)
    if unit is None and province in position.dislodged:
        unit = position.dislodged[province].unit
    return unit.kind if unit is not None else "A"


def order_to_mila(variant: Variant, position: Position, order: Order) -> str:
    """One order in MILA's syntax: ``A PAR - BUR``, ``A LON - BEL VIA``, ``F NTH C A LON - BEL``, ``A PAR B``."""
    kind = variant.calendar.kind(position.phase)
    if isinstance(order, Waive):
        return "WAIVE"
    if isinstance(order, Build):
        return f"{_unit_to_mila(variant, order.kind, order.loc)} B"
    unit_loc = order.unit_loc
    if unit_loc is None:
        raise MilaFormatError(msg("order %(order)s has no MILA equivalent", order=repr(order)))
    unit = _unit_to_mila(variant, _kind_at(position, unit_loc, getattr(order, "kind", None), variant), unit_loc)
    if isinstance(order, Hold):
        return f"{unit} H"
    if isinstance(order, Move):
        text = f"{unit} - {_loc_to_mila(variant, order.dest)}"
        return text + " VIA" if order.via_convoy else text
    if isinstance(order, Retreat):
        return f"{unit} R {_loc_to_mila(variant, order.dest)}"
    if isinstance(order, Disband):
        return f"{unit} D"
    if isinstance(order, Support):
        target = _unit_to_mila(variant, _kind_at(position, order.target, order.target_kind, variant), order.target)
        if order.dest is None:
            return f"{unit} S {target}"
        return f"{unit} S {target} - {_loc_to_mila(variant, order.dest)}"
    if isinstance(order, Convoy):
        return f"{unit} C A {_loc_to_mila(variant, order.target)} - {_loc_to_mila(variant, order.dest)}"
    raise MilaFormatError(
        msg(
            "a %(kind)s order cannot be written for MILA (phase kind %(phase)s)",
            kind=type(order).__name__,
            phase=kind.value,
        )
    )


def order_from_mila(variant: Variant, kind: PhaseKind, text: str, where: str = "order") -> Order:
    """Read one MILA order. MILA's syntax is strict (upper case, single spaces), so this parser is too.

    ``D`` means disband in a retreat phase and a removal in an adjustment phase; dippouch has one
    :class:`Disband` order for both, so the phase kind only matters for ``-`` (a retreat written as a move).
    """
    words = text.split()
    where = f"{where} {text!r}"
    if words == ["WAIVE"]:
        return Waive()
    if len(words) < 3:
        raise MilaFormatError(msg("%(where)s: too short for a MILA order (expected e.g. 'A PAR - BUR')", where=where))
    ukind, loc = _unit_from_mila(variant, " ".join(words[:2]), where)
    verb, rest = words[2], words[3:]
    if verb == "H" and not rest:
        return Hold(ukind, loc)
    if verb == "B" and not rest:
        return Build(ukind, loc)
    if verb == "D" and not rest:
        return Disband(ukind, loc)
    if verb in ("-", "R") and rest:
        via = rest[-1] == "VIA"
        if via:
            rest = rest[:-1]
        if len(rest) == 1:
            dest = _loc_from_mila(variant, rest[0], where)
            if kind == PhaseKind.RETREATS:
                return Retreat(ukind, loc, dest)
            if verb == "-":
                return Move(ukind, loc, dest, via_convoy=via)
    if verb == "S" and len(rest) in (2, 4):
        tkind, target = _unit_from_mila(variant, " ".join(rest[:2]), where)
        if len(rest) == 2:
            return Support(ukind, loc, tkind, target)
        if rest[2] == "-":
            return Support(ukind, loc, tkind, target, _loc_from_mila(variant, rest[3], where))
    if verb == "C" and len(rest) == 4 and rest[2] == "-":
        _, target = _unit_from_mila(variant, " ".join(rest[:2]), where)
        return Convoy(ukind, loc, target, _loc_from_mila(variant, rest[3], where))
    raise MilaFormatError(
        msg(
            "%(where)s: not a MILA order; expected one of 'A PAR H', 'A PAR - BUR [VIA]', 'A MUN S A SIL - BER', "
            "'F NTH C A LON - BEL', 'A MUN R BOH', 'A MUN D', 'A PAR B', 'WAIVE'",
            where=where,
        )
    )


# --- results ---------------------------------------------------------------------------------------------


def _result_codes(result: OrderResult, kind: PhaseKind) -> list[str]:
    """MILA's per-unit result words: '' (nothing to report), bounce, cut, void, dislodged, disrupted, disband.

    In retreats MILA marks every unit that leaves the board ``disband`` (after ``bounce`` for a standoff).
    """
    codes: list[str] = []
    outcome = result.result
    order = result.order
    if outcome in (Outcome.ILLEGAL, Outcome.INVALID):
        codes.append("void")
    elif outcome == Outcome.FAILS:
        if isinstance(order, Retreat):
            codes.append("bounce")
        else:
            codes.append("void" if isinstance(order, (Build, Disband, Waive)) else "bounce")
    if kind == PhaseKind.RETREATS and (
        isinstance(order, Disband) or (isinstance(order, Retreat) and outcome != Outcome.SUCCEEDS)
    ):
        codes.append("disband")
        return codes
    elif outcome == Outcome.CUT:
        codes.append("cut")
    elif outcome == Outcome.DISRUPTED:
        codes.append("disrupted")
    if result.dislodged:
        codes.append("dislodged")
    if result.destroyed:
        codes.append("disband")
    return codes


def _results_to_mila(variant: Variant, position: Position, results: Sequence[OrderResult]) -> dict[str, list[str]]:
    kind = variant.calendar.kind(position.phase)
    out: dict[str, list[str]] = {}
    for r in results:
        if isinstance(r.order, Waive):
            key = "WAIVE"
        elif isinstance(r.order, Build):
            key = _unit_to_mila(variant, r.order.kind, r.order.loc)
        else:
            loc = r.order.unit_loc
            if loc is None:
                continue
            key = _unit_to_mila(variant, _kind_at(position, loc, getattr(r.order, "kind", None), variant), loc)
        out.setdefault(key, []).extend(_result_codes(r, kind))
    return out


# --- positions -------------------------------------------------------------------------------------------


def position_to_mila_state(variant: Variant, position: Position) -> dict[str, Any]:
    """MILA's ``state`` object for one phase (without the bookkeeping fields the saved game adds)."""
    gmap = variant.map
    kind = variant.calendar.kind(position.phase)
    state: dict[str, Any] = {
        "name": phase_to_mila(variant, position.phase),
        "units": {},
        "retreats": {},
        "centers": {},
        "homes": {},
        "influence": {},
        "civil_disorder": {},
        "builds": {},
    }
    for power in variant.power_names:
        key = power.upper()
        units = [u for u in position.units.values() if u.power == power]
        dislodged = [d for d in position.dislodged.values() if d.unit.power == power]
        centres = sorted(p for p, owner in position.centres.items() if owner == power)
        homes = sorted(position.homes.get(power, frozenset()))
        state["units"][key] = [_unit_to_mila(variant, u.kind, u.loc) for u in units] + [
            "*" + _unit_to_mila(variant, d.unit.kind, d.unit.loc) for d in dislodged
        ]
        state["retreats"][key] = {
            _unit_to_mila(variant, d.unit.kind, d.unit.loc): sorted(_loc_to_mila(variant, r) for r in d.retreats)
            for d in dislodged
        }
        state["centers"][key] = [_loc_to_mila(variant, p) for p in centres]
        state["homes"][key] = [_loc_to_mila(variant, p) for p in homes]
        # MILA's "influence" (last occupier of a province) only colours its maps; owned centres and
        # occupied provinces are the closest thing dippouch knows.
        influence = set(centres) | {gmap.province_of(u.loc) for u in units}
        state["influence"][key] = [_loc_to_mila(variant, p) for p in sorted(influence)]
        state["civil_disorder"][key] = 0
        count = 0
        sites: list[str] = []
        if kind == PhaseKind.ADJUSTMENTS:
            count = len(centres) - len(units)
            if count > 0:
                occupied = {gmap.province_of(u.loc) for u in position.units.values()}
                free = [p for p in homes if position.centres.get(p) == power and p not in occupied]
                sites = [_loc_to_mila(variant, p) for p in free]
                count = min(count, len(free))
        state["builds"][key] = {"count": count, "homes": sites}
    return state


def position_from_mila_state(variant: Variant, state: Mapping[str, Any], where: str = "state") -> Position:
    gmap = variant.map
    name = state.get("name")
    if not isinstance(name, str):
        raise MilaFormatError(msg("%(where)s: missing phase name", where=where))
    phase = phase_from_mila(variant, name)
    units: dict[int, Unit] = {}
    dislodged: dict[int, Dislodged] = {}
    centres: dict[int, str] = {}
    homes: dict[str, frozenset[int]] = {}
    retreats_data = _table(state.get("retreats"), f"{where}.retreats")
    for power_key, texts in _table(state.get("units"), f"{where}.units").items():
        power = _power_from_mila(variant, power_key, f"{where}.units")
        power_retreats = _table(retreats_data.get(power_key), f"{where}.retreats.{power_key}")
        for text in _texts(texts, f"{where}.units.{power_key}"):
            is_dislodged = text.startswith("*")
            ukind, loc = _unit_from_mila(variant, text.lstrip("*"), f"{where}.units.{power_key}")
            province = gmap.province_of(loc)
            unit = Unit(power, ukind, loc)
            if is_dislodged:
                options = _texts(power_retreats.get(text.lstrip("*")), f"{where}.retreats.{power_key}")
                dests = frozenset(_loc_from_mila(variant, r, f"{where}.retreats.{power_key}") for r in options)
                dislodged[province] = Dislodged(unit, dests)
            else:
                if province in units:
                    raise MilaFormatError(
                        msg(
                            "%(where)s.units: two units in %(place)s",
                            where=where,
                            place=gmap.provinces[province].abbr.upper(),
                        )
                    )
                units[province] = unit
    for power_key, names in _table(state.get("centers"), f"{where}.centers").items():
        power = _power_from_mila(variant, power_key, f"{where}.centers")
        for c in _texts(names, f"{where}.centers.{power_key}"):
            centres[gmap.province_of(_loc_from_mila(variant, c, f"{where}.centers.{power_key}"))] = power
    homes_data = state.get("homes")
    if homes_data is None:
        homes = dict(variant.start.homes)
    else:
        for power in variant.power_names:
            homes[power] = frozenset()
        for power_key, names in _table(homes_data, f"{where}.homes").items():
            power = _power_from_mila(variant, power_key, f"{where}.homes")
            homes[power] = frozenset(
                gmap.province_of(_loc_from_mila(variant, c, f"{where}.homes.{power_key}"))
                for c in _texts(names, f"{where}.homes.{power_key}")
            )
    return Position(phase=phase, units=units, centres=centres, homes=homes, dislodged=dislodged)


# --- whole games -----------------------------------------------------------------------------------------


def to_mila_saved_game(
    variant: Variant,
    phases: Sequence[PhaseRecord | tuple[Any, ...]],
    *,
    game_id: str = "dippouch",
    map_name: str = "standard",
    rules: Sequence[str] = MILA_RULES,
) -> dict[str, Any]:
    """A MILA saved game (a JSON-ready dict) from a game's phases, oldest first.

    Every record but the last is a played phase and carries the orders used (a power without orders is
    written as ``[]``: it submitted none). The last record is the current phase; its missing powers are
    written as ``null``, which MILA reads as "not yet ordered".
    """
    _check_variant(variant)
    out_phases: list[dict[str, Any]] = []
    for i, raw in enumerate(phases):
        record = PhaseRecord(*raw)
        position = record.position
        last = i == len(phases) - 1
        state = position_to_mila_state(variant, position)
        state.update(
            {
                "timestamp": i,
                "zobrist_hash": "0",
                "note": "",
                "game_id": game_id,
                "map": map_name,
                "rules": list(rules),
            }
        )
        orders: dict[str, list[str] | None] = {}
        for power in variant.power_names:
            given = record.orders.get(power)
            if given is None:
                orders[power.upper()] = None if last else []
            else:
                orders[power.upper()] = [order_to_mila(variant, position, o) for o in given]
        results = _results_to_mila(variant, position, record.results) if record.results else {}
        out_phases.append({"name": state["name"], "state": state, "orders": orders, "results": results, "messages": []})
    return {"id": game_id, "map": map_name, "rules": list(rules), "phases": out_phases}


def _same_lists(a: Any, b: Any) -> bool:
    if not isinstance(a, Mapping) or not isinstance(b, Mapping):
        return bool(a == b)
    try:
        return {k: sorted(v) for k, v in a.items()} == {k: sorted(v) for k, v in b.items()}
    except TypeError:  # not lists of names: not the same, and the full check will say what is wrong
        return False


def from_mila_saved_game(variant: Variant, data: Mapping[str, Any]) -> list[PhaseRecord]:
    """The phases of a MILA saved game as :class:`PhaseRecord` (results left ``None``).

    A final ``COMPLETED`` phase (MILA's marker for a finished game) becomes the phase that would have
    followed, so the final position is kept; when it merely repeats the last phase (a draw declared before
    that phase was played) it is left out.
    """
    _check_variant(variant)
    if not isinstance(data, Mapping):
        raise MilaFormatError(msg("a MILA saved game is a JSON object with 'id', 'map' and 'phases'"))
    map_name = data.get("map", "standard")
    if map_name != "standard":
        raise MilaFormatError(
            msg("MILA map %(map)s is not supported; only 'standard' games can be imported", map=repr(map_name))
        )
    raw_phases = data.get("phases")
    if not isinstance(raw_phases, list) or not raw_phases:
        raise MilaFormatError(msg("the saved game has no 'phases' list"))
    records: list[PhaseRecord] = []
    for i, ph in enumerate(raw_phases):
        where = f"phases[{i}]"
        if not isinstance(ph, Mapping) or not isinstance(ph.get("state"), Mapping):
            raise MilaFormatError(msg("%(where)s: each phase needs a 'state' object", where=where))
        state = dict(ph["state"])
        name = str(ph.get("name") or state.get("name") or "")
        if name == "COMPLETED":
            if not records:
                raise MilaFormatError(msg("%(where)s: a game cannot start COMPLETED", where=where))
            previous = raw_phases[i - 1]["state"]
            if all(_same_lists(state.get(k), previous.get(k)) for k in ("units", "centers")):
                break  # ended (a draw) without playing the last phase: the previous record is the end
            prev = records[-1].position.phase
            kinds = [PhaseKind.MOVEMENT, PhaseKind.ADJUSTMENTS]
            units_data = _table(state.get("units"), f"{where}.state.units")
            if any(u.startswith("*") for key, us in units_data.items() for u in _texts(us, f"{where}.units.{key}")):
                kinds.append(PhaseKind.RETREATS)
            state["name"] = phase_to_mila(variant, variant.calendar.following(prev, kinds))
        position = position_from_mila_state(variant, state, f"{where}.state")
        kind = variant.calendar.kind(position.phase)
        orders: dict[str, list[Order]] = {}
        for power_key, texts in _table(ph.get("orders"), f"{where}.orders").items():
            if texts is None:
                continue
            power = _power_from_mila(variant, power_key, f"{where}.orders")
            orders[power] = [
                order_from_mila(variant, kind, t, f"{where}.orders.{power_key}")
                for t in _texts(texts, f"{where}.orders.{power_key}")
            ]
        records.append(PhaseRecord(position, orders, None))
    return records
