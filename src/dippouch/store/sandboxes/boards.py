"""Sandboxes as stored (migrations 0017 and 0021; the table in :mod:`dippouch.store.sandboxes.models`): a board copied from a game's phase or a variant's opening, which a
person changes at will (units, centres, orders, steps adjudicated) without ever touching a game.

A sandbox is reached by two links. Its edit link carries a secret of which only the SHA-256 is stored (as
every other secret of the web: a leaked database lets nobody change a sandbox). Its share link carries a
token stored as it is, so the person's list of sandboxes can link to them: it shows the board and nothing
else, read-only, to anyone who holds it; the signed-in person who made the sandbox edits it from there too.

What the sandbox holds is plain JSON in the engine's own shapes (the adjudication contract's position, the
order box's text, the last step's orders and results): the store never reads it, only keeps it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.store.access import hash_secret, new_secret
from dippouch.store.db import Database
from dippouch.store.sandboxes.models import SandboxRow

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAX_HISTORY",
    "MAX_LISTED",
    "Sandbox",
    "SandboxStamp",
    "create_sandbox",
    "export_person",
    "forget_person",
    "keep_check",
    "sandbox_by_token",
    "sandbox_stamp",
    "sandboxes_of",
    "save_sandbox",
]

MAX_HISTORY = 60
"""Earlier states a sandbox keeps for "Back" (the oldest go first): enough to step back through a few years."""
MAX_LISTED = 200
"""Sandboxes a person's list shows (the newest first)."""


@dataclass(frozen=True)
class Sandbox:
    """A sandbox as it leaves the store (no row: tests/project/test_store_values.py)."""

    id: int
    person_id: int | None
    share_token: str
    variant: str
    game: str | None
    phase_id: int | None
    position: dict[str, Any]
    """The board as it stands: the adjudication contract's position."""
    orders: str
    """The order box as last typed (every power's orders, one a line)."""
    step: dict[str, Any] | None
    """The last step adjudicated: ``position`` (the board it started from), ``orders`` (power -> orders as
    carried out) and ``results`` (the contract's results); ``None`` before a step, or after an edit."""
    history: list[dict[str, Any]]
    """Earlier states, oldest first, each ``{"position", "orders", "step"}``: "Back" returns to the last."""
    checked: list[dict[str, Any]] | None
    """Each line of ``orders`` with its verdict on ``position`` (``line``, ``text``, ``power``, ``order``,
    ``error``, ``note``), made when either was kept; ``None`` for a sandbox kept before the check was stored."""
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, r: SandboxRow) -> Sandbox:
        return cls(
            r.id,
            r.person_id,
            r.share_token,
            r.variant,
            r.game,
            r.phase_id,
            dict(r.position),
            r.orders,
            dict(r.step) if r.step is not None else None,
            [dict(h) for h in r.history],
            [dict(c) for c in r.checked] if r.checked is not None else None,
            r.created_at,
            r.updated_at,
        )


def create_sandbox(
    db: Database,
    *,
    variant: str,
    position: dict[str, Any],
    now: datetime,
    person_id: int | None = None,
    game: str | None = None,
    phase_id: int | None = None,
) -> tuple[Sandbox, str]:
    """A new sandbox on ``position``, and its edit link's secret (shown to its maker once, never stored)."""
    secret = new_secret()
    row = SandboxRow(
        person_id=person_id,
        edit_hash=hash_secret(secret),
        share_token=secrets.token_urlsafe(18),
        variant=variant,
        game=game,
        phase_id=phase_id,
        position=position,
        orders="",
        step=None,
        history=[],
        checked=[],
        created_at=now,
        updated_at=now,
    )
    with db.session() as s, s.begin():
        s.add(row)
        s.flush()
        return Sandbox.of(row), secret


def sandbox_by_token(db: Database, token: str) -> tuple[Sandbox, bool] | None:
    """The sandbox a link names, and whether the link is its edit link (``False``: its share link); ``None``
    for a link that names none."""
    token = token[:200]
    with db.session() as s:
        row = s.scalars(sa.select(SandboxRow).where(SandboxRow.edit_hash == hash_secret(token))).first()
        if row is not None:
            return Sandbox.of(row), True
        row = s.scalars(sa.select(SandboxRow).where(SandboxRow.share_token == token)).first()
        return (Sandbox.of(row), False) if row is not None else None


