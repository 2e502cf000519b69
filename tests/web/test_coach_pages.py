"""The coach on the web (issue 58): a finished standard game of 1901-1910 played by bots and analysed by the coach's
worker task with a small search budget; its turning points read back against the stored analyses (each where a
power's expected centres really changed by the amount it states), and the replay page showing them and the bot's
orders phase by phase, in English, German and French. A running game of people shows nothing of the coach and
refuses a hint; a practice game and a sandbox give one, made of the position's legal orders."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from coachsupport import play_bot_game
from dippouch.catalog import load_variant
from dippouch.core.jsonio import position_from_json
from dippouch.core.legal_orders import all_legal_orders, legal_orders
from dippouch.core.notation import format_order
from dippouch.play import coach as coaching
from dippouch.play.coach import LOST_CHANCE, TURN, CoachTask
from dippouch.store import history as store_history
from dippouch.store.learning.coach import phases_to_analyse
from dippouch.store.learning.models import CoachPhaseRow
from websupport import Site

GAME = "coached"
T = datetime(2026, 3, 2, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The finished bot game, analysed by the worker's task a bounded look at a time; and a game of people still
    being played (two phases processed)."""
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('coach') / 'web.db'}")
    store = s.web.store
    play_bot_game(store, GAME, T)
    task = CoachTask(seconds=0.0, budget=0.01)
    looks = 0
    while task(store, T):
        looks += 1
    assert looks == 20  # one phase a look when the look's time is spent at once: never a backlog in one look
    s.new_game("running")
    for _ in range(2):
        assert s.post_form(s.coordinator, "/games/running/coordinate/process", {"confirm": "yes"}).status_code == 303
    return s


def _coach(site: Site, game: str = GAME, lang: str = "en") -> dict[str, Any]:
    r = site.browser().get(f"/api/games/{game}/coach?lang={lang}")
    assert r.status_code == 200, r.text
    got: dict[str, Any] = r.json()
    return got


def _stored(site: Site) -> list[tuple[str, dict[str, Any]]]:
    """The analyses as the table holds them (read here, not through the coach's modules), in the game's order."""
    from dippouch.store.models import GameRow, PhaseRow

    with site.web.store.session() as s:
        rows = s.execute(
            sa.select(PhaseRow.name, CoachPhaseRow.data)
            .join(CoachPhaseRow, CoachPhaseRow.phase_id == PhaseRow.id)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(GameRow.name == GAME)
            .order_by(PhaseRow.seq)
        ).all()
    return [(str(name), dict(data)) for name, data in rows]


def test_every_movement_phase_of_the_ten_years_is_analysed_with_legal_orders_beside_the_played_ones(site: Site) -> None:
    stored = _stored(site)
    names = [name for name, _ in stored]
    assert names == [f"{season} {year} Movement" for year in range(1901, 1911) for season in ("Spring", "Fall")]
    v = load_variant("standard")
    phases = {h.name: h for h in store_history.history(site.web.store, GAME)}
    for name, data in stored:
        h = phases[name]
        pos = position_from_json(v, h.position)
        legal = all_legal_orders(v, pos)
        assert {p["power"] for p in data["powers"]} == {p for p in v.power_names if legal.get(p)}
        for p in data["powers"]:
            texts = {format_order(v, o) for options in legal[p["power"]].values() for o in options}
            assert set(p["coach"]) <= texts and len(p["coach"]) == len(legal[p["power"]])
            assert sorted(p["played"]) == sorted((h.orders or {}).get(p["power"], []))
            assert 0 <= p["played_expected"] <= 34 and 0 <= p["coach_expected"] <= 34
            if sorted(p["coach"]) == sorted(p["played"]):  # one set of orders, one expectation
                assert p["coach_expected"] == p["played_expected"]
    assert _coach(site)["waiting"] == 0


def test_the_turning_points_are_where_expected_centres_changed_by_the_stated_amount(site: Site) -> None:
    stored = _stored(site)
    order = [name for name, _ in stored]
    by_phase = {name: {p["power"]: p for p in data["powers"]} for name, data in stored}
    got = _coach(site)
    points = got["turning_points"]
    assert points, "ten years of play without a turning point"
    assert len(points) <= coaching.MOST_TURNS
    assert [order.index(t["phase"]) for t in points] == sorted(order.index(t["phase"]) for t in points)
    kinds = {t["kind"] for t in points}
    assert kinds <= {"swing", "stab", "lost"} and len(kinds) >= 2, kinds
    for t in points:
        here = by_phase[t["phase"]][t["power"]]
        assert f"{t['before']:.1f}" in t["text"] and f"{t['after']:.1f}" in t["text"], t
        assert t["change"] == pytest.approx(t["after"] - t["before"], abs=0.011)
        if t["kind"] == "lost":
            assert (t["before"], t["after"]) == (here["played_expected"], here["coach_expected"])
            assert t["after"] - t["before"] >= LOST_CHANCE
            continue
        later = by_phase[order[order.index(t["phase"]) + 1]][t["power"]]
        assert (t["before"], t["after"]) == (here["coach_expected"], later["coach_expected"])
        assert abs(t["after"] - t["before"]) >= TURN
        if t["kind"] == "stab":
            assert t["after"] > t["before"]
            assert t["victim"] in here["attacked"]
            earlier = order[: order.index(t["phase"])]
            assert all(t["victim"] not in by_phase[e].get(t["power"], {}).get("attacked", []) for e in earlier)
    # The biggest changes: none left out is bigger than the smallest kept.
    kept = {(t["phase"], t["power"], t["kind"]) for t in points}
    smallest = min(abs(t["change"]) for t in points)
    for i, name in enumerate(order[:-1]):
        for power, p in by_phase[name].items():
            nxt = by_phase[order[i + 1]].get(power)
            if nxt is None:
                continue
            change = abs(nxt["coach_expected"] - p["coach_expected"])
            if change > smallest + 0.01:
                assert (name, power, "swing") in kept or (name, power, "stab") in kept, (name, power, change)


