"""The addresses of the files in ``static/``, each carrying a hash of its content (``/static/app.css?v=HASH``).

A browser may then keep a file for a year without asking again (the middleware says so for an address whose
hash is the file's own): a new release changes the hash, so the next page names a new address and nothing stale
is ever used. Before this, every page view revalidated six files, a round trip each on a phone. The hashes are
computed once, on the first page a process renders; the files do not change while it runs."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

__all__ = ["STATIC", "current", "static_url"]

STATIC = Path(__file__).resolve().parent.parent / "static"


@cache
def _versions() -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:12]
        for p in sorted(STATIC.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }


def static_url(name: str) -> str:
    """The address of ``static/name`` with its content's hash. An unknown name is a mistake in a template:
    refused with the names there are, so the page that names it fails in the first test that renders it."""
    versions = _versions()
    if name not in versions:
        raise ValueError(f"no static file {name!r}; there are: {', '.join(versions)}")
    return f"/static/{name}?v={versions[name]}"


def current(name: str, version: str) -> bool:
    """Whether ``version`` is the hash of ``static/name`` as it is now (an old page may name an old hash: what
    it gets then is the new file, which must not be kept for a year under the old address)."""
    return bool(version) and _versions().get(name) == version