@dataclass(frozen=True)
class SandboxStamp:
    """Which sandbox and which state of it, without its board: what an answer made once per state of the
    sandbox is looked up by (:func:`sandbox_stamp`)."""

    id: int
    person_id: int | None
    revision: int


def sandbox_stamp(db: Database, token: str) -> tuple[SandboxStamp, bool] | None:
    """:func:`sandbox_by_token` without the board, the history and the check (kilobytes of JSON decoded at each
    look): a link's sandbox, whether the link is its edit link, and its revision (raised by every change)."""
    token = token[:200]
    cols = (SandboxRow.id, SandboxRow.person_id, SandboxRow.revision)
    with db.session() as s:
        row = s.execute(sa.select(*cols).where(SandboxRow.edit_hash == hash_secret(token))).first()
        if row is not None:
            return SandboxStamp(row[0], row[1], row[2]), True
        row = s.execute(sa.select(*cols).where(SandboxRow.share_token == token)).first()
        return (SandboxStamp(row[0], row[1], row[2]), False) if row is not None else None


def save_sandbox(
    db: Database,
    sandbox_id: int,
    *,
    position: dict[str, Any],
    orders: str,
    step: dict[str, Any] | None,
    history: list[dict[str, Any]],
    now: datetime,
    checked: list[dict[str, Any]] | None = None,
) -> Sandbox:
    """Keep a sandbox's new state (the history bounded by :data:`MAX_HISTORY`, the oldest dropped), with
    ``checked``, its orders' check on its board (``None``: not checked)."""
    with db.session() as s, s.begin():
        row = s.get(SandboxRow, sandbox_id, with_for_update=True)
        if row is None:
            raise GameError(msg("this sandbox no longer exists"))
        row.position = position
        row.orders = orders
        row.step = step
        row.history = history[-MAX_HISTORY:]
        row.checked = checked
        row.updated_at = now
        row.revision += 1
        s.flush()
        return Sandbox.of(row)


def keep_check(db: Database, sandbox_id: int, checked: list[dict[str, Any]]) -> Sandbox:
    """Keep the check of a sandbox's orders made after the fact (a sandbox kept before checks were stored): its
    state, and when it was last changed, stay as they are."""
    with db.session() as s, s.begin():
        row = s.get(SandboxRow, sandbox_id, with_for_update=True)
        if row is None:
            raise GameError(msg("this sandbox no longer exists"))
        row.checked = checked
        row.revision += 1
        s.flush()
        return Sandbox.of(row)


def sandboxes_of(db: Database, person_id: int, *, limit: int | None = MAX_LISTED) -> list[Sandbox]:
    """A person's sandboxes, the last changed first (at most ``limit``: None for all)."""
    with db.session() as s:
        rows = s.scalars(
            sa.select(SandboxRow)
            .where(SandboxRow.person_id == person_id)
            .order_by(SandboxRow.updated_at.desc(), SandboxRow.id.desc())
            .limit(limit)
        )
        return [Sandbox.of(r) for r in rows]


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """A person's sandboxes for "download my data": each one's links-free record (its board, orders and last
    step; the edit secret was never kept, the share link is theirs to hand out)."""
    return {
        "sandboxes": [
            {
                "share_token": sb.share_token,
                "variant": sb.variant,
                "game": sb.game,
                "phase_id": sb.phase_id,
                "position": sb.position,
                "orders": sb.orders,
                "step": sb.step,
                "created_at": sb.created_at.isoformat(),
                "updated_at": sb.updated_at.isoformat(),
            }
            for sb in sandboxes_of(db, person_id, limit=None)
        ]
    }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """What "delete my data" does here: the person's sandboxes go, and every link to them with them."""
    with db.session() as s, s.begin():
        s.execute(sa.delete(SandboxRow).where(SandboxRow.person_id == person_id))
