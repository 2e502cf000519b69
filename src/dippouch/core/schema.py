"""The variant file format in one place: every key, its type, its range and what it means.

A variant author who writes ``centers = ["tri"]`` (the TOML says ``centres``) or ``start_step = 9`` with
five phases must hear about it at once, with the file, the line and the key that was meant, not from a
traceback three commands later. So every key a variant file may hold is declared here, once, and
:func:`check_document` checks a file's data against it, reporting *every* problem together and handing
back the data with the bad parts removed so the loader can go on and find the rest.

The same declarations write the key reference in docs/variant-format.md (``scripts/variant-format-doc``;
a test keeps the two equal). A new key is added here, with its type and its meaning, and nowhere else.
Keys read by rule modules (``[rules] opening_builds``...) are declared here too: a key no code reads
would otherwise be silently ignored, which is the mistake this module exists to catch.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dippouch.core.errors import VariantProblem
from dippouch.core.lookup import HOOK_POINTS, behaviour_names, closest, load_rule_modules, registered_names

__all__ = [
    "ROOT",
    "Checker",
    "check_document",
    "closest",
    "look_alike_powers",
    "schema_markdown",
]

Path = tuple[str, ...]


# ------------------------------------------------------------------------------------------- specs


@dataclass(frozen=True, kw_only=True)
class Spec:
    doc: str = ""
    required: bool = False
    default: str | None = None
    """The default as the documentation shows it (``None``: no default / optional)."""

    def type_name(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Str(Spec):
    choices: tuple[str, ...] = ()

    def type_name(self) -> str:
        if self.choices:
            return "one of " + ", ".join(f"`{c}`" for c in self.choices)
        return "text"


@dataclass(frozen=True, kw_only=True)
class Colour(Spec):
    def type_name(self) -> str:
        return 'colour `"#rrggbb"`'


@dataclass(frozen=True, kw_only=True)
class Letter(Spec):
    def type_name(self) -> str:
        return "one letter"


@dataclass(frozen=True, kw_only=True)
class ProvinceSpec(Spec):
    """A province (or coast) of the map; checked once the map is compiled."""

    def type_name(self) -> str:
        return "province"


@dataclass(frozen=True, kw_only=True)
class UnitSpec(Spec):
    def type_name(self) -> str:
        return 'unit `"A par"`, `"F stp/sc"`'


@dataclass(frozen=True, kw_only=True)
class Int(Spec):
    min: int | None = None
    max: int | None = None

    def type_name(self) -> str:
        if self.min is not None and self.max is not None:
            return f"integer {self.min} to {self.max}"
        if self.min is not None:
            return f"integer ≥ {self.min}"
        return "integer"


@dataclass(frozen=True, kw_only=True)
class Num(Spec):
    def type_name(self) -> str:
        return "number"


@dataclass(frozen=True, kw_only=True)
class Bool(Spec):
    def type_name(self) -> str:
        return "true or false"


@dataclass(frozen=True, kw_only=True)
class Point(Spec):
    def type_name(self) -> str:
        return "[longitude, latitude]"


@dataclass(frozen=True, kw_only=True)
class AnyValue(Spec):
    def type_name(self) -> str:
        return "any value"


@dataclass(frozen=True, kw_only=True)
class ListOf(Spec):
    item: Spec

    def type_name(self) -> str:
        inner = self.item.type_name()
        return "list of " + (inner + "s" if inner in ("province", "integer", "table") else inner)


@dataclass(frozen=True, kw_only=True)
class Behaviour(Spec):
    """The name of a behaviour registered for a hook point (``many``: a list of them, in order)."""

    point: str
    many: bool = False

    def type_name(self) -> str:
        known = ", ".join(f"`{n}`" for n in known_behaviours(self.point))
        return ("list of behaviours" if self.many else "behaviour") + (f": {known}" if known else "")


@dataclass(frozen=True, kw_only=True)
class Registered(Spec):
    """A name from one of the core's registries (map hooks, hook sets, victory hooks)."""

    registry: str

    def type_name(self) -> str:
        known = ", ".join(f"`{n}`" for n in registered_names(self.registry))
        return f"name: {known}" if known else "name"


@dataclass(frozen=True, kw_only=True)
class Table(Spec):
    fields: Mapping[str, Spec]
    synonyms: Mapping[str, str] = field(default_factory=dict)
    """Common other spellings -> the key meant (``centers`` -> ``centres``): a better hint than spelling."""

    def type_name(self) -> str:
        return "table"


