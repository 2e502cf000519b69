"""Bots in the seats of stored games: seated by the coordinator, taking over civil disorder, handed back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.bots
import dippouch.cli.game  # noqa: F401  (register the commands)
from dippouch.bots.seats import bot_seats, play_seats, process_with_bots, seat_bot, set_disorder_bot
from dippouch.catalog import load_variant
from dippouch.cli import app
from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.bots import games_with_bots
from dippouch.worker.service import process_due

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _game(url: str, name: str = "g", variant: str = "standard", missed_limit: int = 1) -> GameStore:
    store = GameStore(url)
    store_games.create_game(store, name, variant, settings=GameSettings(missed_limit=missed_limit), now=T0)
    return store


def _sources(store: GameStore, game: str, phase: str) -> dict[str, list[tuple[int, str, bool]]]:
    rec = store_history.phase_record(store, game, phase, open_ok=True)
    out: dict[str, list[tuple[int, str, bool]]] = {}
    for sub in rec["submissions"]:
        out.setdefault(sub["power"], []).append((sub["version"], sub["source"], sub["ready"]))
    return out


def test_a_seated_bot_submits_like_a_player_as_soon_as_the_phase_opens(db_url: str) -> None:
    store = _game(db_url)
    seat_bot(store, "g", "France", "heuristic", now=T0)
    moves = play_seats(store, now=T0 + timedelta(minutes=1))
    assert [(m.power, m.level, m.version) for m in moves] == [("France", "heuristic", 1)]
    assert _sources(store, "g", "Spring 1901 Movement") == {"France": [(1, "bot", True)]}
    st = store_status.status(store, "g", now=T0 + timedelta(minutes=2))
    france = next(p for p in st.powers if p.power == "France")
    assert france.player == "bot:heuristic" and france.accepted == 3 and france.rejected == 0
    # Asked again in the same phase, the bot has nothing more to send: one version, never replaced.
    assert play_seats(store, now=T0 + timedelta(minutes=3)) == []
    assert bot_seats(store, "g") == {"France": "heuristic"}


def test_a_power_in_civil_disorder_is_played_by_a_bot_until_a_person_takes_the_seat(db_url: str) -> None:
    store = _game(db_url, missed_limit=1)
    for power in ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"):
        store_games.assign(store, "g", power, f"player-{power}", now=T0)
    set_disorder_bot(store, "g", "heuristic", now=T0)
    assert games_with_bots(store) == ["g"]
    now = T0
    # Everyone but England sends orders; England misses Spring 1901 and falls into civil disorder.
    for power in ("Austria", "France", "Germany", "Italy", "Russia", "Turkey"):
        store_submissions.submit(store, "g", power, "", now=now, replace_with_nothing=True, ready=True)
    now += timedelta(days=13)
    assert store_processing.process(store, "g", now=now) == ["Spring 1901 Movement"]  # processed without the bots' turn
    st = store_status.status(store, "g", now=now)
    england = next(p for p in st.powers if p.power == "England")
    assert england.civil_disorder and england.player == "player-England"
    moves = play_seats(store, now=now)
    assert [(m.power, m.took_seat) for m in moves] == [("England", True)]
    st = store_status.status(store, "g", now=now)
    england = next(p for p in st.powers if p.power == "England")
    assert england.player == "bot:heuristic" and england.version == 1 and england.ready
    assert _sources(store, "g", st.phase or "")["England"] == [(1, "bot", True)]
    history = dict((p, h) for p, _, h in store_games.players(store, "g"))["England"]
    assert [name for name, _, _ in history] == ["player-England", "bot:heuristic"]

    # A person takes the seat back: the bot sends nothing more for England.
    store_games.assign(store, "g", "England", "Alice", now=now, replace=True)
    for power in ("Austria", "France", "Germany", "Italy", "Russia", "Turkey"):
        store_submissions.submit(store, "g", power, "", now=now, replace_with_nothing=True, ready=True)
    now += timedelta(days=13)
    process_with_bots(store, "g", now=now)
    st = store_status.status(store, "g", now=now)
    england = next(p for p in st.powers if p.power == "England")
    assert england.player == "Alice" and england.version is None
    assert play_seats(store, now=now) == []
    assert "England" not in bot_seats(store, "g")


def test_a_game_of_bots_alone_is_played_by_the_worker_at_the_installations_pace(db_url: str) -> None:
    """Its phases last days, but nobody waits for them: the worker plays it a phase a minute (the default
    ``DIPPOUCH_BOT_PACE``), not as fast as its bots think (a game of 1901 to 2053 in 35 s before)."""
    store = _game(db_url, variant="hundred3")
    for power in load_variant("hundred3").power_names:
        seat_bot(store, "g", power, "random", now=T0)
    # Half a minute after the phase opened the bots have not ordered yet, however often the worker looks.
    for _ in range(3):
        assert process_due(store, now=T0 + timedelta(seconds=30)) == []
    first = store_status.status(store, "g", now=T0).phase or ""
    assert _sources(store, "g", first) == {}
    played: list[str] = []
    for minute in range(1, 5):
        now = T0 + timedelta(minutes=minute)
        for _ in range(3):  # looks at the same moment process no more
            played += [p.phase for p in process_due(store, now=now)]
        assert len(played) == minute, (minute, played)  # one phase the bots ordered each minute
    rec = store_history.phase_record(store, "g", played[0])
    assert {s["source"] for s in rec["submissions"]} == {"bot"}
    assert store_status.status(store, "g", now=T0 + timedelta(minutes=4)).state == "active"


def test_seat_bot_and_bot_policy_commands(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/cli.db"
    runner = CliRunner()
    r = runner.invoke(app, ["new", "c", "--variant", "standard", "--db", db, "--now", T0.isoformat()])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["seat-bot", "c", "Italy", "search", "--db", db, "--now", T0.isoformat()])
    assert r.exit_code == 0, r.output
    assert "Bot (strong) now plays Italy in c; it sent version 1 for Spring 1901 Movement." in r.output
    r = runner.invoke(app, ["players", "list", "c", "--db", db])
    assert "bot:search" in r.output
    r = runner.invoke(app, ["seat-bot", "c", "Italy", "clever", "--db", db])
    assert r.exit_code == 2
    assert "unknown bot level 'clever'; the levels are hold, random, heuristic, search" in r.output
    r = runner.invoke(app, ["bot-policy", "c", "random", "--db", db])
    assert r.exit_code == 0 and "handed to a random bot" in r.output
    r = runner.invoke(app, ["bot-policy", "nosuch", "random", "--db", db])
    assert r.exit_code == 2 and "no game 'nosuch'; games: c" in r.output
    r = runner.invoke(app, ["bot-policy", "c", "off", "--db", db])
    assert r.exit_code == 0 and "no longer handed to a bot" in r.output


def test_an_unknown_level_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    store = _game(f"sqlite:///{tmp_path}/x.db")
    with pytest.raises(GameError, match="unknown bot level 'smart'"):
        seat_bot(store, "g", "France", "smart", now=T0)
    with pytest.raises(GameError, match="unknown bot level 'smart'"):
        set_disorder_bot(store, "g", "smart", now=T0)
    assert bot_seats(store, "g") == {}
    assert games_with_bots(store) == []


def test_the_coordinator_seats_a_bot_and_sets_the_policy_through_the_json_api(tmp_path: Path) -> None:
    from websupport import Site

    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("w")
    r = site.api(site.coordinator, "/api/games/w/bots", {"power": "turkey", "level": "heuristic"})
    assert r.status_code == 200, r.text
    assert r.json() == {"power": "Turkey", "player": "bot:heuristic", "version": 1}
    r = site.api(site.coordinator, "/api/games/w/bots", {"power": "Turkey", "level": "genius"})
    assert r.status_code == 400 and "unknown bot level 'genius'; the levels are" in r.text
    r = site.api(site.coordinator, "/api/games/w/bots", {"power": "Prussia", "level": "random"})
    assert r.status_code == 400 and "Prussia" in r.text
    r = site.api(site.coordinator, "/api/games/w/bot-policy", {"level": "random"})
    assert r.status_code == 200 and "handed to a random bot" in r.json()["message"]
    # A player's link is not a coordinator's: refused.
    france = site.player("w", "France")
    r = site.api(france, "/api/games/w/bots", {"power": "France", "level": "random"})
    assert r.status_code in (401, 403)
    page = site.coordinator.get("/games/w").text
    # Shown as a bot, in words, not by the program's name for the seat.
    assert '<span class="bot" data-player="bot:heuristic">a bot: standard</span>' in page


def test_the_coordinators_desk_seats_a_bot_and_sets_the_policy(tmp_path: Path) -> None:
    from websupport import Site

    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("d")
    page = site.coordinator.get("/games/d/coordinate").text
    assert 'action="/games/d/coordinate/seat-bot"' in page and 'action="/games/d/coordinate/bot-policy"' in page
    r = site.post_form(site.coordinator, "/games/d/coordinate/seat-bot", {"power": "Russia", "level": "random"})
    assert r.status_code == 303, r.text
    r = site.post_form(site.coordinator, "/games/d/coordinate/bot-policy", {"level": "search"})
    assert r.status_code == 303, r.text
    page = site.coordinator.get("/games/d/coordinate").text
    assert '<span class="bot" data-player="bot:random">a bot: random</span>' in page
    assert ">bot:random<" not in page
    assert '<option value="search" selected>a bot: strong</option>' in page
    # The levels in the reader's words, on the desk and on the home page's practice form; the names are sent.
    german = site.coordinator.get("/games/d/coordinate", headers={"Accept-Language": "de"}).text
    assert '<option value="heuristic" selected>normal</option>' in german
    assert ">ein Bot: zufällig</span>" in german and ">bot:random<" not in german
    assert '<option value="search" selected>ein Bot: stark</option>' in german
    home = site.browser().get("/", headers={"Accept-Language": "fr"}).text
    assert '<option value="random">aléatoire</option>' in home, home
    r = site.post_form(site.coordinator, "/games/d/coordinate/seat-bot", {"power": "Russia", "level": "wizard"})
    assert r.status_code == 400 and "unknown bot level &#39;wizard&#39;" in r.text
