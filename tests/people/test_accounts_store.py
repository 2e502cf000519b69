"""The accounts' store on SQLite and PostgreSQL: a link used once even by two at once, what a person's seats
wait for (in, missing, not needed), challenges used once, and forgetting."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.people.accounts import (
    LinkError,
    add_passkey,
    calendar_person,
    create_signin_link,
    export_person,
    forget_person,
    new_calendar_token,
    new_challenge,
    orders_due,
    passkey,
    take_challenge,
    use_link,
)
from dippouch.store.people.persons import create_person, person, seat_person

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _link(store: GameStore, email: str, name: str | None = None) -> str:
    got: list[str] = []

    def compose(token: str, who: str | None, known: bool) -> tuple[str, str]:
        got.append(token)
        return "subject", f"open {token}"

    create_signin_link(store, email, now=T0, name=name, compose=compose)
    return got[0]


def test_a_link_used_by_two_at_once_lets_one_in(store: GameStore) -> None:
    token = _link(store, "ann@example.org", "Ann")
    results: list[object] = []
    barrier = threading.Barrier(4)

    def use() -> None:
        barrier.wait()
        try:
            results.append(use_link(store, token, now=T0 + timedelta(minutes=1)))
        except LinkError as e:
            results.append(e)

    threads = [threading.Thread(target=use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [r for r in results if isinstance(r, int)]
    assert len(ids) == 1 and len(results) == 4, results
    assert all("used already" in str(r) for r in results if not isinstance(r, int))
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("select count(*) from people").scalar() == 1


def test_orders_are_in_missing_or_not_needed(store: GameStore) -> None:
    store_games.create_game(
        store, "g", "standard", now=T0, settings=GameSettings(deadlines={"movement": "2d", "retreats": "1d"})
    )
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    for power in ("France", "Germany", "England"):
        store_games.assign(store, "g", power, "Ann", now=T0)
        seat_person(store, "g", power, pid, now=T0)
    assert orders_due(store, pid) == {("g", p): "missing" for p in ("France", "Germany", "England")}
    store_submissions.submit(store, "g", "Germany", "A mun - bur", now=T0)
    assert orders_due(store, pid)[("g", "Germany")] == "in"
    store_processing.process(store, "g", now=T0 + timedelta(hours=1), force=True)
    store_submissions.submit(store, "g", "France", "A par - bur\nA mar S A par - bur", now=T0 + timedelta(hours=2))
    store_processing.process(
        store, "g", now=T0 + timedelta(hours=3), force=True
    )  # Germany's army in Burgundy is dislodged
    assert orders_due(store, pid) == {
        ("g", "Germany"): "missing",
        ("g", "France"): "not needed",
        ("g", "England"): "not needed",
    }
    assert orders_due(store, create_person(store, "Nobody", now=T0)) == {}


def test_a_challenge_is_used_once_for_its_purpose_and_person(store: GameStore) -> None:
    import base64

    pid = create_person(store, "Ann", now=T0)
    raw = new_challenge(store, "register", now=T0, person_id=pid)
    text = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    with pytest.raises(GameError, match="unknown, used already or expired"):
        take_challenge(store, text, "signin", now=T0)
    with pytest.raises(GameError):
        take_challenge(store, text, "register", now=T0, person_id=pid + 1)
    take_challenge(store, text, "register", now=T0, person_id=pid)
    with pytest.raises(GameError):
        take_challenge(store, text, "register", now=T0, person_id=pid)
    late = base64.urlsafe_b64encode(new_challenge(store, "signin", now=T0)).rstrip(b"=").decode()
    with pytest.raises(GameError):
        take_challenge(store, late, "signin", now=T0 + timedelta(minutes=6))


def test_forgetting_a_person_keeps_their_seat_and_removes_the_rest(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=T0)
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    store_games.assign(store, "g", "France", "Ann", now=T0)
    seat_person(store, "g", "France", pid, now=T0)
    add_passkey(store, pid, "cred", b"key", 0, label="laptop", now=T0)
    feed = new_calendar_token(store, pid, now=T0)
    token = _link(store, "ann@example.org")
    assert calendar_person(store, feed) == pid and passkey(store, "cred") is not None
    before = export_person(store, pid)
    assert before["person"]["email"] == "ann@example.org" and before["seats"][0]["power"] == "France"
    forget_person(store, pid, now=T0 + timedelta(days=1))
    p = person(store, pid)
    assert p is not None and p.deleted and p.name == "" and p.email is None
    assert calendar_person(store, feed) is None and passkey(store, "cred") is None
    with pytest.raises(LinkError):
        use_link(store, token, now=T0)
    after = export_person(store, pid)
    assert after["passkeys"] == [] and after["calendar_feeds"] == [] and after["seats"][0]["player"] == "Ann"
    assert store_status.status(store, "g", now=T0).powers[2].player == "Ann"


def test_a_link_used_before_its_mail_went_is_not_sent_and_not_retried(store: GameStore) -> None:
    """A link used from the Outbox before mail was set up: its mail is withdrawn, never sent with "(used)"
    where the link was (the players' trial, issue 55), and `mail retry` refuses it, saying why."""
    from dippouch.store.mail.outbox import claim_outbox, retry_outbox

    token = _link(store, "ann@example.org", "Ann")
    use_link(store, token, now=T0 + timedelta(minutes=1))
    later = T0 + timedelta(minutes=2)
    assert claim_outbox(store, later, "w", timedelta(minutes=5)) is None
    with store.engine.connect() as conn:
        row_id, status, body = conn.exec_driver_sql("select id, status, body from mail_outbox").one()
    assert status == "withdrawn" and token not in body
    with pytest.raises(GameError, match="withdrawn: the sign-in link in it was used before it went"):
        retry_outbox(store, row_id, later)
    assert claim_outbox(store, later, "w", timedelta(minutes=5)) is None