@dataclass(frozen=True, kw_only=True)
class MapOf(Spec):
    """A table whose keys are names the author chooses (powers, provinces) and whose values share a spec."""

    key: str
    """What the keys are: ``power`` (must be one of the variant's powers), or a free word for the docs."""
    value: Spec
    may_leave_out: bool = False
    """``NAME = false`` is allowed: an entry the parent variant (or the data before an option) has, left out."""

    def type_name(self) -> str:
        return f"table: {self.key} → {self.value.type_name()}" + (" or false" if self.may_leave_out else "")


@dataclass(frozen=True, kw_only=True)
class Either(Spec):
    options: tuple[Spec, ...]

    def type_name(self) -> str:
        return " or ".join(o.type_name() for o in self.options)


@dataclass(frozen=True, kw_only=True)
class Overrides(Spec):
    """Part of a variant file, merged over the data when an option is on; checked like the file itself."""

    def type_name(self) -> str:
        return "table shaped like the variant file"


# ------------------------------------------------------------------------------------------ registries


# The names are read from core.lookup, the core's one registry (registered_names is imported from there).


def known_behaviours(point: str) -> list[str]:
    """Every name ``[rules] <point>`` may take: the built-in ones and those rule modules registered."""
    load_rule_modules()
    return behaviour_names(point)


# ----------------------------------------------------------------------------------------- the format

_PROVINCES = ListOf(item=ProvinceSpec())
_UNIT_KIND_INT = "unit kind"


VARIANT = Table(
    doc="Who the variant is.",
    required=True,
    fields={
        "name": Str(doc="The variant's name; must equal the file's name without `.toml`.", required=True),
        "title": Str(doc="The name people read.", default="the name"),
        "description": Str(doc="One or two sentences for `dippouch variants`.", default='""'),
        "extends": Str(doc="Start from another variant's data and change only what this file says (see Inheritance)."),
        "map_hooks": ListOf(
            item=Registered(registry="map_hooks"),
            doc="Code that derives extra fleet edges from the data (W3K's sea areas).",
        ),
    },
)

CALENDAR = Table(
    doc="The phases of one cycle and where the game starts in it.",
    required=True,
    fields={
        "start_year": Int(doc="The year of the first phase.", default="1901"),
        "start_step": Int(
            doc="Index in `phases` of the first phase (1897 starts on its Winter step, 4); less than the number of phases.",
            min=0,
            default="0",
        ),
        "cycle_years": Int(doc="Years one pass through `phases` covers (Hundred: 10).", min=1, default="1"),
        "last_year": Int(doc="The game ends after this year's last phase (1000 AD: 1015).", min=0),
        "phases": ListOf(
            required=True,
            doc="One cycle of steps, in order.",
            item=Table(
                fields={
                    "season": Str(doc="Season label shown in phase names; may be empty.", default='""'),
                    "kind": Str(choices=("movement", "retreats", "adjustments"), required=True),
                    "offset": Int(doc="Years after the cycle's start (Hundred's second turn: 5).", min=0, default="0"),
                },
            ),
        ),
    },
    synonyms={"start": "start_year", "year": "start_year", "first_year": "start_year", "end_year": "last_year"},
)

VICTORY = Table(
    doc="How the game is won.",
    fields={
        "centres": Int(doc="Supply centres a power needs to win.", min=1),
        "by_power": MapOf(key="power", value=Int(min=1), doc="A power's own target, instead of `centres` (1000 AD)."),
        "remaining": Int(doc="The game ends when only this many powers own centres (1000 AD: 3).", min=1),
        "hook": Registered(registry="victory_hooks", doc="A victory test beyond a centre count (W3K: capitals)."),
        "draw_hook": Registered(registry="draw_hooks", doc="Who may share a draw (W3K)."),
        "capitals": MapOf(key="kingdom", value=_PROVINCES, doc="Capitals by kingdom, read by the W3K victory hook."),
        "draws": Bool(doc="Whether a draw may be agreed at all.", default="true"),
    },
    synonyms={"centers": "centres", "supply_centers": "centres", "supply_centres": "centres", "target": "centres"},
)

