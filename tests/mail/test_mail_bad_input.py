"""Bad mail never breaks intake: whatever arrives (junk bytes, broken MIME, strange charsets, nesting, huge
headers), `take_in` answers with an outcome and a reason, never a traceback, and the game is untouched."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbsupport import migrated_sqlite
from dippouch.mail.intake import take_in
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about what mail becomes once its sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
STATUSES = {"accepted", "held", "refused", "late", "photo", "duplicate", "ignored", "automatic"}
GOOD = (
    b"From: fr@example.org\r\nTo: orders@example.org\r\nSubject: demo - France - Spring 1901 Movement - v1\r\n"
    b"Message-ID: <a1@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nA par - bur\r\n"
)

MULTI = (
    b"From: fr@example.org\r\nSubject: demo - France - Spring 1901 Movement - v1\r\nMessage-ID: <m1@example.org>\r\n"
    b'Content-Type: multipart/mixed; boundary="zz"\r\n\r\n--zz\r\nContent-Type: text/plain; charset=utf-8\r\n'
    b'Content-Disposition: inline; filename="a.txt"\r\n\r\nA par - bur\r\n--zz\r\n'
    b'Content-Type: image/png; name="x.png"\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n--zz--\r\n'
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> GameStore:
    s = GameStore(migrated_sqlite(tmp_path_factory.mktemp("badmail") / "g.db"))
    store_games.create_game(s, "demo", "standard", now=T0)
    store_games.assign(s, "demo", "France", "Fran", now=T0, email="fr@example.org")
    return s


def _nested(depth: int) -> bytes:
    head = b"From: fr@example.org\r\nSubject: demo - France - Spring 1901\r\nMIME-Version: 1.0\r\n"
    body = b""
    for i in range(depth):
        body += b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (i, i)
    return head + body + b"Content-Type: text/plain\r\n\r\nA par H\r\n"


NASTY = [
    b"",
    b"\x00" * 1000,
    b"From: \r\n\r\n",
    b"Subject: =?utf-8?b?!!!notbase64?=\r\nFrom: =?x-unknown?q?a?= <fr@example.org>\r\n\r\nA par H",
    b"From: fr@example.org\r\nSubject: demo - France\r\nContent-Type: text/plain; charset=no-such-charset\r\n\r\n\xff\xfeA par H",
    b"From: fr@example.org\r\nSubject: demo - France - Spring 1901\r\nContent-Transfer-Encoding: base64\r\n\r\n@@@@not base64",
    b"From: fr@example.org\r\nSubject: " + b"demo - France - " * 5000 + b"\r\n\r\nA par H",
    b"From: fr@example.org\r\nDate: Thu, 99 Foo 99999 99:99:99 +9999\r\nSubject: demo - France - Spring 1901\r\n\r\nA par H",
    b"From: fr@example.org\r\nReceived: from x; not a date at all\r\nSubject: demo - France - Spring 1901\r\n\r\nA par H",
    b"From: fr@example.org\r\nSubject: demo - France - Spring 1901\r\nContent-Type: multipart/mixed\r\n\r\nno boundary",
    b"From: fr@example.org\r\nSubject: demo - France - Spring 1901\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n",
    _nested(200),
    GOOD.replace(b"A par - bur", b"A par - bur\r\n" * 20000),
    GOOD.replace(b"Subject: demo", b"Subject: \xff\xfe demo"),
    # Damaged headers that Python's own header parser trips over (found by the mangling test below):
    GOOD.replace(b"<a1@example.org>", b"<:ample.org>"),
    b"From:@example.org\r\nTo:@example.org\r\nSubject: demo - France - Spring 1901\r\nMessage-ID: <a1@\r\ne\r\nxamp--l>\r\n\r\nA par H",
    GOOD.replace(b"charset=utf-8", b"charset=ut\x00f-8"),
    b"From: frexample.:org\r\nTo: orders\t\xde\xc5U\x9e\x11\xfd\xdf\xc4xample.org\r:\nSubje--ctV(w\x9c\xf9: demo\r\n\r\nA par H",
]


def test_nasty_messages(store: GameStore) -> None:
    for i, raw in enumerate(NASTY):
        o = take_in(store, raw, now=T0 + timedelta(hours=1), received=T0 + timedelta(minutes=i))
        assert o.status in STATUSES, (i, o)
        assert o.line()  # the line the coordinator sees


def test_bytes_that_are_not_ascii_in_a_damaged_header_are_read_not_fatal(store: GameStore) -> None:
    # Found by the test below: a From line whose address the parser gives up on keeps its byte 0xE5 as a lone
    # surrogate, which no database takes (the intake stopped with UnicodeEncodeError).
    from dippouch.letters.message import parse_message
    from dippouch.store.mail.inbox import messages

    damaged = (
        b"From: fr@[\xe5exam\x00ple.org\r\nTo: orders@example.org\r\nSubject: demo - France - v1\r\n"
        b"Message-ID: <a1filename*=@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nA par - bur\r\n"
    )
    o = take_in(store, damaged, now=T0 + timedelta(hours=2))
    assert o.status in STATUSES, o
    assert "fr@[\ufffdexample.org]" in [m.sender for m in messages(store)]  # the store is the module's
    # UTF-8 bytes in the same damaged line are read as the letters they are.
    assert parse_message(b"From: fr@[\xc3\x96st.example\r\nSubject: x\r\n\r\nhi").sender == "fr@[\xf6st.example]"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mangled_good_messages(store: GameStore, data: st.DataObject) -> None:
    raw = bytearray(data.draw(st.sampled_from([GOOD, MULTI])))
    rnd = random.Random(data.draw(st.integers(0, 2**32)))
    for _ in range(data.draw(st.integers(1, 12))):
        at = rnd.randrange(len(raw) + 1)
        op = rnd.randrange(3)
        if op == 0 and raw:
            del raw[at : at + rnd.randint(1, 8)]
        elif op == 1:
            raw[at:at] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
        else:
            raw[at:at] = rnd.choice(
                [b"\r\n", b":", b"=?", b"?=", b"--", b"boundary=", b"charset=", b"\x00", b"filename*="]
            )
    o = take_in(store, bytes(raw), now=T0 + timedelta(hours=2))
    assert o.status in STATUSES, o


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.text(max_size=400), subject=st.text(max_size=120))
def test_any_text_in_subject_and_body(store: GameStore, body: str, subject: str) -> None:
    m = EmailMessage()
    m["From"] = "fr@example.org"
    try:
        m["Subject"] = subject
    except ValueError:
        return  # the sending side cannot even write this header
    m.set_content(body)
    o = take_in(store, m.as_bytes(), now=T0 + timedelta(hours=3))
    assert o.status in STATUSES, o


def test_the_game_is_untouched_by_junk(store: GameStore, tmp_path: Path) -> None:
    before = store_history.phase_record(store, "demo", "Spring 1901 Movement")["status"]
    take_in(store, b"\x00\x01garbage", now=T0 + timedelta(hours=4))
    assert store_history.phase_record(store, "demo", "Spring 1901 Movement")["status"] == before


def test_terminal_control_sequences_never_reach_the_coordinators_screen(store: GameStore) -> None:
    """`mail list`, `mail show` and `mail fetch` print a stranger's subject, sender, file names and text: an
    escape sequence in them (clear the screen, set the title, write the clipboard with OSC 52) must not reach
    the coordinator's terminal as one."""
    from dippouch.letters.message import parse_message

    m = EmailMessage()
    m["From"] = "fr@example.org"
    m["Subject"] = "demo - France - Spring 1901 Movement \x1b]0;owned\x07 v9"
    m.set_content("A par H\n\x1b[2J\x1b]52;c;ZWNobyBvd25lZA==\x07\nF bre H \x9b31m\n")
    m.add_attachment(b"x", maintype="text", subtype="plain", filename="a\x1b[1mb.txt")
    raw = m.as_bytes()
    parsed = parse_message(raw)
    shown = [parsed.subject, parsed.sender, parsed.body, *(a.filename for a in parsed.attachments)]
    for text in shown:
        assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 for c in text), repr(text)
    assert "A par H" in parsed.body and "F bre H" in parsed.body
    o = take_in(store, raw, now=T0 + timedelta(hours=5))
    assert "\x1b" not in o.line() and "\x07" not in o.line()


def test_no_mail_module_reads_a_number_with_isdigit_and_int() -> None:
    """``isdigit()`` then ``int()`` is the pattern of the review's 500s (issue 52, finding 7: an unsubscribe link's
    person id): ``isdigit`` takes '²', which ``int`` refuses, and no length. Mail reads numbers others wrote (a
    link's token, a photograph's version line, a form's port) through :func:`dippouch.numbers.number_or_none`;
    ``isdigit`` alone stays only where a word is sorted, never made a number."""
    root = Path(__file__).resolve().parents[2] / "src" / "dippouch" / "mail"
    found = []
    for path in sorted(root.glob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if ".isdigit()" in line and "isascii" not in line and any("int(" in x for x in lines[i : i + 3]):
                found.append(f"{path.name}:{i + 1}")
    assert found == []
