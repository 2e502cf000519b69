"""How much mail a player gets (issue 55, item 3 and 4): a 7-player standard game with 1-hour phases, played
for several phases with the worker's processing, its notifier and its outbox sending to a real SMTP server.

Each player gets the start once, at most one mail after each processing (their units' results, the centres,
the board attached, the next deadline), no reminder in a phase too short for one to help, and the end once,
with the scores and the links to the replay, its GIF and the game book. Before this, every 1-hour phase sent
each player "processed" and "orders missing" in the same second, and the end was mailed to nobody.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest

from dippouch.game import GameSettings
from dippouch.notify.task import NotifyTask
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person, seat_person, set_language
from dippouch.worker.service import default_tasks, process_due
from mailservers import SmtpServer

T0 = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
HOUR = {"movement": "1h", "retreats": "1h", "adjustments": "1h"}


def _address(power: str) -> str:
    return f"{power.lower()}@example.org"


@pytest.fixture
def store(db_url: str, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameStore]:
    for name in ("DIPPOUCH_MAIL_CONFIG", "DIPPOUCH_SMTP_USER", "DIPPOUCH_SMTP_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", smtp.host)
    monkeypatch.setenv("DIPPOUCH_SMTP_PORT", str(smtp.port))
    monkeypatch.setenv("DIPPOUCH_SMTP_SECURITY", "none")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "games@dippouch.example")
    s = GameStore(db_url)
    yield s
    s.close()


class Worker:
    """The worker's look, by a test's clock: due phases processed, then every task (the notifier looking for
    everything each time, the outbox sent to the SMTP server, the ratings)."""

    def __init__(self, store: GameStore, smtp: SmtpServer) -> None:
        self.store, self.smtp = store, smtp
        self.tasks = default_tasks()  # as ``dippouch worker`` runs them (which registers the mail side's channels)
        for task in self.tasks:
            if isinstance(task, NotifyTask):
                task.every = 0  # the slow scans every look: this test's clock jumps, the worker's does not

    def look(self, at: datetime) -> list[EmailMessage]:
        """The mail this look sent."""
        before = len(self.smtp.messages)
        process_due(self.store, now=at)
        for task in self.tasks:
            task(self.store, at)
        return self.smtp.messages[before:]


def _per_player(mails: list[EmailMessage]) -> Counter[str]:
    return Counter(str(m["To"]).lower() for m in mails)


def _text(m: EmailMessage) -> str:
    part = m.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def test_a_seven_player_game_with_one_hour_phases_mails_each_player_once_a_phase_and_the_end_once(
    store: GameStore, smtp: SmtpServer
) -> None:
    store_games.create_game(store, "evening7", "standard", now=T0, settings=GameSettings(deadlines=HOUR))
    people = {}
    for power in POWERS:
        pid = create_person(store, f"{power} player", now=T0, email=_address(power))
        store_games.assign(store, "evening7", power, f"{power} player", now=T0)
        seat_person(store, "evening7", power, pid, now=T0)
        people[power] = pid
    set_language(store, people["Germany"], "de")
    set_language(store, people["France"], "fr")
    worker = Worker(store, smtp)

    started = worker.look(T0 + timedelta(seconds=30))
    assert _per_player(started) == {_address(p): 1 for p in POWERS}
    assert {str(m["Subject"]) for m in started if m["To"] == _address("England")} == {"evening7 is starting"}

    after_processing: list[Counter[str]] = []
    at = T0
    for phase in range(4):
        # Mid-phase looks: a 1-hour phase is too short for a reminder to help, so none comes.
        if phase % 2 == 0:
            store_submissions.submit(
                store,
                "evening7",
                "England",
                "F lon - nth" if phase == 0 else "no orders",
                now=at + timedelta(minutes=5),
            )
        for minutes in (10, 30, 50, 58):
            assert worker.look(at + timedelta(minutes=minutes)) == [], f"phase {phase}: mail {minutes} min in"
        deadline = store_status.status(store, "evening7", now=at + timedelta(minutes=59)).deadline
        assert deadline is not None
        at = deadline + timedelta(seconds=20)
        mails = worker.look(at) + worker.look(at + timedelta(minutes=1)) + worker.look(at + timedelta(minutes=3))
        after_processing.append(_per_player(mails))
        assert max(_per_player(mails).values()) == 1, _per_player(mails)
        for m in mails:
            assert "missing" not in str(m["Subject"]) and "fehlen" not in str(m["Subject"])

    # Every player got exactly one mail after each processing: the results.
    assert after_processing == [{_address(p): 1 for p in POWERS}] * 4

    # Everyone votes a draw: the end, once to each, with the scores and the links.
    end_at = at + timedelta(minutes=10)
    for power in POWERS:  # the others in civil disorder: the first vote may end it
        if store_votes.vote(store, "evening7", power, True, now=end_at) is not None:
            break
    ended = []
    for minutes in (1, 2, 7, 9):
        ended += worker.look(end_at + timedelta(minutes=minutes))
    assert _per_player(ended) == {_address(p): 1 for p in POWERS}
    (mail,) = [m for m in ended if m["To"] == _address("England")]
    assert mail["Subject"] == "evening7 has ended"
    body = _text(mail)
    assert "evening7 is over: Draw" in body
    assert "Scores under" in body and " *England:" in body
    for tail in ("/games/evening7/replay", "/games/evening7/replay.gif", "/games/evening7/book.pdf"):
        assert tail in body
    assert "You get this because you played England in evening7." in body
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    german = _text(next(m for m in ended if m["To"] == _address("Germany")))
    assert "evening7 ist beendet" in german or "evening7 ist vorbei" in german
    # How it ended, in the reader's language too (it was the English the game stored).
    assert "Remis vereinbart" in german and "Draw agreed" not in german, german
    # Its numbers as German writes them, and the sender's one-click line in German too.
    assert "Wertung 14,29" in german and "Platz 1 von 7" in german and "100,0" in german, german
    assert "Diese E-Mails mit einem Klick abbestellen: http" in german and "To stop" not in german, german
    french = _text(next(m for m in ended if m["To"] == _address("France")))
    assert "Nulle acceptée" in french and "Draw agreed" not in french, french
    assert "Pour ne plus recevoir ces e-mails en un clic : http" in french, french

    total = _per_player(smtp.messages)
    # The start, four results, the end: six mails a player in all.
    assert total == {_address(p): 6 for p in POWERS}


def test_the_results_mail_carries_the_players_units_the_centres_the_board_and_the_next_deadline(
    store: GameStore, smtp: SmtpServer
) -> None:
    store_games.create_game(store, "evening7", "standard", now=T0, settings=GameSettings(deadlines=HOUR))
    for power in ("England", "France", "Germany"):
        pid = create_person(store, f"{power} player", now=T0, email=_address(power))
        store_games.assign(store, "evening7", power, f"{power} player", now=T0)
        seat_person(store, "evening7", power, pid, now=T0)
    worker = Worker(store, smtp)
    worker.look(T0 + timedelta(seconds=30))
    store_submissions.submit(
        store, "evening7", "England", "F lon - eng\nF edi - nth\nA lvp - yor", now=T0 + timedelta(minutes=5)
    )
    store_submissions.submit(
        store, "evening7", "France", "F bre - eng\nA par - bur\nA mar S A par - bur", now=T0 + timedelta(minutes=5)
    )
    mails = worker.look(T0 + timedelta(hours=1, seconds=20))
    (mail,) = [m for m in mails if m["To"] == _address("England")]
    assert mail["Subject"] == "evening7: Spring 1901 Movement processed"
    body = _text(mail)
    assert "What your orders did (England):" in body
    assert "Fleet London -> English Channel" in body or "F London - English Channel" in body or "London" in body
    assert "bounce" in body.lower() or "fails" in body.lower()  # the reason a failed order failed
    assert "You hold 3 supply centres." in body and "France 5" not in body  # Spring: no centre changes hands
    assert "Next: Fall 1901 Movement, orders due by" in body
    assert "You get this because you play England in evening7." in body and "/notifications" in body
    boards = [p for p in mail.iter_attachments() if p.get_content_type() == "image/png"]
    assert len(boards) == 1 and boards[0].get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "/unsubscribe/" in str(mail["List-Unsubscribe"])