_RULE_FIELDS: dict[str, Spec] = {
    "hooks": Registered(registry="hook_sets", doc="A whole set of rule hooks (a `RuleHooks` subclass)."),
    **{
        point: Behaviour(
            point=point,
            many=point == "phase_end",
            doc=(
                "Behaviours run after each phase, in this order."
                if point == "phase_end"
                else (
                    "Where a power may build: `home` (owned home centres, the standard rule), `owned` (any owned centre), or a named behaviour."
                    if point == "build_sites"
                    else f"Behaviour for the `{point}` hook (docs/rule-hooks.md)."
                )
            ),
        )
        for point in HOOK_POINTS
    },
    "unit_strength": Either(
        options=(
            MapOf(key=_UNIT_KIND_INT, value=Int(min=1)),
            Behaviour(point="unit_strength"),
        ),
        doc="Strength of a unit kind (1000 AD: `{ D = 3 }`), or a behaviour for the `unit_strength` hook.",
    ),
    "unit_costs": MapOf(key=_UNIT_KIND_INT, value=Int(min=0), doc="Centres a unit kind needs (1000 AD: `{ D = 2 }`)."),
    "unit_limits": MapOf(key=_UNIT_KIND_INT, value=Int(min=0), doc="At most this many units of a kind per power."),
    "moves_as": MapOf(
        key=_UNIT_KIND_INT,
        value=Str(choices=("A", "F")),
        doc='New unit kinds and whose moves they use (`{ D = "A" }`).',
    ),
    "unit_names": MapOf(key=_UNIT_KIND_INT, value=ListOf(item=Str()), doc="Words for a unit kind in orders."),
    "homeland_kinds": ListOf(item=Str(), doc="Unit kinds that may be built only inside the power's homeland."),
    "extra_build_centres": MapOf(
        key="power", value=_PROVINCES, doc="Centres a power may also build in while it owns them."
    ),
    "opening_builds": Int(
        min=0, doc="Builds each power has in an opening adjustment phase (`opening_builds`).", default="1"
    ),
    "opening_sites": MapOf(
        key="power", value=_PROVINCES, doc="Where a power may build in the opening (default: its home centres)."
    ),
    "homes_from_owned_year": Int(doc="At this year's adjustments owned centres become the home centres (1897: 1899)."),
    "early_build_sites": Str(choices=("owned",), doc="Before `homes_from_owned_year`, build on any owned centre."),
    "w3k_orders": Bool(doc="Read W3K's Convert, proxy and supply-transfer orders."),
    "proxy_orders": Bool(doc="The game layer accepts orders for other powers' units (W3K proxies)."),
    "supply_transfer": Bool(doc="The game layer accepts builds beyond the count (W3K supply transfers)."),
}

RULES = Table(
    doc="Switches and parameters of the rule hooks (docs/rule-hooks.md). Anything not set plays the standard rules.",
    fields=_RULE_FIELDS,
    synonyms={"build": "build_sites", "builds": "build_sites", "build_anywhere": "build_sites"},
)

_OPTION_VALUE = Table(
    fields={
        "description": Str(doc="What this value means."),
        "overrides": Overrides(doc="Merged over the data when the option has this value."),
    },
)

OPTION = Table(
    fields={
        "default": AnyValue(doc="The value when a game does not choose one.", required=True),
        "description": Str(doc="What the option does, for `dippouch variants NAME`."),
        "overrides": Overrides(
            doc="Merged over the data when the option is `true` (an option whose default is true or false "
            "takes only true or false)."
        ),
        "values": MapOf(
            key="value", value=_OPTION_VALUE, doc="For an option with named values: each value's overrides."
        ),
    },
)

POWER = Table(
    doc="One power; the table's key is its name.",
    fields={
        "adjective": Str(doc="`English`, used in reports and orders.", default="the name"),
        "letter": Letter(doc="Unique; used in compact reports and orders.", default="the name's first letter"),
        "colour": Colour(doc="Its colour on maps.", default='"#888888"'),
        "home_centres": ListOf(item=ProvinceSpec(), doc="Where it may build under the standard rule.", default="[]"),
        "centres": ListOf(item=ProvinceSpec(), doc="Centres owned at the start.", default="home_centres"),
        "units": ListOf(
            item=UnitSpec(), doc='Starting units; fleets on split coasts name the coast (`"F stp/sc"`).', default="[]"
        ),
        "homeland": ListOf(item=ProvinceSpec(), doc="Provinces inside its home borders (1000 AD)."),
        "names": MapOf(
            key="language",
            value=Str(),
            doc='Its name in other languages, by language code (`names = { de = "Frankreich" }`): shown to '
            "readers of that language; orders and stored games use the key. No effect on play.",
        ),
    },
    synonyms={
        "centers": "centres",
        "supply_centers": "centres",
        "supply_centres": "centres",
        "owned": "centres",
        "home_centers": "home_centres",
        "homes": "home_centres",
        "home": "home_centres",
        "color": "colour",
        "abbreviation": "letter",
        "abbrev": "letter",
        "start_units": "units",
    },
)

COAST = Table(
    fields={
        "name": Str(doc="`north coast`", default="from its key: nc, sc, ec, wc"),
        "fleet": ListOf(item=Str(), doc="Where a fleet on this coast may move.", default="[]"),
    },
)

