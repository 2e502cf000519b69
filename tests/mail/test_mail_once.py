"""Mail intake exactly once, across a process that dies (issue 52, finding 4 of the security review: ``mail
fetch`` killed with kill -9 lost order mail for ever on PostgreSQL, its claim committed as ``received`` and
nothing ever resuming it).

A message is claimed first; what becomes of it (orders, press passed on, a held message confirmed) is
recorded with its receipt in the transaction that applies it. So a message left ``received`` has had nothing
applied: the next fetch takes it in again, whether the same message is fetched again or not, and a second
process at the same message applies it once. The kill -9 test over many rounds is
tests/mail/test_mail_kill.py."""

from __future__ import annotations

import email.utils
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import pytest
import sqlalchemy as sa

import dippouch.play.mail_intake as intake
import dippouch.store.mail.inbox as inbox
from dippouch.mail.intake import resume_unfinished, take_in
from dippouch.mail.notices import setup as mail_setup
from dippouch.play.press import send_press
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import submissions as store_submissions
from dippouch.store.mail.models import MailMessageRow, OutboxRow
from dippouch.store.models import SubmissionRow
from dippouch.store.press.models import PressMessageRow, PressTokenRow

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(hours=3)
FRANCE = "fay@example.org"
GERMANY = "gerd@example.org"


@pytest.fixture
def store(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameStore]:
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    s = GameStore(db_url)
    store_games.create_game(s, "demo", "standard", now=T0)
    store_games.assign(s, "demo", "France", "Fay", now=T0, email=FRANCE)
    store_games.assign(s, "demo", "Germany", "Gerd", now=T0, email=GERMANY)
    yield s
    s.close()


def _mail(sender: str, subject: str, body: str, hour: int = 1) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@example.org", subject
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    when = email.utils.format_datetime(T0 + timedelta(hours=hour))
    m["Received"] = f"from mx.example.org by orders.example.org; {when}"
    m["Date"] = when
    m.set_content(body)
    return m.as_bytes()


def _orders(power: str, body: str, hour: int = 1) -> bytes:
    sender = {"France": FRANCE, "Germany": GERMANY}[power]
    return _mail(sender, f"demo - {power} - Spring 1901 Movement", body, hour)


def _messages(store: GameStore) -> list[tuple[str, int | None]]:
    with store.session() as s:
        q = sa.select(MailMessageRow.status, MailMessageRow.submission_id).order_by(MailMessageRow.id)
        return [(r.status, r.submission_id) for r in s.execute(q)]


def _submissions(store: GameStore) -> list[tuple[int, str, int]]:
    with store.session() as s:
        q = sa.select(SubmissionRow.id, SubmissionRow.power, SubmissionRow.version).order_by(SubmissionRow.id)
        return [(r.id, r.power, r.version) for r in s.execute(q)]


def _outbox(store: GameStore) -> list[tuple[str, str]]:
    with store.session() as s:
        return [(r.kind, r.to_addr) for r in s.scalars(sa.select(OutboxRow).order_by(OutboxRow.id))]


class Killed(BaseException):
    """The process dies here: nothing after this point runs (no handler of the code under test catches it)."""


def _killed(*_: object, **__: object) -> Any:
    """The fetch dies right after its claim is committed, before it decides anything."""
    raise Killed


def test_a_message_claimed_by_a_fetch_that_died_is_taken_in_by_the_next(store: GameStore) -> None:
    raw = _orders("France", "A par - bur\n")
    with pytest.MonkeyPatch.context() as mp, pytest.raises(Killed):
        mp.setattr(intake, "_decide", _killed)
        take_in(store, raw, now=NOW)
    assert _messages(store) == [("received", None)] and _submissions(store) == []
    # The next fetch finds the same message again (a Maildir, an IMAP mailbox read up to before it).
    o = take_in(store, raw, now=NOW + timedelta(minutes=5))
    assert o.status == "accepted" and "taken in again" in " ".join(str(n) for n in o.notes), o.line()
    (sub_id, power, version), *more = _submissions(store)
    assert (power, version, more) == ("France", 1, [])
    assert _messages(store) == [("accepted", sub_id)]
    assert _outbox(store) == [("receipt", FRANCE)]
    # Received when it first came (its Received header), not when it was taken in again.
    assert o.received == T0 + timedelta(hours=1)
    assert take_in(store, raw, now=NOW).status == "duplicate"


