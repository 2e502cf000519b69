"""A variant in DAIDE's words, both ways: powers, provinces, coasts, turns, units, orders and results.

:class:`DaideBoard` is made from a compiled :class:`~dippouch.core.variant.Variant`. On the standard board
with the standard powers the protocol's own power and province tokens are used (and the representation
message is empty); the map is named ``standard`` for the standard game, or for the variant (1897); on another
map DAIDE can describe, tokens are made by the protocol's rules for variant maps: a power category token
and a province token per province, numbered from 0, the province category saying inland, sea, coastal or
bicoastal and supply centre or not, each with three letters (the map's own abbreviation when it is three
letters or digits and no DAIDE word, else one made from its name).

What DAIDE cannot describe is refused with the reasons (:func:`problems`): a calendar other than the five
steps movement, retreats, movement, retreats, adjustments (DAIDE's SPR SUM FAL AUT WIN), unit kinds other
than armies and fleets, more than 256 provinces or powers, coasts other than DAIDE's eight.

Nothing here judges an order: translating one finds its unit and its places only; whether it is legal is
the core's word, asked by the server through the game's own submission use case.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.messages import msg
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Dislodged, Position, Unit
from dippouch.core.variant import Variant
from dippouch.interop.daide.codec import Leaf, Node, Tree
from dippouch.interop.daide.tokens import (
    POWER_CATEGORY,
    STANDARD_POWERS,
    STANDARD_PROVINCES,
    TOKENS,
    Vocabulary,
    integer_value,
    is_integer,
)

I18N_DOMAIN = "rules"
"""The catalogue of what DAIDE cannot serve, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["SEASONS", "DaideBoard", "NotServable", "ReadOrder", "Syntax", "Unfit", "problems"]

SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")
_SHAPE = (
    PhaseKind.MOVEMENT,
    PhaseKind.RETREATS,
    PhaseKind.MOVEMENT,
    PhaseKind.RETREATS,
    PhaseKind.ADJUSTMENTS,
)
COASTS = {"nc": "NCS", "ne": "NEC", "ec": "ECS", "se": "SEC", "sc": "SCS", "sw": "SWC", "wc": "WCS", "nw": "NWC"}
MOVEMENT_ORDERS = frozenset({"HLD", "MTO", "SUP", "CVY", "CTO"})
RETREAT_ORDERS = frozenset({"RTO", "DSB"})
ADJUSTMENT_ORDERS = frozenset({"BLD", "REM", "WVE"})
_KIND_OF = {PhaseKind.MOVEMENT: MOVEMENT_ORDERS, PhaseKind.RETREATS: RETREAT_ORDERS}


class NotServable(DippouchError, ValueError):
    """A variant DAIDE cannot describe; the message lists why (a value, said in the reader's language)."""


class Syntax(Exception):
    """A message that does not follow DAIDE's syntax: ``at`` is the index of the first token at fault."""

    def __init__(self, at: int, why: str = "") -> None:
        super().__init__(why or f"syntax error at token {at}")
        self.at = at