PROVINCE = Table(
    doc="One province; the table's key is the abbreviation used in canonical orders.",
    fields={
        "name": Str(doc="Its full name (understood in orders too).", default="the abbreviation"),
        "type": Str(choices=("land", "coast", "sea", "impassable"), required=True),
        "sc": Bool(doc="A supply centre.", default="false"),
        "aliases": ListOf(item=Str(), doc="Other names understood in orders (case-insensitive)."),
        "point": Point(doc="Representative point: real longitude and latitude."),
        "army": ListOf(item=Str(), doc="Where an army may move from here.", default="[]"),
        "fleet": ListOf(
            item=Str(),
            doc='Where a fleet may move (provinces without split coasts); split coasts are named `"stp/nc"`.',
            default="[]",
        ),
        "coasts": MapOf(key="coast", value=COAST, doc="Split coasts (`coasts.nc = { fleet = [...] }`)."),
        "area": Str(doc="W3K: the Sea Area a sea province belongs to."),
        "borders": ListOf(item=Str(), doc="W3K: coasts and seas a sea province touches directly."),
        "shape": ListOf(
            item=Point(),
            doc="Extra shaping points `[[lon, lat], ...]` for drawing the map: the province's shape is the "
            "Voronoi cell of its point and these (docs/maps-geometry.md). No effect on play.",
            default="[]",
        ),
        "names": MapOf(
            key="language",
            value=Str(),
            doc='Its name in other languages, by language code (`names = { de = "Neapel" }`): shown to readers '
            "of that language; orders are read by `name` and `aliases`. No effect on play.",
        ),
    },
    synonyms={
        "kind": "type",
        "terrain": "type",
        "supply_centre": "sc",
        "supply_center": "sc",
        "centre": "sc",
        "center": "sc",
        "armies": "army",
        "fleets": "fleet",
        "adjacent": "army",
        "neighbours": "army",
        "alias": "aliases",
        "coast": "coasts",
    },
)

SEA_AREA = Table(
    fields={
        "name": Str(doc="Its name.", required=True),
        "primary": Str(doc="Its Primary Sea Region (a sea province).", required=True),
    },
)

_RING = ListOf(item=Point())

DRAWING = Table(
    doc="How `dippouch mapgen` draws the map (docs/maps-geometry.md). No effect on play.",
    fields={
        "board": ListOf(
            item=Point(),
            doc="The board's outline, `[lon, lat]` corners (edges follow meridians and parallels); "
            "default: the box of the points with a margin.",
        ),
        "centre": Point(doc="Centre of the map's projection; default: the middle of the points."),
        "coastline": Str(
            choices=("clip", "provinces"),
            doc="Where land and sea come from: `clip`, the real coastline; `provinces`, each province's point "
            "and kind (a map with no real geography: an imported picture's coordinates or a graph layout).",
            default='"clip" (or "provinces" where the clip does not cover the board)',
        ),
        "margin": Num(doc="Margin round the points when there is no `board`, as a share of its size.", default="0.06"),
        "outlines": MapOf(
            key="province",
            value=ListOf(item=_RING),
            doc="Province shapes given outright, rings of `[lon, lat]` (an imported map's outlines from its "
            "source picture): such a province is drawn as given, not grown round its point.",
        ),
        "water": ListOf(
            item=_RING, doc="Water patches, each a ring of `[lon, lat]` (historical water: the Zuiderzee, estuaries)."
        ),
        "land": ListOf(item=_RING, doc="Land patches, each a ring of `[lon, lat]` (water that was land)."),
        "offboard": ListOf(
            item=_RING,
            doc="Off-board patches, each a ring of `[lon, lat]`: a sea not in play and the land round it, "
            "inside the board's box but given to no province (drawn neutral; its outline is no shore).",
        ),
        "rivers": ListOf(
            item=_RING,
            doc="Navigable rivers to river ports, each a line of `[lon, lat]` from the port to the sea, "
            "drawn as water `river_units` wide.",
        ),
        "river_units": Num(doc="Width of the rivers on the picture, in picture units.", default="2.5"),
        "connectors": ListOf(
            item=ListOf(item=ProvinceSpec()),
            doc='Borders that cross water by rule, `[["lon", "cal"], ...]`: drawn as connectors, not shared borders.',
        ),
        "routes": MapOf(
            key='connector `"a-b"`',
            value=_RING,
            doc="Where a connector is drawn: `[lon, lat]` waypoints between its ends (default: a straight "
            "line between their nearest points), to keep it off the land of other provinces.",
        ),
        "nested": ListOf(
            item=ProvinceSpec(), doc="Places drawn as small circles inside another province (castles, cities)."
        ),
        "nested_units": MapOf(
            key="province", value=Num(), doc="Radius of particular nested places' circles, in picture units."
        ),
        "nested_km": Num(doc="Radius of the nested places' circles in km; default: 7 picture units."),
        "unit_spots": MapOf(
            key="province",
            value=Point(),
            doc="Where a province's unit is drawn, `[lon, lat]` (default: inside its shape, clear of the others'): "
            "for a place too small for a unit beside another as small; outside the shape, the unit gets a "
            "leader line to it.",
        ),
        "reach": Num(
            doc="A cell reaches at most this many times the distance to the nearest other point.", default="3.0"
        ),
        "island_km2": Num(doc="Islands without a province larger than this (km²) are drawn neutral.", default="2500"),
        "island_km": Num(doc="...as are smaller ones farther than this (km) from any province.", default="60"),
        "towns": MapOf(
            key="province",
            value=Point(),
            doc="Where a supply centre's marker is drawn, `[lon, lat]` of its town (default: the province's "
            "`point`); read when the map is drawn, so no `dippouch mapgen` is needed.",
        ),
        "sheets": MapOf(
            key="sheet name",
            value=Table(
                doc="One regional sheet of the printed atlas: the provinces it must show, or its box.",
                fields={
                    "provinces": ListOf(item=ProvinceSpec(), doc="The provinces the sheet shows (their shapes' box)."),
                    "box": ListOf(item=Num(), doc="`[x0, y0, x1, y1]` in map (picture) coordinates."),
                },
            ),
            doc="Regional sheets of the printed atlas (`report --pdf`), in order; read when the map is printed, "
            "so no `dippouch mapgen` is needed. Default: a grid of tiles where the whole map would print too small.",
        ),
    },
)

