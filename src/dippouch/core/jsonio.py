"""Positions as JSON, in the shape of the adjudication contract (docs/adjudication-contract.md).

The JSON is for people and other programs, so it uses names, not ids: units are ``{"power": "Russia",
"unit": "F stp/sc"}`` in the canonical short form, centres are lists of province abbreviations, the phase is
its calendar name (``"Spring 1901 Movement"``). Reading is tolerant (any notation :mod:`notation` reads,
power adjectives and letters) and strict about meaning: a fleet on a split-coast province must name its
coast, two units may not share a province, and every mistake is reported with where it is
(``units[3].unit: ...``) and what would have been right.

Omitted parts default to the variant's starting position, so ``{}`` is the variant's first phase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.messages import Msg, msg
from dippouch.core.notation import OrderParseError, format_order, format_unit, parse_unit
from dippouch.core.position import Dislodged, Position, Unit
from dippouch.core.results import OrderResult
from dippouch.core.rules.base import hooks_for, state_problems
from dippouch.core.variant import Variant

__all__ = ["JsonInputError", "position_from_json", "position_to_json", "result_to_json", "unit_to_json"]

I18N_DOMAIN = "rules"
"""The catalogue of the JSON reader's refusals, said in the reader's language where they are shown (the JSON
contract keeps their English)."""


class JsonInputError(DippouchError):
    """A position in JSON that cannot be read; the message starts with the path of the bad value (a path is the
    program's words, the same in every language; what is wrong there is a message value)."""

    def __init__(self, where: str, message: Msg | str) -> None:
        self.where = where
        super().__init__(msg("%(where)s: %(why)s", where=where, why=message) if where else message)


def unit_to_json(variant: Variant, unit: Unit) -> dict[str, str]:
    return {"power": unit.power, "unit": format_unit(variant, unit.kind, unit.loc)}


def position_to_json(variant: Variant, position: Position) -> dict[str, Any]:
    """The contract's position shape: phase, units, dislodged (with retreats), centres, homes, state.

    Lists are sorted (by power in the variant's order, then location) so equal positions give equal JSON.
    """
    gmap = variant.map
    order = {name: i for i, name in enumerate(variant.power_names)}

    def by_power(u: Unit) -> tuple[int, str, str]:
        return (order.get(u.power, len(order)), u.power, gmap.locations[u.loc].abbr)

    dislodged: list[dict[str, Any]] = []
    for d in sorted(position.dislodged.values(), key=lambda d: by_power(d.unit)):
        entry: dict[str, Any] = {
            **unit_to_json(variant, d.unit),
            "retreats": sorted(gmap.locations[r].abbr for r in d.retreats),
        }
        if d.attacker_from is not None:
            entry["attacker_from"] = gmap.provinces[d.attacker_from].abbr
        dislodged.append(entry)

    def centre_lists(owners: Mapping[int, str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for prov, power in owners.items():
            out.setdefault(power, []).append(gmap.provinces[prov].abbr)
        return {p: sorted(out[p]) for p in sorted(out, key=lambda p: (order.get(p, len(order)), p))}

    homes = {p: sorted(gmap.provinces[h].abbr for h in hs) for p, hs in position.homes.items()}
    data: dict[str, Any] = {
        "phase": variant.calendar.name(position.phase),
        "units": [unit_to_json(variant, u) for u in sorted(position.units.values(), key=by_power)],
        "dislodged": dislodged,
        "supply_centers": centre_lists(position.centres),
        "home_centers": {p: homes[p] for p in sorted(homes, key=lambda p: (order.get(p, len(order)), p))},
    }
    if position.state:
        data["state"] = dict(position.state)
    return data


def result_to_json(variant: Variant, result: OrderResult, phase_kind: PhaseKind) -> dict[str, Any]:
    """One order's result as a game keeps it (and the renderer, the reports and the API read it): the
    order in canonical notation, so a stored phase reads the same whatever the adjudicator's ids."""
    return {
        "power": result.power,
        "order": format_order(variant, result.order, phase_kind=phase_kind),
        "result": str(result.result),
        "dislodged": bool(result.dislodged),
        "destroyed": bool(result.destroyed),
        "automatic": bool(result.automatic),
        "reason": result.reason,
        "index": result.index,
    }


def position_from_json(variant: Variant, data: Mapping[str, Any]) -> Position:
    """Read the contract's position shape; what is omitted comes from the variant's starting position.

    Raises :class:`JsonInputError` naming the bad value's path.
    """
    if not isinstance(data, Mapping):
        raise JsonInputError("", msg("a position must be a JSON object, not %(found)s", found=type(data).__name__))
    start = variant.start
    phase = start.phase
    if data.get("phase") is not None:
        if not isinstance(data["phase"], str):
            raise JsonInputError("phase", msg('must be a phase name like "Spring 1901 Movement"'))
        try:
            phase = variant.calendar.parse(data["phase"])
        except DippouchError as e:
            raise JsonInputError("phase", e.msg) from None

    units: dict[int, Unit] = dict(start.units)
    if data.get("units") is not None:
        units = {}
        for i, entry in enumerate(_list(data["units"], "units")):
            u = _unit(variant, entry, f"units[{i}]")
            prov = variant.map.province_of(u.loc)
            if prov in units:
                other = units[prov]
                raise JsonInputError(
                    f"units[{i}]",
                    message=msg(
                        "%(unit)s and %(other)s of %(power)s are both in %(place)s; one unit per province",
                        unit=format_unit(variant, u.kind, u.loc),
                        other=format_unit(variant, other.kind, other.loc),
                        power=other.power,
                        place=variant.map.provinces[prov].name,
                    ),
                )
            units[prov] = u

    dislodged: dict[int, Dislodged] = {}
    for i, entry in enumerate(_list(data.get("dislodged") or [], "dislodged")):
        where = f"dislodged[{i}]"
        u = _unit(variant, entry, where)
        prov = variant.map.province_of(u.loc)
        if prov in dislodged:
            raise JsonInputError(where, msg("two dislodged units in %(place)s", place=variant.map.provinces[prov].name))
        if "retreats" not in entry:
            raise JsonInputError(where, msg('needs "retreats": the provinces it may retreat to (may be [])'))
        retreats = frozenset(
            _location(variant, r, f"{where}.retreats[{j}]") for j, r in enumerate(_list(entry["retreats"], where))
        )
        attacker = entry.get("attacker_from")
        attacker_id = (
            variant.map.province_of(_location(variant, attacker, f"{where}.attacker_from"))
            if attacker is not None
            else None
        )
        dislodged[prov] = Dislodged(u, retreats, attacker_id)

    centres: dict[int, str] = dict(start.centres)
    if data.get("supply_centers") is not None:
        centres = {}
        for power, provs in _owners(variant, data["supply_centers"], "supply_centers").items():
            for j, prov in enumerate(provs):
                if not variant.map.provinces[prov].supply_centre:
                    raise JsonInputError(
                        f"supply_centers.{power}[{j}]",
                        message=msg("%(place)s is not a supply centre", place=variant.map.provinces[prov].name),
                    )
                if prov in centres:
                    raise JsonInputError(
                        f"supply_centers.{power}[{j}]",
                        message=msg(
                            "%(place)s is also owned by %(power)s",
                            place=variant.map.provinces[prov].name,
                            power=centres[prov],
                        ),
                    )
                centres[prov] = power

    homes: dict[str, frozenset[int]] = dict(start.homes)
    if data.get("home_centers") is not None:
        given = _owners(variant, data["home_centers"], "home_centers")
        homes = {p: frozenset() for p in variant.power_names} | {p: frozenset(v) for p, v in given.items()}

    state = data.get("state", start.state)
    problems = state_problems(variant, state)
    if problems:
        key, problem = problems[0]
        raise JsonInputError(f"state.{key}" if key else "state", message=problem)
    return Position(phase=phase, units=units, centres=centres, homes=homes, dislodged=dislodged, state=dict(state))


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise JsonInputError(where, msg("must be a list, not %(found)s", found=type(value).__name__))
    return value


def _power(variant: Variant, name: Any, where: str) -> str:
    if not isinstance(name, str):
        raise JsonInputError(where, msg("a power name is text, not %(found)s", found=repr(name)))
    try:
        return variant.power(name).name
    except KeyError as e:
        raise JsonInputError(where, e.msg if isinstance(e, DippouchError) else str(e.args[0])) from None


def _location(variant: Variant, text: Any, where: str) -> int:
    if not isinstance(text, str):
        raise JsonInputError(where, msg("a province is text, not %(found)s", found=repr(text)))
    try:
        kind, loc = parse_unit(variant, text)
    except OrderParseError as e:
        raise JsonInputError(where, e.msg) from None
    if kind is not None:
        raise JsonInputError(where, msg("expected a province, not a unit %(unit)s", unit=repr(text)))
    return loc


def _unit(variant: Variant, entry: Any, where: str) -> Unit:
    if not isinstance(entry, Mapping):
        raise JsonInputError(where, msg('must be an object like {"power": "England", "unit": "F lon"}'))
    power = _power(variant, entry.get("power"), f"{where}.power")
    text = entry.get("unit")
    if not isinstance(text, str):
        raise JsonInputError(f"{where}.unit", message=msg('must be a unit like "A par" or "F stp/sc"'))
    try:
        kind, loc = parse_unit(variant, text)
    except OrderParseError as e:
        raise JsonInputError(f"{where}.unit", message=e.msg) from None
    gmap = variant.map
    prov = gmap.provinces[gmap.province_of(loc)]
    if kind is None:
        # Only one kind can stand on a sea or inland: say it for the writer; a coast needs the type.
        if prov.kind == ProvinceKind.SEA or (loc != prov.id):
            kind = "F"
        elif prov.kind == ProvinceKind.LAND:
            kind = "A"
        else:
            raise JsonInputError(
                f"{where}.unit",
                message=msg(
                    "say which unit is in %(place)s: A %(abbr)s or F %(abbr)s", place=prov.name, abbr=prov.abbr
                ),
            )
    moves_as = hooks_for(variant).movement_kind(kind)
    if moves_as == "F" and loc == prov.id and prov.coasts:
        options = " or ".join(f"F {gmap.locations[c].abbr}" for c in prov.coasts)
        raise JsonInputError(
            f"{where}.unit",
            message=msg(
                "a fleet in %(place)s stands on one of its coasts: %(options)s", place=prov.name, options=options
            ),
        )
    if moves_as in ("A", "F") and not gmap.can_hold(moves_as, loc):
        said = (
            msg("a fleet cannot stand in %(place)s", place=prov.name)
            if moves_as == "F"
            else msg("an army cannot stand in %(place)s", place=prov.name)
        )
        raise JsonInputError(f"{where}.unit", message=said)
    return Unit(power, kind, loc)


def _owners(variant: Variant, value: Any, where: str) -> dict[str, list[int]]:
    if not isinstance(value, Mapping):
        raise JsonInputError(where, msg('must be an object like {"England": ["lon", "lvp"]}'))
    out: dict[str, list[int]] = {}
    for name, provs in value.items():
        power = _power(variant, name, f"{where}.{name}")
        out[power] = [
            variant.map.province_of(_location(variant, p, f"{where}.{name}[{j}]"))
            for j, p in enumerate(_list(provs, f"{where}.{name}"))
        ]
    return out