class Unfit(Exception):
    """An order well written but refused before it reaches the game: ``note`` is the THX note (NSU, NYU...)."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


def problems(variant: Variant) -> list[str]:
    """Why DAIDE cannot describe ``variant`` (empty when it can)."""
    out: list[str] = []
    kinds = tuple(s.kind for s in variant.calendar.steps)
    if kinds != _SHAPE:
        out.append(
            "its calendar is not DAIDE's five steps (movement, retreats, movement, retreats, adjustments): "
            + ", ".join(f"{s.season or '-'} {s.kind.value}" for s in variant.calendar.steps)
        )
    rules: Mapping[str, Any] = variant.rules
    extra = {str(k) for key in ("moves_as", "unit_costs", "unit_strength") for k in (rules.get(key) or {})}
    extra |= {u.kind for u in variant.start.units.values()}
    extra -= {"A", "F"}
    if extra:
        out.append(f"it has unit kinds DAIDE has no word for (only armies and fleets): {', '.join(sorted(extra))}")
    playable = [p for p in variant.map.provinces if p.kind is not ProvinceKind.IMPASSABLE]
    if len(playable) > 256:
        out.append(f"it has {len(playable)} provinces; DAIDE numbers at most 256")
    if len(variant.powers) > 256:
        out.append(f"it has {len(variant.powers)} powers; DAIDE numbers at most 256")
    odd = sorted({loc.coast for loc in variant.map.locations if loc.coast and loc.coast not in COASTS})
    if odd:
        out.append(f"it has coasts DAIDE has no word for: {', '.join(odd)}")
    return out


def _signature(variant: Variant) -> tuple[frozenset[Any], tuple[str, ...]]:
    m = variant.map
    names = [loc.abbr.upper() for loc in m.locations]
    edges = frozenset(
        (names[a], kind, names[b])
        for kind, adj in (("A", m.army_adj), ("F", m.fleet_adj))
        for a, targets in enumerate(adj)
        for b in targets
    )
    return edges | frozenset((n,) for n in names), tuple(p.upper()[:3] for p in variant.power_names)


_DAIDE_NAMES = {"ENG": "ECH", "BOT": "GOB", "LYO": "GOL"}
"""Our standard map's abbreviations DAIDE writes otherwise (English Channel, Gulf of Bothnia, Gulf of Lyon)."""


def _daide_abbr(abbr: str) -> str:
    up = abbr.upper()
    return _DAIDE_NAMES.get(up, up)


_STANDARD_SIGNATURE: tuple[frozenset[Any], tuple[str, ...]] | None = None


def _is_standard(variant: Variant) -> bool:
    """Whether the variant plays on the standard board with the standard powers (so the protocol's own
    tokens, and the map name ``standard``, describe it; its start may differ, as DAIDE allows)."""
    global _STANDARD_SIGNATURE
    if tuple(p.upper()[:3] for p in variant.power_names) != tuple(STANDARD_POWERS):
        return False
    if {_daide_abbr(p.abbr) for p in variant.map.provinces if p.kind is not ProvinceKind.IMPASSABLE} != set(
        STANDARD_PROVINCES
    ):
        return False
    if _STANDARD_SIGNATURE is None:
        from dippouch.catalog import load_variant

        _STANDARD_SIGNATURE = _signature(load_variant("standard"))
    return _signature(variant) == _STANDARD_SIGNATURE


