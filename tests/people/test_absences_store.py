"""Absences in the store and at the deadline: a holiday recorded once, each game's policy (an extension
from a budget, standing orders, a stand-in, nothing), applied once per phase and power by the deadline pass
(:func:`dippouch.worker.service.process_due`, here in-process with a fixed clock; a real worker process in
test_absences_worker.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.people import absences as B
from dippouch.store.people.persons import create_person, seat_person
from dippouch.worker.service import process_due

T0 = datetime(2026, 8, 1, 12, 0, tzinfo=UTC)  # Spring 1901's deadline: 3 Aug 12:00; Fall's: 5 Aug 12:00
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


def _game(store: GameStore, name: str, power: str = "Austria", who: str = "Ann") -> int:
    store_games.create_game(store, name, "standard", now=T0, settings=GameSettings(deadlines=DEADLINES))
    pid = create_person(store, who, now=T0)
    store_games.assign(store, name, power, who, now=T0)
    seat_person(store, name, power, pid, now=T0)
    return pid


def _deadline(store: GameStore, name: str) -> datetime:
    st = store_status.status(store, name, now=T0)
    assert st.deadline is not None
    return st.deadline


def test_a_holiday_is_refused_with_what_to_change(store: GameStore) -> None:
    pid = create_person(store, "Ann", now=T0)
    with pytest.raises(GameError, match=r"to: 2026-08-03 is before 'from' \(2026-08-21\)"):
        B.record_absence(store, pid, date(2026, 8, 21), date(2026, 8, 3), now=T0)
    with pytest.raises(GameError, match="to: 2026-07-20 has passed"):
        B.record_absence(store, pid, date(2026, 7, 1), date(2026, 7, 20), now=T0)
    with pytest.raises(GameError, match="an absence is at most 366 days"):
        B.record_absence(store, pid, date(2026, 8, 1), date(2027, 8, 20), now=T0)
    with pytest.raises(GameError, match="reason: at most 200 characters"):
        B.record_absence(store, pid, date(2026, 8, 3), date(2026, 8, 5), now=T0, reason="x" * 201)
    eve = create_person(store, "Eve", now=T0)
    mine = B.record_absence(store, pid, date(2026, 8, 3), date(2026, 8, 21), now=T0, reason="wedding")
    with pytest.raises(GameError, match=f"you have no absence #{mine}"):
        B.remove_absence(store, eve, mine, now=T0)
    assert [(say(a.text, "en"), a.reason) for a in B.absences_of(store, pid)] == [("away 3\u201321 Aug", "wedding")]


def test_the_game_shows_the_days_away_never_the_reason(store: GameStore) -> None:
    pid = _game(store, "g")
    B.record_absence(store, pid, date(2026, 8, 3), date(2026, 8, 21), now=T0, reason="wedding in Brest")
    got = B.game_absences(store, "g", date(2026, 8, 1))
    assert [(a.power, say(a.text, "en"), a.now) for a in got] == [("Austria", "away 3\u201321 Aug", False)]
    assert say(got[0].text, "de") == "abwesend 3.\u201321. Aug."
    assert "wedding" not in repr(got)
    assert B.game_absences(store, "g", date(2026, 8, 22)) == []  # over


def test_an_absent_player_gets_an_extension_from_their_budget_once(store: GameStore) -> None:
    pid = _game(store, "g")
    B.set_absence_policy(store, "g", "extend", budget_days=4, now=T0)
    B.record_absence(store, pid, date(2026, 8, 2), date(2026, 8, 4), now=T0)
    at = T0 + timedelta(days=2, minutes=1)  # just past Spring's deadline, 3 Aug 12:00
    assert process_due(store, now=at) == []  # extended, not processed
    assert _deadline(store, "g") == datetime(2026, 8, 5, 12, 0, tzinfo=UTC)  # the day Ann is back
    uses = B.absence_uses(store, "g")
    assert [(u.power, u.policy, u.days) for u in uses] == [("Austria", "extend", 2.0)]
    assert process_due(store, now=at) == [] and len(B.absence_uses(store, "g")) == 1  # once
    # Back on the 5th: the phase is processed at its new deadline.
    done = process_due(store, now=datetime(2026, 8, 5, 12, 1, tzinfo=UTC))
    assert [p.phase for p in done] == ["Spring 1901 Movement"]
    # Away again at Fall's deadline (7 Aug): two days are left of the four.
    B.record_absence(store, pid, date(2026, 8, 7), date(2026, 8, 20), now=T0 + timedelta(days=4))
    assert process_due(store, now=datetime(2026, 8, 7, 12, 2, tzinfo=UTC)) == []
    assert _deadline(store, "g") == datetime(2026, 8, 9, 12, 1, tzinfo=UTC)  # Fall opened at 12:01 on the 5th
    last = B.absence_uses(store, "g")[-1]
    assert last.days == 2.0 and "budget runs out" in last.detail["note"]
    # The budget is spent: the next deadline stands.
    assert [p.phase for p in process_due(store, now=datetime(2026, 8, 9, 13, 0, tzinfo=UTC))] == ["Fall 1901 Movement"]


def test_a_player_who_sent_orders_keeps_them_and_gets_no_extension(store: GameStore) -> None:
    pid = _game(store, "g")
    B.set_absence_policy(store, "g", "extend", budget_days=10, now=T0)
    B.record_absence(store, pid, date(2026, 8, 2), date(2026, 8, 10), now=T0)
    store_submissions.submit(store, "g", "Austria", "A vie - gal", now=T0)
    done = process_due(store, now=T0 + timedelta(days=2, minutes=1))
    assert [p.phase for p in done] == ["Spring 1901 Movement"]
    assert B.absence_uses(store, "g") == []
    assert store_history.phase_record(store, "g", "S1901M")["orders"]["Austria"] == ["A vie - gal"]


def test_standing_orders_carry_what_still_fits_and_the_rest_holds(store: GameStore) -> None:
    pid = _game(store, "g")
    B.set_absence_policy(store, "g", "standing", now=T0)
    store_submissions.submit(store, "g", "Austria", "A vie H\nA bud - ser\nF tri - alb", now=T0)
    assert [p.phase for p in process_due(store, now=T0 + timedelta(days=2, minutes=1))] == ["Spring 1901 Movement"]
    B.record_absence(store, pid, date(2026, 8, 4), date(2026, 8, 6), now=T0)
    done = process_due(store, now=datetime(2026, 8, 5, 12, 2, tzinfo=UTC))
    assert [p.phase for p in done] == ["Fall 1901 Movement"]
    assert store_history.phase_record(store, "g", "F1901M")["orders"]["Austria"] == ["A vie H"]
    (use,) = B.absence_uses(store, "g")
    assert use.policy == "standing" and use.detail["carried"] == ["A vie H"]
    assert len(use.detail["dropped"]) == 2


def test_with_no_policy_an_absent_player_misses_the_phase(store: GameStore) -> None:
    pid = _game(store, "g")
    B.record_absence(store, pid, date(2026, 8, 2), date(2026, 8, 10), now=T0)
    assert [p.phase for p in process_due(store, now=T0 + timedelta(days=2, minutes=1))] == ["Spring 1901 Movement"]
    assert B.absence_uses(store, "g") == []


def test_a_stand_in_holds_the_seat_only_while_its_player_is_away(store: GameStore) -> None:
    pid = _game(store, "g")
    bo = create_person(store, "Bo", now=T0, email="bo@example.org")
    with pytest.raises(GameError, match="stand_in: name the person who stands in"):
        B.set_absence_policy(store, "g", "stand_in", now=T0)
    with pytest.raises(GameError, match="absence_policy: 'deputy' is not a choice; choose one of none, extend"):
        B.set_absence_policy(store, "g", "deputy", now=T0)
    pol = B.set_absence_policy(store, "g", "stand_in", stand_in_person_id=bo, now=T0)
    assert pol.stand_in_name == "Bo" and not pol.proxy_orders
    B.record_absence(store, pid, date(2026, 8, 3), date(2026, 8, 5), now=T0)
    assert B.stand_in_seats(store, bo, date(2026, 8, 2)) == []
    assert B.stand_in_seats(store, bo, date(2026, 8, 4)) == [("g", "Austria")]
    assert B.stand_in_seats(store, bo, date(2026, 8, 6)) == []


def test_a_persons_absences_are_in_their_data_and_gone_when_they_delete_it(store: GameStore) -> None:
    pid = _game(store, "g")
    B.set_absence_policy(store, "g", "extend", now=T0)
    B.record_absence(store, pid, date(2026, 8, 2), date(2026, 8, 4), now=T0, reason="wedding")
    process_due(store, now=T0 + timedelta(days=2, minutes=1))
    assert B.export_person(store, pid)["absences"][0]["reason"] == "wedding"
    B.forget_person(store, pid, now=T0)
    assert B.absences_of(store, pid) == [] and B.export_person(store, pid) == {"absences": [], "proxy_allies": {}}
    assert [u.power for u in B.absence_uses(store, "g")] == ["Austria"]  # the game's history stays


def test_in_w3k_an_absent_players_units_go_to_the_ally_they_named_by_proxy_orders(store: GameStore) -> None:
    store_games.create_game(store, "w", "w3k", now=T0, settings=GameSettings(deadlines=DEADLINES))
    ann = create_person(store, "Ann", now=T0)
    store_games.assign(store, "w", "Crown", "Ann", now=T0)
    seat_person(store, "w", "Crown", ann, now=T0)
    store_games.assign(store, "w", "Cumberland", "Bo", now=T0)
    B.set_absence_policy(store, "w", "proxy", now=T0)
    with pytest.raises(GameError, match=r"ally: Crown is your own power; name another \(Cumberland, "):
        B.set_proxy_ally(store, ann, "w", "crown", now=T0)
    assert B.set_proxy_ally(store, ann, "w", "cumberland", now=T0) == "Cumberland"
    B.record_absence(store, ann, date(2026, 8, 2), date(2026, 8, 5), now=T0)
    # The ally orders Crown's fleet in Bristol with their own orders, as the rulebook's proxies do.
    store_submissions.submit(store, "w", "Cumberland", "F bri - som", now=T0)
    done = process_due(store, now=T0 + timedelta(days=2, minutes=1))
    assert [p.phase for p in done] == ["Summer 1642 Movement"]
    rec = store_history.phase_record(store, "w", "Summer 1642 Movement")
    assert "F bri under orders of Cumberland" in rec["orders"]["Crown"]
    moved = [r for r in rec["results"] if r["order"] == "F bri - som"]
    assert moved and moved[0]["result"] == "succeeds"
    (use,) = B.absence_uses(store, "w")
    assert use.policy == "proxy" and use.detail["ally"] == "Cumberland"
    assert B.export_person(store, ann)["proxy_allies"] == {"w": "Cumberland"}
    B.forget_person(store, ann, now=T0)
    assert B.proxy_allies(store, ann) == {}


def test_proxy_orders_are_offered_only_where_the_variants_rules_have_them(store: GameStore) -> None:
    pid = _game(store, "g")
    with pytest.raises(GameError, match="absence_policy: standard's rules have no proxy orders; choose extend"):
        B.set_absence_policy(store, "g", "proxy", now=T0)
    with pytest.raises(GameError, match="ally: standard's rules have no proxy orders"):
        B.set_proxy_ally(store, pid, "g", "France", now=T0)
    store_games.create_game(store, "w", "w3k", now=T0, settings=GameSettings(deadlines=DEADLINES))
    with pytest.raises(GameError, match="you play no seat in w"):
        B.set_proxy_ally(store, pid, "w", "Cumberland", now=T0)
