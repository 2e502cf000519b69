"""Secrets of the installation itself: random keys made the first time they are asked for and kept in the
database, so every process (web servers, workers) and every restart uses the same one.

What they are for: an HMAC that must not be computable from outside (a hash of a client's address kept with a
practice game is, without a key: the addresses are few enough to try them all).

The same table keeps the settings a coordinator makes on the site's pages rather than in the environment (the
mail server set up on the desk, with its password): named ``GROUP.FIELD`` (``smtp.host``), one value of at most
:data:`VALUE_LENGTH` characters each, read by every process from the database so that a server and its
workers agree on them without a restart.
"""

from __future__ import annotations

import secrets
import threading
from weakref import WeakKeyDictionary

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.models_web import InstallationSecretRow

__all__ = ["VALUE_LENGTH", "installation_secret", "installation_values", "save_installation_values"]

VALUE_LENGTH = 200
"""The longest value a setting may have (the column's length)."""

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


def installation_values(store: Database, group: str) -> dict[str, str]:
    """The settings saved under ``group`` (``smtp``): field -> value; empty when none were ever saved."""
    prefix = group + "."
    with store.session() as s:
        rows = s.execute(
            sa.select(InstallationSecretRow.name, InstallationSecretRow.value).where(
                InstallationSecretRow.name.startswith(prefix, autoescape=True)
            )
        ).all()
    return {name.removeprefix(prefix): value for name, value in rows}


def save_installation_values(store: Database, group: str, values: dict[str, str | None]) -> None:
    """Replace the settings of ``group`` named in ``values`` at once (``None``: forget that one); a value
    longer than :data:`VALUE_LENGTH` is refused whole, before anything is written."""
    for field, value in values.items():
        if value is not None and len(value) > VALUE_LENGTH:
            raise ValueError(f"{group} {field} is longer than {VALUE_LENGTH} characters")
    now = store.clock()
    with store.session() as s, s.begin():
        for field, value in values.items():
            name = f"{group}.{field}"
            row = s.get(InstallationSecretRow, name)
            if value is None:
                if row is not None:
                    s.delete(row)
            elif row is None:
                s.add(InstallationSecretRow(name=name, value=value, created_at=now))
            else:
                row.value = value
                row.created_at = now