ROSTER = Table(
    doc="The game's player list (the W3K rulebook's roster of players' postal addresses): who may read it.",
    fields={
        "visibility": Str(
            choices=("coordinator", "co-players", "nobody"),
            doc="Who sees the players' postal addresses by default: the game's coordinator only, every player of "
            "the game (W3K, as its rulebook's shared document), or nobody; a coordinator may change it per game.",
            default='"coordinator"',
        ),
    },
)

MAPCHECK = Table(
    doc="Notes for `dippouch mapcheck`.",
    fields={
        "long_edges": MapOf(
            key='edge `"a-b"`',
            value=Str(),
            doc='Why a border much longer than its neighbours is right (`"cor-sar" = "rule 10"`).',
        ),
        "units_over_land": MapOf(
            key="unit spot (province or coast)",
            value=Str(),
            doc="Why a unit's mark may hide part of a neighbouring province (a unit standing beside a place too "
            "small for it, `[drawing] unit_spots`): shown by `dippouch mapcheck`, not counted as a mismatch.",
        ),
    },
)

PRESS = Table(
    doc="The press rules a game of this variant has unless its coordinator declares others (dippouch.press.rules).",
    fields={
        "kind": Str(
            choices=("none", "white", "grey", "public", "postal"), doc="`none` is gunboat (W3K: letters by post)."
        ),
        "channels": ListOf(item=Str(choices=("private", "group", "public")), doc="Channel kinds players may write in."),
        "quiet_phases": ListOf(
            item=Str(choices=("movement", "retreats", "adjustments")), doc="Phase kinds without press."
        ),
        "by_post": Bool(doc="The players write letters by post, outside the site (W3K); the roster gives addresses."),
    },
)

ROOT = Table(
    doc="A variant file.",
    fields={
        "variant": VARIANT,
        "calendar": CALENDAR,
        "victory": VICTORY,
        "rules": RULES,
        "options": MapOf(key="option", value=OPTION, doc="Game options a coordinator chooses with `-o KEY=VALUE`."),
        "powers": MapOf(
            key="power name",
            value=POWER,
            doc="The powers, each a table under its name; `NAME = false` leaves out a power the parent variant has.",
            required=True,
            may_leave_out=True,
        ),
        "provinces": MapOf(key="abbreviation", value=PROVINCE, doc="The map.", required=True),
        "sea_areas": MapOf(key="area", value=SEA_AREA, doc="W3K sea areas (see Sea areas below)."),
        "roster": ROSTER,
        "mapcheck": MAPCHECK,
        "drawing": DRAWING,
        "state": AnyValue(doc="Variant state at the start (JSON-like table, read by rule hooks)."),
        "press": PRESS,
    },
    synonyms={
        "powers_": "powers",
        "nations": "powers",
        "map": "provinces",
        "provinces_": "provinces",
        "win": "victory",
    },
)


# ------------------------------------------------------------------------------------------- checking

_DROP = object()


