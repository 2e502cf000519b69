"""Mail that proves its sender, against real servers (Dovecot in, aiosmtpd out).

A ``From:`` header alone is the sender's own word: a forged message with the player's address is held,
never applied; the real player is told (only at the registered address) and may confirm it with the code;
their token (taught in that notice and in every receipt) proves later mail, in the subject, the text or the
address written to; so does a DKIM/SPF pass recorded by a receiving server the coordinator trusts, and
nothing else that looks like one.
"""

from __future__ import annotations

import calendar
import email.utils
import imaplib
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dippouch.cli import app
from dippouch.letters.proof import auth_results_pass, strip_token
from dippouch.store import GameStore
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from mailservers import ImapServer, SmtpServer, start_smtp

# The test's IMAP server, its SMTP server and the database URL.
Game = tuple[ImapServer, SmtpServer, str]

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
GAME = "Gunboat"
FRANCE = "france@example.org"
ENGLAND = "england@example.org"


def at(days: float) -> str:
    return (T0 + timedelta(days=days)).isoformat()


def epoch(days: float) -> float:
    return calendar.timegm((T0 + timedelta(days=days)).utctimetuple())


def mail(sender: str, subject: str, body: str, *, to: str = "orders@dip.example", head: str = "") -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, to, subject
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(T0)
    m.set_content(body)
    return head.encode() + m.as_bytes()


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.output


