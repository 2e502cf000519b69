"""The game's mail in the game's language: a German game's results, reminders, notices and replies to orders
by mail are in German (the subject to send orders with stays as intake reads it); an English game's mail is
the text it always was."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.core.messages import msg
from dippouch.game import GameSettings, LineCheck
from dippouch.letters import compose
from dippouch.mail.intake import take_in
from dippouch.mail.notices import queue_notices, queue_player_link, queue_reminders, setup
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.mail.models import OutboxRow

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ADDR = {"France": "fr@example.org", "Germany": "de@example.org"}


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replies to orders, not proof of the sender (test_mail_proof.py), are what these tests read."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


@dataclass
class Sent:
    kind: str
    to_addr: str
    subject: str
    body: str


def _outbox(store: GameStore) -> list[Sent]:
    with store.session() as s:
        return [Sent(r.kind, r.to_addr, r.subject, r.body) for r in s.query(OutboxRow).order_by(OutboxRow.id)]


def _game(tmp_path: Path, language: str) -> GameStore:
    store = GameStore(migrated_sqlite(tmp_path / f"{language}.db"))
    settings = GameSettings(
        deadlines={"movement": "2d", "retreats": "1d", "adjustments": "1d"}, missed_limit=1, language=language
    )
    store_games.create_game(store, "demo", "standard", now=T0, settings=settings)
    for power, addr in ADDR.items():
        store_games.assign(store, "demo", power, f"{power} player", now=T0, email=addr)
    setup(store, "demo", now=T0, changes={"reminders": ["12h"]})
    return store


def test_a_german_games_results_reminder_and_notices_are_german(tmp_path: Path) -> None:
    store = _game(tmp_path, "de")
    t = T0 + timedelta(hours=1)
    store_deadlines.pause(store, "demo", now=t)
    store_deadlines.resume(store, "demo", now=t + timedelta(hours=1))
    queue_notices(store, t + timedelta(hours=2))
    notices = [r for r in _outbox(store) if r.kind == "notice"]
    assert {r.subject for r in notices} == {
        "demo: Pause (Frühjahr 1901 Bewegung)",
        "demo: Fortsetzung (Frühjahr 1901 Bewegung)",
    }
    pause = next(r.body for r in notices if "Pause" in r.subject)
    assert pause.startswith("demo: Die Partie pausiert: Es läuft keine Frist.")
    assert "-- \ndippouch, im Auftrag des Spielleiters." in pause

    # A reminder: in German, but the subject to send orders with is the one intake reads.
    store_submissions.submit(store, "demo", "Germany", "A mun H", now=t + timedelta(hours=3))
    deadline = store_status.status(store, "demo", now=t + timedelta(hours=3)).deadline
    assert deadline is not None
    queue_reminders(store, deadline - timedelta(hours=11))
    (reminder,) = [r for r in _outbox(store) if r.kind == "reminder"]
    assert reminder.to_addr == ADDR["France"]
    assert reminder.subject == "demo: Erinnerung, Befehle von France für Frühjahr 1901 Bewegung fällig in 11 Stunden"
    assert "Die Frist ist" in reminder.body and "in 11 Stunden." in reminder.body
    assert "Für France sind noch keine Befehle eingegangen" in reminder.body
    assert "Ohne Befehle: " in reminder.body
    assert "Eine Macht, die 1 Bewegungsphase verpasst, gerät in Anarchie" in reminder.body
    assert "Senden Sie Ihre Befehle mit dem Betreff:\n  demo - France - Spring 1901 Movement\n" in reminder.body

    # The results and the civil disorder they bring.
    store_processing.process(store, "demo", now=deadline + timedelta(minutes=1))
    queue_notices(store, deadline + timedelta(minutes=2))
    rows = _outbox(store)
    results = [r for r in rows if r.kind == "results"]
    assert {r.to_addr for r in results} == set(ADDR.values())
    assert results[0].subject == "demo: Ergebnisse Frühjahr 1901 Bewegung"
    assert results[0].body.startswith("Ergebnisse Frühjahr 1901 Bewegung, Partie demo (Standard Diplomacy)\n")
    assert "Germany: A Munich H" in results[0].body
    cd = [r for r in rows if r.subject == "demo: France in Anarchie"]
    assert len(cd) == len(ADDR)
    assert (
        "France ist jetzt in Anarchie (keine Befehle in 1 Bewegungsphase). Die Einheiten dieser Macht halten"
        in cd[0].body
    )


def test_an_english_games_mail_is_unchanged(tmp_path: Path) -> None:
    store = _game(tmp_path, "en")
    store_deadlines.pause(store, "demo", now=T0 + timedelta(hours=1))
    queue_notices(store, T0 + timedelta(hours=2))
    (pause, *_) = [r for r in _outbox(store) if r.kind == "notice"]
    assert pause.subject == "demo: pause (Spring 1901 Movement)"
    assert pause.body.startswith("demo: The game is paused: no deadline is running. Spring 1901 Movement: ")
    assert pause.body.endswith(f"\n\n{compose.SIGN}\n")


def test_a_french_games_seat_link(tmp_path: Path) -> None:
    store = _game(tmp_path, "fr")
    assert queue_player_link(store, "demo", "France", "Marianne", "m@example.org", "https://x/k/abc", 7, T0)
    (link,) = [r for r in _outbox(store) if r.kind == "link"]
    assert link.subject == "demo : votre lien pour jouer France"
    assert link.body.startswith("Bonjour Marianne,\n\nvous jouez France dans la partie demo.")
    assert "\n\n  https://x/k/abc\n\n" in link.body


def _orders_mail(subject: str, body: str, n: int) -> bytes:
    return (
        f"From: fr@example.org\r\nTo: orders@example.org\r\nSubject: {subject}\r\n"
        f"Message-ID: <i18n{n}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


def test_replies_to_orders_by_mail_are_in_the_games_language(tmp_path: Path) -> None:
    store = _game(tmp_path, "de")
    got = take_in(
        store, _orders_mail("demo - France - Spring 1901 Movement - v1", "A par - bur\nA xyz - abc", 1), now=T0
    )
    assert got.status == "accepted", got.reason
    receipt = next(r for r in _outbox(store) if r.kind == "receipt")
    assert receipt.subject == "Empfangsbestätigung: demo - France - Spring 1901 Movement - Version 1"
    body = receipt.body
    assert body.startswith("Ihre E-Mail für France in demo, Frühjahr 1901 Bewegung, ist am ")
    assert "Zeile für Zeile:\n  Zeile  1  angenommen  A Paris - Burgundy\n  Zeile  2  ABGELEHNT  A xyz - abc\n" in body
    assert "            keine Provinz 'xyz'" in body  # the refusal in the mail's language, as the web says it
    assert "no province" not in body
    assert "1 Befehl angenommen, 1 abgelehnt." in body
    assert "Für eine neue Version verwenden Sie den Betreff:\n  demo - France - Spring 1901 Movement - v2\n" in body

    # A phase not open yet: refused, in German, with the subject that would work.
    got = take_in(store, _orders_mail("demo - France - Fall 1901 Movement", "A par - bur", 2), now=T0)
    assert got.status == "refused"
    refusal = [r for r in _outbox(store) if r.kind == "reply"][-1]
    assert refusal.subject == "Nicht verwendet: demo - France - Fall 1901 Movement"
    assert refusal.body.startswith("Ihre Nachricht wurde für keine Befehle verwendet.\n\nBetreff: ")
    assert "Ein Betreff, der funktionieren würde:\n  demo - France - Spring 1901 Movement" in refusal.body
    assert "Die Form ist: Spielname - Name der Macht" in refusal.body
    assert (
        "Grund: Herbst 1901 Bewegung ist noch nicht offen; die Partie ist in Frühjahr 1901 Bewegung.\n" in refusal.body
    )
    assert got.reason == "Fall 1901 Movement is not open yet; the game is in Spring 1901 Movement"  # as recorded


def test_a_receipts_notes_on_how_the_mail_was_read_are_in_the_games_language(tmp_path: Path) -> None:
    """The notes a receipt gives (a near miss in the subject, the quoted lines, signature and phone footer left
    out) are message values said in the game's language; the mail log keeps their values."""
    store = _game(tmp_path, "de")
    body = "A par - bur\n> on Monday you wrote\nSent from my phone\n-- \nJean"
    got = take_in(store, _orders_mail("demo - France - Sprng 1901 Movement - v1", body, 3), now=T0)
    assert got.status == "accepted", got.reason
    receipt = next(r for r in _outbox(store) if r.kind == "receipt").body
    assert "Betreff: 'sprng' gelesen als Frühjahr" in receipt
    assert "ignoriert: 1 zitierte Zeile ('>'); die Zeile 'Sent from my phone'; die Signatur (nach '-- ')" in receipt, (
        receipt
    )
    for english in ("read 'sprng'", "Spring", "quoted line", "the line", "signature"):
        assert english not in receipt.replace("Spring 1901 Movement", ""), english
    # Recorded as values; said in English where English is asked for.
    assert [str(n) for n in got.notes][:2] == [
        "subject: read 'sprng' as Spring",
        "ignored 1 quoted line ('>'); the line 'Sent from my phone'; the signature (after '-- ')",
    ]


