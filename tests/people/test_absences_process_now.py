"""Absences at the coordinator's "process now" and at ``dippouch process``: the same policy as the deadline
workers' claim, applied under the same lock, except that an extension never undoes a coordinator's choice
to process now (the confirmation page says so before they press it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.people import absences as B
from dippouch.store.people.persons import create_person, seat_person
from websupport import Site

T0 = datetime(2026, 8, 1, 12, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


def _game(store: GameStore, policy: str) -> int:
    store_games.create_game(store, "g", "standard", now=T0, settings=GameSettings(deadlines=DEADLINES))
    bo = create_person(store, "Bo", now=T0)
    store_games.assign(store, "g", "Austria", "Bo", now=T0)
    seat_person(store, "g", "Austria", bo, now=T0)
    B.set_absence_policy(store, "g", policy, budget_days=10, now=T0)
    return bo


def test_process_now_carries_an_absent_players_standing_orders(store: GameStore) -> None:
    bo = _game(store, "standing")
    store_submissions.submit(store, "g", "Austria", "A vie H\nA bud - ser\nF tri - alb", now=T0 + timedelta(hours=1))
    assert store_processing.process(store, "g", now=T0 + timedelta(days=2, minutes=1)) == ["Spring 1901 Movement"]
    # Bo goes away; the coordinator processes Fall the next morning, long before its deadline.
    at = T0 + timedelta(days=3)
    B.record_absence(store, bo, at.date(), at.date() + timedelta(days=5), now=at)
    assert store_processing.process(store, "g", now=at, force=True) == ["Fall 1901 Movement"]
    assert store_history.phase_record(store, "g", "F1901M")["orders"]["Austria"] == ["A vie H"]
    assert [(u.phase, u.power, u.policy) for u in B.absence_uses(store, "g")] == [
        ("Fall 1901 Movement", "Austria", "standing")
    ]


def test_process_now_is_not_undone_by_an_extension(store: GameStore) -> None:
    bo = _game(store, "extend")
    B.record_absence(store, bo, T0.date(), T0.date() + timedelta(days=5), now=T0)
    assert store_processing.process(store, "g", now=T0 + timedelta(hours=3), force=True) == ["Spring 1901 Movement"]
    assert B.absence_uses(store, "g") == []  # no extension recorded, no budget spent


def test_processing_a_due_game_by_command_extends_an_absent_players_deadline(store: GameStore) -> None:
    bo = _game(store, "extend")
    deadline = store_status.status(store, "g", now=T0).deadline
    assert deadline is not None
    B.record_absence(store, bo, deadline.date(), deadline.date() + timedelta(days=1), now=T0)
    # `dippouch process g` (and the desk's game runs) after the deadline: as the worker would, it waits for Bo.
    assert store_processing.process(store, "g", now=deadline + timedelta(minutes=5)) == []
    assert store_status.status(store, "g", now=deadline + timedelta(minutes=5)).deadline == deadline + timedelta(days=2)
    assert [(u.power, u.policy) for u in B.absence_uses(store, "g")] == [("Austria", "extend")]


def test_the_process_now_page_says_who_is_away_and_what_the_policy_will_do(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("demo")
    store = site.web.store
    now = site.clock()
    for power, name, policy in (("France", "Ann", "standing"),):
        pid = create_person(store, name, now=now)
        store_games.assign(store, "demo", power, name, now=now)
        seat_person(store, "demo", power, pid, now=now)
        B.set_absence_policy(store, "demo", policy, now=now)
        B.record_absence(store, pid, now.date(), now.date() + timedelta(days=20), now=now)
    page = site.post_form(site.coordinator, "/games/demo/coordinate/process")
    assert page.status_code == 200, page.text
    text = " ".join(page.text.split())
    assert "France (Ann) is away" in text
    assert "their last orders of this kind are carried" in text
    desk = " ".join(site.coordinator.get("/games/demo/coordinate").text.split())
    assert "France (Ann) is away" in desk
    B.set_absence_policy(store, "demo", "extend", now=now)
    text = " ".join(site.post_form(site.coordinator, "/games/demo/coordinate/process").text.split())
    assert "processing now does not wait for them" in text
