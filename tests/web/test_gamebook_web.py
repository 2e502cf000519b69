"""A game's book (``/games/{name}/book.pdf``): a title page, then each processed phase's map with its orders and
results and its results text with the press written in it, then the board as it stands; read back with
poppler: its pages, each phase's name and an order's result, the press the game published and never a letter
the reader may not see; a private game's book is no stranger's; a book is made once."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.game import position_to_data
from dippouch.render import render_svg
from dippouch.render.atlas import atlas_layout
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.press import messages as store_press
from dippouch.store.repository import GameStore
from dippouch.web.http.budget import WorkBudget
from dippouch.web.routes import gamebook
from helpers import board
from websupport import ACCEPT, Site

pytestmark = pytest.mark.skipif(
    shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None,
    reason="poppler-utils not installed (scripts/setup)",
)

MAP_PAGES = len(
    atlas_layout(load_variant("standard"), render_svg(load_variant("standard"), load_variant("standard").start), "t")
)
"""The standard map on A4 is its atlas, as every printed map of it is: names at 3.3 pt on one page are too small."""

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """``ended``: a standard game played two phases with a public and a private letter, then drawn (it ends
    in its third phase); ``going``: one played a phase, its press not published; ``hidden``: a private game."""
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('book') / 'web.db'}")
    store = s.web.store
    for name in ("ended", "going"):
        s.new_game(name)
        for p in POWERS:
            store_games.assign(store, name, p, f"{p} Player", now=s.clock())
        store_submissions.submit(store, name, "France", "A par - bur", now=s.clock())
        store_press.send(store, name, "England", ["France"], "Between us: the Channel stays empty", now=s.clock())
        store_press.send(store, name, "England", POWERS, "To the world: England wants peace", now=s.clock())
    for _ in range(2):
        store_processing.process(store, "ended", now=s.clock(), force=True)
    store_processing.process(store, "going", now=s.clock(), force=True)
    for p in POWERS:
        store_votes.vote(store, "ended", p, True, now=s.clock())
    s.web.touched("ended")
    s.new_game("hidden", visibility="private")
    store_processing.process(store, "hidden", now=s.clock(), force=True)
    # Every test here asks from one address, for books in three languages: more drawing than an address's work
    # budget allows a minute (what a first drawing is charged is tests/web/test_replay.py's).
    s.app.state.budget = WorkBudget(float("inf"), 60.0)
    return s


def _book(site: Site, game: str, tmp_path: Path, lang: str = "en") -> tuple[int, list[str]]:
    """The book's page count (pdfinfo) and each page's text (pdftotext), as a reader of ``lang`` gets it."""
    r = site.browser().get(f"/games/{game}/book.pdf", headers={"Accept-Language": ACCEPT[lang]})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/pdf"
    path = tmp_path / f"{game}-{lang}.pdf"
    path.write_bytes(r.content)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True)
    return pages, text.stdout.split("\f")[:pages]


def test_a_finished_games_book_has_every_phase_its_results_and_its_public_press(site: Site, tmp_path: Path) -> None:
    pages, text = _book(site, "ended", tmp_path)
    per = MAP_PAGES + 1
    # A title page, then three phases (the third the draw closed, shown as its board), each its map's pages
    # and a text page: the game ended in a phase, so that phase's board is its final board.
    assert pages == 1 + 3 * per, [t[:60] for t in text]
    assert "Contents" in text[0] and "Spring 1901 Movement" in text[0] and "Standard" in text[0]
    for i, phase in enumerate(["Spring 1901 Movement", "Fall 1901 Movement", "Spring 1902 Movement"]):
        assert f"ended: {phase}" in text[1 + per * i]  # its map's title
        assert f"{phase}: results" in text[per * (i + 1)]
    assert f"Fall 1901 Movement{' ' * 20}" in text[0] and f"{2 + per}" in text[0]  # the contents' page numbers
    spring = text[per]
    assert "Paris" in spring and "Burgundy" in spring, spring  # France's order, as the Judge reports it
    whole = "\n".join(text)
    assert "To the world: England wants peace" in whole and "England to all" in whole
    # A letter stays a letter: this game's rules open only the public press at the end.
    assert "Between us" not in whole


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "de",
            [
                "Inhalt",
                "3 Phasen gespielt, Frühjahr 1901 Bewegung bis Frühjahr 1902 Bewegung",
                "1 veröffentlichter Brief der Presse",
                "ended: Herbst 1901 Bewegung: Übersicht",
                "2. Blatt (1 von 4)",
                "Herbst 1901 Bewegung: Ergebnisse",
                "Ergebnisse Frühjahr 1901 Bewegung, Partie ended",
                "F Brest H (kein Befehl erhalten)",
                "England an alle (01.12.2026, 09:00 UTC):",
            ],
        ),
        (
            "fr",
            [
                "Sommaire",
                "3 phases jouées, entre Printemps 1901 Mouvements et Printemps 1902 Mouvements",
                "1 lettre de presse publiée",
                "ended : Automne 1901 Mouvements : vue d’ensemble",
                "2. Feuille (1 sur 4)",
                "Automne 1901 Mouvements : résultats",
                "Résultats Printemps 1901 Mouvements, partie ended",
                "F Brest H (aucun ordre reçu)",
                "England à tous (1 déc. 2026, 09:00 UTC) :",
            ],
        ),
    ],
)
def test_the_book_is_in_its_readers_language(site: Site, tmp_path: Path, lang: str, words: list[str]) -> None:
    """A German or French reader's book says its own words (the contents, the headings, the pages' titles), the
    phases' names, the lines about the game, the results and the atlas's words in their language; the English
    book is as ever (above): each language's book is made and kept on its own."""
    _, text = _book(site, "ended", tmp_path, lang)
    whole = "\n".join(text)
    assert [said for said in words if said not in whole] == []
    assert "Contents" not in whole and "results" not in whole and "Spring 1901" not in whole
    assert "overview" not in whole and "no order received" not in whole and " to all" not in whole
    _, english = _book(site, "ended", tmp_path)
    assert "Contents" in english[0]


