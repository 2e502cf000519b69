"""Compiled maps: provinces and coasts as integer ids, adjacency precomputed once.

A variant file describes its map in words (see docs/variant-format.md). Adjudication and legal-order
generation run millions of adjacency look-ups, so :func:`compile_map` turns the words into tuples of
frozensets indexed by integer ids; nothing on a hot path touches a string.

Location ids: ``0 .. P-1`` are the provinces themselves (where armies stand and where fleets stand in
provinces without split coasts); split coasts get ids ``P ..`` after them.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any

from dippouch.core.derived import Derived
from dippouch.core.errors import NotFound, VariantProblem
from dippouch.core.messages import msg

I18N_DOMAIN = "rules"
"""The catalogue of the map's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "GameMap",
    "Location",
    "Province",
    "ProvinceKind",
    "compile_map",
]


class ProvinceKind(StrEnum):
    """What may stand in a province: armies on land, fleets at sea, both on a coast."""

    LAND = "land"
    COAST = "coast"
    SEA = "sea"
    IMPASSABLE = "impassable"


@dataclass(frozen=True, slots=True)
class Province:
    id: int
    abbr: str
    name: str
    kind: ProvinceKind
    supply_centre: bool
    aliases: tuple[str, ...]
    point: tuple[float, float] | None
    coasts: tuple[int, ...] = ()
    """Location ids of the split coasts; empty for an ordinary province."""


@dataclass(frozen=True, slots=True)
class Location:
    id: int
    province: int
    coast: str | None
    abbr: str
    """``"stp/sc"`` for a coast, the province abbreviation otherwise."""
    name: str
    """``"St Petersburg (south coast)"`` for a coast, the province name otherwise."""


@dataclass(frozen=True, slots=True, eq=False)
class GameMap:
    """An immutable, compiled map.

    Adjacency is held three ways because the adjudicator asks three questions: where can an army go
    (province to province), where can a fleet go (location to location, coasts matter), and which
    provinces can a fleet reach at all (for supports, where coasts do not matter).
    """

    provinces: tuple[Province, ...]
    locations: tuple[Location, ...]
    army_adj: tuple[frozenset[int], ...]
    """Province id -> province ids an army can move to."""
    fleet_adj: tuple[frozenset[int], ...]
    """Location id -> location ids a fleet there can move to."""
    fleet_reach: tuple[frozenset[int], ...]
    """Location id -> province ids a fleet there can move to (coasts ignored)."""
    names: Mapping[str, int] = field(repr=False)
    """Lower-case abbreviation, full name or alias -> location id."""
    seas_next_to: tuple[frozenset[int], ...] = ()
    """Province id -> sea provinces a fleet there could convoy from or to (for convoy routes)."""
    derived: Derived = field(default_factory=Derived, init=False, repr=False, compare=False)
    """Tables the adjudicator and legal-order generation derive from this map, kept with it so they go with it."""

    @property
    def province_count(self) -> int:
        return len(self.provinces)

    def province_of(self, loc: int) -> int:
        return self.locations[loc].province

    def loc(self, name: str) -> int:
        """The location id for an exact abbreviation, name or alias (case-insensitive)."""
        try:
            return self.names[name.strip().lower()]
        except KeyError:
            raise NotFound(msg("no province or coast %(place)s on this map", place=repr(name))) from None

    def province(self, name: str) -> Province:
        return self.provinces[self.province_of(self.loc(name))]

    def label(self, loc: int) -> str:
        """How the adjudicator's reasons and the arrival check's messages name a province or coast: by its
        full name (``St Petersburg (south coast)``), since players read them and do not know the map's
        abbreviations. One place, so every explanation names places the same way."""
        return self.locations[loc].name

    def unit_label(self, kind: str | None, loc: int) -> str:
        """A unit in explanations: ``A Paris``; the type is left out when unknown."""
        return f"{kind} {self.label(loc)}" if kind else self.label(loc)

    def fleet_locations(self, province: int) -> tuple[int, ...]:
        """Where a fleet may stand in a province: its coasts, or the province itself."""
        p = self.provinces[province]
        if p.coasts:
            return p.coasts
        if p.kind in (ProvinceKind.COAST, ProvinceKind.SEA):
            return (province,)
        return ()

    def can_hold(self, kind: str, loc: int) -> bool:
        """Whether a unit of ``kind`` ("A" or "F") may stand on ``loc``."""
        p = self.provinces[self.locations[loc].province]
        if kind == "F":
            return loc in self.fleet_locations(p.id)
        return loc == p.id and p.kind in (ProvinceKind.LAND, ProvinceKind.COAST)

    @property
    def supply_centres(self) -> tuple[int, ...]:
        return tuple(p.id for p in self.provinces if p.supply_centre)

    def army_edge_count(self) -> int:
        return sum(len(a) for a in self.army_adj) // 2

    def fleet_edge_count(self) -> int:
        return sum(len(a) for a in self.fleet_adj) // 2


