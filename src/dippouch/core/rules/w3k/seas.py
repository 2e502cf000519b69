"""W3K's sea movement: Sea Areas read from the variant's data, and the ``w3k_seas`` map hook.

The rulebook groups sea regions into Sea Areas (after the BBC Shipping Forecast): one Primary Sea Region and
some Local Sea Regions each. The map file says only which area a sea region belongs to and what it touches
directly (``borders``); :func:`derive_sea_edges` applies the rulebook's two rules to produce every fleet move
at sea. Keeping the rules in code and the geography in data means a correction to one border updates every
move that follows from it, which hand-written lists would not.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from dippouch.core.errors import VariantError, VariantProblem
from dippouch.core.lookup import MAP_HOOKS

__all__ = ["SeaAreas", "derive_sea_edges", "sea_areas"]


class SeaAreas:
    """Sea areas read from a variant's data: membership, roles and direct borders (all by abbreviation)."""

    def __init__(
        self,
        area_of: Mapping[str, str],
        primary: Mapping[str, str],
        direct: Mapping[str, frozenset[str]],
    ) -> None:
        self.area_of = dict(area_of)
        """Sea region -> its area key."""
        self.primary = dict(primary)
        """Area key -> its primary sea region."""
        self.direct = dict(direct)
        """Sea region -> locations it touches directly: other seas and coasts (``"dev/sc"`` for a split coast)."""
        self.members: dict[str, list[str]] = {}
        for sea, area in sorted(self.area_of.items()):
            self.members.setdefault(area, []).append(sea)

    def is_primary(self, sea: str) -> bool:
        return self.primary.get(self.area_of[sea]) == sea

    def neighbours(self, sea: str) -> frozenset[str]:
        """Every location a fleet in ``sea`` may move to, by the rulebook's two rules."""
        area = self.area_of[sea]
        out: set[str] = set(self.members[area]) - {sea}
        if not self.is_primary(sea):
            # "Each Local Sea Region borders: all other Local Sea Regions and the Primary Sea Region of its
            # Sea Area; for any Local Sea Region it borders that aren't in its Sea Area, that region, and
            # that Area's Primary Sea Region; any coastal land regions it borders itself." A foreign primary
            # it touches directly is a sea region it borders directly (the Luce Bay example).
            for t in self.direct[sea]:
                out.add(t)
                if t in self.area_of and self.area_of[t] != area:
                    out.add(self.primary[self.area_of[t]])
            return frozenset(out)
        # "Each Primary Sea Region borders: all Local Sea Regions in its Sea Area; all Local Sea Regions that
        # border its entire Sea Area; the Primary Sea Region of those Sea Areas its Area borders; all
        # coastal land regions bordering or (in the case of islands) within its Sea Area."
        for member in self.members[area]:
            for t in self.direct[member]:
                if t not in self.area_of:
                    out.add(t)  # a coast touching the area
                elif self.area_of[t] != area:
                    other = self.area_of[t]
                    out.add(self.primary[other])
                    if not self.is_primary(t):
                        out.add(t)
        return frozenset(out)


def sea_areas(data: Mapping[str, Any]) -> SeaAreas:
    """Read and check ``[sea_areas]`` and the ``area``/``borders`` keys of sea provinces.

    Raises :class:`VariantError` listing every problem, each with the key path to fix.
    """
    problems: list[VariantProblem] = []
    provinces: Mapping[str, Mapping[str, Any]] = data.get("provinces", {})
    areas: Mapping[str, Any] = data.get("sea_areas", {})
    kinds = {str(k).lower(): str(v.get("type", "")).lower() for k, v in provinces.items()}
    coasts = {str(k).lower(): {str(c).lower() for c in v.get("coasts", {})} for k, v in provinces.items()}

    area_of: dict[str, str] = {}
    for abbr, p in provinces.items():
        if kinds[abbr.lower()] != "sea":
            continue
        area = p.get("area")
        if not isinstance(area, str) or area not in areas:
            close = difflib.get_close_matches(str(area), list(areas), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(
                VariantProblem(f"provinces.{abbr}.area", f"sea region needs the key of a [sea_areas] table{hint}")
            )
            continue
        area_of[abbr.lower()] = area

    primary: dict[str, str] = {}
    for key, spec in areas.items():
        prim = str(spec.get("primary", "")).lower() if isinstance(spec, Mapping) else ""
        if area_of.get(prim) != key:
            problems.append(
                VariantProblem(
                    f"sea_areas.{key}.primary",
                    f"{prim or '(missing)'!r} must be a sea province whose area is {key!r}",
                )
            )
            continue
        primary[key] = prim

    direct: dict[str, set[str]] = {s: set() for s in area_of}
    for sea in area_of:
        raw = provinces[next(k for k in provinces if k.lower() == sea)].get("borders", [])
        if not isinstance(raw, list):
            problems.append(VariantProblem(f"provinces.{sea}.borders", "must be a list of names"))
            continue
        for item in raw:
            name = str(item).strip().lower()
            base, _, coast = name.partition("/")
            kind = kinds.get(base)
            where = f"provinces.{sea}.borders"
            if kind is None:
                close = difflib.get_close_matches(base, list(kinds), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(VariantProblem(where, f"unknown province {name!r}{hint}"))
            elif kind == "sea" and coast:
                problems.append(VariantProblem(where, f"{name!r}: a sea region has no coasts"))
            elif kind not in ("sea", "coast"):
                problems.append(VariantProblem(where, f"{name!r} is a {kind or 'untyped'} province, not a coast"))
            elif kind == "coast" and coasts[base] and coast not in coasts[base]:
                options = ", ".join(f"{base}/{c}" for c in sorted(coasts[base]))
                problems.append(VariantProblem(where, f"{name!r}: name one of its coasts: {options}"))
            elif kind == "coast" and coast and not coasts[base]:
                problems.append(VariantProblem(where, f"{name!r}: {base} has no separate coasts"))
            elif name == sea:
                problems.append(VariantProblem(where, "a region cannot border itself"))
            else:
                direct[sea].add(name)
                if kind == "sea" and name in direct:
                    direct[name].add(sea)
    if problems:
        raise VariantError("sea areas (w3k_seas map hook)", problems)
    return SeaAreas(area_of, primary, {k: frozenset(v) for k, v in direct.items()})


def derive_sea_edges(data: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """The ``w3k_seas`` map hook: every fleet edge from a sea region, derived from the Sea Areas."""
    areas = sea_areas(data)
    edges: set[tuple[str, str]] = set()
    for sea in sorted(areas.area_of):
        for t in areas.neighbours(sea):
            edges.add((sea, t) if sea < t else (t, sea))
    return sorted(edges)


MAP_HOOKS["w3k_seas"] = derive_sea_edges
