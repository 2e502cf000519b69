"""Sandboxes as stored: values out, the edit link's secret never stored, the share link found as read-only,
a person's list, and the history bounded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store.sandboxes.boards import (
    MAX_HISTORY,
    Sandbox,
    create_sandbox,
    export_person,
    forget_person,
    keep_check,
    sandbox_by_token,
    sandboxes_of,
    save_sandbox,
)
from dippouch.store.sandboxes.models import SandboxRow

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
BOARD = {"phase": "Spring 1901 Movement", "units": [{"power": "England", "unit": "F lon"}]}


def _person(store: GameStore) -> int:
    from dippouch.store.people.persons import create_person

    return create_person(store, "Ann", now=T0, email="ann@example.org")


def test_made_found_by_either_link_and_saved(store: GameStore) -> None:
    made, secret = create_sandbox(store, variant="standard", position=BOARD, now=T0)
    assert isinstance(made, Sandbox) and made.person_id is None and made.history == []
    with store.session() as s:
        stored = s.scalars(sa.select(SandboxRow)).one()
        assert secret not in (stored.edit_hash, stored.share_token)  # only its hash is kept
    assert sandbox_by_token(store, secret) == (made, True)
    assert sandbox_by_token(store, made.share_token) == (made, False)
    assert sandbox_by_token(store, "dp_nothing") is None
    assert sandbox_by_token(store, "") is None
    later = T0 + timedelta(minutes=5)
    history = [{"position": BOARD, "orders": str(i), "step": None} for i in range(MAX_HISTORY + 5)]
    saved = save_sandbox(store, made.id, position=BOARD, orders="F lon H", step=None, history=history, now=later)
    assert saved.orders == "F lon H" and saved.updated_at == later
    assert len(saved.history) == MAX_HISTORY and saved.history[-1]["orders"] == str(MAX_HISTORY + 4)


def test_a_persons_sandboxes_last_changed_first(store: GameStore) -> None:
    person = _person(store)
    first, _ = create_sandbox(store, variant="standard", position=BOARD, now=T0, person_id=person)
    second, _ = create_sandbox(
        store, variant="standard", position=BOARD, now=T0, person_id=person, game="g", phase_id=3
    )
    create_sandbox(store, variant="standard", position=BOARD, now=T0)  # someone else's
    assert [s.id for s in sandboxes_of(store, person)] == [second.id, first.id]
    save_sandbox(store, first.id, position=BOARD, orders="", step=None, history=[], now=T0 + timedelta(hours=1))
    assert [s.id for s in sandboxes_of(store, person)] == [first.id, second.id]
    assert sandboxes_of(store, person)[1].game == "g"


def test_a_persons_sandboxes_downloaded_and_forgotten(store: GameStore) -> None:
    person = _person(store)
    made, secret = create_sandbox(store, variant="standard", position=BOARD, now=T0, person_id=person)
    other, _ = create_sandbox(store, variant="standard", position=BOARD, now=T0)
    exported = export_person(store, person)["sandboxes"]
    assert [e["share_token"] for e in exported] == [made.share_token] and exported[0]["position"] == BOARD
    assert secret not in str(exported)
    forget_person(store, person, now=T0)
    assert sandboxes_of(store, person) == [] and sandbox_by_token(store, secret) is None
    assert sandbox_by_token(store, other.share_token) is not None


def test_download_my_data_and_delete_my_data_include_the_sandboxes(store: GameStore) -> None:
    from dippouch.store.people.data import export_all, forget_all

    person = _person(store)
    made, secret = create_sandbox(store, variant="standard", position=BOARD, now=T0, person_id=person)
    assert [e["share_token"] for e in export_all(store, person)["sandboxes"]["sandboxes"]] == [made.share_token]
    forget_all(store, person, now=T0)
    assert sandbox_by_token(store, secret) is None


def test_the_orders_check_is_kept_with_them_and_kept_after_the_fact(store: GameStore) -> None:
    """A new sandbox has nothing to check; a saved one keeps the check it is given (``None``: none kept, as for a
    sandbox saved before checks were stored), and keep_check stores one later without changing the sandbox's
    state or when it was last changed."""
    made, secret = create_sandbox(store, variant="standard", position=BOARD, now=T0)
    assert made.checked == []
    verdicts = [{"line": 1, "text": "F lon H", "power": "England", "order": "F lon H", "error": None, "note": None}]
    saved = save_sandbox(
        store, made.id, position=BOARD, orders="F lon H", step=None, history=[], now=T0, checked=verdicts
    )
    assert saved.checked == verdicts and sandbox_by_token(store, secret) == (saved, True)
    unchecked = save_sandbox(store, made.id, position=BOARD, orders="F lon H", step=None, history=[], now=T0)
    assert unchecked.checked is None
    later = keep_check(store, made.id, verdicts)
    assert later == saved and later.updated_at == T0


def test_migration_0021_keeps_every_sandbox_and_leaves_its_check_to_be_made(store: GameStore) -> None:
    """Down to 0020 the column goes, the sandboxes stay; back up, a sandbox kept before has no check (``None``:
    made on its first look), on SQLite and on PostgreSQL."""
    from alembic import command

    from dippouch.store.db import alembic_config, upgrade

    made, secret = create_sandbox(store, variant="standard", position=BOARD, now=T0)
    save_sandbox(store, made.id, position=BOARD, orders="F lon H", step=None, history=[], now=T0, checked=[])
    cfg = alembic_config()
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0020")
    assert "checked" not in {c["name"] for c in sa.inspect(store.engine).get_columns("sandboxes")}
    upgrade(store.engine)
    got = sandbox_by_token(store, secret)
    assert got is not None and got[0].orders == "F lon H" and got[0].checked is None
