"""The variants' pages and the move browser: a variant's rules in brief, powers, centres and the key from
abbreviation to full name; every valid move from a territory; territories by name, for pick lists. They read
variants only (the catalog), never a game."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from dippouch.catalog import load_variant, variant_names
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.legal_orders import legal_orders
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.messages import msg
from dippouch.core.notation import OrderParseError, parse_unit
from dippouch.core.orders import Move
from dippouch.core.position import Position, Unit
from dippouch.core.variant import Variant
from dippouch.web.http.security import BadInput, WebNotFound
from dippouch.web.views.maps import opening_svg
from dippouch.web.views.summary import rules_summary

__all__ = ["find_variant", "moves", "search", "variant_view"]

I18N_DOMAIN = "site"


def variant_view(name: str, *, with_map: bool = True, lang: str = "en") -> dict[str, Any]:
    """A variant's rules in brief, powers, centres, options and key; its opening map only ``with_map`` (the
    page shows it, the JSON answer never sends it: drawing it is the slow part), its words in ``lang``."""
    v = find_variant(name)
    m = v.map
    key = [
        {
            "abbr": p.abbr,
            "name": p.name,
            "kind": p.kind.value,
            "centre": p.supply_centre,
            "coasts": [m.locations[c].abbr for c in p.coasts],
            "aliases": list(p.aliases),
            "owner": next((pw for c, pw in v.start.centres.items() if c == p.id), None),
        }
        for p in sorted(m.provinces, key=lambda p: p.name.lower())
        if p.kind != ProvinceKind.IMPASSABLE
    ]
    powers = [
        {
            "name": p.name,
            "adjective": p.adjective,
            "letter": p.letter,
            "colour": p.colour,
            "homes": sorted(m.provinces[h].name for h in v.start.homes.get(p.name, ())),
            "units": [f"{u.kind} {m.locations[u.loc].name}" for u in v.start.units_of(p.name)],
            "centres": len(v.start.centres_of(p.name)),
        }
        for p in v.powers
    ]
    rules = v.data.get("rules")
    # Where a power with no fixed home centres builds: in any centre it owns (W3K, Hundred Years' War),
    # or in homes it chooses as the game goes (1897).
    builds_anywhere = isinstance(rules, Mapping) and rules.get("build_sites") == "owned"
    return {
        "name": v.name,
        "title": v.title,
        "description": v.description,
        "summary": rules_summary(v),
        "powers": powers,
        "builds_anywhere": builds_anywhere,
        "centres": sorted(m.provinces[c].name for c in m.supply_centres),
        "key": key,
        "options": [
            {
                "key": k,
                "default": spec.get("default"),
                "description": spec.get("description", ""),
                "values": list(spec.get("values", {})),
            }
            for k, spec in v.data.get("options", {}).items()
        ],
        **({"map_svg": opening_svg(v, lang)} if with_map else {}),
    }


def moves(variant: str, query: str) -> dict[str, Any]:
    """Every valid move from a territory for an army, a fleet, and a fleet on each coast."""
    v = find_variant(variant)
    m = v.map
    q = query.strip()
    if len(q) > 100:
        raise BadInput(msg("a territory name is at most 100 characters"))
    out: dict[str, Any] = {"variant": v.name, "query": q, "province": None, "matches": [], "units": []}
    if not q:
        return out
    prov = _find_province(v, q)
    if prov is None:
        out["matches"] = _search(v, q)
        if len(out["matches"]) == 1:
            prov = m.provinces[m.province_of(m.loc(out["matches"][0]["abbr"]))].id
        else:
            if not out["matches"]:
                close = difflib.get_close_matches(q.lower(), list(m.names), n=3, cutoff=0.6)
                out["suggestions"] = [m.locations[m.names[c]].name for c in close]
            return out
    p = m.provinces[prov]
    out["province"] = {"abbr": p.abbr, "name": p.name, "kind": p.kind.value, "centre": p.supply_centre}
    out["units"] = _moves_from(v, prov)
    return out


def search(variant: str, query: str) -> list[dict[str, str]]:
    v = find_variant(variant)
    return _search(v, query.strip()[:100]) if query.strip() else []


def find_variant(name: str, gettext: Callable[[str], str] = str) -> Variant:
    """The variant ``name``, or a refusal naming the closest one and every variant; ``gettext`` is the
    reader's catalogue where a page asks (the JSON calls answer in English)."""
    if name not in variant_names():
        close = difflib.get_close_matches(name.lower()[:100], variant_names(), n=1)
        everyone = ", ".join(variant_names())
        if close:
            raise WebNotFound(
                msg(
                    "no variant %(name)s; did you mean %(close)s? Variants: %(all)s",
                    name=repr(name[:100]),
                    close=repr(close[0]),
                    all=everyone,
                )
            )
        raise WebNotFound(msg("no variant %(name)s Variants: %(all)s", name=repr(name[:100]), all=everyone))
    return load_variant(name)


