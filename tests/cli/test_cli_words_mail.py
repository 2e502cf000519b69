"""``dippouch mail ...`` speaks the locale's language from its first line to its last, as its refusals do: a
German coordinator setting up mail, fetching it, reviewing photographs and held messages reads German (French
for a French one), the values inside a line (games, powers, addresses, times, commands) as they are; in the C
locale every line is the English it always was."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

import dippouch.cli.mail  # noqa: F401  (registers the commands)
from dbsupport import migrated_sqlite
from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.core.messages import msg
from dippouch.game import LineCheck
from dippouch.mail.notices import setup
from dippouch.store import GameStore
from dippouch.store import games as store_games

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # long past: `mail dismiss` acts now, after the deadline
AFTER = T0 + timedelta(days=13)  # the first phase's deadline (12 days) has passed
SUBJECT = "demo - England - Spring 1901 Movement"
GERMAN, FRENCH = "de_DE.UTF-8", "fr_FR.UTF-8"


@pytest.fixture(autouse=True)
def _english_unless_told(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts in the C locale and leaves the locale as it found it, read again as a new process would
    (the locale is read once a process). The registered address proves its sender here: proof is tested in
    tests/mail/test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    monkeypatch.setenv("LC_ALL", "C")
    settings.reread()
    register_commands()
    yield
    monkeypatch.undo()
    settings.reread()


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A game with mail set up: England has an address, France none yet."""
    url = migrated_sqlite(tmp_path / "g.db")
    store = GameStore(url)
    try:
        store_games.create_game(store, "demo", "standard", now=T0)
        store_games.assign(store, "demo", "England", "Jane Smith", now=T0, email="jane@example.org")
        store_games.assign(store, "demo", "France", "Fran Doe", now=T0)
        setup(store, "demo", now=T0, changes={})
    finally:
        store.close()
    return url


def _picture() -> bytes:
    """A photograph of more than a thousand bytes (its size is said with the reader's digit grouping)."""
    out = io.BytesIO()
    Image.frombytes("L", (120, 60), random.Random(7).randbytes(120 * 60)).save(out, "PNG")
    return out.getvalue()


def _eml(folder: Path, name: str, sender: str, body: str, image: bytes | None = None) -> str:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@example.org", SUBJECT
    m["Message-ID"] = f"<{name}@example.org>"
    m.set_content(body)
    if image is not None:
        m.add_attachment(image, maintype="image", subtype="png", filename="sheet.png")
    path = folder / f"{name}.eml"
    path.write_bytes(m.as_bytes())
    return str(path)


def _cli(
    monkeypatch: pytest.MonkeyPatch, locale: str, *args: str, db: str, now: datetime | None = T0, code: int = 0
) -> list[str]:
    """The lines a command prints in ``locale``."""
    monkeypatch.setenv("LC_ALL", locale)
    settings.reread()
    argv = [*args, "--db", db, *(["--now", now.isoformat()] if now is not None else [])]
    got = CliRunner().invoke(app, argv)
    assert got.exit_code == code, (args, got.output)
    return got.output.splitlines()


def _mailbox(tmp_path: Path) -> tuple[str, str, str]:
    """Three messages: England's orders, a message from an address not registered (held), a photograph."""
    return (
        _eml(tmp_path, "orders", "jane@example.org", "A lvp - yor\nF edi - nth\n"),
        _eml(tmp_path, "stranger", "other@example.org", "A lvp - wal\n"),
        _eml(tmp_path, "photo", "jane@example.org", "my orders", image=_picture()),
    )


