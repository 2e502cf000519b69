"""The variant catalog: where variant files are found, how they are read, and built variants kept.

The core (:mod:`dippouch.core.variant`) builds a variant from data it is handed and does no I/O. This shell
module does the rest: it finds files through ``DIPPOUCH_VARIANT_PATH``, the user's settings file and the
package, reads a file and its ``extends`` chain, and keeps built variants, in memory (a bounded cache that
really lets go: a variant dropped from it is freed, its derived tables with it) and on disk between commands
(:mod:`dippouch.compiled`).
"""

from __future__ import annotations

import difflib
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from dippouch import compiled
from dippouch import settings as installation
from dippouch.core.errors import DippouchError, UnknownVariantError, VariantError, VariantProblem
from dippouch.core.lookup import load_rule_modules
from dippouch.core.tomllines import key_lines
from dippouch.core.variant import (
    Locator,
    Variant,
    apply_options,
    build_variant,
    canonical_json,
    check_document_partial,
    content_hash,
    deep_merge,
    in_file_order,
)

__all__ = [
    "KEPT_VARIANTS",
    "PACKAGE_VARIANTS",
    "PATH_ENV",
    "SETTINGS_ENV",
    "SHELF_VARIANTS",
    "BrokenVariant",
    "VariantFile",
    "VariantFolder",
    "built_variant",
    "builtin_names",
    "load_variant",
    "read_settings",
    "settings_path",
    "shelf_names",
    "variant_files",
    "variant_folders",
    "variant_from_data",
    "variant_names",
    "variants_usable",
]

PACKAGE_VARIANTS = Path(__file__).resolve().parent / "variants"
SHELF_VARIANTS = PACKAGE_VARIANTS / "shelf"
"""The shelf: built-in variants imported from other judges whose licence allows shipping them (DPjudge's,
MIT), kept apart from dippouch's own six with their sources and licence notice (docs/variants-shelf.md).
They are built-ins like the others: same protection from a user's file of the same name, same geometry
folder."""
_BUILTIN_FOLDERS = (PACKAGE_VARIANTS, SHELF_VARIANTS)

KEPT_VARIANTS = 64
"""Built variants kept in memory by each of the two caches here (by file, by data hash), the oldest let go
first. A variant let go is freed, with every table the core derived from it (tests/variants/test_variant_memory.py)."""

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
    return installation.current().settings_file


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
    out = [VariantFolder(p, PATH_ENV) for p in installation.current().variant_path]
    if settings is None:
        settings = read_settings()
    where = f"settings file {settings_path()}"
    base = settings_path().parent
    for p in settings.get("variant_path", []):
        folder = Path(p).expanduser()
        out.append(VariantFolder(folder if folder.is_absolute() else base / folder, where))
    out.append(VariantFolder(PACKAGE_VARIANTS, "built-in", builtin=True))
    out.append(VariantFolder(SHELF_VARIANTS, "built-in", builtin=True))
    return out


@lru_cache(maxsize=1)
def _builtin_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for folder in _BUILTIN_FOLDERS for p in folder.glob("*.toml")))


def builtin_names() -> list[str]:
    """The variants shipped in the package (their files do not change while dippouch runs)."""
    return list(_builtin_names())


def shelf_names() -> list[str]:
    """The built-in variants on the shelf (imported from other judges), a part of :func:`builtin_names`."""
    return sorted(p.stem for p in SHELF_VARIANTS.glob("*.toml"))


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


@dataclass(frozen=True, slots=True)
class BrokenVariant:
    """A variant file that does not load: its name, file and every problem, for a list that names it."""

    name: str
    path: Path
    problems: tuple[str, ...]


def variants_usable() -> tuple[list[Variant], list[BrokenVariant]]:
    """Every variant that loads, and every one that does not with its problems.

    One broken file in a user's folder must not take the others down with it: pages and commands that list
    variants show the broken ones with their errors and keep offering the rest.
    """
    good: list[Variant] = []
    broken: list[BrokenVariant] = []
    files = {f.name: f.path for f in variant_files() if f.status == "used"}
    for name in sorted(files):
        try:
            good.append(load_variant(name))
        except VariantError as e:
            broken.append(BrokenVariant(name, files[name], tuple(str(p) for p in e.problems) or (str(e),)))
        except (DippouchError, OSError, ValueError) as e:
            broken.append(BrokenVariant(name, files[name], (str(e),)))
    return good, broken


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
        for folder in _BUILTIN_FOLDERS:
            f = folder / f"{key}.toml"
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
        is_builtin = path.resolve().parent in _BUILTIN_FOLDERS
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
    if len(_CACHE) >= KEPT_VARIANTS:
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
    locate = Locator(raw.files)
    if raw.parent_missing:
        # Without its parent the file cannot be built; report its own mistakes with the missing parent.
        def where(path: tuple[str, ...]) -> str:
            place = locate(path)
            return ".".join(path) + (f" ({place})" if place else "")

        _, checker = check_document_partial(raw.data, where)
        raise VariantError(source, in_file_order(raw.problems + checker.problems))
    merged, values, problems = apply_options(raw.data, options)
    return build_variant(merged, source, locate, values, raw.problems + problems), raw.paths


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
        while len(_RESOLVED) >= KEPT_VARIANTS:
            _RESOLVED.pop(next(iter(_RESOLVED)))
        _RESOLVED[key] = variant
    return variant