def _find_province(v: Variant, q: str) -> int | None:
    """The province a name means, read as orders read it: every name the pages show (a coast's
    "Caernarfonshire (South Coast)"), abbreviations, aliases, "the", any apostrophe."""
    try:
        return v.map.province_of(v.map.loc(q))
    except KeyError:
        pass
    try:
        return v.map.province_of(parse_unit(v, q)[1])
    except OrderParseError:
        return None


def _folded(text: str) -> str:
    """Lower case without accents, apostrophes or brackets, one space between words: how a name is searched."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c) and c not in "'\u2019\u2018`()")
    return " ".join(text.replace("/", " ").split())


def _search(v: Variant, q: str) -> list[dict[str, str]]:
    """Places whose abbreviation, name or an alias contains the text, best first; a coast by its own name
    (``Caernarfonshire (South Coast)``, ``cae/sc``), as the move lists show it."""
    t = _folded(q)
    m = v.map
    hits: list[tuple[int, str, dict[str, str]]] = []
    for p in m.provinces:
        if p.kind == ProvinceKind.IMPASSABLE:
            continue
        places = [(p.abbr, p.name, [p.abbr, p.name, *p.aliases])]
        places += [
            (m.locations[c].abbr, m.locations[c].name, [m.locations[c].abbr, m.locations[c].name]) for c in p.coasts
        ]
        for abbr, name, words in places:
            folded = [_folded(w) for w in words]
            if any(t in w for w in folded):
                exact = t in (_folded(abbr), _folded(name))
                rank = 0 if exact else 1 if _folded(name).startswith(t) else 2
                hits.append((rank, name, {"abbr": abbr, "name": name}))
    return [h[2] for h in sorted(hits, key=lambda h: (h[0], h[1]))[:30]]


def _movement_phase(v: Variant) -> Any:
    p = v.start.phase
    for _ in range(len(v.calendar.steps) + 1):
        if v.calendar.kind(p) == PhaseKind.MOVEMENT:
            return p
        p = v.calendar.next(p)
    return v.start.phase


def _moves_from(v: Variant, prov: int) -> list[dict[str, Any]]:
    """Moves of a lone unit, as the legal-order generator lists them (so variant rules apply)."""
    m = v.map
    p = m.provinces[prov]
    power = v.power_names[0]
    phase = _movement_phase(v)
    out: list[dict[str, Any]] = []
    spots: list[tuple[str, int, str]] = []
    if p.kind in (ProvinceKind.LAND, ProvinceKind.COAST):
        spots.append(("A", prov, f"Army in {p.name}"))
    for loc in m.fleet_locations(prov):
        spots.append(("F", loc, f"Fleet in {m.locations[loc].name}"))
    for kind, loc, label in spots:
        pos = Position(phase, {prov: Unit(power, kind, loc)}, dict(v.start.centres), dict(v.start.homes))
        try:
            table = legal_orders(v, pos, power)
        except DippouchError:
            table = {}
        dests = sorted(
            {o.dest for os_ in table.values() for o in os_ if isinstance(o, Move) and not o.via_convoy},
            key=lambda d: m.locations[d].name,
        )
        out.append(
            {
                "unit": kind,
                "location": m.locations[loc].abbr,
                "label": label,
                "moves": [{"abbr": m.locations[d].abbr, "name": m.locations[d].name} for d in dests],
            }
        )
    return out