def test_mail_setup_is_said_in_german(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _cli(
        monkeypatch,
        GERMAN,
        *("mail", "setup", "demo", "--title", "Demo", "--alias", "England=Albion", "--observer", "obs@example.org"),
        db=db,
    )
    assert lines == [
        "Mail für demo: an seit 2025-03-03T09:00:00+00:00.",
        "  Betreffzeilen dürfen sie so nennen: demo, Demo",
        "  England auch: Albion",
        "  Erinnerungen: 48h, 12h vor jeder Frist",
        "  Karten zu den Ergebnissen: winter",
        "  Fotos zur Frist: Die Phase wartet auf Ihre Prüfung (`dippouch mail review`)",
        "  Beobachter: obs@example.org",
        "  ein Absender wird allein durch die From-Kopfzeile nachgewiesen (--proof from-address)",
        "  noch keine Adresse für: France (`dippouch players email demo POWER ADDRESS`)",
    ]
    tokens = _cli(monkeypatch, GERMAN, "mail", "tokens", "demo", db=db)
    assert "  France: keine Adresse (`dippouch players email demo France ADDRESS`)" in tokens
    off = _cli(monkeypatch, GERMAN, "mail", "setup", "demo", "--disable", "--review-wait", "24h", db=db)
    assert off[0] == "Mail für demo: AUS seit 2025-03-03T09:00:00+00:00."
    assert "  Fotos zur Frist: Die Phase wartet bis zu 24h auf Ihre Prüfung und läuft dann ohne sie weiter" in off


def test_fetch_send_and_show_are_said_in_german(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    orders, stranger, photo = _mailbox(tmp_path)
    fetched = _cli(monkeypatch, GERMAN, "mail", "fetch", orders, stranger, photo, db=db)
    assert fetched[-1] == (
        "3 Nachrichten aus 3 Dateiargumenten: 1 accepted, 1 held, 1 photo. Antworten und Bestätigungen sind "
        "eingereiht: `dippouch mail send`."
    )
    queued = _cli(monkeypatch, GERMAN, "mail", "send", "--queue-only", db=db)
    assert queued == ["0 Ergebnis- oder Mitteilungsnachrichten und 0 Erinnerungen eingereiht."]

    size = len(_picture())
    assert size >= 1000  # so that its digits are grouped
    shown = _cli(monkeypatch, GERMAN, "mail", "show", "3", db=db)
    assert shown == [
        "Nr. 3 von jane@example.org, eingegangen 2025-03-03 09:00 UTC: photo",
        f"Betreff: {SUBJECT}",
        "Was daraus wurde: 1 Foto versiegelt aufbewahrt; der Spielleiter prüft es nach der Frist",
        f"  Anhang Nr. 1: sheet.png (image/png, {size:,} Bytes)".replace(f"{size:,}", f"{size:,}".replace(",", ".")),
        "Der Inhalt ist bis zur Frist von Frühjahr 1901 Bewegung versiegelt.",
    ]
    retried = _cli(monkeypatch, GERMAN, "mail", "retry", "1", db=db)
    assert retried == ["Nachricht Nr. 1 geht beim nächsten `dippouch mail send` hinaus."]


def test_the_review_is_said_in_german(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _cli(monkeypatch, "C", "mail", "fetch", *_mailbox(tmp_path), db=db)
    before = _cli(monkeypatch, GERMAN, "mail", "review", "demo", db=db)
    assert before == [
        "demo, Frühjahr 1901 Bewegung: Frist 2025-03-15 09:00 UTC (noch nicht erreicht).",
        "  England: 1 Foto, eingegangen 2025-03-03 09:00 UTC (bis zur Frist versiegelt)",
        "  zurückgehaltene Nachricht Nr. 2 von other@example.org für England, eingegangen 2025-03-03 09:00 UTC: "
        "`dippouch mail apply 2` oder `dippouch mail dismiss 2`",
        "Die Prüfung kommt nach der Frist; die Phase wartet dann darauf.",
    ]
    # After the deadline: what the OCR engine proposes depends on the engine here, so only the lines that do not.
    after = _cli(monkeypatch, GERMAN, "mail", "review", "demo", db=db, now=AFTER)
    assert after[0] == "demo, Frühjahr 1901 Bewegung: Frist 2025-03-15 09:00 UTC (verstrichen)."
    assert "Foto Nr. 1 (sheet.png, image/png) von England, eingegangen 2025-03-03 09:00 UTC: WARTET AUF SIE" in after
    assert (
        "zurückgehaltene Nachricht Nr. 2 von other@example.org für England, eingegangen 2025-03-03 09:00 UTC: WARTET "
        "AUF SIE; weiter: `dippouch mail apply 2` (auf Ihr Wort) oder `dippouch mail dismiss 2`"
    ) in after
    assert after[-1] == (
        "WARTET AUF PRÜFUNG: Frühjahr 1901 Bewegung wird erst ausgewertet, wenn jeder Eintrag oben erledigt ist. Um "
        "die Phase jetzt auszuwerten und den Rest ungeprüft zu lassen (in den Ergebnissen genannt): `dippouch mail "
        "release demo`."
    )
    assert _cli(monkeypatch, GERMAN, "mail", "dismiss", "2", db=db, now=None) == [
        "Nachricht Nr. 2 verworfen.",
        "In Frühjahr 1901 Bewegung wartet noch 1 Eintrag auf Sie (`dippouch mail review demo`).",
    ]
    assert _cli(monkeypatch, GERMAN, "mail", "set-aside", "1", db=db, now=AFTER) == [
        "Foto Nr. 1 von England beiseitegelegt.",
        "Nichts wartet mehr auf Prüfung: Frühjahr 1901 Bewegung wird beim nächsten `dippouch process` oder "
        "Durchlauf eines Workers ausgewertet.",
    ]
    released = _cli(monkeypatch, GERMAN, "mail", "release", "demo", db=db, now=AFTER)
    assert released == [
        "Frühjahr 1901 Bewegung von demo ist freigegeben: Die Phase wird beim nächsten `dippouch process` oder "
        "Durchlauf eines Workers ausgewertet."
    ]


def test_a_transcriptions_verdicts_keep_their_columns_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each language pads its "ok" to the width of its "REJECTED", so the orders line up under each other."""
    from dippouch.cli.mail import _verdict
    from dippouch.cli.words import said

    monkeypatch.setenv("LC_ALL", GERMAN)
    settings.reread()
    ok = said(_verdict(LineCheck(3, "A lvp - yor", "A lvp - yor"), "A Liverpool - York"))
    refused = said(_verdict(LineCheck(12, " A bel - hol ", error=msg("no unit in %(place)s", place="Belgium")), ""))
    assert ok == "Zeile  3  ok         A Liverpool - York"
    assert refused == "Zeile 12  ABGELEHNT  A bel - hol: keine Einheit in Belgium"
    assert ok.index("A Liverpool") == refused.index("A bel")


def test_a_french_coordinator_reads_french(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _cli(monkeypatch, FRENCH, "mail", "setup", "demo", db=db)
    assert lines[0] == "Courriel pour demo : activé depuis 2025-03-03T09:00:00+00:00."
    _cli(monkeypatch, "C", "mail", "fetch", *_mailbox(tmp_path), db=db)
    review = _cli(monkeypatch, FRENCH, "mail", "review", "demo", db=db)
    assert review[0] == "demo, Printemps 1901 Mouvements : échéance 2025-03-15 09:00 UTC (pas encore atteinte)."
    assert _cli(monkeypatch, FRENCH, "mail", "dismiss", "2", db=db, now=None) == [
        "Message nº 2 rejeté.",
        "Encore en attente dans Printemps 1901 Mouvements : 1 élément (`dippouch mail review demo`).",
    ]


def test_the_c_locale_reads_the_english_it_always_did(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _cli(monkeypatch, "C", "mail", "setup", "demo", "--proof", "required", "--review-wait", "24h", db=db)
    assert lines == [
        "Mail for demo: on since 2025-03-03T09:00:00+00:00.",
        "  subjects may call it: demo",
        "  reminders: 48h, 12h before each deadline",
        "  maps with results: winter",
        "  photographs at a deadline: the phase waits up to 24h for your review, then goes ahead without them",
        "  a sender is proven by their token (taught in receipts; `dippouch mail tokens`) or by DKIM/SPF passed at "
        "no server (`--trust-auth NAME`); other mail is held until the player confirms it",
        "  no address yet for: France (`dippouch players email demo POWER ADDRESS`)",
    ]
    _cli(monkeypatch, "C", "mail", "setup", "demo", "--proof", "from-address", "--review-wait", "none", db=db)
    fetched = _cli(monkeypatch, "C", "mail", "fetch", *_mailbox(tmp_path), db=db)
    assert fetched[-1] == (
        "3 messages from 3 file arguments: 1 accepted, 1 held, 1 photo. Replies and receipts are queued: "
        "`dippouch mail send`."
    )
    assert _cli(monkeypatch, "C", "mail", "send", "--queue-only", db=db) == [
        "Queued 0 result/notice messages and 0 reminders."
    ]
    shown = _cli(monkeypatch, "C", "mail", "show", "3", db=db)
    assert shown[3] == f"  attachment #1: sheet.png (image/png, {len(_picture()):,} bytes)"
    assert shown[4] == "Its content is sealed until the deadline of Spring 1901 Movement."
    assert _cli(monkeypatch, "C", "mail", "review", "demo", db=db) == [
        "demo, Spring 1901 Movement: deadline 2025-03-15 09:00 UTC (not yet).",
        "  England: 1 photograph, received 2025-03-03 09:00 UTC (sealed until the deadline)",
        "  held message #2 from other@example.org for England, received 2025-03-03 09:00 UTC: "
        "`dippouch mail apply 2` or `dippouch mail dismiss 2`",
        "The review comes after the deadline; the phase waits for it then.",
    ]
    assert _cli(monkeypatch, "C", "mail", "dismiss", "2", db=db, now=None) == [
        "Message #2 dismissed.",
        # `mail dismiss` acts now (it has no --now): the deadline is long past, and the photograph waits.
        "Still waiting for you in Spring 1901 Movement: 1 item (`dippouch mail review demo`).",
    ]