def test_a_game_going_on_publishes_no_press(site: Site, tmp_path: Path) -> None:
    pages, text = _book(site, "going", tmp_path)
    assert pages == 1 + (MAP_PAGES + 1) + MAP_PAGES  # the title, one phase, the board now
    whole = "\n".join(text)
    assert "The board now: Fall 1901 Movement" in whole
    assert "To the world" not in whole and "Between us" not in whole
    assert "No press published" in text[0]


def test_private_letters_are_in_the_book_only_where_the_rules_open_them(site: Site, tmp_path: Path) -> None:
    store = site.web.store
    store_press.set_press_rules(store, "ended", {"open_private_after_end": True}, now=site.clock())
    try:
        _, text = _book(site, "ended", tmp_path)
        assert "Between us" in "\n".join(text) and "England to France" in "\n".join(text)
    finally:
        store_press.set_press_rules(store, "ended", {"open_private_after_end": False}, now=site.clock())
    assert "Between us" not in "\n".join(_book(site, "ended", tmp_path)[1])


def test_a_private_games_book_is_no_strangers(site: Site) -> None:
    assert site.browser().get("/games/hidden/book.pdf").status_code == 404
    assert site.coordinator.get("/games/hidden/book.pdf").status_code == 200
    assert site.browser().get("/games/nosuch/book.pdf").status_code == 404


def test_a_book_is_made_once(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    from dippouch.web.http.jobs import book_pdf as real

    made: list[str] = []

    def counted(*args: object, **kw: object) -> bytes:
        made.append(str(args[1]))
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(gamebook, "book_pdf", counted)
    store_processing.process(site.web.store, "going", now=site.clock(), force=True)  # a new state: a new book
    first = site.browser().get("/games/going/book.pdf")
    second = site.browser().get("/games/going/book.pdf")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and made == ["going"]
    # Kept by the browser for a minute, but only for the reader it was made for: another language or person asks again.
    assert first.headers["cache-control"] == "private, max-age=60"
    assert {v.strip() for v in first.headers["vary"].split(",")} >= {"Accept-Language", "Cookie", "Authorization"}


def test_the_replay_page_links_the_book(site: Site) -> None:
    page = site.browser().get("/games/ended/replay").text
    assert 'href="/games/ended/book.pdf"' in page


KINGDOMS = {"Crown": ["lon", "yor"], "Montrose": ["edi", "gls"], "Ormond": ["dub", "bel"]}


def finished_w3k(store: GameStore, name: str, now: datetime) -> None:
    """A W3K game of three kingdoms played two phases, then drawn (as tests/web/test_replay.py plays it)."""
    v = load_variant("w3k")
    units = {"Crown": ["A lon", "A yor"], "Montrose": ["A edi", "F gls"], "Ormond": ["A dub", "A bel"]}
    store_games.create_game(
        store, name, "w3k", now=now, position=position_to_data(v, board(v, "Summer 1642", units, KINGDOMS))
    )
    store_submissions.submit(store, name, "Crown", "A London - Middlesex", now=now)
    for _ in range(2):
        store_processing.process(store, name, now=now, force=True)
    for power in KINGDOMS:
        store_games.assign(store, name, power, f"{power} Player", now=now)
    endings = [store_votes.vote(store, name, power, True, now=now) for power in KINGDOMS]
    assert endings[-1] is not None and endings[-1].kind == "draw", endings


def test_a_finished_w3k_games_book_prints_each_map_as_its_atlas(site: Site, tmp_path: Path) -> None:
    """W3K's board does not read whole on one page: each phase's map is its atlas (the overview, then the
    regional sheets where names are legible), as the printed results are."""
    finished_w3k(site.web.store, "kingdoms", datetime(2026, 1, 1, tzinfo=UTC))
    pages, text = _book(site, "kingdoms", tmp_path)
    overviews = [i for i, t in enumerate(text) if ": overview" in t]
    assert len(overviews) == 3, [t[:80] for t in text]  # two phases played, and the one the draw closed
    per = overviews[1] - overviews[0]  # the first phase's overview, its regional sheets and its text page
    assert per > 3 and overviews[0] == 1
    for start in overviews:  # every sheet shows its phase's map: its names, not the title alone
        assert all(len(page.split()) > 12 for page in text[start : start + per - 1])
    assert pages == 1 + 3 * per
    results = text[per]
    assert "kingdoms: Summer 1642 Movement: results" in results
    assert "London" in results and "Middlesex" in results, results  # the Crown's order, as reported
