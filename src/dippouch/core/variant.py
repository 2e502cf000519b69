"""Variants as data: load a TOML file (with inheritance and options), validate it, compile it.

The file format is documented in docs/variant-format.md. Loading reports every problem at once with
its place in the file, because a variant author fixing a reconstructed map wants the whole list.
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from dippouch.core.calendar import Calendar
from dippouch.core.errors import UnknownVariantError, VariantError, VariantProblem
from dippouch.core.mapdata import GameMap, compile_map
from dippouch.core.position import Position, Unit

__all__ = [
    "Power",
    "Variant",
    "deep_merge",
    "load_variant",
    "variant_dirs",
    "variant_names",
]

PACKAGE_VARIANTS = Path(__file__).resolve().parent.parent / "variants"

#: Hooks a variant file may name under ``[variant] hooks``: name -> function(raw data) -> extra fleet
#: edges. Registered by modules in ``dippouch.core.rules`` (W3K derives its sea adjacency this way).
MAP_HOOKS: dict[str, Callable[[Mapping[str, Any]], Iterable[tuple[str, str]]]] = {}


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

    @cached_property
    def power_names(self) -> tuple[str, ...]:
        """Made once: the adjudicator and ``legal_orders`` read it every phase, and ``powers`` never changes."""
        return tuple(p.name for p in self.powers)

    def power(self, text: str) -> Power:
        """Find a power by name, adjective or letter, case-insensitively."""
        t = text.strip().lower()
        for p in self.powers:
            if t in (p.name.lower(), p.adjective.lower(), p.letter.lower()):
                return p
        close = difflib.get_close_matches(t, [p.name.lower() for p in self.powers], n=1)
        hint = ""
        if close:
            hint = f"; did you mean {next(p.name for p in self.powers if p.name.lower() == close[0])}?"
        raise KeyError(f"no power {text!r} in {self.name}{hint} Powers: {', '.join(self.power_names)}")


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; anything else in ``over`` replaces what ``base`` had."""
    out: dict[str, Any] = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def variant_dirs() -> list[Path]:
    """Where variant files are looked for: ``DIPPOUCH_VARIANT_PATH`` entries, then the package's own."""
    extra = [Path(p) for p in os.environ.get("DIPPOUCH_VARIANT_PATH", "").split(os.pathsep) if p]
    return [*extra, PACKAGE_VARIANTS]


def variant_names() -> list[str]:
    names: set[str] = set()
    for d in variant_dirs():
        if d.is_dir():
            names.update(p.stem for p in d.glob("*.toml"))
    return sorted(names)


def _find_file(name: str) -> Path:
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        return p
    for d in variant_dirs():
        f = d / f"{name.lower()}.toml"
        if f.is_file():
            return f
    known = variant_names()
    close = difflib.get_close_matches(name.lower(), known, n=1)
    raise UnknownVariantError(name, known, close[0] if close else None)


class _Locator:
    """Finds the line of a key path in the raw TOML text, so messages can say "standard.toml:123"."""

    def __init__(self, files: list[tuple[str, str]]) -> None:
        self.files = files

    def __call__(self, path: tuple[str, ...]) -> str | None:
        # Try the longest table header, then the key under it; newest file (the child) first.
        for fname, text in reversed(self.files):
            lines = text.splitlines()
            for depth in range(len(path), 0, -1):
                header = ".".join(path[:depth])
                pat = re.compile(r"^\s*\[\[?\s*" + re.escape(header) + r"\s*\]\]?\s*$")
                for i, line in enumerate(lines):
                    if pat.match(line):
                        rest = path[depth:]
                        if rest:
                            keypat = re.compile(r"^\s*" + re.escape(".".join(rest)) + r"\s*=")
                            for j in range(i + 1, len(lines)):
                                if lines[j].lstrip().startswith("["):
                                    break
                                if (
                                    keypat.match(lines[j])
                                    or lines[j].strip().startswith(rest[0] + " ")
                                    or lines[j].strip().startswith(rest[0] + ".")
                                ):
                                    return f"{fname}:{j + 1}"
                        return f"{fname}:{i + 1}"
        return None


