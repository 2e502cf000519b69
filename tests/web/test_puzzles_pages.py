"""The puzzles' pages (``/puzzles``, ``/puzzles/{id}``, ``/puzzles/daily``): the list of the stored puzzles, a
puzzle's board and goal, a right answer said solved, a wrong one answered with the reply that beats it, an
unreadable one refused with the text kept in the box, the daily puzzle the day's pick, German words on a German
request, and ``dippouch puzzles generate`` storing what it finds (once)."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch.cli import app, register_commands
from dippouch.play.puzzles import Puzzle, daily_index
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.learning.puzzles import add_puzzles, puzzles
from websupport import Site

DATA = Path(__file__).parents[1] / "data" / "puzzles"
STORED = json.loads((DATA / "puzzles.json").read_text(encoding="utf-8"))
NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    site = Site(f"sqlite:///{tmp_path_factory.mktemp('puzzles') / 'g.db'}", limits={})
    assert add_puzzles(site.web.store, STORED[:6], now=NOW) == 6
    assert add_puzzles(site.web.store, STORED[:6], now=NOW) == 0  # found again: not stored twice
    return site


def _with_support(site: Site) -> tuple[int, Puzzle]:
    for sp in puzzles(site.web.store):
        p = Puzzle.from_json(sp.data)
        if "support" in p.skills:
            return sp.id, p
    raise AssertionError("no puzzle with a support among the first six")


def test_the_list_names_every_puzzle_with_its_goal(site: Site) -> None:
    r = site.browser().get("/puzzles")
    assert r.status_code == 200, r.text
    assert len(re.findall(r'href="/puzzles/\d+"', r.text)) == 6
    first = Puzzle.from_json(STORED[0])
    assert first.power in r.text and "<td>Take " in html.unescape(r.text)
    easy = sum(1 for d in STORED[:6] if d["difficulty"] == 1)
    r = site.browser().get("/puzzles?difficulty=1")
    assert r.status_code == 200 and len(re.findall(r'href="/puzzles/\d+"', r.text)) == easy
    assert site.browser().get("/puzzles?difficulty=9").status_code == 422


def test_a_puzzle_shows_its_board_goal_and_order_box(site: Site) -> None:
    pid, p = _with_support(site)
    r = site.browser().get(f"/puzzles/{pid}")
    assert r.status_code == 200, r.text
    assert "<svg" in r.text and 'name="orders"' in r.text
    assert f"{p.power} to play" in html.unescape(r.text)
    assert site.browser().get("/puzzles/999999").status_code == 404


def test_the_right_answer_is_solved_and_a_wrong_one_is_beaten_by_a_reply(site: Site) -> None:
    pid, p = _with_support(site)
    c = site.browser()
    r = site.post_form(c, f"/puzzles/{pid}", {"orders": "\n".join(p.answer)})
    assert r.status_code == 200, r.text
    assert "Solved!" in r.text
    move = "\n".join(o for o in p.answer if " S " not in o)
    r = site.post_form(c, f"/puzzles/{pid}", {"orders": move})
    assert r.status_code == 200, r.text
    text = html.unescape(r.text)
    assert "Not yet: this reply beats your orders." in text and "Solved!" not in text
    reply = re.search(r'<ul class="small" id="reply">(.*?)</ul>', r.text, re.S)
    assert reply and "<code>" in reply.group(1)
    assert "fails" in text  # the move's fate against that reply, with its reason
    assert move.splitlines()[0] in text  # what was typed is still in the box


def test_an_unreadable_answer_is_refused_and_kept(site: Site) -> None:
    pid, _ = _with_support(site)
    c = site.browser()
    r = site.post_form(c, f"/puzzles/{pid}", {"orders": "A xyz - qqq"})
    assert r.status_code == 422
    assert 'role="alert"' in r.text and "line 1" in r.text
    assert ">A xyz - qqq</textarea>" in r.text
    r = site.post_form(c, f"/puzzles/{pid}", {"orders": "x" * 3000})
    assert r.status_code == 422 and "longer than" in r.text


def test_the_daily_puzzle_is_the_days_pick(site: Site) -> None:
    r = site.browser().get("/puzzles/daily")
    assert r.status_code == 200, r.text
    stored = puzzles(site.web.store)
    today = stored[daily_index(site.clock().date(), len(stored))]
    assert f'action="/puzzles/{today.id}"' in r.text and "Puzzle of the day" in r.text


def test_with_no_puzzle_yet_the_pages_say_so(tmp_path: Path) -> None:
    empty = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    c = empty.browser()
    for url in ("/puzzles", "/puzzles/daily"):
        r = c.get(url)
        assert r.status_code == 200 and 'id="no-puzzles"' in r.text, url
    assert 'href="/puzzles"' in c.get("/").text


def test_german_words_on_a_german_request(site: Site) -> None:
    pid, _ = _with_support(site)
    c = site.browser()
    r = c.get(f"/puzzles/{pid}", headers={"Accept-Language": "de"})
    assert r.status_code == 200
    assert "Deine Befehle" in html.unescape(r.text)
    r = c.get("/puzzles", headers={"Accept-Language": "fr"})
    assert "Énigmes" in html.unescape(r.text)


def test_the_command_stores_what_it_finds_once(tmp_path: Path) -> None:
    migrated_sqlite(tmp_path / "g.db")
    db = f"sqlite:///{tmp_path / 'g.db'}"
    register_commands()
    args = ["puzzles", "generate", "--corpus", str(DATA / "corpus.jsonl.gz"), "--limit", "2", "--db", db]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2 puzzles found, 2 new" in result.output
    result = CliRunner().invoke(app, args)
    assert "2 puzzles found, 0 new" in result.output
    listed = CliRunner().invoke(app, ["puzzles", "list", "--db", db])
    assert listed.exit_code == 0 and len(listed.output.strip().splitlines()) == 2
    bad = CliRunner().invoke(app, ["puzzles", "generate", "--corpus", str(tmp_path / "none.jsonl"), "--db", db])
    assert bad.exit_code == 2 and "no file" in bad.output


def test_the_finished_public_games_movement_phases_are_read(tmp_path: Path) -> None:
    """What the generator reads of the installation: every movement phase of a public finished game, none of a
    private one's or of a game still running."""
    from datetime import timedelta

    from dippouch.play.puzzles import store_sources
    from dippouch.store.learning.puzzles import finished_positions

    site = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    store = site.web.store
    now = site.clock()
    powers = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
    for name in ("open", "hidden", "running"):
        store_games.create_game(store, name, "standard", now=now)
        for power in powers:
            store_games.assign(store, name, power, f"{name} {power}", now=now)
        store_processing.process(
            store, name, now=now + timedelta(hours=1), force=True
        )  # once: twice would be civil disorder
        if name != "running":
            for power in powers:
                if store_status.status(store, name, now=now + timedelta(hours=3)).state != "finished":
                    store_votes.vote(store, name, power, True, now=now + timedelta(hours=3))
    site.web.access.set_visibility("hidden", "private")
    got = list(store_sources(finished_positions(store)))
    assert [(s.label, s.position["phase"]) for s in got] == [
        ("open", "Spring 1901 Movement"),
        ("open", "Fall 1901 Movement"),
    ]