@dataclass
class Checker:
    """Checks data against the specs; collects problems and the province names to check against the map."""

    where: Callable[[Path], str]
    power_names: Sequence[str] = ()
    problems: list[VariantProblem] = field(default_factory=list)
    province_refs: list[tuple[Path, str]] = field(default_factory=list)

    def problem(self, path: Path, message: str) -> None:
        self.problems.append(VariantProblem(self.where(path), message))

    def check(self, spec: Spec, value: Any, path: Path, *, partial: bool = False) -> Any:
        """The value with its bad parts removed, or ``_DROP`` if nothing of it can be used."""
        if isinstance(spec, Table):
            return self._table(spec, value, path, partial=partial)
        if isinstance(spec, MapOf):
            return self._map(spec, value, path, partial=partial)
        if isinstance(spec, Overrides):
            if not isinstance(value, Mapping):
                self.problem(path, f"must be a table shaped like the variant file, not {_what(value)}")
                return _DROP
            return self._table(ROOT, value, path, partial=True)
        if isinstance(spec, ListOf):
            if not isinstance(value, list):
                self.problem(path, f"must be a {spec.type_name()}, not {_what(value)}")
                return _DROP
            out = []
            for v in value:
                got = self.check(spec.item, v, path, partial=partial)
                if got is not _DROP:
                    out.append(got)
            return out
        if isinstance(spec, Either):
            for option in spec.options:
                sub = Checker(self.where, self.power_names)
                got = sub.check(option, value, path, partial=partial)
                if not sub.problems:
                    self.province_refs.extend(sub.province_refs)
                    return got
                if _same_shape(option, value):
                    # The value has this option's shape: its own mistakes say more than "must be A or B".
                    self.problems.extend(sub.problems)
                    return _DROP
            self.problem(path, f"must be {spec.type_name()}, not {_what(value)}")
            return _DROP
        return self._scalar(spec, value, path)

    def _scalar(self, spec: Spec, value: Any, path: Path) -> Any:
        if isinstance(spec, AnyValue):
            return value
        if isinstance(spec, Bool):
            if not isinstance(value, bool):
                hint = (
                    f" (write {str(value).lower()} without quotes)" if str(value).lower() in ("true", "false") else ""
                )
                self.problem(path, f"must be true or false, not {_what(value)}{hint}")
                return _DROP
            return value
        if isinstance(spec, Int):
            if isinstance(value, bool) or not isinstance(value, int):
                hint = (
                    " (write the number without quotes)"
                    if isinstance(value, str) and value.strip().lstrip("-").isdigit()
                    else ""
                )
                self.problem(path, f"must be an {spec.type_name()}, not {_what(value)}{hint}")
                return _DROP
            if spec.min is not None and value < spec.min:
                self.problem(path, f"{value} is out of range: must be {spec.min} or more")
                return _DROP
            if spec.max is not None and value > spec.max:
                self.problem(path, f"{value} is out of range: must be {spec.max} or less")
                return _DROP
            return value
        if isinstance(spec, Num):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.problem(path, f"must be a number, not {_what(value)}")
                return _DROP
            return value
        if isinstance(spec, Point):
            ok = (
                isinstance(value, list)
                and len(value) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            )
            if not ok:
                self.problem(path, f"must be [longitude, latitude] (two numbers), not {_what(value)}")
                return _DROP
            lon, lat = value
            if not (-180 <= lon <= 360 and -90 <= lat <= 90):
                self.problem(path, f"[{lon}, {lat}] is out of range: longitude -180..360, latitude -90..90")
                return _DROP
            return value
        # Everything below is text.
        if not isinstance(value, str):
            self.problem(path, f"must be {spec.type_name()}, not {_what(value)}")
            return _DROP
        if isinstance(spec, Str) and spec.choices and value not in spec.choices:
            near = closest(value, spec.choices)
            hint = f"; did you mean {near!r}? Choose" if near else "; choose"
            self.problem(path, f"{value!r} is not allowed{hint} one of: {', '.join(spec.choices)}")
            return _DROP
        if isinstance(spec, Letter) and (len(value.strip()) != 1 or not value.strip().isalnum()):
            self.problem(path, f"must be one letter or digit, not {value!r}")
            return _DROP
        if isinstance(spec, Colour):
            v = value.strip()
            if not (len(v) == 7 and v.startswith("#") and all(c in "0123456789abcdefABCDEF" for c in v[1:])):
                self.problem(path, f'must be a colour like "#2848b4", not {value!r}')
                return _DROP
        if isinstance(spec, ProvinceSpec):
            self.province_refs.append((path, value))
        if isinstance(spec, Behaviour):
            known = known_behaviours(spec.point)
            if value not in known:
                near = closest(value, known)
                hint = f"; did you mean {near!r}?" if near else "."
                self.problem(path, f"no behaviour {value!r} for {spec.point}{hint} Known: {', '.join(known) or 'none'}")
                return _DROP
        if isinstance(spec, Registered):
            known = registered_names(spec.registry)
            if value not in known:
                near = closest(value, known)
                hint = f"; did you mean {near!r}?" if near else "."
                self.problem(path, f"unknown name {value!r}{hint} Known: {', '.join(known) or 'none'}")
                return _DROP
        return value

    def _table(self, spec: Table, value: Any, path: Path, *, partial: bool) -> Any:
        if not isinstance(value, Mapping):
            self.problem(path, f"must be a table, not {_what(value)}")
            return _DROP
        out: dict[str, Any] = {}
        for key, v in value.items():
            sub = spec.fields.get(key)
            if sub is None:
                self.problem((*path, key), self._unknown_key(spec, key, path))
                continue
            if isinstance(sub, Behaviour) and sub.many and isinstance(v, str):
                v = [v]
            if isinstance(sub, Behaviour) and sub.many:
                got = self.check(ListOf(item=Behaviour(point=sub.point)), v, (*path, key), partial=partial)
            else:
                got = self.check(sub, v, (*path, key), partial=partial)
            if got is not _DROP:
                out[key] = got
        if not partial:
            for key, sub in spec.fields.items():
                if sub.required and key not in value:
                    self.problem(path, f"missing {key!r} ({sub.doc or sub.type_name()})")
        return out

    @staticmethod
    def _unknown_key(spec: Table, key: str, path: Path) -> str:
        where = f"[{'.'.join(path)}]" if path else "the file's top level"
        meant = spec.synonyms.get(key.lower()) or closest(key, list(spec.fields))
        hint = f"; did you mean {meant!r}?" if meant else "."
        return f"unknown key {key!r} in {where}{hint} Known keys: {', '.join(spec.fields)}"

    def _map(self, spec: MapOf, value: Any, path: Path, *, partial: bool) -> Any:
        if not isinstance(value, Mapping):
            self.problem(path, f"must be a table ({spec.type_name()}), not {_what(value)}")
            return _DROP
        out: dict[str, Any] = {}
        for key, v in value.items():
            if spec.key == "power" and self.power_names and key not in self.power_names:
                near = closest(key, self.power_names)
                hint = f"; did you mean {near}?" if near else "."
                self.problem((*path, key), f"no power {key!r}{hint} Powers: {', '.join(self.power_names)}")
                continue
            if v is False and spec.may_leave_out:
                out[key] = v  # left out of the merged data by check_document
                continue
            got = self.check(spec.value, v, (*path, key), partial=partial)
            if got is not _DROP:
                out[key] = got
        return out