def _load_raw(name: str, seen: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    path = _find_file(name)
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise VariantError(path.name, [VariantProblem(path.name, f"not valid TOML: {e}")]) from None
    files = [(path.name, text)]
    parent = data.get("variant", {}).get("extends")
    if parent:
        if parent in seen:
            raise VariantError(path.name, [VariantProblem("variant.extends", f"inheritance cycle through {parent!r}")])
        base, base_files = _load_raw(parent, (*seen, name))
        # The child's [variant] table replaces identity fields but must not inherit "extends" again.
        data = deep_merge(base, data)
        files = base_files + files
    return data, files


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
            if value not in allowed:
                problems.append(
                    VariantProblem(
                        f"options.{key}", f"value {value!r} not allowed; choose one of {', '.join(map(str, allowed))}"
                    )
                )
                continue
            over = allowed[value].get("overrides", {}) if isinstance(allowed[value], Mapping) else {}
        else:
            over = opt.get("overrides", {}) if value is True else {}
        if over:
            merged = deep_merge(merged, over)
    return merged, values, problems


def _unit_from_text(gmap: GameMap, text: str) -> tuple[str, int] | str:
    parts = text.split()
    if len(parts) != 2 or parts[0].upper() not in ("A", "F", "D"):
        return f"unit {text!r} must read like 'A par' or 'F stp/sc'"
    kind = parts[0].upper()
    try:
        loc = gmap.loc(parts[1])
    except KeyError as e:
        return str(e.args[0])
    if not gmap.can_hold("F" if kind == "F" else "A", loc):
        return f"a {'fleet' if kind == 'F' else 'army'} cannot stand on {gmap.locations[loc].abbr}"
    return kind, loc


RULE_MODULES = "dippouch.core.rules"
"""The package of variant rule modules: each registers, when imported, the map hooks, rule hooks, order
syntax and formats that variant files name (``map_hooks = ["w3k_seas"]``, ``[rules] hooks = "w3k"``)."""


def load_rule_modules() -> None:
    """Import the variant rule modules, once, before a variant is built from data.

    The rule modules are plugins: they import the core (hooks, notation, this module) to register what they
    provide, and no core module imports them. They are loaded here by name, as a plugin host loads its
    plugins, so that every variant object that exists has its rules available, and the core's imports only
    point down (tests/test_import_layers.py).
    """
    importlib.import_module(RULE_MODULES)


def build_variant(
    data: Mapping[str, Any],
    source: str,
    locate: Callable[[tuple[str, ...]], str | None] | None,
    option_values: Mapping[str, Any],
) -> Variant:
    problems: list[VariantProblem] = []

    def where(*path: str) -> str:
        place = locate(path) if locate else None
        return ".".join(path) + (f" ({place})" if place else "")

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

    powers: list[Power] = []
    units: dict[int, Unit] = {}
    centres: dict[int, str] = {}
    homes: dict[str, frozenset[int]] = {}
    homelands: dict[str, frozenset[int]] = {}
    letters: set[str] = set()

    def provinces_list(pname: str, key: str, values: Any, must_be_sc: bool) -> list[int]:
        out: list[int] = []
        if not isinstance(values, list):
            problems.append(VariantProblem(where("powers", pname, key), "must be a list of provinces"))
            return out
        for v in values:
            try:
                pid = gmap.province_of(gmap.loc(str(v)))
            except KeyError:
                close = difflib.get_close_matches(str(v).lower(), list(gmap.names), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(VariantProblem(where("powers", pname, key), f"unknown province {v!r}{hint}"))
                continue
            if must_be_sc and not gmap.provinces[pid].supply_centre:
                problems.append(VariantProblem(where("powers", pname, key), f"{v!r} is not a supply centre"))
                continue
            out.append(pid)
        return out

    for pname, pdata in data.get("powers", {}).items():
        letter = str(pdata.get("letter", pname[:1])).upper()
        if letter in letters:
            problems.append(VariantProblem(where("powers", pname, "letter"), f"letter {letter!r} used twice"))
        letters.add(letter)
        powers.append(Power(pname, str(pdata.get("adjective", pname)), letter, str(pdata.get("colour", "#888888"))))
        home = provinces_list(pname, "home_centres", pdata.get("home_centres", []), True)
        homes[pname] = frozenset(home)
        owned = provinces_list(pname, "centres", pdata.get("centres", pdata.get("home_centres", [])), True)
        for c in owned:
            if c in centres:
                problems.append(
                    VariantProblem(
                        where("powers", pname, "centres"), f"{gmap.provinces[c].abbr} is also owned by {centres[c]}"
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
                    VariantProblem(where("powers", pname, "units"), f"two units start in {gmap.provinces[prov].abbr}")
                )
            units[prov] = Unit(pname, kind, loc)

    try:
        calendar = Calendar.from_data(data.get("calendar", {}))
    except (KeyError, ValueError, TypeError) as e:
        problems.append(VariantProblem(where("calendar"), f"calendar is incomplete or wrong: {e}"))
        calendar = Calendar.from_data({"phases": [{"kind": "movement"}]})

    if not powers:
        problems.append(VariantProblem(where("powers"), "a variant needs at least one power"))
    if problems:
        raise VariantError(source, problems)

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


def load_variant(name: str, options: Mapping[str, Any] | None = None) -> Variant:
    """Load a variant by name (or path to a ``.toml`` file), with option values chosen for a game.

    Raises :class:`VariantError` listing every problem, or :class:`UnknownVariantError`.
    """
    key = tuple(sorted((options or {}).items()))
    return _load_cached(name, key)


@lru_cache(maxsize=64)
def _load_cached(name: str, option_items: tuple[tuple[str, Any], ...]) -> Variant:
    data, files = _load_raw(name)
    merged, values, problems = apply_options(data, dict(option_items))
    source = files[-1][0]
    if problems:
        raise VariantError(source, problems)
    return build_variant(merged, source, _Locator(files), values)
