"""Where a variant comes from and under which licence, for the variants' pages.

A variant on the shelf (:data:`dippouch.catalog.SHELF_VARIANTS`) was imported from another judge's files, and
their licence asks that its copyright and notice go with it; a player choosing it should also see what the
import could not carry over (the source's rules it does not play). The shelf's ``sources.json``, written
with the files, holds that for each; dippouch's own variants and a user's files need no such record. This
module returns data only: the words are the templates' (``_variant_origin.html``, catalogue ``variants``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from dippouch.catalog import SHELF_VARIANTS, variant_files

__all__ = ["Origin", "origin_of", "origins"]

SOURCES = SHELF_VARIANTS / "sources.json"


@dataclass(frozen=True, slots=True)
class Origin:
    """A variant's source: ``dippouch`` (its own), ``shelf`` (imported from a judge) or ``file`` (a user's)."""

    kind: str
    judge: str = ""
    file: str = ""
    """The source file in its repository (``DPjudge/maps/pure.map``); for ``file``, the file on disk."""
    url: str = ""
    """The source file at the commit read."""
    repository: str = ""
    commit: str = ""
    licence: str = ""
    licence_url: str = ""
    copyright: str = ""
    not_carried_over: tuple[str, ...] = ()
    guessed: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def _shelf() -> dict[str, dict[str, Any]]:
    """The shelf's record (read once: the package's files do not change while dippouch runs)."""
    try:
        data = json.loads(SOURCES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _from_shelf(entry: dict[str, Any]) -> Origin:
    repo = str(entry.get("repository", ""))
    commit = str(entry.get("commit", ""))
    file = str(entry.get("file", ""))
    blob = f"{repo}/blob/{commit}/" if repo.startswith("https://github.com/") and commit else ""
    return Origin(
        kind="shelf",
        judge="DPjudge",
        file=file,
        url=blob + file if blob else repo,
        repository=repo,
        commit=commit[:7],
        licence=str(entry.get("licence", "")),
        licence_url=blob + "LICENSE" if blob else "",
        copyright=str(entry.get("copyright", "")),
        not_carried_over=tuple(str(x) for x in entry.get("not_carried_over", ())),
        guessed=tuple(str(x) for x in entry.get("guessed", ())),
    )


def origins() -> dict[str, Origin]:
    """Every usable variant name's origin, as the name lookup resolves it now (a user's file never replaces
    a built-in unless the settings allow it, and then the page names the user's file)."""
    shelf = _shelf()
    out: dict[str, Origin] = {}
    for f in variant_files():
        if f.status != "used":
            continue
        if f.folder.builtin and f.path.parent == SHELF_VARIANTS and f.name in shelf:
            out[f.name] = _from_shelf(shelf[f.name])
        elif f.folder.builtin:
            out[f.name] = Origin(kind="dippouch", licence="MIT")
        else:
            out[f.name] = Origin(kind="file", file=str(f.path))
    return out


def origin_of(name: str) -> Origin:
    """The origin of the variant ``name`` (a variant the lookup does not find: a user's file, unnamed)."""
    return origins().get(name, Origin(kind="file"))
