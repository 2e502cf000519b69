"""Variants as data: validate a variant's data, apply its options, compile it into a :class:`Variant`.

The file format is documented in docs/variant-format.md. Building reports every problem at once with its
place in the file, because a variant author fixing a reconstructed map wants the whole list. This module is
pure, like the rest of the core: it builds from data and text it is handed. Finding variant files, reading
them and the user's settings, and keeping built variants (in memory and on disk) is the shell's work, in
:mod:`dippouch.catalog`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from dippouch.core.calendar import Calendar
from dippouch.core.derived import Derived
from dippouch.core.errors import NotFound, VariantError, VariantProblem
from dippouch.core.lookup import MAP_HOOKS, closest, load_rule_modules
from dippouch.core.mapdata import GameMap, compile_map
from dippouch.core.messages import msg
from dippouch.core.position import Position, Unit
from dippouch.core.tomllines import key_lines

I18N_DOMAIN = "rules"
"""The catalogue of the variant's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "Locator",
    "Power",
    "Variant",
    "apply_options",
    "build_variant",
    "canonical_json",
    "content_hash",
    "deep_merge",
    "in_file_order",
    "play_data",
    "play_hash",
]

# MAP_HOOKS, the hooks a variant file may name under ``[variant] map_hooks`` (name -> function(raw data) ->
# extra fleet edges, registered by rule modules: W3K derives its sea adjacency this way), is kept in
# core.lookup, the core's one registry.


@dataclass(frozen=True, slots=True)
class Power:
    name: str
    adjective: str
    letter: str
    colour: str


