"""Games bots alone play cost what the installation allows (issue 52): the desk's and the API's "process now"
goes one phase a request at the installation's pace (``DIPPOUCH_BOT_PACE``) and is charged to the asker's work
budget before it runs, and so is seating a bot; such a game nobody looks at is paused; a practice game (a
person against bots) is no game of bots alone and stays quick.

Before: "process now" ran 20 phases a request with no limit, the worker played such a game from 1901 to 2053 in
35 s, and nothing stopped one nobody watched."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dippouch import settings
from dippouch.bots.practice import UNWATCHED, stop_unwatched_bot_games, watch_due
from dippouch.bots.seats import bot_pace, bots_alone, play_seats, seat_bot
from dippouch.catalog import load_variant
from dippouch.core.errors import DippouchError
from dippouch.game import GameSettings
from dippouch.play.orders import send_orders
from dippouch.play.processing import TooSoon, process_now
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.bots import games_of_bots_alone, note_watched
from dippouch.worker.service import process_due
from websupport import ACCEPT, Site

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
POWERS = load_variant("hundred3").power_names


def _bots_game(store: GameStore, name: str = "robots", *, person: str | None = None) -> str:
    """A game of three powers, each a random bot's (``person``: the first power is this player's instead)."""
    store_games.create_game(store, name, "hundred3", now=T0, settings=GameSettings(deadlines={"movement": "2d"}))
    for i, power in enumerate(POWERS):
        if i == 0 and person is not None:
            store_games.assign(store, name, power, person, now=T0)
        else:
            seat_bot(store, name, power, "random", now=T0)
    play_seats(store, now=T0, games=[name])  # as a practice game's start does: its bots order at once
    return name


def _site_game(site: Site, name: str = "robots") -> None:
    """The coordinator's new game, every power seated with a bot through the JSON API."""
    site.new_game(name, "hundred3")
    for power in POWERS:
        r = site.api(site.coordinator, f"/api/games/{name}/bots", {"power": power, "level": "random"})
        assert r.status_code == 200, r.text


