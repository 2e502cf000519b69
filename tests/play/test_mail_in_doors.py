"""Taking a mail message in (:func:`dippouch.mail.intake.take_in`), through each way a message arrives: a file
given to ``dippouch mail fetch``, and a real IMAP mailbox (dovecot) read by a worker's look before it
processes. The same message leaves the same record: its status, France's version, the receipt queued.

And what one message costs the database: the connections taken from the pool while it is taken in (each
store session takes one), counted on the real engine. Before the intake read the player's token from the
game's mail settings it had already read, asked for the next version only for a reply that suggests it, and
read the installation's mail settings once a message, a text submission took 11, a photograph 10, a held
message 7 and a refusal for a phase not open yet 9; before the orders and the message's record were one
transaction, a text submission took 7."""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.mail.intake import take_in
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store.mail.models import MailMessageRow, OutboxRow
from dippouch.worker.service import mail_fetch_task
from mailservers import ImapServer, SmtpServer, worker_mail_env
from websupport import Site

SUBJECT = "demo - France - Spring 1901 Movement"


def _message(
    body: str, *, sender: str = "fay@example.org", subject: str = SUBJECT, image: bytes | None = None
) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = "judge@example.org"
    m["Subject"] = subject
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(email.utils.localtime())
    m.set_content(body)
    if image is not None:
        m.add_attachment(image, maintype="image", subtype="jpeg", filename="orders.jpg")
    return m.as_bytes()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    # The sender is taken as proven by the From address (proof is tested in tests/mail/).
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "judge@example.org")
    settings.reread()
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("demo")
    store_games.assign(s.web.store, "demo", "France", "Fay", now=s.clock(), email="fay@example.org")
    yield s


def _record(store: GameStore) -> tuple[list[tuple[str, str | None]], list[tuple[str, str]]]:
    with store.session() as s:
        messages = [(r.status, r.power) for r in s.scalars(sa.select(MailMessageRow).order_by(MailMessageRow.id))]
        out = [(r.kind, r.to_addr) for r in s.scalars(sa.select(OutboxRow).order_by(OutboxRow.id))]
    return messages, out


@pytest.mark.parametrize("door", ("file", "imap"))
def test_a_message_is_taken_in_alike_from_a_file_and_from_a_mailbox(
    door: str, site: Site, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = _message("A Par - Bur\nA Mar - Spa\n")
    store: GameStore = site.web.store
    if door == "file":
        path = tmp_path / "orders.eml"
        path.write_bytes(raw)
        register_commands()
        db = f"sqlite:///{tmp_path / 'g.db'}"
        result = CliRunner().invoke(app, ["mail", "fetch", str(path), "--db", db, "--now", site.clock().isoformat()])
        assert result.exit_code == 0, result.output
    else:
        imap: ImapServer = request.getfixturevalue("imap")
        smtp: SmtpServer = request.getfixturevalue("smtp")
        for k, v in worker_mail_env(imap, smtp, tmp_path, "judge@example.org").items():
            monkeypatch.setenv(k, v)
        settings.reread()
        imap.append(raw)
        mail_fetch_task(store, site.clock())
    messages, out = _record(store)
    assert messages == [("accepted", "France")], door
    assert out == [("receipt", "fay@example.org")], door
    st = store_status.status(store, "demo", now=site.clock())
    france = next(p for p in st.powers if p.power == "France")
    assert france.version == 1, door
    lines = store_history.phase_record(store, "demo", "Spring 1901 Movement", open_ok=True)["submissions"][0]["lines"]
    assert [ln["order"] for ln in lines if not ln.get("error")] == ["A par - bur", "A mar - spa"], door


def _connections(store: GameStore, raw: bytes, now: object) -> tuple[str, int]:
    taken = [0]

    def checkout(*_: object) -> None:
        taken[0] += 1

    engines = {store.engine, store.read_engine}  # the writer's and the reads' (on SQLite a second engine)
    for engine in engines:
        sa.event.listen(engine, "checkout", checkout)
    try:
        outcome = take_in(store, raw, now=now)  # type: ignore[arg-type]
    finally:
        for engine in engines:
            sa.event.remove(engine, "checkout", checkout)
    return outcome.status, taken[0]


def test_a_text_submission_takes_five_connections_and_a_returning_player_four(site: Site) -> None:
    store: GameStore = site.web.store
    # The first message makes the player's token (a write of its own); later ones find it already read. The
    # orders, what became of the message and its receipt are one transaction (the submission's).
    assert _connections(store, _message("A Par - Bur\n"), site.clock()) == ("accepted", 5)
    assert _connections(store, _message("A Par - Pic\n"), site.clock()) == ("accepted", 4)


def test_a_photograph_takes_six_connections(site: Site) -> None:
    """Stored, the games read, the token, the mail settings, the next version past the photographs waiting
    (one read), and the record with its receipt (one write)."""
    from photosupport import photo

    raw = _message("", image=photo(["A Par - Bur"]))
    assert _connections(site.web.store, raw, site.clock()) == ("photo", 6)


def test_a_message_from_another_address_is_held_in_four_and_one_for_a_later_phase_refused_in_six(
    site: Site,
) -> None:
    store: GameStore = site.web.store
    assert _connections(store, _message("A Par - Bur\n", sender="eve@example.org"), site.clock()) == (
        "held",
        4,
    )  # its two notices queued with its record
    later = _message("A Par - Bur\n", subject="demo - France - Spring 1902 Movement")
    assert _connections(store, later, site.clock()) == ("refused", 6)


def test_a_message_is_recorded_with_its_reply_or_not_at_all(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record of what became of a message and its receipt are one transaction: when queueing the receipt
    fails, the message is not recorded as answered either."""
    import dippouch.store.mail.inbox as inbox

    def broken(*_: object, **__: object) -> bool:
        raise RuntimeError("the outbox failed")

    monkeypatch.setattr(inbox, "queue_in", broken)
    store: GameStore = site.web.store
    with pytest.raises(RuntimeError, match="the outbox failed"):
        take_in(store, _message("A Par - Bur\n"), now=site.clock())
    with store.session() as s:
        statuses = [r.status for r in s.scalars(sa.select(MailMessageRow))]
    assert statuses == ["received"], statuses  # as it was stored on arrival: not recorded as answered