@dataclass(frozen=True, eq=False)
class Variant:
    """A compiled variant: everything the core needs to play it, nothing about storage or time."""

    name: str
    title: str
    description: str
    map: GameMap
    powers: tuple[Power, ...]
    calendar: Calendar
    start: Position
    victory: Mapping[str, Any]
    rules: Mapping[str, Any]
    """Rule switches and parameters read by the core's hooks (see docs/variant-format.md)."""
    options: Mapping[str, Any]
    """The option values this variant was loaded with."""
    homelands: Mapping[str, frozenset[int]]
    data: Mapping[str, Any] = field(repr=False)
    """The merged TOML, for hooks that need a section the core does not interpret."""
    source: str = ""
    derived: Derived = field(default_factory=Derived, init=False, repr=False, compare=False)
    """Tables the core derives from the variant (its rule hooks, notation's lexicon), kept with it: dropping the
    variant frees them."""

    @cached_property
    def power_names(self) -> tuple[str, ...]:
        """Made once: the adjudicator and ``legal_orders`` read it every phase, and ``powers`` never changes."""
        return tuple(p.name for p in self.powers)

    @cached_property
    def _power_index(self) -> Mapping[str, Power]:
        """Lower-cased name, adjective and letter -> power; the first power to use a word keeps it (as the
        search in order did). Reading a stored position looks up every unit's and centre's power."""
        index: dict[str, Power] = {}
        for p in self.powers:
            for word in (p.name.lower(), p.adjective.lower(), p.letter.lower()):
                index.setdefault(word, p)
        return index

    @cached_property
    def _names_in(self) -> Mapping[str, Mapping[str, str]]:
        """Language -> a power's name or a province's full name as the file writes it -> its name there."""
        out: dict[str, dict[str, str]] = {}
        named: list[tuple[str, Any]] = []  # (the name pages show, its names table)
        powers, provinces = self.data.get("powers"), self.data.get("provinces")
        if isinstance(powers, Mapping):
            named += [(key, entry) for key, entry in powers.items()]
        if isinstance(provinces, Mapping):
            named += [(str(e.get("name", key)) if isinstance(e, Mapping) else key, e) for key, e in provinces.items()]
        for name, entry in named:
            names = entry.get("names") if isinstance(entry, Mapping) else None
            if isinstance(names, Mapping):
                for lang, text in names.items():
                    out.setdefault(str(lang), {})[name] = str(text)
        return out

    def name_in(self, name: str, lang: str | None) -> str:
        """A power's name or a province's full name (as the variant file writes it) in ``lang``: the file's own
        translation where it gives one, else the name as written. Names are the variant's, not a catalogue's:
        each variant names its own places, and most names read the same in every language."""
        if not lang:
            return name
        return self._names_in.get(lang, {}).get(name, name)

    def power(self, text: str) -> Power:
        """Find a power by name, adjective or letter, case-insensitively."""
        hit = self._power_index.get(text)
        if hit is not None:
            return hit
        t = text.strip().lower()
        hit = self._power_index.get(t)
        if hit is not None:
            return hit
        close = difflib.get_close_matches(t, [p.name.lower() for p in self.powers], n=1)
        powers = ", ".join(self.power_names)
        if close:
            raise NotFound(
                msg(
                    "no power %(power)s in %(variant)s; did you mean %(close)s? Powers: %(powers)s",
                    power=repr(text),
                    variant=self.name,
                    close=next(p.name for p in self.powers if p.name.lower() == close[0]),
                    powers=powers,
                )
            )
        raise NotFound(
            msg(
                "no power %(power)s in %(variant)s Powers: %(powers)s",
                power=repr(text),
                variant=self.name,
                powers=powers,
            )
        )


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; anything else in ``over`` replaces what ``base`` had."""
    out: dict[str, Any] = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


class Locator:
    """Finds the line of a key path in the raw TOML texts, so messages can say "standard.toml:123".

    Of the files of an inheritance chain, the one that writes most of the path wins; on a tie the child,
    since its value is the one in force.
    """

    def __init__(self, files: list[tuple[str, str]]) -> None:
        self.texts = files
        self._files: list[tuple[str, dict[tuple[str, ...], int]]] | None = None

    @property
    def files(self) -> list[tuple[str, dict[tuple[str, ...], int]]]:
        # Scanned on the first message only: a variant that loads cleanly never needs its line numbers,
        # and scanning W3K's file is a sixth of the time to load it (every command that opens a game).
        if self._files is None:
            self._files = [(fname, key_lines(text)) for fname, text in self.texts]
        return self._files

    def __call__(self, path: tuple[str, ...]) -> str | None:
        best: tuple[int, str] | None = None
        for fname, lines in self.files:
            for depth in range(len(path), 0, -1):
                line = lines.get(path[:depth])
                if line is not None:
                    if best is None or depth >= best[0]:
                        best = (depth, f"{fname}:{line}")
                    break
        return best[1] if best else None


def apply_options(
    data: Mapping[str, Any], chosen: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], list[VariantProblem]]:
    """Resolve ``[options]``: each option has a default and may carry ``overrides`` merged when on.

    An option with ``values`` maps each allowed value to the overrides it brings.
    """
    problems: list[VariantProblem] = []
    spec = data.get("options", {})
    values: dict[str, Any] = {}
    merged = dict(data)
    for key in chosen:
        if key not in spec:
            close = difflib.get_close_matches(key, list(spec), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(VariantProblem(f"options.{key}", f"this variant has no option {key!r}{hint}"))
    for key, opt in spec.items():
        if not isinstance(opt, Mapping):
            problems.append(VariantProblem(f"options.{key}", "must be a table with a default"))
            continue
        value = chosen.get(key, opt.get("default"))
        values[key] = value
        if "values" in opt:
            allowed = opt["values"]
            if not isinstance(allowed, Mapping):
                continue  # the schema check of [options] reports it
            if value not in allowed:
                problems.append(
                    VariantProblem(
                        f"options.{key}", f"value {value!r} not allowed; choose one of {', '.join(map(str, allowed))}"
                    )
                )
                continue
            over = allowed[value].get("overrides", {}) if isinstance(allowed[value], Mapping) else {}
        else:
            if isinstance(opt.get("default"), bool) and not isinstance(value, bool):
                # An on/off option given anything else (``maybe``, ``1``) would silently mean "off".
                problems.append(VariantProblem(f"options.{key}", f"value {value!r} not allowed; write true or false"))
                continue
            over = opt.get("overrides", {}) if value is True else {}
        if over and isinstance(over, Mapping):
            merged = deep_merge(merged, over)
        # Overrides that are not tables are reported by the schema check of [options].
    return merged, values, problems


def _unit_from_text(gmap: GameMap, text: str) -> tuple[str, int] | str:
    parts = text.split()
    if len(parts) != 2 or parts[0].upper() not in ("A", "F", "D"):
        return f"unit {text!r} must read like 'A par' or 'F stp/sc'"
    kind = parts[0].upper()
    try:
        loc = gmap.loc(parts[1])
    except KeyError:
        near = closest(parts[1], [p.abbr for p in gmap.provinces] + [p.name for p in gmap.provinces])
        hint = f"; did you mean {near!r}?" if near else ""
        return f"unit {text!r}: no province or coast {parts[1]!r} on this map{hint}"
    prov = gmap.provinces[gmap.province_of(loc)]
    if kind == "F" and loc == prov.id and prov.coasts:
        options = " or ".join(f"F {gmap.locations[c].abbr}" for c in prov.coasts)
        return f"unit {text!r}: a fleet in {prov.name} stands on one of its coasts: {options}"
    if not gmap.can_hold("F" if kind == "F" else "A", loc):
        what = "fleet" if kind == "F" else "army"
        return f"unit {text!r}: a{'n' if what == 'army' else ''} {what} cannot stand in {prov.name} ({prov.kind.value})"
    return kind, loc


def build_variant(
    data: Mapping[str, Any],
    source: str,
    locate: Callable[[tuple[str, ...]], str | None] | None,
    option_values: Mapping[str, Any],
    problems: list[VariantProblem] | None = None,
) -> Variant:
    """Check ``data`` against the schema (docs/variant-format.md), compile it and build the variant.

    ``problems`` already found (by the file reader) are reported together with these, so an author sees
    everything wrong with a file in one run.
    """
    problems = list(problems or [])

    def where(*path: str) -> str:
        place = locate(path) if locate else None
        return ".".join(path) + (f" ({place})" if place else "")

    from dippouch.core.schema import check_document  # only a build checks a file: a cached variant needs none

    cleaned, checker = check_document(data, lambda path: where(*path))
    problems.extend(checker.problems)
    data = cleaned

    vt = data.get("variant", {})
    hook_edges: list[tuple[str, str]] = []
    load_rule_modules()
    for hook in vt.get("map_hooks", []):
        fn = MAP_HOOKS.get(hook)
        if fn is None:
            problems.append(VariantProblem(where("variant", "map_hooks"), f"unknown map hook {hook!r}"))
        else:
            hook_edges.extend(fn(data))
    gmap, map_problems = compile_map(data.get("provinces", {}), extra_fleet_edges=hook_edges, locate=locate)
    problems.extend(map_problems)

    # Names of provinces anywhere in the file (centres, homelands, rule tables) must be on the map.
    every = [p.abbr for p in gmap.provinces] + [p.name for p in gmap.provinces]
    bad_refs: set[tuple[tuple[str, ...], str]] = set()
    for path, name in checker.province_refs:
        try:
            gmap.loc(name)
        except KeyError:
            near = closest(name, every)
            hint = f"; did you mean {near!r}?" if near else ""
            problems.append(VariantProblem(where(*path), f"unknown province {name!r}{hint}"))
            bad_refs.add((path, name))

    powers: list[Power] = []
    units: dict[int, Unit] = {}
    centres: dict[int, str] = {}
    homes: dict[str, frozenset[int]] = {}
    homelands: dict[str, frozenset[int]] = {}
    letters: dict[str, str] = {}

    def provinces_list(pname: str, key: str, values: list[str], must_be_sc: bool) -> list[int]:
        out: list[int] = []
        for v in values:
            if (("powers", pname, key), v) in bad_refs:
                continue
            try:
                pid = gmap.province_of(gmap.loc(str(v)))
            except KeyError:
                continue
            if must_be_sc and not gmap.provinces[pid].supply_centre:
                problems.append(
                    VariantProblem(
                        where("powers", pname, key), f"{v!r} ({gmap.provinces[pid].name}) is not a supply centre"
                    )
                )
                continue
            out.append(pid)
        return out

    for pname, pdata in data.get("powers", {}).items():
        letter = str(pdata.get("letter", pname[:1])).upper()
        if letter in letters:
            problems.append(
                VariantProblem(
                    where("powers", pname, "letter"),
                    f'letter {letter!r} is already {letters[letter]}\'s; give {pname} its own (letter = "...")',
                )
            )
        letters[letter] = pname
        powers.append(Power(pname, str(pdata.get("adjective", pname)), letter, str(pdata.get("colour", "#888888"))))
        home = provinces_list(pname, "home_centres", pdata.get("home_centres", []), True)
        homes[pname] = frozenset(home)
        own_key = "centres" if "centres" in pdata else "home_centres"
        owned = provinces_list(pname, own_key, pdata.get("centres", pdata.get("home_centres", [])), True)
        for c in owned:
            if c in centres:
                problems.append(
                    VariantProblem(
                        where("powers", pname, own_key), f"{gmap.provinces[c].abbr} is also owned by {centres[c]}"
                    )
                )
            centres[c] = pname
        if "homeland" in pdata:
            homelands[pname] = frozenset(provinces_list(pname, "homeland", pdata["homeland"], False))
        for utext in pdata.get("units", []):
            u = _unit_from_text(gmap, str(utext))
            if isinstance(u, str):
                problems.append(VariantProblem(where("powers", pname, "units"), u))
                continue
            kind, loc = u
            prov = gmap.province_of(loc)
            if prov in units:
                problems.append(
                    VariantProblem(
                        where("powers", pname, "units"),
                        f"two units start in {gmap.provinces[prov].name}: {units[prov].power}'s and {pname}'s",
                    )
                )
            units[prov] = Unit(pname, kind, loc)

    try:
        calendar = Calendar.from_data(data.get("calendar", {}))
    except (KeyError, ValueError, TypeError, IndexError):
        # The schema has reported what is wrong with the calendar; a stand-in lets the checks go on.
        calendar = Calendar.from_data({"phases": [{"kind": "movement"}]})

    if not powers and "powers" in data:
        problems.append(VariantProblem(where("powers"), "a variant needs at least one power"))
    if problems:
        raise VariantError(source, in_file_order(problems))

    start = Position(phase=calendar.start, units=units, centres=centres, homes=homes, state=dict(data.get("state", {})))
    return Variant(
        name=str(vt.get("name", source)),
        title=str(vt.get("title", vt.get("name", source))),
        description=str(vt.get("description", "")),
        map=gmap,
        powers=tuple(powers),
        calendar=calendar,
        start=start,
        victory=dict(data.get("victory", {})),
        rules=dict(data.get("rules", {})),
        options=dict(option_values),
        homelands=homelands,
        data=data,
        source=source,
    )


_PLACE = re.compile(r"\((.+):(\d+)\)$")


def in_file_order(problems: list[VariantProblem]) -> list[VariantProblem]:
    """Problems sorted by file and line (those without a line keep their order, at the end), so an author
    can work down the file."""

    def key(item: tuple[int, VariantProblem]) -> tuple[int, str, int, int]:
        i, p = item
        m = _PLACE.search(p.where)
        return (0, m.group(1), int(m.group(2)), i) if m else (1, "", 0, i)

    return [p for _, p in sorted(enumerate(problems), key=key)]


def check_document_partial(data: Mapping[str, Any], where: Callable[[tuple[str, ...]], str]) -> tuple[Any, Any]:
    """Check a file on its own, without the keys its parent would supply (unknown keys and types only)."""
    from dippouch.core.schema import ROOT, Checker

    chk = Checker(where)
    return chk.check(ROOT, data, (), partial=True), chk


def content_hash(data: Mapping[str, Any]) -> str:
    """SHA-256 of a variant's resolved data in a canonical JSON form: equal data, equal hash."""
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def play_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """A variant's data without the keys that only say how its map is drawn.

    The ``[drawing]`` table, provinces' ``shape`` points, powers' ``colour`` and everyone's ``names`` in other
    languages change no rule, so a map redrawn, recoloured or translated must not tell every running game that
    its variant file changed (and ask the coordinator to upgrade it).
    """
    out = {k: v for k, v in data.items() if k != "drawing"}
    provinces = out.get("provinces")
    if isinstance(provinces, Mapping):
        out["provinces"] = {
            k: ({f: x for f, x in p.items() if f not in ("shape", "names")} if isinstance(p, Mapping) else p)
            for k, p in provinces.items()
        }
    powers = out.get("powers")
    if isinstance(powers, Mapping):
        out["powers"] = {
            k: ({f: x for f, x in p.items() if f not in ("colour", "names")} if isinstance(p, Mapping) else p)
            for k, p in powers.items()
        }
    return out


def play_hash(data: Mapping[str, Any]) -> str:
    """:func:`content_hash` of :func:`play_data`: equal rules, equal hash, however the map is drawn."""
    return content_hash(play_data(data))


def canonical_json(data: Mapping[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
