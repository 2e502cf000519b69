"""A notification is a message to one person: in the language they chose, else their game's, else English;
the same words on every channel. English notifications are the text they always were."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

import dippouch.mail.notices  # noqa: F401  (the game mail is a registered channel)
from dippouch.game import GameSettings
from dippouch.mail.notices import setup
from dippouch.notify.events import save_preferences
from dippouch.notify.reminders import left
from dippouch.notify.task import run_once
from dippouch.notify.texts import compose
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.mail.models import OutboxRow
from dippouch.store.notify.stored import deliveries
from dippouch.store.people.persons import create_person, seat_person, set_language

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
FACTS = {"game": "demo", "power": "France", "phase": "Spring 1901 Movement", "deadline": "2026-12-03 09:00 UTC"}


def test_each_event_in_french() -> None:
    fr = {**FACTS, "lang": "fr"}
    m = compose("phase_processed", {**fr, "next": "Fall 1901 Movement"})
    assert m.title == "demo : Printemps 1901 Mouvements résolue"
    assert m.body == (
        "Les résultats de la phase Printemps 1901 Mouvements dans demo sont disponibles. Ensuite : Automne 1901 Mouvements, "
        "ordres attendus avant le 2026-12-03 09:00 UTC."
    )
    m = compose("deadline", {**fr, "left": "12 heures"})
    assert m.title == "demo : ordres de France manquants"
    assert m.body.startswith("demo, Printemps 1901 Mouvements : pas encore d'ordres pour France, et l'échéance")
    assert compose("game_starting", fr).body.startswith("demo a commencé : vous jouez France.")
    assert (
        compose("seat_offered", fr).body
        == "France dans demo a besoin d'un joueur. Ouvrez le lien pour prendre la place."
    )
    assert compose("seat_lost", {**fr, "how": "freed"}).title == "demo : votre place (France) est proposée à d'autres"
    assert compose("seat_lost", {**fr, "reason": "resigned"}).body.endswith("Vos autres parties sont sur votre page.")
    m = compose("message_received", {**fr, "excerpt": "Hallo"})
    assert (m.title, m.body) == ("demo : un message de quelqu'un", "quelqu'un a écrit dans demo : Hallo")


def test_english_without_a_language() -> None:
    m = compose("deadline", {**FACTS, "left": "12 hours"})
    assert m.title == "demo: orders for France missing"
    assert m.body == (
        "demo, Spring 1901 Movement: no orders for France yet, and the deadline is 12 hours away. "
        "Orders are due by 2026-12-03 09:00 UTC."
    )
    assert compose("message_received", {"game": "demo"}).body == "someone wrote in demo"


@pytest.mark.parametrize(
    ("hours", "en", "de", "fr"),
    [
        (72, "3 days", "3 Tagen", "3 jours"),
        (1.5, "1 hour", "1 Stunde", "1 heure"),
        (5, "5 hours", "5 Stunden", "5 heures"),
        (0.001, "1 minute", "1 Minute", "1 minute"),
    ],
)
def test_the_time_left_in_each_language(hours: float, en: str, de: str, fr: str) -> None:
    td = timedelta(hours=hours)
    assert (left(td), left(td, "de"), left(td, "fr")) == (en, de, fr)


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


def test_a_french_person_in_a_german_game(store: GameStore) -> None:
    """England's player chose French: their reminder is French; France's player chose nothing: German, the
    game's language, as the game's own mail to France is."""
    store_games.create_game(store, "demo", "standard", now=T0, settings=GameSettings(language="de"))
    pids = {}
    for power in ("France", "England"):
        pid = create_person(store, f"{power} player", now=T0, email=f"{power.lower()}@example.org")
        store_games.assign(store, "demo", power, f"{power} player", now=T0, email=f"{power.lower()}@example.org")
        seat_person(store, "demo", power, pid, now=T0)
        save_preferences(store, pid, {}, deadline_hours=12)
        pids[power] = pid
    setup(store, "demo", now=T0, changes={"reminders": ["12h"]})
    set_language(store, pids["England"], "fr")
    deadline = store_status.status(store, "demo", now=T0).deadline
    assert deadline is not None
    run_once(store, deadline - timedelta(hours=11))
    told = {d.person_id: d for d in deliveries(store) if d.event == "deadline"}
    england, france = told[pids["England"]], told[pids["France"]]
    assert england.title == "demo : ordres de England manquants"
    assert "et l'échéance est dans 11 heures." in england.body
    assert france.title == "demo: Befehle für France fehlen"
    assert "und die Frist ist in 11 Stunden." in france.body
    with store.session() as s:
        subjects = set(s.scalars(sa.select(OutboxRow.subject).where(OutboxRow.kind == "reminder")))
    assert "demo: Erinnerung, Befehle von France für Frühjahr 1901 Bewegung fällig in 11 Stunden" in subjects
