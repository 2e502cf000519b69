"""The work each asker has spent, kept where every web process sees it (the web's work budget,
:mod:`dippouch.web.http.budget`): two servers on one database, or ``--workers 2``, must not each give a person a whole
share.

An asker's share is a token bucket, kept here as one number per asker: the clock time at which their share is
full again (the generic cell rate algorithm's "theoretical arrival time"). Spending moves that time ahead by
what was spent, counted in the share's own time (seconds of work divided by the share's rate, the caller's
arithmetic); time passing refills it by itself, so a share that is full again has nothing to keep and its row
is deleted. Rows are named ``work.ASKER`` in the installation's table of values (:mod:`dippouch.store.installation`:
one short value a name, read by every process), which is why this needs no table of its own.

The clock is the callers' (seconds since the epoch, one machine's or NTP's): the database's would cost a round
trip on every look, and the rows live only a few minutes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.store.db import Database
from dippouch.store.models_web import InstallationSecretRow

__all__ = ["PREFIX", "StoreLedger", "advance_spent", "forget_full_shares", "full_again"]

PREFIX = "work."
"""What every row of spent work is named with, before its asker."""


def _name(asker: str) -> str:
    return PREFIX + asker[:90]  # the column holds 100 characters; an asker's key is far shorter


def _value(text: str) -> float | None:
    try:
        got = float(text)
    except ValueError:
        return None
    return got if math.isfinite(got) else None


_FULL_AGAIN = sa.select(InstallationSecretRow.name, InstallationSecretRow.value).where(
    InstallationSecretRow.name.in_(sa.bindparam("names", expanding=True))
)
"""Built once: every request that may charge a person reads their share."""


def full_again(db: Database, askers: Iterable[str]) -> dict[str, float]:
    """When each of ``askers`` has a full share again (epoch seconds), for those with a row; one read."""
    names = {_name(a): a for a in askers}
    if not names:
        return {}
    with db.one_read.connect() as conn:  # one statement: on PostgreSQL one round trip, outside a transaction
        rows = conn.execute(_FULL_AGAIN, {"names": list(names)}).all()
    return {names[name]: v for name, text in rows if (v := _value(text)) is not None}


def advance_spent(db: Database, moves: Mapping[str, float], now: float) -> dict[str, float]:
    """Move each asker's full-again time by ``moves[asker]`` seconds from ``max(full-again, now)`` (negative:
    back, work given back), in one transaction, and answer the new times (``now`` or before: full, no row kept).

    Each row is read under its lock (PostgreSQL ``FOR UPDATE``; SQLite's write lock, taken by every
    transaction), in the names' order so that two processes moving the same askers never wait for each other
    in a circle; a row that two processes both insert is moved again by the one that lost."""
    if not moves:
        return {}
    for attempt in range(3):
        try:
            # A ledger of the last minutes, not a record: its commit does not wait for the disk.
            with db.derived_writes() as conn, Session(bind=conn) as s:
                got = _advance(s, moves, now)
                s.flush()
                return got
        except sa.exc.IntegrityError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _advance(s: Session, moves: Mapping[str, float], now: float) -> dict[str, float]:
    by_name = {_name(a): a for a in moves}
    rows = {
        r.name: r
        for r in s.scalars(
            sa.select(InstallationSecretRow)
            .where(InstallationSecretRow.name.in_(sorted(by_name)))
            .order_by(InstallationSecretRow.name)
            .with_for_update()
        )
    }
    written = datetime.fromtimestamp(now, UTC)
    out: dict[str, float] = {}
    for name in sorted(by_name):
        asker = by_name[name]
        row = rows.get(name)
        was = _value(row.value) if row is not None else None
        tat = max(was if was is not None else now, now) + moves[asker]
        out[asker] = tat
        if tat <= now:
            if row is not None:
                s.delete(row)
        elif row is None:
            s.add(InstallationSecretRow(name=name, value=repr(tat), created_at=written))
        else:
            row.value, row.created_at = repr(tat), written
    return out


def forget_full_shares(db: Database, now: float, *, most: int = 5000) -> int:
    """Delete up to ``most`` rows of askers whose share is full again by ``now`` (an asker who spent and never came
    back); answers how many. One read of the rows, then one delete."""
    with db.derived_writes() as conn, Session(bind=conn) as s:
        rows = s.execute(
            sa.select(InstallationSecretRow.name, InstallationSecretRow.value).where(
                InstallationSecretRow.name.startswith(PREFIX, autoescape=True)
            )
        ).all()
        gone = [name for name, text in rows if (v := _value(text)) is None or v <= now][:most]
        if gone:
            s.execute(sa.delete(InstallationSecretRow).where(InstallationSecretRow.name.in_(gone)))
    return len(gone)


class StoreLedger:
    """The shares in the database, as the web's work budget reads and charges them: written on ``writes``,
    read on ``reads`` (on SQLite a store whose reads take no write lock). Kept here, beside the rows, so the
    web's budget holds no store writes of its own."""

    def __init__(self, writes: Database, reads: Database | None = None) -> None:
        self.writes, self.reads = writes, reads or writes

    def full_again(self, keys: Iterable[str]) -> dict[str, float]:
        return full_again(self.reads, keys)

    def advance(self, moves: Mapping[str, float], now: float) -> dict[str, float]:
        return advance_spent(self.writes, moves, now)

    def forget(self, now: float) -> None:
        forget_full_shares(self.writes, now)