def _block(html: str, phase_id: int) -> str:
    m = re.search(rf'<div class="coach-phase" data-coach-phase="{phase_id}"( hidden)?>(.*?)</table>', html, re.S)
    assert m, f"no coach block for phase {phase_id}"
    assert m.group(1) is None, "the phase shown has its coach block hidden"
    return m.group(2)


def test_the_replay_page_shows_the_turning_points_and_the_bot_s_orders_for_the_phase_shown(site: Site) -> None:
    got = _coach(site)
    c = site.browser()
    first = c.get(f"/games/{GAME}/replay").text
    assert "The coach" in first and "Turning points" in first
    words = unescape(first)
    for t in got["turning_points"]:
        assert t["text"] in words
        assert f'href="?at={t["frame"]}"' in first
    for t in got["turning_points"][:3]:
        page = c.get(f"/games/{GAME}/replay?at={t['frame']}").text
        assert f"{t['phase']}: the coach would have played" in page
        block = unescape(_block(page, t["phase_id"]))
        (phase,) = [p for p in got["phases"] if p["phase_id"] == t["phase_id"]]
        for p in phase["powers"]:
            assert p["power"] in block
            for order in p["coach"]:
                assert order in block
            assert f"{p['coach_expected']:.1f}" in block and f"{p['played_expected']:.1f}" in block
        assert len(re.findall(r'data-coach-phase="\d+"(?! hidden)', page)) == 1  # only the phase shown


@pytest.mark.parametrize(("lang", "word"), [("de", "Wendepunkte"), ("fr", "Tournants")])
def test_the_coach_speaks_german_and_french(site: Site, lang: str, word: str) -> None:
    page = site.browser().get(f"/games/{GAME}/replay", headers={"Accept-Language": lang}).text
    assert word in page
    english = {t["text"] for t in _coach(site)["turning_points"]}
    said = _coach(site, lang=lang)["turning_points"]
    assert all(t["text"] not in english for t in said)
    assert all(t["text"] in unescape(page) for t in said)


def test_a_running_game_of_people_shows_nothing_of_the_coach_and_refuses_a_hint(site: Site) -> None:
    got = _coach(site, "running")
    assert (got["shown"], got["phases"], got["turning_points"]) == (False, [], [])
    page = site.browser().get("/games/running/replay").text
    assert "shown once the game is over" in page and "data-coach-phase" not in page
    assert not [t for t in phases_to_analyse(site.web.store, limit=100) if t.game == "running"]
    france = site.player("running", "France", "Fran")
    r = france.get("/api/games/running/powers/France/hint")
    assert r.status_code == 403, r.text
    assert "never in a game of people" in r.json()["error"]
    assert "data-hint" not in france.get("/games/running/play/France").text
    r = france.get("/api/games/running/powers/France/hint?lang=de")
    assert r.status_code == 403 and "never in a game of people" not in r.json()["error"]


def test_a_practice_game_and_a_sandbox_give_a_hint_of_legal_orders(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(coaching, "HINT_BUDGET", 0.05)
    visitor = site.browser()
    form = {"variant": "standard", "power": "France", "level": "heuristic", "pace": "10m"}
    r = site.post_form(visitor, "/practice", form)
    assert r.status_code == 303, r.text
    game = r.headers["location"].split("/")[2]
    assert "data-hint" in visitor.get(f"/games/{game}/play/France").text
    r = visitor.get(f"/api/games/{game}/powers/France/hint")
    assert r.status_code == 200, r.text
    v = load_variant("standard")
    (current,) = [h for h in store_history.history(site.web.store, game) if h.status == "open"]
    legal = legal_orders(v, position_from_json(v, current.position), "France")
    texts = {format_order(v, o) for options in legal.values() for o in options}
    hint = r.json()
    assert hint["power"] == "France" and len(hint["orders"]) == len(legal) and set(hint["orders"]) <= texts
    # Someone else's seat is not theirs to be hinted.
    assert site.browser().get(f"/api/games/{game}/powers/France/hint").status_code in (401, 403)

    r = site.api(site.browser(), "/api/sandbox", {"variant": "standard"})
    assert r.status_code in (200, 201), r.text
    share = r.json()["share"]
    got = site.browser().get(f"/api{share}/hint?power=germany")
    assert got.status_code == 200, got.text
    legal = legal_orders(v, v.start, "Germany")
    texts = {format_order(v, o) for options in legal.values() for o in options}
    assert got.json()["power"] == "Germany" and set(got.json()["orders"]) <= texts and len(got.json()["orders"]) == 3
    refused = site.browser().get(f"/api{share}/hint?power=Narnia")
    assert refused.status_code == 400 and "Narnia" in refused.json()["error"]
    assert "data-hint" in site.browser().get(share).text


def test_the_analyses_are_kept_by_phase_and_not_made_twice(site: Site, tmp_path: Path) -> None:
    before = _stored(site)
    assert CoachTask(seconds=10.0, budget=0.02)(site.web.store, T) == 0
    assert _stored(site) == before