def refused(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, (args, result.output)
    return result.output


def _empty(box: ImapServer) -> None:
    """The Dovecot server is shared by the module's tests: each starts with an empty mailbox."""
    with imaplib.IMAP4("127.0.0.1", box.port) as c:
        c.login(box.user, box.password)
        _, count = c.select("INBOX")
        if count[0] in (b"0", None):
            return
        c.store("1:*", "+FLAGS", "\\Deleted")
        c.expunge()


@pytest.fixture
def game(tmp_path: Path, imap: ImapServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Game]:
    _empty(imap)
    smtp = start_smtp()
    db = f"sqlite:///{tmp_path / 'g.db'}"
    for k, v in {
        "DIPPOUCH_DATABASE_URL": db,
        "DIPPOUCH_IMAP_HOST": "127.0.0.1",
        "DIPPOUCH_IMAP_PORT": str(imap.port),
        "DIPPOUCH_IMAP_SECURITY": "none",
        "DIPPOUCH_IMAP_USER": imap.user,
        "DIPPOUCH_IMAP_PASSWORD": imap.password,
        "DIPPOUCH_SMTP_HOST": "127.0.0.1",
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": "orders@dip.example",
    }.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("DIPPOUCH_MAIL_PROOF", raising=False)
    run("new", GAME, "--variant", "standard", "--movement", "10d", "--now", at(0))
    run("players", "assign", GAME, "France", "Fran", "--email", FRANCE, "--now", at(0))
    run("players", "assign", GAME, "England", "Eng", "--email", ENGLAND, "--now", at(0))
    run("mail", "setup", GAME, "--trust-auth", "mx.dip.example", "--now", at(0))
    yield imap, smtp, db
    smtp.controller.stop()


def fetch(box: ImapServer, raw: bytes, day: float) -> str:
    box.append(raw, epoch(day))
    return run("mail", "fetch", "--now", at(day))


def versions(db: str, power: str) -> int | None:
    """The power's latest version (None: nothing recorded)."""
    store = GameStore(db)
    try:
        st = store_status.status(store, GAME, now=T0 + timedelta(days=4))
        return next(p for p in st.powers if p.power == power).version
    finally:
        store.close()


def token(power: str, addr: str) -> str:
    line = next(ln for ln in run("mail", "tokens", GAME).splitlines() if f"{power} <{addr}>" in ln)
    return line.rsplit(" ", 1)[1]


SUBJECT = f"{GAME} - France - Spring 1901 Movement"


def test_a_forged_message_with_only_the_players_from_is_held_never_applied(game: Game) -> None:
    box, smtp, db = game
    out = fetch(box, mail(FRANCE, SUBJECT, "A par - bur\nF bre - mao\n"), 1)
    assert "held" in out and "nothing proves that France's player sent it" in out
    assert versions(db, "France") is None
    run("mail", "send", "--now", at(1))
    # Only the registered address is told, with the code that would confirm it; nobody else hears of it.
    notices = smtp.to(FRANCE)
    assert len(notices) == 1 and "[confirm " in str(notices[0]["Subject"])
    assert smtp.to(ENGLAND) == []
    review = run("mail", "review", GAME, "--now", at(1))
    assert f"held message #1 from {FRANCE} for France" in review


def test_a_forged_message_does_not_stop_the_phase_at_its_deadline(game: Game) -> None:
    """Anyone who knows a player's address can write in their name: what they send waits for the player's
    confirmation, never for the coordinator, so it cannot hold the game up. The phase is processed at its
    deadline as if the forgery had never come, and the review lists it as the player's to confirm."""
    box, _smtp, db = game
    fetch(box, mail(FRANCE, SUBJECT, "A par - bur\n"), 1)
    review = run("mail", "review", GAME, "--now", at(11))
    assert "waits for the player's confirmation" in review, review
    out = run("process", GAME, "--now", at(11))
    assert "Spring 1901 Movement" in out, out
    store = GameStore(db)
    try:
        rec = store_history.phase_record(store, GAME, "Spring 1901 Movement")
        assert rec["status"] == "processed" and "France" not in rec["orders"], rec["orders"]
    finally:
        store.close()


def test_the_player_confirms_a_held_message_with_the_code_only_they_were_sent(game: Game) -> None:
    box, smtp, db = game
    fetch(box, mail(FRANCE, SUBJECT, "A par - bur\n"), 1)
    run("mail", "send", "--now", at(1))
    notice = smtp.to(FRANCE)[0]
    code = re.search(r"confirm ([0-9a-f]{8})", str(notice["Subject"]))
    assert code is not None
    # A guessed code does nothing; the right one applies the held message, received when it arrived.
    out = fetch(box, mail(FRANCE, f"Re: confirm {'0' * 8}", "yes"), 2)
    assert "confirmation" not in out and versions(db, "France") is None
    out = fetch(box, mail(FRANCE, f"Re: {notice['Subject']}", "yes, that was me\n"), 2)
    assert "confirmation" in out and "France version 1" in out
    assert versions(db, "France") == 1
    show = run("show", GAME, "--now", at(11))
    assert "Paris" in show or "par" in show.lower()


def test_the_token_proves_the_sender_in_the_subject_the_text_or_the_address(game: Game) -> None:
    box, smtp, db = game
    t = token("France", FRANCE)
    assert t.startswith("dp-")
    out = fetch(box, mail(FRANCE, f"{SUBJECT} - v1 [{t}]", "A par - bur\n"), 1)
    assert "accepted" in out and "(1 accepted, 0 rejected)" in out
    out = fetch(box, mail(FRANCE, f"{SUBJECT} - v2", f"Token: {t}\nA par - pic\n"), 2)
    assert "(1 accepted, 0 rejected)" in out, "the token line is proof, not a rejected order"
    out = fetch(box, mail(FRANCE, f"{SUBJECT} - v3", "A par - gas\n", to=f"orders+{t}@dip.example"), 3)
    assert "accepted" in out
    assert versions(db, "France") == 3
    # Receipts teach the token and the player's own orders address.
    run("mail", "send", "--now", at(3))
    receipt = smtp.to(FRANCE)[-1].get_content()
    assert t in receipt and f"orders+{t}@dip.example" in receipt


def test_another_powers_token_or_an_old_token_proves_nothing(game: Game) -> None:
    box, _smtp, db = game
    england = token("England", ENGLAND)
    out = fetch(box, mail(FRANCE, f"{SUBJECT} [{england}]", "A par - bur\n"), 1)
    assert "held" in out
    old = token("France", FRANCE)
    run("players", "email", GAME, "France", "new-france@example.org", "--now", at(1))
    out = fetch(box, mail("new-france@example.org", f"{SUBJECT} [{old}]", "A par - bur\n"), 2)
    assert "held" in out, "a new address gets a new token; the last player's does not prove the new one"
    assert versions(db, "France") is None


def _ar(value: str) -> str:
    return f"Authentication-Results: {value}\r\n"


RECEIVED = "Received: from mail.example.org by mx.dip.example; Mon, 6 Jan 2025 10:00:00 +0000\r\n"
OUTSIDE = "Received: from attacker.example by mail.example.org; Mon, 6 Jan 2025 09:59:00 +0000\r\n"


@pytest.mark.parametrize(
    ("head", "proven"),
    [
        (_ar("mx.dip.example; dkim=pass header.d=example.org header.s=s1") + RECEIVED, True),
        # Under our server's only Received line: the sender wrote it (tests/mail/test_proof_forged.py has more).
        (RECEIVED + _ar("mx.dip.example; spf=pass smtp.mailfrom=france@example.org"), False),
        (_ar("mx.dip.example; dmarc=pass header.from=example.org") + RECEIVED + OUTSIDE, True),
        # From a server the coordinator does not trust.
        (_ar("mx.other.example; dkim=pass header.d=example.org") + RECEIVED, False),
        # Passed, but for another domain than the From's.
        (_ar("mx.dip.example; dkim=pass header.d=attacker.example") + RECEIVED, False),
        (
            _ar("mx.dip.example; dkim=fail header.d=example.org; spf=softfail smtp.mailfrom=example.org") + RECEIVED,
            False,
        ),
        # Written by the sender, below our server's Received line: forged, not ours.
        (RECEIVED + OUTSIDE + _ar("mx.dip.example; dkim=pass header.d=example.org"), False),
        (_ar("mx.dip.example; dkim=pass (((unbalanced header.d=example.org") + RECEIVED, False),
    ],
)
def test_dkim_or_spf_passes_count_only_from_our_trusted_server(game: Game, head: str, proven: bool) -> None:
    box, _smtp, db = game
    raw = mail(FRANCE, SUBJECT, "A par - bur\n", head=head)
    out = fetch(box, raw, 1)
    assert ("accepted" in out) is proven, out
    assert versions(db, "France") == (1 if proven else None)


def test_auth_results_need_a_trusted_server_named() -> None:
    raw = mail(FRANCE, SUBJECT, "x", head=_ar("mx.dip.example; dkim=pass header.d=example.org") + RECEIVED)
    assert auth_results_pass(raw, FRANCE, []) is None
    assert auth_results_pass(raw, FRANCE, ["MX.DIP.EXAMPLE"]) is not None
    assert auth_results_pass(raw, "france@sub.example.org", ["mx.dip.example"]) is not None


def test_a_token_line_is_taken_out_and_the_orders_kept() -> None:
    assert strip_token("Token: dp-abcdefghjk\nA par - bur") == "\nA par - bur"
    assert strip_token("Gunboat - France [dp-abcdefghjk]") == "Gunboat - France"


def test_proof_settings_that_make_no_sense_are_refused(game: Game) -> None:
    out = refused("mail", "setup", GAME, "--proof", "trust-me")
    assert "--proof 'trust-me': choose required or from-address" in out
    out = refused("mail", "setup", GAME, "--trust-auth", "mx.dip.example; dkim=pass")
    assert "is not a server name" in out


def test_from_address_alone_is_an_explicit_choice(game: Game) -> None:
    box, _smtp, db = game
    run("mail", "setup", GAME, "--proof", "from-address")
    out = fetch(box, mail(FRANCE, SUBJECT, "A par - bur\n"), 1)
    assert "accepted" in out and versions(db, "France") == 1


def test_a_confirmation_after_the_phase_was_processed_applies_nothing_to_the_next_phase(game: Game) -> None:
    box, smtp, db = game
    fetch(box, mail(FRANCE, SUBJECT, "A par - bur\n"), 1)
    run("mail", "send", "--now", at(1))
    code = re.search(r"confirm ([0-9a-f]{8})", str(smtp.to(FRANCE)[0]["Subject"]))
    assert code is not None
    run("mail", "release", GAME, "--now", at(11))
    run("process", GAME, "--now", at(11))
    out = fetch(box, mail(FRANCE, f"Re: confirm {code.group(1)}", "yes"), 11.5)
    assert "refused" in out and "Spring 1901 Movement, which has been processed" in out
    assert versions(db, "France") is None
