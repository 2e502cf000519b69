"""Variants as data: load a TOML file (with inheritance and options), validate it, compile it.

The file format is documented in docs/variant-format.md. Loading reports every problem at once with
its place in the file, because a variant author fixing a reconstructed map wants the whole list.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import json
import os
import re
import threading
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from dippouch.core import compiled
from dippouch.core.calendar import Calendar
from dippouch.core.errors import UnknownVariantError, VariantError, VariantProblem
from dippouch.core.lookup import NAME_SOURCES, closest
from dippouch.core.mapdata import GameMap, compile_map
from dippouch.core.position import Position, Unit
from dippouch.core.tomllines import key_lines

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
NAME_SOURCES["map_hooks"] = lambda: sorted(MAP_HOOKS)  # the schema checks [variant] map_hooks against it


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

    @cached_property
    def _power_index(self) -> Mapping[str, Power]:
        """Lower-cased name, adjective and letter -> power; the first power to use a word keeps it (as the
        search in order did). Reading a stored position looks up every unit's and centre's power."""
        index: dict[str, Power] = {}
        for p in self.powers:
            for word in (p.name.lower(), p.adjective.lower(), p.letter.lower()):
                index.setdefault(word, p)
        return index

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


SETTINGS_ENV = "DIPPOUCH_SETTINGS"
PATH_ENV = "DIPPOUCH_VARIANT_PATH"


@dataclass(frozen=True, slots=True)
class VariantFolder:
    """A folder variant files are looked for in, and why (shown by ``dippouch variants --where``)."""

    path: Path
    source: str
    """``DIPPOUCH_VARIANT_PATH``, ``settings file <path>`` or ``built-in``."""
    builtin: bool = False


@dataclass(frozen=True, slots=True)
class VariantFile:
    """A ``.toml`` file found in a variant folder, and whether a name lookup uses it."""

    name: str
    path: Path
    folder: VariantFolder
    status: str
    """``used``, ``hidden by <path>`` (an earlier folder has the name) or ``ignored: ...`` (it would
    shadow a built-in variant without ``override_builtins`` saying so)."""


def settings_path() -> Path:
    """The user's settings file: ``DIPPOUCH_SETTINGS``, else ``$XDG_CONFIG_HOME/dippouch/settings.toml``."""
    env = os.environ
    return _settings_path(env.get(SETTINGS_ENV), env.get("XDG_CONFIG_HOME"), env.get("HOME"))


@lru_cache(maxsize=16)
def _settings_path(given: str | None, xdg: str | None, home: str | None) -> Path:
    if given:
        return Path(given).expanduser()
    base = xdg or str(Path(home) / ".config" if home else Path.home() / ".config")
    return Path(base) / "dippouch" / "settings.toml"


def read_settings() -> dict[str, Any]:
    """The settings file's ``variant_path`` and ``override_builtins`` (empty when there is no file).

    A broken settings file is an error that names it, not a silent fallback: the author would otherwise
    wonder why their folder is not searched.
    """
    path = settings_path()
    try:
        st = path.stat()
    except OSError:
        return {}
    stamp = (str(path), st.st_mtime_ns, st.st_size)
    if _SETTINGS_CACHE and _SETTINGS_CACHE[0] == stamp:
        return dict(_SETTINGS_CACHE[1])
    data = _read_settings(path)
    _SETTINGS_CACHE[:] = [stamp, data]
    return dict(data)


_SETTINGS_CACHE: list[Any] = []


def _read_settings(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as e:
        raise VariantError(str(path), [VariantProblem(str(path), f"settings file is not valid TOML: {e}")]) from None
    problems = []
    for key in data:
        if key not in ("variant_path", "override_builtins"):
            near = difflib.get_close_matches(key, ["variant_path", "override_builtins"], n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            problems.append(VariantProblem(f"{path}: {key}", f"unknown setting {key!r}{hint}"))
    for key in ("variant_path", "override_builtins"):
        value = data.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(VariantProblem(f"{path}: {key}", "must be a list of text"))
        else:
            data[key] = value
    if problems:
        raise VariantError(str(path), problems)
    return data


def variant_folders(settings: Mapping[str, Any] | None = None) -> list[VariantFolder]:
    """Where variant files are looked for, in order: ``DIPPOUCH_VARIANT_PATH``, the settings file, the package."""
    out = [VariantFolder(Path(p).expanduser(), PATH_ENV) for p in os.environ.get(PATH_ENV, "").split(os.pathsep) if p]
    if settings is None:
        settings = read_settings()
    where = f"settings file {settings_path()}"
    base = settings_path().parent
    for p in settings.get("variant_path", []):
        folder = Path(p).expanduser()
        out.append(VariantFolder(folder if folder.is_absolute() else base / folder, where))
    out.append(VariantFolder(PACKAGE_VARIANTS, "built-in", builtin=True))
    return out


def variant_dirs() -> list[Path]:
    """The folders of :func:`variant_folders`, for callers that only need paths."""
    return [f.path for f in variant_folders()]


@lru_cache(maxsize=1)
def _builtin_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in PACKAGE_VARIANTS.glob("*.toml")))