def test_compose_in_french_and_english() -> None:
    lines = [
        LineCheck(1, "A par - bur", order="A par - bur"),
        LineCheck(2, "F xx", error=msg("no province %(token)s", token="'xx'")),
    ]
    kw = dict(
        game_title="demo",
        power="France",
        phase="Spring 1901 Movement",
        version=2,
        label="3",
        received="2026-12-01 09:00 UTC",
        lines=lines,
        late=False,
        standing=2,
        reinstates=None,
        deadline="2026-12-03 09:00 UTC",
        next_subject="demo - France - Spring 1901 Movement - v3",
    )
    fr = compose.receipt_text(**kw, lang="fr")  # type: ignore[arg-type]
    assert fr.startswith(
        "Votre e-mail pour France dans demo, Spring 1901 Movement, a été reçu le 2026-12-01 09:00 UTC et "
        "enregistré comme version 2 (votre v3).\n"
    )
    assert "La version 2 est désormais retenue pour France" in fr
    assert "            pas de province 'xx'\n" in fr  # the order check's message, said in French
    en = compose.receipt_text(**kw)  # type: ignore[arg-type]
    assert en.startswith(
        "Your e-mail for France in demo, Spring 1901 Movement, was received 2026-12-01 09:00 UTC and recorded "
        "as version 2 (your v3).\n"
    )
    assert "  line  1  accepted  A par - bur\n  line  2  REJECTED  F xx\n" in en
    refusal = compose.refusal_text(subject="", why="x", suggestion=None, registered=True, lang="fr")
    assert "Objet : (vide)\nRaison : x.\n" in refusal and refusal.endswith(compose.sign("fr") + "\n")