_COAST_NAMES = {
    "nc": "north coast",
    "sc": "south coast",
    "ec": "east coast",
    "wc": "west coast",
}


def _as_list(value: Any, where: Callable[[], str], problems: list[VariantProblem]) -> list[str]:
    """``where`` is called only for a message: finding a key's line is dear, and most lists are fine."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(VariantProblem(where(), "must be a list of names"))
        return []
    return [v.strip().lower() for v in value]


def compile_map(
    provinces_data: Mapping[str, Mapping[str, Any]],
    *,
    extra_fleet_edges: Iterable[tuple[str, str]] = (),
    locate: Any = None,
) -> tuple[GameMap, list[VariantProblem]]:
    """Build a :class:`GameMap` from the ``[provinces]`` table of a variant file.

    Returns the map and every problem found, so that a variant author sees all mistakes in one run.
    ``extra_fleet_edges`` are edges a variant derives in code (W3K sea areas) rather than lists.
    ``locate(path)`` maps a TOML key path to a human place ("line 12"); it only improves messages.
    """
    problems: list[VariantProblem] = []

    def where(*path: str) -> str:
        dotted = ".".join(path)
        if locate is not None:
            place = locate(path)
            if place:
                return f"{dotted} ({place})"
        return dotted

    provinces: list[Province] = []
    locations: list[Location] = []
    names: dict[str, int] = {}
    coast_specs: list[tuple[int, str, Mapping[str, Any]]] = []

    for pid, (raw_abbr, data) in enumerate(provinces_data.items()):
        abbr = raw_abbr.strip().lower()
        kind_text = str(data.get("type", "")).lower()
        try:
            kind = ProvinceKind(kind_text)
        except ValueError:
            problems.append(
                VariantProblem(
                    where("provinces", raw_abbr, "type"),
                    f"unknown province type {kind_text!r}; use land, coast, sea or impassable",
                )
            )
            kind = ProvinceKind.LAND
        name = str(data.get("name", abbr))
        sc = bool(data.get("sc", False))
        if sc and kind in (ProvinceKind.SEA, ProvinceKind.IMPASSABLE):
            problems.append(
                VariantProblem(
                    where("provinces", raw_abbr, "sc"), f"a supply centre cannot be on a {kind.value} province"
                )
            )
        point_raw = data.get("point")
        point: tuple[float, float] | None = None
        if point_raw is not None:
            if (
                isinstance(point_raw, list)
                and len(point_raw) == 2
                and all(isinstance(v, (int, float)) for v in point_raw)
            ):
                point = (float(point_raw[0]), float(point_raw[1]))
            else:
                problems.append(VariantProblem(where("provinces", raw_abbr, "point"), "must be [longitude, latitude]"))
        aliases = tuple(_as_list(data.get("aliases"), partial(where, "provinces", raw_abbr, "aliases"), problems))
        provinces.append(Province(pid, abbr, name, kind, sc, aliases, point))
        locations.append(Location(pid, pid, None, abbr, name))
        coasts = data.get("coasts")
        if coasts is not None:
            if not isinstance(coasts, Mapping) or not coasts:
                problems.append(VariantProblem(where("provinces", raw_abbr, "coasts"), "must be a table of coasts"))
            elif kind != ProvinceKind.COAST:
                problems.append(
                    VariantProblem(
                        where("provinces", raw_abbr, "coasts"),
                        f"only a coast province can have coasts, not a {kind.value} one",
                    )
                )
            else:
                if "fleet" in data:
                    problems.append(
                        VariantProblem(
                            where("provinces", raw_abbr, "fleet"),
                            "a province with split coasts lists fleet moves per coast, not for the whole province",
                        )
                    )
                if len(coasts) == 1:
                    problems.append(
                        VariantProblem(
                            where("provinces", raw_abbr, "coasts"), "a split coast needs at least two coasts"
                        )
                    )
                for c, spec in coasts.items():
                    coast_specs.append((pid, c.strip().lower(), spec if isinstance(spec, Mapping) else {}))

    # Coast locations after all provinces, so province ids stay dense.
    coast_ids: dict[tuple[int, str], int] = {}
    for pid, c, spec in coast_specs:
        lid = len(locations)
        p = provinces[pid]
        cname = str(spec.get("name", _COAST_NAMES.get(c, c)))
        locations.append(Location(lid, pid, c, f"{p.abbr}/{c}", f"{p.name} ({cname})"))
        coast_ids[(pid, c)] = lid
        provinces[pid] = Province(p.id, p.abbr, p.name, p.kind, p.supply_centre, p.aliases, p.point, (*p.coasts, lid))

    by_abbr = {p.abbr: p.id for p in provinces}

    def unknown(token: str) -> str:
        pool = list(by_abbr) + [p.name.lower() for p in provinces]
        close = difflib.get_close_matches(token, pool, n=1)
        return f"unknown province {token!r}" + (f"; did you mean {close[0]!r}?" if close else "")

    def resolve(token: str) -> int | None:
        if "/" in token:
            base, _, c = token.partition("/")
            pid = by_abbr.get(base)
            if pid is None:
                return None
            return coast_ids.get((pid, c))
        return by_abbr.get(token)

    # Names for look-up; a clash is a problem because orders would be ambiguous.
    def add_name(key: str, lid: int, path: tuple[str, ...]) -> None:
        key = key.strip().lower()
        if not key:
            return
        old = names.get(key)
        if old is not None and old != lid:
            problems.append(
                VariantProblem(
                    where(*path),
                    f"name {key!r} already means {locations[old].abbr}; names must be unique",
                )
            )
            return
        names[key] = lid

    for p in provinces:
        add_name(p.abbr, p.id, ("provinces", p.abbr))
        add_name(p.name, p.id, ("provinces", p.abbr, "name"))
        for alias in p.aliases:
            add_name(alias, p.id, ("provinces", p.abbr, "aliases"))
    for loc in locations[len(provinces) :]:
        names.setdefault(loc.abbr, loc.id)

    n_prov = len(provinces)
    army_sets: list[set[int]] = [set() for _ in range(n_prov)]
    fleet_sets: list[set[int]] = [set() for _ in locations]
    passable = {ProvinceKind.LAND, ProvinceKind.COAST, ProvinceKind.SEA}

    for (raw_abbr, data), p in zip(provinces_data.items(), provinces, strict=True):
        army = _as_list(data.get("army"), partial(where, "provinces", raw_abbr, "army"), problems)
        if army and p.kind not in (ProvinceKind.LAND, ProvinceKind.COAST):
            problems.append(
                VariantProblem(
                    where("provinces", raw_abbr, "army"), f"armies cannot stand on a {p.kind.value} province"
                )
            )
        for t in army:
            q = by_abbr.get(t)
            if q is None:
                problems.append(VariantProblem(where("provinces", raw_abbr, "army"), unknown(t)))
            elif q in army_sets[p.id]:
                problems.append(VariantProblem(where("provinces", raw_abbr, "army"), f"duplicate edge to {t!r}"))
            elif provinces[q].kind not in (ProvinceKind.LAND, ProvinceKind.COAST):
                problems.append(
                    VariantProblem(
                        where("provinces", raw_abbr, "army"),
                        f"army edge to {t!r}, a {provinces[q].kind.value} province",
                    )
                )
            elif q == p.id:
                problems.append(VariantProblem(where("provinces", raw_abbr, "army"), "edge to itself"))
            else:
                army_sets[p.id].add(q)

        fleet_lists: list[tuple[int, list[str], tuple[str, ...]]] = []
        if "fleet" in data and not p.coasts:
            fleet_lists.append(
                (
                    p.id,
                    _as_list(data.get("fleet"), partial(where, "provinces", raw_abbr, "fleet"), problems),
                    ("fleet",),
                )
            )
            if p.kind == ProvinceKind.LAND:
                problems.append(
                    VariantProblem(where("provinces", raw_abbr, "fleet"), "fleets cannot stand on a land province")
                )
        for lid in p.coasts:
            c = locations[lid].coast or ""
            spec = data.get("coasts", {}).get(c, {})
            fleet_lists.append(
                (
                    lid,
                    _as_list(
                        spec.get("fleet") if isinstance(spec, Mapping) else None,
                        partial(where, "provinces", raw_abbr, "coasts", c, "fleet"),
                        problems,
                    ),
                    ("coasts", c, "fleet"),
                )
            )
        for lid, targets, sub in fleet_lists:
            for t in targets:
                q = resolve(t)
                if q is None:
                    problems.append(VariantProblem(where("provinces", raw_abbr, *sub), unknown(t)))
                    continue
                qp = provinces[locations[q].province]
                if q < n_prov and qp.coasts:
                    problems.append(
                        VariantProblem(
                            where("provinces", raw_abbr, *sub),
                            f"fleet edge to {t!r}, which has split coasts; name one: "
                            + ", ".join(locations[c2].abbr for c2 in qp.coasts),
                        )
                    )
                    continue
                if qp.kind not in (ProvinceKind.COAST, ProvinceKind.SEA):
                    problems.append(
                        VariantProblem(
                            where("provinces", raw_abbr, *sub), f"fleet edge to {t!r}, a {qp.kind.value} province"
                        )
                    )
                    continue
                if q in fleet_sets[lid]:
                    problems.append(VariantProblem(where("provinces", raw_abbr, *sub), f"duplicate edge to {t!r}"))
                    continue
                if locations[q].province == p.id:
                    problems.append(VariantProblem(where("provinces", raw_abbr, *sub), "edge to its own province"))
                    continue
                fleet_sets[lid].add(q)

    for a_name, b_name in extra_fleet_edges:
        a, b = resolve(a_name.lower()), resolve(b_name.lower())
        if a is None or b is None:
            problems.append(VariantProblem("derived fleet edges", f"unknown location in {a_name}-{b_name}"))
            continue
        fleet_sets[a].add(b)
        fleet_sets[b].add(a)

    # Symmetry: every edge must be stated from both ends.
    for a in range(n_prov):
        for b in sorted(army_sets[a]):
            if a not in army_sets[b]:
                problems.append(
                    VariantProblem(
                        where("provinces", provinces[b].abbr, "army"),
                        f"one-way army edge: {provinces[a].abbr} lists {provinces[b].abbr}, "
                        f"but {provinces[b].abbr} does not list {provinces[a].abbr}",
                    )
                )
    for a in range(len(locations)):
        for b in sorted(fleet_sets[a]):
            if a not in fleet_sets[b]:
                problems.append(
                    VariantProblem(
                        where("provinces", provinces[locations[b].province].abbr, "fleet"),
                        f"one-way fleet edge: {locations[a].abbr} lists {locations[b].abbr}, "
                        f"but {locations[b].abbr} does not list {locations[a].abbr}",
                    )
                )

    for p in provinces:
        if p.kind == ProvinceKind.SEA and army_sets[p.id]:
            problems.append(VariantProblem(where("provinces", p.abbr), "a sea province has army edges"))

    # Connectivity: every passable province reachable from the first by any unit's moves.
    graph: list[set[int]] = [set(s) for s in army_sets]
    for lid, reach in enumerate(fleet_sets):
        pa = locations[lid].province
        for target in reach:
            graph[pa].add(locations[target].province)
    start = next((p.id for p in provinces if p.kind in passable), None)
    if start is not None:
        seen = {start}
        stack = [start]
        while stack:
            x = stack.pop()
            for y in graph[x]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        for p in provinces:
            if p.kind in passable and p.id not in seen:
                problems.append(
                    VariantProblem(
                        where("provinces", p.abbr), f"{p.abbr} cannot be reached from {provinces[start].abbr}"
                    )
                )

    fleet_adj = tuple(frozenset(s) for s in fleet_sets)
    fleet_reach = tuple(frozenset(locations[t].province for t in s) for s in fleet_sets)
    gmap = GameMap(
        provinces=tuple(provinces),
        locations=tuple(locations),
        army_adj=tuple(frozenset(s) for s in army_sets),
        fleet_adj=fleet_adj,
        fleet_reach=fleet_reach,
        names=dict(names),
        seas_next_to=_seas_next_to(provinces, locations, fleet_reach),
    )
    return gmap, problems


def _seas_next_to(
    provinces: Sequence[Province], locations: Sequence[Location], fleet_reach: Sequence[frozenset[int]]
) -> tuple[frozenset[int], ...]:
    out: list[set[int]] = [set() for _ in provinces]
    for lid, reach in enumerate(fleet_reach):
        src = locations[lid].province
        if provinces[src].kind != ProvinceKind.SEA:
            continue
        for target in reach:
            out[target].add(src)
    return tuple(frozenset(s) for s in out)