def test_process_now_of_a_game_bots_alone_play_goes_one_phase_a_request_at_the_pace(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    _site_game(site)
    first = store_status.status(site.web.store, "robots", now=site.clock()).phase
    # The phase opened a moment ago: its bots order it only a minute after, and "process now" waits as long.
    r = site.api(site.coordinator, "/api/games/robots/actions", {"action": "process"})
    assert r.status_code == 429, r.text
    assert r.headers["retry-after"] == "60"
    assert r.json()["error"] == (
        "bots alone play robots, and this site plays such a game at most one phase every 60 s: process it again in 60 s"
    )
    assert store_status.status(site.web.store, "robots", now=site.clock()).phase == first  # nothing was processed
    site.clock.advance(seconds=45)
    r = site.api(site.coordinator, "/api/games/robots/actions", {"action": "process"})
    assert r.status_code == 429 and r.headers["retry-after"] == "15"
    site.clock.advance(seconds=15)
    r = site.api(site.coordinator, "/api/games/robots/actions", {"action": "process"})
    assert r.status_code == 200, r.text
    assert r.json()["message"] == f"Processed {first}."  # one phase, not twenty
    second = store_status.status(site.web.store, "robots", now=site.clock()).phase
    assert second != first
    # The desk's form, read in German: the same refusal, in the reader's words, with the time to wait.
    r = site.post_form(
        site.coordinator,
        "/games/robots/coordinate/process",
        {"confirm": "yes"},
        headers={"Accept-Language": ACCEPT["de"]},
    )
    assert r.status_code == 429 and r.headers["retry-after"] == "60"
    assert (
        "In robots spielen nur Bots, und diese Seite spielt eine solche Partie mit höchstens einer Phase alle 60 s: "
        "werten Sie sie in 60 s erneut aus"
    ) in r.text.replace("&#39;", "'")
    site.clock.advance(minutes=1)
    r = site.post_form(site.coordinator, "/games/robots/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303, r.text
    assert store_status.status(site.web.store, "robots", now=site.clock()).phase not in (first, second)


def test_process_now_and_a_bot_seated_are_charged_to_the_work_budget_before_they_run(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    _site_game(site)
    site.clock.advance(minutes=5)
    phase = store_status.status(site.web.store, "robots", now=site.clock()).phase
    # A share of nothing (the budget's own class, wherever it lives): every expensive request waits.
    site.app.state.budget = type(site.app.state.budget)(0.0, 60.0)
    r = site.api(site.coordinator, "/api/games/robots/actions", {"action": "process"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1, r.text
    r = site.post_form(site.coordinator, "/games/robots/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 429, r.text
    assert store_status.status(site.web.store, "robots", now=site.clock()).phase == phase  # the work never ran
    site.new_game("other", "hundred3")
    r = site.api(site.coordinator, "/api/games/other/bots", {"power": POWERS[0], "level": "search"})
    assert r.status_code == 429, r.text
    r = site.post_form(site.coordinator, "/games/other/coordinate/seat-bot", {"power": POWERS[0], "level": "search"})
    assert r.status_code == 429, r.text
    assert all(current is None for _, current, _ in store_games.players(site.web.store, "other"))  # no bot was seated
    # Other actions of the desk cost nothing and are not charged.
    r = site.api(site.coordinator, "/api/games/robots/actions", {"action": "pause"})
    assert r.status_code == 200, r.text


def test_a_game_bots_alone_play_that_nobody_looks_at_is_paused(store: GameStore) -> None:
    robots = _bots_game(store)
    people = _bots_game(store, "people", person="Ann")
    assert [g.name for g in games_of_bots_alone(store)] == [robots]  # a person's seat: never paused for this
    assert stop_unwatched_bot_games(store, now=T0 + UNWATCHED - timedelta(minutes=1)) == []
    # A signed-in person looked at it 50 minutes in: it goes on an hour from then.
    assert watch_due(store, robots, now=T0 + timedelta(minutes=50))
    note_watched(store, robots, now=T0 + timedelta(minutes=50))
    assert not watch_due(store, robots, now=T0 + timedelta(minutes=55))  # a look written at most every 10 min
    assert stop_unwatched_bot_games(store, now=T0 + timedelta(minutes=61)) == []
    later = T0 + timedelta(minutes=111)
    assert [p.game for p in process_due(store, now=later)] == []  # the worker's look pauses it first
    st = store_status.status(store, robots, now=later)
    assert st.state == "paused"
    assert store_status.status(store, people, now=later).state == "active"
    # Its coordinator resumes it: that is a look, and it plays on for another hour.
    store_deadlines.resume(store, robots, now=later + timedelta(days=1))
    assert stop_unwatched_bot_games(store, now=later + timedelta(days=1, minutes=59)) == []
    assert stop_unwatched_bot_games(store, now=later + timedelta(days=1, minutes=61)) == [robots]


def test_a_signed_in_look_at_the_game_page_is_noted_and_an_anonymous_one_is_not(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    _site_game(site)
    made = games_of_bots_alone(site.web.store, "robots")[0].looked
    site.clock.advance(minutes=30)
    assert site.browser().get("/games/robots").status_code == 200
    assert games_of_bots_alone(site.web.store, "robots")[0].looked == made
    assert site.coordinator.get("/games/robots").status_code == 200
    assert games_of_bots_alone(site.web.store, "robots")[0].looked == site.clock()
    site.clock.advance(minutes=30)
    assert site.coordinator.get("/games/robots/coordinate").status_code == 200
    assert games_of_bots_alone(site.web.store, "robots")[0].looked == site.clock()


def test_a_practice_game_is_no_game_of_bots_alone_and_its_bots_answer_the_persons_ready_at_once(
    store: GameStore,
) -> None:
    game = _bots_game(store, "practice", person="you (practice)")
    opened = store_status.status(store, game, now=T0).phase
    send_orders(store, game, POWERS[0], "", source="web", now=T0, ready=True, replace_with_nothing=True)
    st = store_status.status(store, game, now=T0)
    assert not bots_alone(st.powers) and st.phase != opened  # processed at once, at the person's word
    assert all(ps.version is not None for ps in st.powers if ps.power != POWERS[0] and ps.must_act)


def test_the_pace_is_the_installations_setting(monkeypatch: pytest.MonkeyPatch, store: GameStore) -> None:
    assert bot_pace() == timedelta(minutes=1)
    for raw, seconds in (("5", 5), ("90s", 90), ("2m", 120), ("1h", 3600), ("7d", 7 * 86400)):
        monkeypatch.setenv("DIPPOUCH_BOT_PACE", raw)
        settings.reread()
        assert bot_pace() == timedelta(seconds=seconds)
    for raw in ("0.5", "8d", "fast", "nan", "-1m"):
        monkeypatch.setenv("DIPPOUCH_BOT_PACE", raw)
        settings.reread()
        with pytest.raises(DippouchError, match=re.escape(f"DIPPOUCH_BOT_PACE={raw!r} is not a time from 1 second")):
            bot_pace()
    monkeypatch.setenv("DIPPOUCH_BOT_PACE", "5s")
    settings.reread()
    game = _bots_game(store)
    with pytest.raises(TooSoon) as early:
        process_now(store, game, now=T0 + timedelta(seconds=3), force=True)
    assert early.value.retry_after == 2
    assert len(process_now(store, game, now=T0 + timedelta(seconds=5), force=True).phases) == 1
    # The worker plays it a phase every 5 s, never sooner.
    done = [p.phase for t in range(5, 31) for p in process_due(store, now=T0 + timedelta(seconds=5 + t))]
    assert 4 <= len(done) <= math.ceil(26 / 5), done


def test_an_outsider_is_refused_before_anything_about_the_game_is_read_or_charged(tmp_path: Path) -> None:
    """The estimate reads the game's bots: only once the asker is known to coordinate it, so a refusal names no
    game (an unknown game's refusal once listed every game there is, private ones among them)."""
    site = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    _site_game(site, "secret")
    site.web.access.set_visibility("secret", "private")
    site.new_game("open", "hundred3")
    outsider = site.player("open", POWERS[0])
    for game in ("secret", "nosuch"):
        for url, body in (
            (f"/api/games/{game}/actions", {"action": "process"}),
            (f"/api/games/{game}/bots", {"power": POWERS[0], "level": "hold"}),
        ):
            r = site.api(outsider, url, body)
            assert (r.status_code, r.json()["error"]) == (404, f"no game '{game}' here"), (url, r.text)
        for url, form in (
            (f"/games/{game}/coordinate/process", {"confirm": "yes"}),
            (f"/games/{game}/coordinate/seat-bot", {"power": POWERS[0], "level": "hold"}),
        ):
            r = site.post_form(outsider, url, form)
            assert r.status_code == 404 and "Games:" not in r.text, (url, r.text)
    assert all(current == "bot:random" for _, current, _ in store_games.players(site.web.store, "secret"))