def test_an_unfinished_message_is_taken_in_even_if_it_is_not_fetched_again(store: GameStore) -> None:
    for raw in (_orders("France", "A par - bur\n"), _orders("Germany", "A mun - ruh\n", hour=2)):
        with pytest.MonkeyPatch.context() as mp, pytest.raises(Killed):
            mp.setattr(intake, "_decide", _killed)
            take_in(store, raw, now=NOW)
    # An IMAP mailbox read past them, or a file since deleted: the store still has them, and every fetch
    # starts with the unfinished ones.
    outcomes = resume_unfinished(store, now=NOW + timedelta(minutes=5))
    assert [(o.status, o.power) for o in outcomes] == [("accepted", "France"), ("accepted", "Germany")]
    assert [s for s, _ in _messages(store)] == ["accepted", "accepted"]
    assert sorted((p, v) for _, p, v in _submissions(store)) == [("France", 1), ("Germany", 1)]
    assert resume_unfinished(store, now=NOW) == []


def test_a_message_that_fails_again_is_left_for_later_and_stops_no_other(
    store: GameStore, caplog: pytest.LogCaptureFixture
) -> None:
    """Intake answers every bad message; one that raises is a fault of ours. Resumed, it must not stop the
    messages behind it (every fetch resumes first): it is logged and left unfinished for the next fetch."""
    raws = (_orders("France", "A par - bur\n"), _orders("Germany", "A mun - ruh\n", hour=2))
    for raw in raws:
        with pytest.MonkeyPatch.context() as mp, pytest.raises(Killed):
            mp.setattr(intake, "_decide", _killed)
            take_in(store, raw, now=NOW)
    real = intake._decide

    def france_fails(s: GameStore, msg: Any, *args: Any) -> Any:
        if msg.sender == FRANCE:
            raise RuntimeError("a fault of ours")
        return real(s, msg, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(intake, "_decide", france_fails)
        outcomes = resume_unfinished(store, now=NOW)
    assert [(o.status, o.mail_id) for o in outcomes] == [("received", 1), ("accepted", 2)]
    assert "RuntimeError" in outcomes[0].reason and "mail #1 could not be taken in again" in caplog.text
    assert [s for s, _ in _messages(store)] == ["received", "accepted"]
    assert [o.status for o in resume_unfinished(store, now=NOW)] == ["accepted"]


def _broken(*_: object, **__: object) -> bool:
    """The receipt cannot be queued: the transaction that records the message fails (as a kill would end it)."""
    raise RuntimeError("the outbox failed")


def test_orders_are_kept_with_their_message_record_or_not_at_all(store: GameStore) -> None:
    raw = _orders("France", "A par - bur\nA mar - spa\n")
    with pytest.MonkeyPatch.context() as mp, pytest.raises(RuntimeError, match="the outbox failed"):
        mp.setattr(inbox, "queue_in", _broken)
        take_in(store, raw, now=NOW)
    # Neither the orders nor the record: the message is as it was claimed, and nothing is applied.
    assert _submissions(store) == [] and _messages(store) == [("received", None)]
    assert take_in(store, raw, now=NOW).status == "accepted"
    [(sub_id, power, version)] = _submissions(store)
    assert (power, version) == ("France", 1)
    assert _messages(store) == [("accepted", sub_id)]
    assert _outbox(store) == [("receipt", FRANCE)]


def test_a_message_another_process_finished_meanwhile_is_not_applied_again(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two fetches at one claimed message (the first slow, the second resuming it): the first to record it
    wins; the other's submission is rolled back with its record, and it says the message was taken."""
    raw = _orders("France", "A par - bur\n")
    real_submit = store_submissions.submit
    others: list[Any] = []

    def another_fetch_first(self: GameStore, *args: Any, **kwargs: Any) -> Any:
        if not others:
            others.append(None)
            others[0] = take_in(self, raw, now=NOW)  # the second fetch does it all while this one waits
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(store_submissions, "submit", another_fetch_first)
    first = take_in(store, raw, now=NOW)
    assert others[0].status == "accepted", others[0].line()
    assert first.status == "duplicate" and "another process" in first.reason, first.line()
    [(sub_id, _, version)] = _submissions(store)
    assert version == 1 and _messages(store) == [("accepted", sub_id)]
    assert _outbox(store) == [("receipt", FRANCE)]


def test_a_finished_message_is_not_recorded_again() -> None:
    """What refuses the second record, in the store's words (:class:`inbox.MessageTaken`)."""
    e = inbox.MessageTaken(7, "accepted")
    assert e.mail_id == 7 and str(e) == "message #7 is accepted already"


def test_a_press_reply_is_passed_on_once(store: GameStore) -> None:
    mail_setup(store, "demo", now=T0, changes={})  # the game's mail takes replies: France gets copies
    sent = send_press(store, "demo", "Germany", "Shall we share Belgium?", to=["France"], now=T0, via="api")
    with store.session() as s:
        token = s.scalars(sa.select(PressTokenRow.token).where(PressTokenRow.power == "France")).one()
    raw = _mail(FRANCE, f"Re: demo: a message [press {token}]", "Agreed.\n")

    def france_said() -> list[str]:
        with store.session() as s:
            q = sa.select(PressMessageRow.body).where(
                PressMessageRow.channel_id == sent.channel, PressMessageRow.sender == "France"
            )
            return list(s.scalars(q))

    with pytest.MonkeyPatch.context() as mp, pytest.raises(RuntimeError, match="the outbox failed"):
        mp.setattr(inbox, "queue_in", _broken)
        take_in(store, raw, now=NOW)
    assert france_said() == [] and _messages(store) == [("received", None)]
    o = take_in(store, raw, now=NOW)
    assert o.status == "accepted" and o.reason == "press passed on", o.line()
    assert france_said() == ["Agreed."]
    assert take_in(store, raw, now=NOW).status == "duplicate"
    assert france_said() == ["Agreed."]


def test_a_held_message_and_the_reply_that_confirms_it_are_recorded_together(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "required")  # the From header alone proves nothing: held
    held = take_in(store, _orders("France", "A par - bur\n"), now=NOW)
    assert held.status == "held", held.line()
    with store.session() as s:
        notice = s.scalars(sa.select(OutboxRow.subject).where(OutboxRow.kind == "confirm")).one()
    code = re.search(r"confirm ([0-9a-f]{8})", notice)
    assert code, notice
    reply = _mail(FRANCE, f"Re: demo: did you send this? [confirm {code.group(1)}]", "Yes.\n", hour=2)
    with pytest.MonkeyPatch.context() as mp, pytest.raises(RuntimeError, match="the outbox failed"):
        mp.setattr(inbox, "queue_in", _broken)
        take_in(store, reply, now=NOW)
    # The held message is still held (its orders not applied), the reply unfinished: both as they were.
    assert _submissions(store) == [] and _messages(store) == [("held", None), ("received", None)]
    o = take_in(store, reply, now=NOW)
    assert o.status == "confirmation" and o.version == 1, o.line()
    [(sub_id, power, version)] = _submissions(store)
    assert (power, version) == ("France", 1)
    assert _messages(store) == [("applied", sub_id), ("confirmation", None)]
    assert [k for k, _ in _outbox(store)] == ["confirm", "receipt"]


def test_a_held_message_applied_twice_at_once_is_applied_once(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The coordinator's Apply on the review page and the player's confirming reply (or a second click) at one
    held message: the second finds it no longer held, and its orders are rolled back with its record."""
    from dippouch.game import GameError
    from dippouch.play.held_mail import apply_held

    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "required")
    held = take_in(store, _orders("France", "A par - bur\n"), now=NOW)
    held_id = held.mail_id
    assert held.status == "held" and held_id is not None
    real_submit = store_submissions.submit
    first: list[Any] = []

    def another_apply_first(self: GameStore, *args: Any, **kwargs: Any) -> Any:
        if not first:
            first.append(None)
            first[0] = apply_held(self, held_id, now=NOW)  # the other door gets there while this one reads
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(store_submissions, "submit", another_apply_first)
    with pytest.raises(GameError, match=rf"message #{held_id} is applied, not held"):
        apply_held(store, held_id, now=NOW)
    assert first[0].status == "applied" and first[0].version == 1
    [(sub_id, power, version)] = _submissions(store)
    assert (power, version) == ("France", 1) and _messages(store) == [("applied", sub_id)]