def builtin_names() -> list[str]:
    """The variants shipped in the package (their files do not change while dippouch runs)."""
    return list(_builtin_names())


def _override_builtins(settings: Mapping[str, Any] | None = None) -> set[str]:
    if settings is None:
        settings = read_settings()
    return {str(n).lower() for n in settings.get("override_builtins", [])}


def variant_files() -> list[VariantFile]:
    """Every variant file in every folder, in precedence order, with the name lookup's verdict on each.

    Kept while no folder changes (a folder's modification time moves when a file is added or removed), so
    the name lookup every ``load_variant`` makes costs a few ``stat`` calls.
    """
    settings = read_settings()
    folders = variant_folders(settings)
    allowed = _override_builtins(settings)
    stamp = []
    for folder in folders:
        try:
            stamp.append((str(folder.path), folder.source, folder.path.stat().st_mtime_ns))
        except OSError:
            stamp.append((str(folder.path), folder.source, -1))
    key = (tuple(stamp), tuple(sorted(allowed)))
    if _FILES_CACHE and _FILES_CACHE[0] == key:
        return list(_FILES_CACHE[1])
    found = _scan_files(folders, allowed)
    _FILES_CACHE[:] = [key, found]
    return list(found)


_FILES_CACHE: list[Any] = []


def _scan_files(folders: list[VariantFolder], allowed: set[str]) -> list[VariantFile]:
    builtins = set(builtin_names())
    taken: dict[str, Path] = {}
    out: list[VariantFile] = []
    for folder in folders:
        if not folder.path.is_dir():
            continue
        for p in sorted(folder.path.glob("*.toml")):
            name = p.stem.lower()
            if name in taken:
                status = f"hidden by {taken[name]}"
            elif not folder.builtin and name in builtins and name not in allowed:
                status = (
                    f"ignored: it would replace the built-in {name!r}; rename it, or list {name!r} under "
                    f"override_builtins in {settings_path()}"
                )
            else:
                status = "used"
                taken[name] = p
            out.append(VariantFile(name, p, folder, status))
    return out


def variant_names() -> list[str]:
    return sorted({f.name for f in variant_files() if f.status == "used"})


def _find_file(name: str, *, builtin_only: bool = False, skip: Path | None = None, near: Path | None = None) -> Path:
    """The file a variant name means.

    ``builtin_only``: a built-in variant's ``extends`` always means another built-in, so no user file can
    break it. ``skip``: a file extending its own name (a user ``standard.toml`` that ``extends =
    "standard"``) means the next file of that name, not itself. ``near``: the folder of a file loaded by
    path, searched first for its parent.
    """
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        return p
    key = name.lower()
    if builtin_only:
        f = PACKAGE_VARIANTS / f"{key}.toml"
        if f.is_file():
            return f
    else:
        skipped = skip.resolve() if skip is not None else None
        if near is not None:
            f = near / f"{key}.toml"
            may_shadow = key not in builtin_names() or key in _override_builtins()
            if f.is_file() and f.resolve() != skipped and may_shadow:
                return f
        candidates = [vf for vf in variant_files() if vf.name == key]
        if skipped is not None:
            paths = [vf.path.resolve() for vf in candidates]
            if skipped in paths:
                rest = candidates[paths.index(skipped) + 1 :]
                if rest:
                    return rest[0].path
            candidates = [vf for vf in candidates if vf.path.resolve() != skipped]
        for vf in candidates:
            if vf.status == "used":
                return vf.path
    known = variant_names()
    close = difflib.get_close_matches(key, known, n=1)
    raise UnknownVariantError(name, known, close[0] if close else None)


