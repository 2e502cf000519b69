"""Secrets of the installation itself: random keys made the first time they are asked for and kept in the
database, so every process (web servers, workers) and every restart uses the same one.

What they are for: an HMAC that must not be computable from outside (a hash of a client's address kept with a
practice game is, without a key: the addresses are few enough to try them all).
"""

from __future__ import annotations

import secrets
import threading
from weakref import WeakKeyDictionary

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.models_web import InstallationSecretRow

__all__ = ["installation_secret"]

_known: WeakKeyDictionary[Database, dict[str, bytes]] = WeakKeyDictionary()
_guard = threading.Lock()


def installation_secret(store: Database, name: str) -> bytes:
    """The installation's secret called ``name`` (32 random bytes as URL-safe text), made on first use.

    Two processes asking at once for a secret not yet made both try to insert one; the primary key keeps
    the first, and both read that one back."""
    with _guard:
        cached = _known.setdefault(store, {}).get(name)
    if cached is not None:
        return cached
    value = _read(store, name)
    if value is None:
        try:
            with store.session() as s, s.begin():
                s.add(InstallationSecretRow(name=name, value=secrets.token_urlsafe(32), created_at=store.clock()))
        except sa.exc.IntegrityError:
            pass  # another process made it first: theirs is the one
        value = _read(store, name)
        assert value is not None
    key = value.encode()
    with _guard:
        _known.setdefault(store, {})[name] = key
    return key


def _read(store: Database, name: str) -> str | None:
    with store.session() as s:
        return s.scalars(sa.select(InstallationSecretRow.value).where(InstallationSecretRow.name == name)).first()
