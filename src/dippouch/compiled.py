"""Built variants kept on disk between commands, so each command does not build its variant again.

Building W3K from its data takes about 40 ms and reading it back from a pickle 3.5 ms; ``dippouch
variants`` builds all six. A coordinator types thirty commands a phase, each a new process, so the
in-memory caches of :mod:`dippouch.catalog` never help them: this one does. It lives in the shell, beside the
catalog that uses it: the core builds variants and does no I/O.

A cached variant is only as good as its key, so the key holds everything a build depends on: the caller's
key (the variant's data digest or its files and their modification stamps, and the options) plus the
modification stamps of the code that builds variants (every module under ``dippouch.core``, and the
catalog and this module, rewritten by any upgrade) and the Python version. Edit a rule module, upgrade dippouch, or touch a variant file, and the entry is
simply not found.

The web app keeps its pages' compiled code here too (:class:`dippouch.web.app._CompiledPages`, keyed by each
page's source, Jinja's version and the web package's modules): a new server reads it rather than compiling
every page again.

Pickles run code when read, so only files the current user owns, in a folder no one else can write to, are
read; anything else (a stranger's file, a damaged one, a pickle from another version) is ignored and
rebuilt. The folder is ``$DIPPOUCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/dippouch``, else
``~/.cache/dippouch``; ``DIPPOUCH_CACHE_DIR=off`` switches the cache off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from dippouch import settings

__all__ = ["CACHE_ENV", "cache_dir", "fetch", "files_stamp", "keep"]

CACHE_ENV = "DIPPOUCH_CACHE_DIR"
_KEEP = 300
"""Entries kept: old ones (from earlier code or edited files) are removed beyond this many."""


def cache_dir() -> Path | None:
    """Where entries live; ``None`` when the cache is switched off (:attr:`dippouch.settings.Settings.cache_dir`)."""
    return settings.current().cache_dir


@lru_cache(maxsize=1)
def _code_stamp() -> str:
    """Changes whenever the code that builds a variant may have changed."""
    here = Path(__file__).resolve().parent
    return "\n".join(
        [sys.version, files_stamp([*sorted((here / "core").rglob("*.py")), here / "catalog.py", here / "compiled.py"])]
    )


def files_stamp(paths: list[Path]) -> str:
    """The files' modification stamps and sizes, for a key that must change when any of them does (the code
    that built what is kept)."""
    package = Path(__file__).resolve().parent
    parts = []
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        parts.append(f"{p.relative_to(package)}:{st.st_mtime_ns}:{st.st_size}")
    return "\n".join(parts)


def _entry(key: str) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(f"{_code_stamp()}\n{key}".encode()).hexdigest()
    return folder / f"variant-{digest[:40]}.pickle"


def _private(st: os.stat_result) -> bool:
    """Owned by this user and writable by no one else (where the platform has owners)."""
    getuid = getattr(os, "getuid", None)
    if getuid is not None and st.st_uid != getuid():
        return False
    return not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def fetch(key: str) -> object | None:
    """The value kept under ``key``, or ``None`` (not kept, or not safe or not possible to read)."""
    path = _entry(key)
    if path is None:
        return None
    try:
        if not _private(path.parent.stat()):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not _private(os.fstat(f.fileno())):
                return None
            value: object = pickle.load(f)
            return value
    except Exception:
        return None  # damaged or from other code: it will be rebuilt and written again


def keep(key: str, value: object) -> None:
    """Keep ``value`` under ``key``; any failure (read-only home, full disk) only means no cache."""
    path = _entry(key)
    if path is None:
        return
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(path.parent.stat()):
            return
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".variant-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(path.parent)
    except OSError:
        return


def _prune(folder: Path) -> None:
    entries = []
    for p in folder.glob("variant-*.pickle"):
        try:
            entries.append((p.stat().st_mtime_ns, p))
        except OSError:
            continue
    if len(entries) <= _KEEP:
        return
    entries.sort()
    for _, p in entries[: len(entries) - _KEEP]:
        p.unlink(missing_ok=True)