def _display(path: Path) -> str:
    """How a file is named in messages: built-ins by file name, user files by their path."""
    try:
        path.resolve().relative_to(PACKAGE_VARIANTS)
        return path.name
    except ValueError:
        return str(path)


class _Locator:
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


@dataclass
class _Raw:
    """A variant file chain read from disk: merged data, the texts for line numbers, problems so far."""

    data: dict[str, Any]
    files: list[tuple[str, str]]
    paths: list[Path]
    problems: list[VariantProblem]
    parent_missing: bool = False


def _load_raw(
    name: str,
    seen: tuple[str, ...] = (),
    *,
    builtin_only: bool = False,
    skip: Path | None = None,
    near: Path | None = None,
) -> _Raw:
    path = _find_file(name, builtin_only=builtin_only, skip=skip, near=near)
    shown = _display(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise VariantError(
            shown, [VariantProblem(shown, f"not UTF-8 text (byte {e.start}); save it as UTF-8")]
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        line = getattr(e, "lineno", None)
        place = f"{shown}:{line}" if line else shown
        raise VariantError(shown, [VariantProblem(place, f"not valid TOML: {e}")]) from None
    problems: list[VariantProblem] = []
    scanned: list[dict[tuple[str, ...], int]] = []

    def at(*key: str) -> str:
        if not scanned:  # line numbers only for a message (see _Locator)
            scanned.append(key_lines(text))
        lines = scanned[0]
        line = lines.get(key) or lines.get(key[:1])
        return ".".join(key) + (f" ({shown}:{line})" if line else f" ({shown})")

    vt = data.get("variant")
    vt = vt if isinstance(vt, dict) else {}
    own = vt.get("name")
    if isinstance(own, str) and own.lower() != path.stem.lower():
        problems.append(
            VariantProblem(
                at("variant", "name"),
                f"name {own!r} differs from the file's name {path.stem!r}; a variant is found by its file name, "
                f"so write name = {path.stem!r} (or rename the file to {own}.toml)",
            )
        )
    files = [(shown, text)]
    paths = [path]
    parent = vt.get("extends")
    if parent is not None and not isinstance(parent, str):
        problems.append(VariantProblem(at("variant", "extends"), "must be the name of another variant"))
        parent = None
    if parent:
        if parent.lower() in seen:
            raise VariantError(
                shown, [VariantProblem(at("variant", "extends"), f"inheritance cycle through {parent!r}")]
            )
        is_builtin = path.resolve().parent == PACKAGE_VARIANTS
        own_name = parent.lower() == path.stem.lower()
        try:
            base = _load_raw(
                parent,
                (*seen, path.stem.lower()),
                builtin_only=is_builtin,
                skip=path if own_name else None,
                near=None if is_builtin else path.parent,
            )
        except UnknownVariantError as e:
            problems.append(VariantProblem(at("variant", "extends"), str(e)))
            return _Raw(data, files, paths, problems, parent_missing=True)
        # The child's [variant] table replaces identity fields; "extends" stays the child's own.
        data = deep_merge(base.data, data)
        files = base.files + files
        paths = base.paths + paths
        problems = base.problems + problems
        if base.parent_missing:
            return _Raw(data, files, paths, problems, parent_missing=True)
    return _Raw(data, files, paths, problems)


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


def load_variant(name: str, options: Mapping[str, Any] | None = None) -> Variant:
    """Load a variant by name (or path to a ``.toml`` file), with option values chosen for a game.

    Raises :class:`VariantError` listing every problem, or :class:`UnknownVariantError`. Loaded variants
    are kept while their files are unchanged on disk, so an author's edit is seen by the next load.
    """
    # The file a name means can change (a folder added, a file put in an earlier folder, an override
    # allowed), so the key holds the file the name resolves to now, not only the name.
    # Options by type and value: ``1 == True`` in Python, but ``judge_calendar = 1`` is not ``true``.
    chosen = tuple(sorted((str(k), type(v).__name__, repr(v)) for k, v in (options or {}).items()))
    key = (str(_find_file(name)), chosen, tuple(sorted(_override_builtins())))
    hit = _CACHE.get(key)
    if hit is not None and _stamp(hit[0]) == hit[1]:
        return hit[2]
    disk_key = f"file\n{key!r}"
    kept = compiled.fetch(disk_key)
    entry: tuple[list[Path], tuple[tuple[int, int], ...], Variant]
    if isinstance(kept, tuple) and len(kept) == 3 and isinstance(kept[2], Variant) and _stamp(kept[0]) == kept[1]:
        load_rule_modules()  # as a build would: every variant object that exists has its rules registered
        entry = (kept[0], kept[1], kept[2])
    else:
        variant, paths = _load_uncached(name, dict(options or {}))
        entry = (paths, _stamp(paths), variant)
        compiled.keep(disk_key, entry)
    if len(_CACHE) >= 64:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = entry
    return entry[2]


_CACHE: dict[tuple[Any, ...], tuple[list[Path], tuple[tuple[int, int], ...], Variant]] = {}


def _stamp(paths: list[Path]) -> tuple[tuple[int, int], ...]:
    out = []
    for p in paths:
        try:
            st = p.stat()
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((-1, -1))
    return tuple(out)


def _load_uncached(name: str, options: dict[str, Any]) -> tuple[Variant, list[Path]]:
    raw = _load_raw(name)
    source = raw.files[-1][0]
    locate = _Locator(raw.files)
    if raw.parent_missing:
        # Without its parent the file cannot be built; report its own mistakes with the missing parent.
        def where(path: tuple[str, ...]) -> str:
            place = locate(path)
            return ".".join(path) + (f" ({place})" if place else "")

        _, checker = check_document_partial(raw.data, where)
        raise VariantError(source, in_file_order(raw.problems + checker.problems))
    merged, values, problems = apply_options(raw.data, options)
    return build_variant(merged, source, locate, values, raw.problems + problems), raw.paths


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

    The ``[drawing]`` table, provinces' ``shape`` points and powers' ``colour`` change no rule, so a map
    redrawn or recoloured must not tell every running game that its variant file changed (and ask the
    coordinator to upgrade it).
    """
    out = {k: v for k, v in data.items() if k != "drawing"}
    provinces = out.get("provinces")
    if isinstance(provinces, Mapping):
        out["provinces"] = {
            k: ({f: x for f, x in p.items() if f != "shape"} if isinstance(p, Mapping) else p)
            for k, p in provinces.items()
        }
    powers = out.get("powers")
    if isinstance(powers, Mapping):
        out["powers"] = {
            k: ({f: x for f, x in p.items() if f != "colour"} if isinstance(p, Mapping) else p)
            for k, p in powers.items()
        }
    return out


def play_hash(data: Mapping[str, Any]) -> str:
    """:func:`content_hash` of :func:`play_data`: equal rules, equal hash, however the map is drawn."""
    return content_hash(play_data(data))


def canonical_json(data: Mapping[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_RESOLVED: dict[tuple[str, str], Variant] = {}
_RESOLVED_LOCK = threading.Lock()
"""Web servers build games' variants from several threads at once."""


def built_variant(digest: str, options: Mapping[str, Any] | None = None) -> Variant | None:
    """The variant already built here from the data whose hash is ``digest``, with these options, if any.

    A caller holding only the hash (a game's row read without its stored copy: kilobytes of JSON) can ask
    this first and read the copy only when it must build it (:func:`variant_from_data`)."""
    return _RESOLVED.get((digest, canonical_json(dict(options or {}))))


def variant_from_data(
    data: Mapping[str, Any], options: Mapping[str, Any] | None = None, *, source: str = "", digest: str | None = None
) -> Variant:
    """Build a variant from resolved data (after inheritance and options), as a game stores it.

    A game keeps the data it was created with, so later commands play the same variant whatever happens
    to the file on disk; this rebuilds it (cached by content hash; ``digest``, the hash stored with the
    data, spares computing it again).
    """
    opts = dict(options or {})
    key = (digest or content_hash(data), canonical_json(opts))
    hit = _RESOLVED.get(key)
    if hit is not None:
        return hit
    name = (
        str(data.get("variant", {}).get("name", source or "stored"))
        if isinstance(data.get("variant"), Mapping)
        else source
    )
    label = source or f"{name} (stored with the game)"
    disk_key = f"data\n{key!r}\n{label}"
    kept = compiled.fetch(disk_key)
    if isinstance(kept, Variant):
        load_rule_modules()
        variant = kept
    else:
        variant = build_variant(data, label, None, opts)
        compiled.keep(disk_key, variant)
    with _RESOLVED_LOCK:
        while len(_RESOLVED) >= 64:
            _RESOLVED.pop(next(iter(_RESOLVED)))
        _RESOLVED[key] = variant
    return variant