def _three(words: Iterable[str], taken: set[str]) -> str:
    """Three letters or digits for a name, none a DAIDE word nor taken yet."""
    letters = [re.sub(r"[^A-Z0-9]", "", w.upper()) for w in words]
    candidates = [w[:3] for w in letters if len(w) >= 3]
    for w in letters:
        if len(w) >= 3:
            candidates += [w[0] + w[i] + w[j] for i in range(1, len(w)) for j in range(i + 1, len(w))]
    base = (letters[0] if letters and letters[0] else "X")[:2].ljust(2, "X")
    candidates += [base + c for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    candidates += [f"{base[0]}{n:02d}" for n in range(100)] + [f"{n:03d}" for n in range(1000)]
    for c in candidates:
        if len(c) == 3 and c not in TOKENS and c not in taken:
            taken.add(c)
            return c
    raise NotServable("ran out of three-letter names")  # pragma: no cover - 1000 numbers and more


@dataclass(frozen=True)
class ReadOrder:
    """A DAIDE order read: the core order, the power it names and its DAIDE order word."""

    order: Order
    power: str
    word: str


class DaideBoard:
    """One variant's DAIDE vocabulary and the translations between its positions and orders and DAIDE."""

    def __init__(self, variant: Variant) -> None:
        why = problems(variant)
        if why:
            raise NotServable(
                msg("DAIDE cannot describe %(variant)s: %(why)s", variant=variant.name, why="; ".join(why))
            )
        self.variant = variant
        m = variant.map
        self.provinces = [p for p in m.provinces if p.kind is not ProvinceKind.IMPASSABLE]
        self.standard = _is_standard(variant)
        powers: dict[str, int] = {}
        provinces: dict[str, int] = {}
        self.power_names: dict[str, str] = {}  # our name -> DAIDE letters
        self.prov_names: dict[int, str] = {}  # province id -> DAIDE letters
        if self.standard:
            for p in variant.power_names:
                self.power_names[p] = p.upper()[:3]
            for prov in self.provinces:
                self.prov_names[prov.id] = _daide_abbr(prov.abbr)
            powers, provinces = dict(STANDARD_POWERS), dict(STANDARD_PROVINCES)
            # A variant on the standard board with rules of its own (1897's opening builds) is named for itself,
            # so a client that knows the variant plays its rules; one that does not asks for the MDF.
            self.map_name = "standard" if variant.name == "standard" else re.sub(r"[^A-Za-z0-9_]", "_", variant.name)
        else:
            taken: set[str] = set()
            for i, p in enumerate(variant.power_names):
                letters = _three([p, variant.power(p).adjective], taken)
                self.power_names[p] = letters
                powers[letters] = (POWER_CATEGORY << 8) | i
            own = {prov.id: prov.abbr.upper() for prov in self.provinces}
            for prov in self.provinces:  # the map's own three-letter names first, so none is taken by another's
                if (
                    re.fullmatch(r"[A-Z0-9]{3}", own[prov.id])
                    and own[prov.id] not in TOKENS
                    and own[prov.id] not in taken
                ):
                    taken.add(own[prov.id])
                    self.prov_names[prov.id] = own[prov.id]
            for number, prov in enumerate(self.provinces):
                letters = self.prov_names.get(prov.id) or _three([prov.abbr, prov.name, *prov.aliases], taken)
                self.prov_names[prov.id] = letters
                if prov.coasts:
                    cat = 0x56
                elif prov.kind is ProvinceKind.SEA:
                    cat = 0x52
                elif prov.kind is ProvinceKind.LAND:
                    cat = 0x50
                else:
                    cat = 0x54
                provinces[letters] = ((cat | int(prov.supply_centre)) << 8) | number
            self.map_name = re.sub(r"[^A-Za-z0-9_]", "_", variant.name)
        self.vocab = Vocabulary(powers, provinces, standard=self.standard)
        self.power_of_token = {self.vocab[letters]: p for p, letters in self.power_names.items()}
        self.token_of_power = {p: self.vocab[letters] for p, letters in self.power_names.items()}
        self.prov_of_token = {self.vocab[letters]: pid for pid, letters in self.prov_names.items()}
        self.token_of_prov = {pid: self.vocab[letters] for pid, letters in self.prov_names.items()}
        self.season_tokens = [self.vocab[s] for s in SEASONS]

    # --- words ------------------------------------------------------------------------------------------

    def power_word(self, power: str) -> str:
        return self.power_names[power]

    def turn(self, phase: Phase) -> list[Any]:
        return [SEASONS[phase.step], phase.year]

    def phase_of(self, season: str, year: int) -> Phase:
        return Phase(year, SEASONS.index(season))

    def place(self, loc: int) -> Any:
        """A location as DAIDE writes it: the province, or ``(province coast)`` for a coast."""
        location = self.variant.map.locations[loc]
        prov = self.prov_names[location.province]
        return [prov, COASTS[location.coast]] if location.coast else prov

    def province_word(self, loc: int) -> str:
        return self.prov_names[self.variant.map.province_of(loc)]

    def unit(self, unit: Unit) -> list[Any]:
        return [self.power_names[unit.power], "AMY" if unit.kind == "A" else "FLT", self.place(unit.loc)]

    # --- server messages --------------------------------------------------------------------------------

    def now(self, position: Position) -> list[Any]:
        """``NOW (turn) (unit) ...``, dislodged units with ``MRT (places)``."""
        parts: list[Any] = ["NOW", self.turn(position.phase)]
        order = {p: i for i, p in enumerate(self.variant.power_names)}
        for u in sorted(position.units.values(), key=lambda u: (order[u.power], u.loc)):
            parts.append(self.unit(u))
        for d in sorted(position.dislodged.values(), key=lambda d: (order[d.unit.power], d.unit.loc)):
            parts.append([*self.unit(d.unit), "MRT", [self.place(r) for r in sorted(d.retreats)]])
        return parts

    def sco(self, position: Position, seen: Collection[int] | None = None) -> list[Any]:
        """``SCO (power centres) ... (UNO centres)``; with ``seen`` (a fog player's provinces), only the centres
        seen: an unseen centre listed as UNO would tell it is owned by nobody."""
        parts: list[Any] = ["SCO"]
        owned: set[int] = set()
        for p in self.variant.power_names:
            centres = sorted(c for c in position.centres_of(p) if seen is None or c in seen)
            if centres:
                owned.update(centres)
                parts.append([self.power_names[p], *(self.prov_names[c] for c in centres)])
        rest = [
            self.prov_names[c]
            for c in self.variant.map.supply_centres
            if c not in owned and (seen is None or c in seen)
        ]
        if rest:
            parts.append(["UNO", *rest])
        return parts

    def mdf(self) -> list[Any]:
        """``MDF (powers) ((centres by home power) (other provinces)) (adjacencies)``."""
        v, m = self.variant, self.variant.map
        homes: dict[int, list[str]] = {}
        for power in v.power_names:
            for c in v.start.homes.get(power, frozenset()):
                homes.setdefault(c, []).append(power)
        groups: dict[tuple[str, ...], list[str]] = {}
        for c in m.supply_centres:
            owners = tuple(homes.get(c, []))
            groups.setdefault(owners, []).append(self.prov_names[c])
        centres: list[Any] = []
        for owners, provs in sorted(groups.items(), key=lambda g: [v.power_names.index(o) for o in g[0]]):
            if not owners:
                continue
            who: Any = self.power_names[owners[0]] if len(owners) == 1 else [self.power_names[o] for o in owners]
            centres.append([who, *provs])
        if () in groups:
            centres.append(["UNO", *groups[()]])
        others = [self.prov_names[p.id] for p in self.provinces if not p.supply_centre]
        adjacencies: list[Any] = []
        for prov in self.provinces:
            entry: list[Any] = [self.prov_names[prov.id]]
            if prov.kind in (ProvinceKind.LAND, ProvinceKind.COAST):
                entry.append(
                    ["AMY", *(self.prov_names[a] for a in sorted(m.army_adj[prov.id]) if a in self.prov_names)]
                )
            for loc in m.fleet_locations(prov.id):
                coast = m.locations[loc].coast
                head: Any = ["FLT", COASTS[coast]] if coast else "FLT"
                entry.append([head, *(self.place(b) for b in sorted(m.fleet_adj[loc]))])
            adjacencies.append(entry)
        return ["MDF", [self.power_names[p] for p in v.power_names], [centres, others], adjacencies]

    # --- orders, ours to DAIDE -------------------------------------------------------------------------

    def order(
        self, order: Order, power: str, position: Position, kind: PhaseKind, others: Sequence[Order] = ()
    ) -> list[Any]:
        """A core order of ``power`` as DAIDE writes it (inside the brackets of a SUB or an ORD).

        ``others``: the orders given with it, to find the fleets a convoyed army goes by (VIA)."""
        m = self.variant.map
        if isinstance(order, Waive):
            return [self.power_names[power], "WVE"]
        if isinstance(order, Build):
            return [self.unit(Unit(power, order.kind, order.loc)), "BLD"]
        loc = getattr(order, "loc", None)
        if loc is None:
            raise Unfit("NSO")
        me = self._unit_at(position, loc, kind, getattr(order, "kind", None), power)
        if isinstance(order, Hold):
            return [me, "HLD"]
        if isinstance(order, Disband):
            return [me, "REM" if kind is PhaseKind.ADJUSTMENTS else "DSB"]
        if isinstance(order, Retreat):
            return [me, "RTO", self.place(order.dest)]
        if isinstance(order, Move):
            src = m.province_of(order.loc)
            dest = m.province_of(order.dest)
            army = me[1] == "AMY"
            if army and (order.via_convoy or dest not in m.army_adj[src]):
                path = self._convoy_path(position, src, dest, others)
                if path is not None:
                    return [me, "CTO", self.prov_names[dest], "VIA", [self.prov_names[p] for p in path]]
            return [me, "MTO", self.place(order.dest)]
        if isinstance(order, Support):
            target = self._unit_at(position, order.target, PhaseKind.MOVEMENT, order.target_kind, None)
            if order.dest is None:
                return [me, "SUP", target]
            return [me, "SUP", target, "MTO", self.province_word(order.dest)]
        if isinstance(order, Convoy):
            target = self._unit_at(position, order.target, PhaseKind.MOVEMENT, "A", None)
            return [me, "CVY", target, "CTO", self.province_word(order.dest)]
        raise Unfit("NSO")  # an order kind of a variant DAIDE has no word for

    def _unit_at(
        self, position: Position, loc: int, kind: PhaseKind, unit_kind: str | None, power: str | None
    ) -> list[Any]:
        prov = self.variant.map.province_of(loc)
        found: Unit | None
        if kind is PhaseKind.RETREATS:
            d = position.dislodged.get(prov)
            found = d.unit if d is not None else None
        else:
            found = position.units.get(prov)
        if found is None:
            if power is None or unit_kind is None:
                raise Unfit("NSU")
            found = Unit(power, unit_kind, loc)
        return self.unit(found)

    def _convoy_path(self, position: Position, src: int, dest: int, others: Sequence[Order]) -> list[int] | None:
        """Sea provinces with fleets from ``src`` to ``dest``: those ordered to convoy this army first."""
        m = self.variant.map
        ordered = {m.province_of(o.loc) for o in others if isinstance(o, Convoy) and m.province_of(o.target) == src}
        seas = {p for p, u in position.units.items() if u.kind == "F" and m.provinces[p].kind is ProvinceKind.SEA}
        for pool in (ordered, seas):
            path = self._route(src, dest, pool)
            if path is not None:
                return path
        return None

    def _route(self, src: int, dest: int, fleets: set[int]) -> list[int] | None:
        m = self.variant.map
        reach = [
            frozenset().union(*(m.fleet_reach[loc] for loc in m.fleet_locations(p))) for p in range(len(m.provinces))
        ]
        start = [p for p in fleets if p in reach[src] or src in reach[p]]
        previous: dict[int, int | None] = {p: None for p in start}
        queue = list(start)
        while queue:
            p = queue.pop(0)
            if dest in reach[p]:
                path = [p]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])  # type: ignore[arg-type]
                return list(reversed(path))
            for q in fleets:
                if q not in previous and q in reach[p]:
                    previous[q] = p
                    queue.append(q)
        return None

    # --- orders, DAIDE to ours -------------------------------------------------------------------------

    def read_power(self, t: Tree) -> str:
        if isinstance(t, Leaf) and t.token in self.power_of_token:
            return self.power_of_token[t.token]
        raise Syntax(_first(t))

    def read_place(self, t: Tree) -> int:
        """A location id from ``PROV`` or ``(PROV COAST)``."""
        m = self.variant.map
        if isinstance(t, Leaf):
            if t.token in self.prov_of_token:
                return self.prov_of_token[t.token]
            raise Syntax(t.at)
        if len(t.items) != 2:
            raise Syntax(t.items[2].at if len(t.items) > 2 else t.end)
        prov = self.read_place(t.items[0])
        if not isinstance(t.items[0], Leaf):
            raise Syntax(t.items[0].at)
        c = t.items[1]
        word = self.vocab.name(c.token) if isinstance(c, Leaf) else None
        coast = next((k for k, w in COASTS.items() if w == word), None)
        if coast is None:
            raise Syntax(_first(c))
        for loc in m.provinces[prov].coasts:
            if m.locations[loc].coast == coast:
                return loc
        raise Unfit("NSP")

    def read_unit(self, t: Tree) -> tuple[str, str, int]:
        """``(POWER AMY|FLT place)`` -> (power, "A"|"F", location id)."""
        if not isinstance(t, Node):
            raise Syntax(t.at)
        if len(t.items) < 3:
            raise Syntax(t.end)
        if len(t.items) > 3:
            raise Syntax(_first(t.items[3]))
        power = self.read_power(t.items[0])
        k = t.items[1]
        word = self.vocab.name(k.token) if isinstance(k, Leaf) else None
        if word not in ("AMY", "FLT"):
            raise Syntax(_first(k))
        return power, "A" if word == "AMY" else "F", self.read_place(t.items[2])

    def read_order(self, t: Tree) -> ReadOrder:
        """One order of a SUB, as the core's value, checking only that it is well written; the unit is
        matched to the board by :meth:`fit`."""
        if not isinstance(t, Node) or not t.items:
            raise Syntax(_first(t) if isinstance(t, Leaf) else t.end)
        items = t.items
        if isinstance(items[0], Leaf):  # power WVE
            power = self.read_power(items[0])
            if len(items) != 2 or not isinstance(items[1], Leaf) or self.vocab.name(items[1].token) != "WVE":
                raise Syntax(_first(items[1]) if len(items) > 1 else t.end)
            return ReadOrder(Waive(), power, "WVE")
        power, kind, loc = self.read_unit(items[0])
        if len(items) < 2 or not isinstance(items[1], Leaf):
            raise Syntax(_first(items[1]) if len(items) > 1 else t.end)
        word = self.vocab.name(items[1].token) or ""
        rest = items[2:]

        def need(n: int) -> None:
            if len(rest) < n:
                raise Syntax(t.end)
            if len(rest) > n:
                raise Syntax(_first(rest[n]))

        def keyword(i: int, expected: str) -> None:
            x = rest[i]
            if not isinstance(x, Leaf) or self.vocab.name(x.token) != expected:
                raise Syntax(_first(x))

        order: Order
        if word in ("HLD", "DSB", "BLD", "REM"):
            need(0)
            order = Hold(kind, loc) if word == "HLD" else Build(kind, loc) if word == "BLD" else Disband(kind, loc)
        elif word in ("MTO", "RTO"):
            need(1)
            dest = self.read_place(rest[0])
            order = Move(kind, loc, dest) if word == "MTO" else Retreat(kind, loc, dest)
        elif word == "SUP":
            if len(rest) not in (1, 3):
                raise Syntax(_first(rest[1]) if len(rest) == 2 else t.end if not rest else _first(rest[3]))
            _tp, tkind, tloc = self.read_unit(rest[0])
            if len(rest) == 1:
                order = Support(kind, loc, tkind, tloc, None)
            else:
                keyword(1, "MTO")
                if not isinstance(rest[2], Leaf):
                    raise Syntax(rest[2].at)
                order = Support(kind, loc, tkind, tloc, self.read_place(rest[2]))
        elif word == "CVY":
            need(3)
            _tp, tkind, tloc = self.read_unit(rest[0])
            keyword(1, "CTO")
            order = Convoy(kind, loc, tloc, self.read_place(rest[2]))
        elif word == "CTO":
            need(3)
            dest = self.read_place(rest[0])
            keyword(1, "VIA")
            via = rest[2]
            if not isinstance(via, Node):
                raise Syntax(via.at)
            for sea in via.items:
                self.read_place(sea)
            order = Move(kind, loc, dest, via_convoy=True)
        else:
            raise Syntax(items[1].at)
        return ReadOrder(order, power, word)

    def fit(self, read: ReadOrder, power: str, position: Position, kind: PhaseKind) -> Order:
        """The order matched to the board for ``power`` in this phase, or :class:`Unfit` with DAIDE's note
        for an order that names another power's unit, no unit, or an order of another season."""
        word, order = read.word, read.order
        if read.power != power:
            raise Unfit("NYU")
        if kind is PhaseKind.ADJUSTMENTS:
            if word not in ADJUSTMENT_ORDERS:
                raise Unfit("NRS")
        elif word not in _KIND_OF[kind]:
            raise Unfit("NRS")
        if isinstance(order, (Waive, Build)):
            return order
        m = self.variant.map
        loc = order.unit_loc
        if loc is None:
            raise Unfit("NSU")
        prov = m.province_of(loc)
        if kind is PhaseKind.RETREATS:
            d = position.dislodged.get(prov)
            unit = d.unit if d is not None else None
            if unit is None:
                raise Unfit("NRN" if prov in position.units else "NSU")
        else:
            unit = position.units.get(prov)
            if unit is None:
                raise Unfit("NSU")
        if unit.power != power:
            raise Unfit("NYU")
        if unit.kind != getattr(order, "kind", unit.kind) or (unit.kind == "F" and unit.loc != loc and loc != prov):
            raise Unfit("NSU")
        return order

    def refusal_note(self, read: ReadOrder, power: str, position: Position) -> str:
        """DAIDE's note for an order the game refused (its reason is the core's): the likeliest of the
        protocol's notes for that order word."""
        order, m = read.order, self.variant.map
        if isinstance(order, Build):
            prov = m.province_of(order.loc)
            if not m.provinces[prov].supply_centre:
                return "NSC"
            if position.centres.get(prov) != power:
                return "YSC"
            if prov in position.units:
                return "ESC"
            if prov not in position.homes.get(power, frozenset()):
                return "HSC"
            if not m.can_hold(order.kind, order.loc):
                return "CST"
            return "NMB"
        if isinstance(order, Waive):
            return "NMB"
        if read.word == "REM":
            return "NMR"
        if isinstance(order, Retreat):
            return "NVR"
        if isinstance(order, Convoy):
            if m.provinces[m.province_of(order.loc)].kind is not ProvinceKind.SEA:
                return "NAS"
            target = position.units.get(m.province_of(order.target))
            return "NSA" if target is None or target.kind != "A" else "FAR"
        if read.word == "CTO":
            return "NSF"
        return "FAR"

    # --- results --------------------------------------------------------------------------------------

    def ord_messages(
        self,
        position: Position,
        results: Sequence[Mapping[str, Any]],
        after: Position | None,
        *,
        seen: Collection[int] | None = None,
        ordered: Collection[int] = (),
    ) -> list[list[Any]]:
        """``ORD (turn) (order) (result)`` for each order of a processed phase; units left without an order
        in a movement phase are reported as holding, as DAIDE reports one ORD a unit.

        A fog player's ``results`` are those they may read; then only the units in ``seen`` provinces are
        reported holding, and none in ``ordered`` (a unit whose order they may not read did not hold)."""
        from dippouch.core.notation import parse_order

        v, m = self.variant, self.variant.map
        kind = v.calendar.kind(position.phase)
        turn = self.turn(position.phase)
        read: list[tuple[Mapping[str, Any], Order]] = []
        for r in results:
            try:
                read.append((r, parse_order(v, str(r.get("order", "")), phase_kind=kind)))
            except Exception:
                continue
        orders = [o for _, o in read]
        out: list[list[Any]] = []
        done: set[int] = set()
        for r, o in read:
            power = str(r.get("power", ""))
            if power not in self.power_names:
                continue
            try:
                expr = self.order(o, power, position, kind, orders)
            except Unfit:
                continue
            if o.unit_loc is not None:
                done.add(m.province_of(o.unit_loc))
            out.append(
                [
                    "ORD",
                    turn,
                    expr,
                    self._result(o, str(r.get("result", "")), bool(r.get("dislodged")), kind, str(r.get("reason", ""))),
                ]
            )
        if kind is PhaseKind.MOVEMENT:
            dislodged_after = set(after.dislodged) if after is not None else set()
            for prov, u in sorted(position.units.items()):
                if prov not in done and prov not in ordered and (seen is None or prov in seen):
                    out.append(["ORD", turn, [self.unit(u), "HLD"], ["RET"] if prov in dislodged_after else ["SUC"]])
        return out

    @staticmethod
    def _result(order: Order, result: str, dislodged: bool, kind: PhaseKind, reason: str) -> list[str]:
        if kind is not PhaseKind.MOVEMENT:
            words = ["BNC"] if result == "fails" and isinstance(order, Retreat) else ["SUC"]
            return words
        if isinstance(order, Move):
            if result == "succeeds":
                words = ["SUC"]
            elif order.via_convoy and ("convoy" in reason.lower() and "disrupt" in reason.lower()):
                words = ["DSR"]
            elif result in ("invalid", "illegal") and order.via_convoy:
                words = ["NSO"]
            else:
                words = ["BNC"]
        elif isinstance(order, Support):
            words = ["SUC"] if result == "given" else ["CUT"] if result == "cut" else ["NSO"]
        elif isinstance(order, Convoy):
            words = ["NSO"] if result in ("invalid", "illegal") else ["SUC"]
        else:
            words = [] if dislodged else ["SUC"]
        if dislodged:
            words.append("RET")
        return words

    # --- positions read from DAIDE (the client's side) -----------------------------------------------

    def position_from(self, now: Node | list[Tree], centres: Mapping[int, str]) -> Position:
        """The position a NOW message describes (its items after NOW), with the ownership of the last SCO."""
        items = list(now.items if isinstance(now, Node) else now)
        turn = items[0]
        if not isinstance(turn, Node) or len(turn.items) != 2:
            raise Syntax(_first(turn))
        season, year = turn.items
        if not isinstance(season, Leaf) or self.vocab.name(season.token) not in SEASONS:
            raise Syntax(_first(season))
        if not isinstance(year, Leaf) or not is_integer(year.token):
            raise Syntax(_first(year))
        phase = self.phase_of(self.vocab.name(season.token) or "", integer_value(year.token))
        units: dict[int, Unit] = {}
        dislodged: dict[int, Dislodged] = {}
        m = self.variant.map
        for t in items[1:]:
            if not isinstance(t, Node) or len(t.items) < 3:
                raise Syntax(_first(t))
            power, kind, loc = self.read_unit(Node(t.items[:3], t.at, t.end))
            unit = Unit(power, kind, loc)
            if len(t.items) == 5:
                places = t.items[4]
                retreats = (
                    frozenset(self.read_place(x) for x in places.items) if isinstance(places, Node) else frozenset()
                )
                dislodged[m.province_of(loc)] = Dislodged(unit, retreats)
            else:
                units[m.province_of(loc)] = unit
        homes = {p: frozenset(h) for p, h in self.variant.start.homes.items()}
        return Position(phase, units, dict(centres), homes, dislodged, {})

    def centres_from(self, sco: Sequence[Tree]) -> dict[int, str]:
        """Province id -> owner from the items of an SCO message (UNO's centres left out)."""
        out: dict[int, str] = {}
        for group in sco:
            if not isinstance(group, Node) or not group.items:
                raise Syntax(_first(group))
            head = group.items[0]
            if isinstance(head, Leaf) and self.vocab.name(head.token) == "UNO":
                continue
            power = self.read_power(head)
            for c in group.items[1:]:
                out[self.variant.map.province_of(self.read_place(c))] = power
        return out


def _first(t: Tree) -> int:
    """The index of a tree's first token (its bracket for a node)."""
    return t.at