def _same_shape(spec: Spec, value: Any) -> bool:
    if isinstance(spec, (Table, MapOf, Overrides)):
        return isinstance(value, Mapping)
    if isinstance(spec, ListOf):
        return isinstance(value, list)
    return False


def _what(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return type(value).__name__


def check_document(data: Mapping[str, Any], where: Callable[[Path], str]) -> tuple[dict[str, Any], Checker]:
    """Check a (merged) variant file against :data:`ROOT`.

    Returns the data without its unknown keys and badly typed values, and the checker with every problem
    found and the province names still to be checked against the compiled map.
    """
    powers = data.get("powers")
    if isinstance(powers, Mapping) and any(v is False for v in powers.values()):
        # ``England = false`` under [powers]: a power the parent has and this variant leaves out (a two-power
        # game on the standard map), so its home centres are neutral and nothing of it is checked.
        powers = {k: v for k, v in powers.items() if v is not False}
        data = {**data, "powers": powers}
    names = [str(k) for k in powers] if isinstance(powers, Mapping) else []
    chk = Checker(where)
    odd = _misspelt_powers(powers if isinstance(powers, Mapping) else {}, chk)
    if odd:
        data = {**data, "powers": {k: v for k, v in powers.items() if k not in odd}}  # type: ignore[union-attr]
    chk.power_names = [n for n in names if n not in odd]
    for slip in sorted(odd):
        # Left out of the variant, but what it says is still checked: every problem of a file in one run.
        chk.check(POWER, powers[slip], ("powers", slip))  # type: ignore[index]
    cleaned = chk.check(ROOT, data, ())
    if cleaned is _DROP:
        cleaned = {}
    _cross_checks(cleaned, chk)
    return cleaned, chk


_POWER_DECLARING = {"home_centres", "units", *(k for k, v in POWER.synonyms.items() if v in ("home_centres", "units"))}


def _declares_power(table: Any) -> bool:
    """A table that says where a power starts (its home centres or its units) declares a power of its own;
    one that only changes a value (``centres``, ``colour``) beside a near-namesake is the slip of a pen."""
    return isinstance(table, Mapping) and any(k in _POWER_DECLARING for k in table)


def look_alike_powers(names: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs of power names close enough to be taken for one another (Russia and Prussia): both are kept
    when both are declared, and ``variants check`` says so, so an author sees it and a reader is warned."""
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.75:
                out.append((a, b))
    return out


def _misspelt_powers(powers: Mapping[str, Any], chk: Checker) -> set[str]:
    """Powers whose names are near-copies of another's (``Frnace`` beside ``France``): a slip, not a power.

    Of the two, the one with less written about it is taken for the slip of the pen (a child file that
    meant to change France's centres writes one key under ``[powers.Frnace]``).
    """
    names = list(powers)
    odd: set[str] = set()
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if a in odd or b in odd:
                continue
            if difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() < 0.75:
                continue
            if _declares_power(powers[a]) and _declares_power(powers[b]):
                continue  # Russia and Prussia, East and West: two whole powers, not a slip (variants check warns)
            size_a = len(powers[a]) if isinstance(powers[a], Mapping) else 0
            size_b = len(powers[b]) if isinstance(powers[b], Mapping) else 0
            slip, meant = (a, b) if size_a < size_b else (b, a)
            odd.add(slip)
            chk.problem(
                ("powers", slip),
                f"a power named {slip!r} next to {meant!r}: did you mean {meant}? "
                "(a new [powers.NAME] table makes a new power)",
            )
    return odd


def _cross_checks(data: dict[str, Any], chk: Checker) -> None:
    """Checks between keys: ranges that depend on other values."""
    cal = data.get("calendar")
    if isinstance(cal, dict):
        phases = cal.get("phases")
        if isinstance(phases, list):
            if not phases:
                chk.problem(("calendar", "phases"), "needs at least one phase")
            step = cal.get("start_step")
            if isinstance(step, int) and phases and step >= len(phases):
                chk.problem(
                    ("calendar", "start_step"),
                    f"{step} is out of range: there are {len(phases)} phases, so start_step is 0 to {len(phases) - 1}",
                )
                del cal["start_step"]
        first, last = cal.get("start_year"), cal.get("last_year")
        if isinstance(first, int) and isinstance(last, int) and last < first:
            chk.problem(("calendar", "last_year"), f"{last} is before start_year {first}")


# ------------------------------------------------------------------------------------- documentation


def schema_markdown() -> str:
    """The key reference of docs/variant-format.md, written from the declarations above."""
    lines: list[str] = []

    def table_doc(title: str, spec: Table) -> None:
        lines.append(f"### `{title}`")
        lines.append("")
        if spec.doc:
            lines.append(spec.doc)
            lines.append("")
        lines.append("| key | type | default | meaning |")
        lines.append("| --- | --- | --- | --- |")
        nested: list[tuple[str, Table]] = []
        for key, sub in spec.fields.items():
            default = "required" if sub.required else (f"{sub.default}" if sub.default is not None else "")
            meaning = sub.doc.replace("|", "\\|")
            kind = sub.type_name().replace("|", "\\|")
            lines.append(f"| `{key}` | {kind} | {default} | {meaning} |")
            if isinstance(sub, MapOf) and isinstance(sub.value, Table):
                nested.append((f"{title}.{key}.<{sub.key}>", sub.value))
            elif isinstance(sub, Table):
                nested.append((f"{title}.{key}", sub))
            elif isinstance(sub, ListOf) and isinstance(sub.item, Table):
                nested.append((f"{title}.{key}[]", sub.item))
        if spec.synonyms:
            pairs = ", ".join(f"`{k}` → `{v}`" for k, v in sorted(spec.synonyms.items()))
            lines.append("")
            lines.append(f"Other spellings that get a hint: {pairs}.")
        lines.append("")
        for t, s in nested:
            table_doc(t, s)

    for key, sub in ROOT.fields.items():
        if isinstance(sub, Table):
            table_doc(key, sub)
        elif isinstance(sub, MapOf) and isinstance(sub.value, Table):
            table_doc(f"{key}.<{sub.key}>", sub.value)
        else:
            lines.append(f"### `{key}`")
            lines.append("")
            lines.append(f"{sub.type_name()}: {sub.doc}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


BEGIN_MARK = (
    "<!-- key reference: written by scripts/variant-format-doc from src/dippouch/core/schema.py; do not edit -->"
)
END_MARK = "<!-- end of key reference -->"


def with_reference(doc: str) -> str:
    """``doc`` with the text between the reference markers replaced by :func:`schema_markdown`."""
    head, sep, rest = doc.partition(BEGIN_MARK)
    if not sep:
        raise ValueError(f"the document has no line {BEGIN_MARK!r}")
    _, sep2, tail = rest.partition(END_MARK)
    if not sep2:
        raise ValueError(f"the document has no line {END_MARK!r}")
    return f"{head}{BEGIN_MARK}\n\n{schema_markdown()}\n{END_MARK}{tail}"
