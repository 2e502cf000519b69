"""A game's replay: its frames (each processed phase's orders, then the board they led to, then the board as it
stands), the page stepped without JavaScript, the JSON call, who may see it, and the animated GIF and WebP read
back with Pillow: one frame per picture of the page, about 1.2 s each, the last longer, made once."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from dippouch.catalog import load_variant
from dippouch.game import position_to_data
from dippouch.play.replays import FRAME_MS, LAST_FRAME_MS, replay_frames
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.records import StoredPhase
from dippouch.store.repository import GameStore
from dippouch.web.http import jobs
from dippouch.web.http.budget import WorkBudget
from helpers import board
from websupport import ACCEPT, Site

PROCESSED = 3


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A standard game processed three phases (every power holding), and a private one processed once."""
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('replay') / 'web.db'}")
    s.new_game("demo")
    s.post_form(s.player("demo", "France", "Bruno"), "/games/demo/play/France/orders", {"orders": "A par - bur"})
    for _ in range(PROCESSED):
        r = s.post_form(s.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
        assert r.status_code == 303, r.text
    s.new_game("hidden", visibility="private")
    s.post_form(s.coordinator, "/games/hidden/coordinate/process", {"confirm": "yes"})
    return s


KINGDOMS = {"Crown": ["lon", "yor"], "Montrose": ["edi", "gls"], "Ormond": ["dub", "bel"]}
"""Three W3K powers, each holding both capitals of a kingdom: a draw between kingdoms is possible."""


def finished_w3k(store: GameStore, name: str, now: datetime, phases: int = 2) -> None:
    """A W3K game of three kingdoms played ``phases`` phases, then ended by a draw all three voted (it ends in
    the phase open then, which is closed without a position after it)."""
    v = load_variant("w3k")
    units = {"Crown": ["A lon", "A yor"], "Montrose": ["A edi", "F gls"], "Ormond": ["A dub", "A bel"]}
    start = board(v, "Summer 1642", units, KINGDOMS)
    store_games.create_game(store, name, "w3k", now=now, position=position_to_data(v, start))
    store_submissions.submit(store, name, "Crown", "A London - Middlesex", now=now)
    for _ in range(phases):
        store_processing.process(store, name, now=now, force=True)
    for power in KINGDOMS:
        store_games.assign(store, name, power, f"{power} Player", now=now)  # a power nobody plays has no vote
    endings = [store_votes.vote(store, name, power, True, now=now) for power in KINGDOMS]
    assert endings[-1] is not None and endings[-1].kind == "draw", endings


def _frames(site: Site, game: str = "demo") -> list[dict[str, Any]]:
    r = site.browser().get(f"/api/games/{game}/replay")
    assert r.status_code == 200, r.text
    frames: list[dict[str, Any]] = r.json()["frames"]
    return frames


def test_the_frames_of_a_game_played_three_phases(site: Site) -> None:
    frames = _frames(site)
    assert len(frames) == 2 * PROCESSED + 1
    assert [(f["phase"], f["view"]) for f in frames] == [
        ("Spring 1901 Movement", "orders"),
        ("Spring 1901 Movement", "after"),
        ("Fall 1901 Movement", "orders"),
        ("Fall 1901 Movement", "after"),
        ("Spring 1902 Movement", "orders"),
        ("Spring 1902 Movement", "after"),
        ("Fall 1902 Movement", "board"),
    ]
    assert [f["index"] for f in frames] == list(range(len(frames)))
    assert frames[-1]["caption"] == "Fall 1902 Movement: the board now"
    c = site.browser()
    first = c.get(frames[0]["picture"])
    assert first.status_code == 200 and first.headers["content-type"].startswith("image/svg+xml")
    # France's order is drawn on the first frame (the orders view), as on the phase's page.
    assert 'data-order="A par - bur"' in first.text
    for f in frames:
        assert f["picture"] == f"/games/demo/phases/{f['phase_id']}/map-{f['view']}.svg"
        assert c.get(f["picture"]).status_code == 200, f
        assert c.get(f["phase_page"]).status_code == 200, f


def test_the_page_steps_without_javascript(site: Site) -> None:
    """Every frame is a link (?at=N); the step links point at the neighbours; the slider is a form; an ``at``
    out of range shows the nearest end."""
    c = site.browser()
    page = c.get("/games/demo/replay?at=2").text
    assert 'src="/games/demo/phases/' in page and "map-orders.svg" in page
    assert "Fall 1901 Movement: orders and results" in page
    assert "3 of 7" in page
    for step, at in (("first", 0), ("back", 1), ("forward", 3), ("last", 6)):
        assert re.search(rf'data-step="{step}" href="\?at={at}"', page), step
    assert all(f'href="?at={i}"' in page for i in range(7))
    assert '<form class="replay-slider" method="get"' in page and 'name="at"' in page
    assert 'data-start="2"' in page  # a frame asked for: the script does not start playing over it
    assert "/games/demo/replay.gif" in page and "/games/demo/replay.webp" in page
    last = c.get("/games/demo/replay?at=99").text
    assert "7 of 7" in last and "Fall 1902 Movement: the board now" in last
    assert "1 of 7" in c.get("/games/demo/replay?at=-5").text
    plain = c.get("/games/demo/replay").text
    assert "1 of 7" in plain and "data-start" not in plain
    assert "/games/demo/replay" in c.get("/games/demo").text  # linked from the game's page


def test_a_german_reader_gets_the_captions_and_phases_in_german(site: Site) -> None:
    """The frames' captions are messages said where they are shown: the page, the API's ``?lang=`` (they were
    English sentences the page read back; the phase inside stayed English)."""
    c = site.browser()
    page = c.get("/games/demo/replay?at=2", headers={"Accept-Language": "de"}).text
    assert "Herbst 1901 Bewegung: Befehle und Ergebnisse" in page
    assert "Herbst 1901 Bewegung: ihre Seite" in page  # the link replay.js rewrites from data-phase-words
    assert "Fall 1901" not in page.replace('data-phase="Fall 1901 Movement"', "")
    # The list of games, as every page that shows a phase's name (the {{ name|phase }} filter).
    assert "Herbst 1902 Bewegung" in c.get("/", headers={"Accept-Language": "de"}).text
    frames = c.get("/api/games/demo/replay?lang=de").json()["frames"]
    assert frames[-1]["caption"] == "Herbst 1902 Bewegung: das Brett jetzt"
    assert frames[-1]["phase"] == "Fall 1902 Movement"  # the calendar's name, for programs


def test_a_private_games_replay_is_not_found_by_a_stranger(site: Site) -> None:
    stranger = site.browser()
    for url in (
        "/games/hidden/replay",
        "/api/games/hidden/replay",
        "/games/hidden/replay.gif",
        "/games/hidden/replay.webp",
    ):
        assert stranger.get(url).status_code == 404, url
    player = site.player("hidden", "Italy", "Ida")
    assert player.get("/games/hidden/replay").status_code == 200
    assert len(player.get("/api/games/hidden/replay").json()["frames"]) == 3


def test_no_such_game_or_format(site: Site) -> None:
    c = site.browser()
    assert c.get("/games/nope/replay").status_code == 404
    r = c.get("/games/demo/replay.png")
    assert r.status_code == 404 and "replay.gif or replay.webp" in r.text


@pytest.mark.parametrize("fmt", ["gif", "webp"])
def test_the_animated_replay_has_a_frame_per_picture_and_is_made_once(
    site: Site, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[int] = []
    real = jobs.animated_replay

    def counted(*args: Any, **kw: Any) -> bytes:
        made.append(1)
        return real(*args, **kw)

    monkeypatch.setattr("dippouch.web.routes.replay.animated_replay", counted)
    c = site.browser()
    r = c.get(f"/games/demo/replay.{fmt}")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == f"image/{fmt}"
    assert f'filename="demo-replay.{fmt}"' in r.headers["content-disposition"]
    # Kept by the browser for a minute, but only for the reader it was made for (its captions are in their language).
    assert r.headers["cache-control"] == "private, max-age=60"
    assert {v.strip() for v in r.headers["vary"].split(",")} >= {"Accept-Language", "Cookie", "Authorization"}
    im = Image.open(io.BytesIO(r.content))
    assert im.format == fmt.upper()
    assert _frame_count(im) == 2 * PROCESSED + 1
    durations = []
    for i in range(_frame_count(im)):
        im.seek(i)
        im.load()
        durations.append(im.info["duration"])
    assert durations == [FRAME_MS] * (2 * PROCESSED) + [LAST_FRAME_MS]
    assert made == [1]
    # The second request is served from what was kept, even to an address with no work left in its budget.
    site.app.state.budget = WorkBudget(1e-9, 60.0)
    try:
        again = site.browser().get(f"/games/demo/replay.{fmt}")
        assert again.status_code == 200 and again.content == r.content
        assert made == [1]
    finally:
        site.app.state.budget = WorkBudget(float("inf"), 60.0)


def test_the_animated_replays_maps_are_in_the_readers_language(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each frame's map says its words (its heading: the phase; its legend) in the reader's language, as its
    caption does; each language's picture is made and kept on its own. The pictures are read as the renderer
    draws them (the frames' SVG, not the rasterised GIF)."""
    drawn: list[str] = []

    def frames_drawn(frames: Any, picture: Any, fmt: str, captions: Any) -> bytes:
        drawn.append(picture(frames[0]))
        return b"GIF89a"

    monkeypatch.setattr(jobs, "export_replay", frames_drawn)
    for lang in ("de", "fr"):
        r = site.browser().get("/games/demo/replay.gif", headers={"Accept-Language": ACCEPT[lang]})
        assert r.status_code == 200, r.text
    german, french = drawn
    assert "Frühjahr 1901 Bewegung" in german and "Spring 1901" not in german
    assert "Printemps 1901 Mouvements" in french and "Spring 1901" not in french


def test_a_first_drawing_is_charged_to_the_addresss_work_budget(tmp_path: Path) -> None:
    """Like a PDF map: the first GIF spends more than a tiny share, so the address's next first drawing (the
    WebP) is refused with the wait, while the GIF, kept, is still served."""
    s = Site(f"sqlite:///{tmp_path / 'w.db'}")
    s.new_game("g")
    s.post_form(s.coordinator, "/games/g/coordinate/process", {"confirm": "yes"})
    s.app.state.budget = WorkBudget(0.2, 60.0)
    c = s.browser()
    assert c.get("/games/g/replay.gif").status_code == 200
    r = c.get("/games/g/replay.webp")
    assert r.status_code == 429 and "your share of the server" in r.text
    assert c.get("/games/g/replay.gif").status_code == 200


def _phase(pid: int, name: str, status: str, *, after: bool = True) -> StoredPhase:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return StoredPhase(
        id=pid,
        game_id=1,
        branch=0,
        seq=pid,
        name=name,
        kind="movement",
        status=status,
        position={},
        opened_at=at,
        deadline=None,
        processed_at=at if status != "open" else None,
        orders={} if status != "open" else None,
        results=[] if status != "open" else None,
        next_position={} if status != "open" and after else None,
        missed=None,
    )


def test_frames_follow_the_line_of_play_and_end_on_the_final_board() -> None:
    """A phase rolled back is left out (its replayed successor is in); a finished game ends on its final board
    once more, so the count is still 2 x processed + 1; a game that has processed nothing is its board."""
    finished = [
        _phase(1, "Spring 1901 Movement", "processed"),
        _phase(2, "Fall 1901 Movement", "abandoned"),
        _phase(3, "Fall 1901 Movement", "processed"),
    ]
    got = [(f.phase_id, f.view) for f in replay_frames(finished)]
    assert got == [(1, "orders"), (1, "after"), (3, "orders"), (3, "after"), (3, "after")]
    assert replay_frames(finished)[-1].caption == "The final board, after Fall 1901 Movement"
    voted = [*finished, _phase(4, "Spring 1902 Movement", "processed", after=False)]  # a draw voted in it
    assert [(f.phase_id, f.view) for f in replay_frames(voted)][-2:] == [(3, "after"), (4, "board")]
    assert replay_frames(voted)[-1].caption == "Spring 1902 Movement: the final board"
    fresh = replay_frames([_phase(1, "Spring 1901 Movement", "open")])
    assert [(f.phase_id, f.view) for f in fresh] == [(1, "board")]


@pytest.mark.slow
def test_a_finished_w3k_game_replayed_and_exported(tmp_path: Path) -> None:
    """The issue's game: W3K, finished (a draw between kingdoms); the replay ends on the board of the phase the
    draw was voted in, and the GIF has a frame per picture of the page."""
    s = Site(f"sqlite:///{tmp_path / 'w.db'}")
    finished_w3k(s.web.store, "w", s.clock())
    c = s.browser()
    assert c.get("/api/games/w").json()["state"] == "finished"
    frames = _frames(s, "w")
    assert len(frames) == 2 * 2 + 1
    assert [f["view"] for f in frames] == ["orders", "after", "orders", "after", "board"]
    assert frames[-1]["caption"] == "Spring 1643 Movement: the final board"
    assert re.search(r'data-order="A lon - mdx"', c.get(frames[0]["picture"]).text)  # the Crown's move, drawn
    assert "data-order=" not in c.get(frames[1]["picture"]).text  # the board after it: no orders
    page = c.get("/games/w/replay?at=4").text
    assert "Spring 1643 Movement: the final board" in page and "5 of 5" in page
    gif = Image.open(io.BytesIO(c.get("/games/w/replay.gif").content))
    assert _frame_count(gif) == len(frames)


def test_a_phase_processed_makes_a_new_export(tmp_path: Path) -> None:
    """What is kept is the replay of the frames it was made from: once another phase is processed, the next
    request draws the longer replay (two frames more)."""
    s = Site(f"sqlite:///{tmp_path / 'w.db'}")
    s.new_game("g")
    s.post_form(s.coordinator, "/games/g/coordinate/process", {"confirm": "yes"})
    c = s.browser()
    first = Image.open(io.BytesIO(c.get("/games/g/replay.webp").content))
    assert _frame_count(first) == 3
    s.post_form(s.coordinator, "/games/g/coordinate/process", {"confirm": "yes"})
    again = Image.open(io.BytesIO(c.get("/games/g/replay.webp").content))
    assert _frame_count(again) == 5


def _frame_count(pic: Image.Image) -> int:
    """How many frames an animated picture holds (1 for a still one)."""
    return int(getattr(pic, "n_frames", 1))
