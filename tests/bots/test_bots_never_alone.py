"""Bots never play a game out alone: when the bot policy would take over the last seat a person plays, the game
pauses instead, with the reason in its record, and the coordinator's desk says so beforehand (issue 40: with the
other seats bots, the policy handed the last human's seat to a bot and the game ran 1430 -> 1470 at once)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dippouch.bots.seats import LAST_PERSON, play_seats, seat_bot, set_disorder_bot
from dippouch.game import GameSettings
from dippouch.play.progress import go_on
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.worker.service import process_due
from websupport import Site

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
BOTS = ("Austria", "France", "Germany", "Italy", "Russia", "Turkey")


def _game(url: str, people: tuple[str, ...]) -> GameStore:
    store = GameStore(url)
    store_games.create_game(store, "g", "standard", settings=GameSettings(missed_limit=1), now=T0)
    for power in ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"):
        if power in people:
            store_games.assign(store, "g", power, f"person-{power}", now=T0)
        else:
            seat_bot(store, "g", power, "hold", now=T0)
    set_disorder_bot(store, "g", "hold", now=T0)
    return store


def test_the_last_persons_seat_is_not_handed_to_a_bot_the_game_pauses(db_url: str) -> None:
    store = _game(db_url, people=("England",))
    play_seats(store, now=T0)
    now = T0 + timedelta(days=13)
    assert [p.phase for p in process_due(store, now=now)] == ["Spring 1901 Movement"]  # England sent nothing
    england = next(p for p in store_status.status(store, "g", now=now).powers if p.power == "England")
    assert england.civil_disorder
    for _ in range(3):  # the worker looks again and again: nothing more happens
        process_due(store, now=now + timedelta(minutes=1))
    st = store_status.status(store, "g", now=now)
    assert st.state == "paused" and st.phase == "Fall 1901 Movement"
    england = next(p for p in st.powers if p.power == "England")
    assert england.player == "person-England"
    with store.engine.connect() as conn:
        details = [
            json.loads(d) if isinstance(d, str) else d
            for (d,) in conn.exec_driver_sql("select detail from events where kind = 'pause' order by id")
        ]
    assert details and details[-1]["why"] == LAST_PERSON.format(power="England")
    assert go_on(store, "g", now=now) == []


def test_with_another_person_in_the_game_the_bot_takes_the_seat_as_before(db_url: str) -> None:
    store = _game(db_url, people=("England", "France"))
    play_seats(store, now=T0)
    store_submissions.submit(store, "g", "France", "", now=T0, replace_with_nothing=True, ready=True)
    now = T0 + timedelta(days=13)
    process_due(store, now=now)
    process_due(store, now=now + timedelta(minutes=1))
    st = store_status.status(store, "g", now=now)
    assert st.state == "active"
    assert next(p for p in st.powers if p.power == "England").player == "bot:hold"


def test_the_desk_says_so_before_the_policy_would_do_it(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'w.db'}")
    site.new_game("g")
    store = site.web.store
    for power in BOTS:
        seat_bot(store, "g", power, "hold", now=site.clock())
    store_games.assign(store, "g", "England", "Ed", now=site.clock())
    page = site.coordinator.get("/games/g/coordinate")
    assert 'id="bots-alone"' in page.text and "played by a person now" not in page.text
    r = site.post_form(site.coordinator, "/games/g/coordinate/bot-policy", {"level": "heuristic"})
    assert r.status_code == 303, r.text
    page = site.coordinator.get("/games/g/coordinate")
    assert "1 power played by a person now" in page.text
    assert site.coordinator.get("/api/games/g/coordinate").json()["people_seats"] == 1
