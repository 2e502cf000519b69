"""A game's records page and its JSON call (``/games/{name}/records``, ``/api/games/{name}/records``): who may see
them, what an unfinished game shows, the chart drawn on the server with a table beside it, and the link from
the game page. The scores' numbers at every door are tests/play/test_records_doors.py's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.game import GameSettings
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import votes as store_votes
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    store_games.create_game(s.web.store, "g", "standard", now=s.clock())
    return s


def test_an_unfinished_game_shows_its_centres_and_says_it_is_not_scored_yet(site: Site) -> None:
    page = site.browser().get("/games/g/records")
    assert page.status_code == 200, page.text
    assert 'id="not-finished"' in page.text and "Not finished" in page.text
    assert 'id="score-table"' not in page.text
    data = site.browser().get("/api/games/g/records").json()
    assert data["finished"] is False and data["scores"] is None
    assert data["scores_note"] == "the game is not finished: it is scored once it ends"
    assert data["game_system"] == "dss" and data["system"]["name"] == "dss"
    assert data["phases"] == ["Spring 1901 Movement"] and data["events"] == []
    assert {c["power"]: c["counts"] for c in data["centres"]}["Russia"] == [4]
    assert "chart" not in data and "refusal" not in data  # the page's picture is not sent as JSON
    assert {s["name"] for s in data["systems"]} >= {"dss", "sos", "carnage", "tribute", "opentribute", "centres"}


def test_an_unfinished_game_refuses_an_unknown_system_too(site: Site) -> None:
    r = site.browser().get("/api/games/g/records?system=carnag")
    assert r.status_code == 400 and "did you mean 'carnage'?" in r.json()["error"]


def test_the_chart_is_inline_svg_in_each_powers_colour_with_a_table_for_screen_readers(site: Site) -> None:
    text = site.browser().get("/games/g/records").text
    svg = text.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert 'role="img"' in svg and "<title" in svg
    v = load_variant("standard")
    strokes = re.findall(r'<polyline fill="none" stroke="([^"]+)"', svg)
    assert strokes == [p.colour for p in v.powers]
    assert "<script" not in text.split("<main", 1)[1].split("</main>", 1)[0]
    table = text.split('id="centre-table"', 1)[1].split("</table>", 1)[0]
    assert all(f"{p}</th>" in table for p in v.power_names)
    assert '<th scope="row">Spring 1901 Movement</th>' in table


def test_a_private_game_s_records_are_not_found_for_a_stranger(site: Site) -> None:
    site.web.access.set_visibility("g", "private")
    stranger = site.browser()
    assert stranger.get("/games/g/records").status_code == 404
    assert stranger.get("/api/games/g/records").status_code == 404
    # Its coordinator sees them.
    assert site.coordinator.get("/games/g/records").status_code == 200


def test_an_unknown_game_is_not_found(site: Site) -> None:
    assert site.browser().get("/api/games/nope/records").status_code == 404


def test_the_game_page_links_to_its_records(site: Site) -> None:
    page = site.browser().get("/games/g").text
    assert 'href="/games/g/records"' in page


def test_an_anonymous_game_hides_its_players_names_while_it_runs(tmp_path: Path) -> None:
    """Scores (with names) come only at the end, when an anonymous game shows its names anyway; until then the
    page names no player: not on the chart, the events, nor anywhere else."""
    s = Site(f"sqlite:///{tmp_path / 'a.db'}", limits={})
    store_games.create_game(s.web.store, "a", "standard", now=s.clock(), settings=GameSettings(anonymous=True))
    store_games.assign(s.web.store, "a", "France", "Zebulon Secretname", now=s.clock())
    assert "Secretname" not in s.browser().get("/games/a/records").text
    assert "Secretname" not in s.browser().get("/api/games/a/records").text
    for power in ("Austria", "England", "Germany", "Italy", "Russia", "Turkey", "France"):
        store_votes.vote(s.web.store, "a", power, True, now=s.clock())
    s.web.touched("a")  # as the web's own vote does: the game's marker is read afresh
    data = s.browser().get("/api/games/a/records").json()
    assert {r["power"]: r["player"] for r in data["scores"]}["France"] == "Zebulon Secretname"


def test_the_scores_name_a_bot_in_the_readers_words(tmp_path: Path) -> None:
    """A seat a bot played is named as the game page names it ("a bot: random", in the reader's language), not by
    the program's name for the seat ("bot:random")."""
    s = Site(f"sqlite:///{tmp_path / 'b.db'}", limits={})
    store_games.create_game(s.web.store, "b", "standard", now=s.clock())
    store_games.assign(s.web.store, "b", "France", "bot:random", now=s.clock())
    for power in ("Austria", "England", "Germany", "Italy", "Russia", "Turkey", "France"):
        store_votes.vote(s.web.store, "b", power, True, now=s.clock())
    s.web.touched("b")
    table = s.browser().get("/games/b/records").text.split('id="score-table"', 1)[1].split("</table>", 1)[0]
    assert ">a bot: random</span>" in table and ">bot:random<" not in table
    table = s.browser().get("/games/b/records", headers={"Accept-Language": "fr"}).text
    assert ">un bot : aléatoire</span>" in table.split('id="score-table"', 1)[1].split("</table>", 1)[0]
    # The JSON keeps the seat's name: a program reads it.
    data = s.browser().get("/api/games/b/records").json()
    assert {r["power"]: r["player"] for r in data["scores"]}["France"] == "bot:random"


def test_a_game_no_system_can_share_out_still_shows_its_records(tmp_path: Path) -> None:
    """1897 opens with builds: processed with none ordered, nobody has a unit or a centre and the game ends with
    no powers left. Draw-size scoring has nobody to share it among; the page says so and shows the rest."""
    s = Site(f"sqlite:///{tmp_path / 'e.db'}", limits={})
    store_games.create_game(s.web.store, "e", "1897", now=s.clock())
    store_processing.process(s.web.store, "e", now=s.clock(), force=True)
    data = s.browser().get("/api/games/e/records").json()
    assert data["finished"] is True and data["scores"] is None
    assert "nobody survived to share the game" in data["scores_note"]
    page = s.browser().get("/games/e/records")
    assert page.status_code == 200 and 'id="not-scored"' in page.text
    # Centre count scores it (every power 0).
    data = s.browser().get("/api/games/e/records?system=centres").json()
    assert data["scores"] and {r["score"] for r in data["scores"]} == {0.0}
    # A German page says why it is not scored, and how the game ended, in German (both were the layers' English
    # text); the JSON API keeps its English.
    de = {"Accept-Language": "de"}
    page = s.browser().get("/games/e/records", headers=de)
    assert "niemand hat überlebt, um die Partie zu teilen" in page.text and "nobody survived" not in page.text
    page = s.browser().get("/games/e/records?system=centres", headers=de)
    assert "Keine Macht hat noch eine Einheit oder ein Versorgungszentrum" in page.text, page.text[-2000:]
    assert "No power has a unit" not in page.text
    assert data["ending"] == "No power has a unit or a supply centre left: the game ends with no winner."


def test_the_records_are_kept_until_the_game_changes(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long game's every position and order is parsed to draw its records: they are read once per change of
    the game (its marker), not once per visit."""
    import dippouch.web.routes.records as records_routes
    from dippouch.play.records import choose_scoring
    from dippouch.store.finished import game_record as real

    reads: list[str] = []

    def counted(db: object, name: str) -> object:
        reads.append(name)
        return real(db, name)  # type: ignore[arg-type]

    monkeypatch.setattr(records_routes, "game_record", counted)
    reader = site.browser()
    for _ in range(3):
        assert reader.get("/api/games/g/records").json()["game_system"] == "dss"
    assert reads == ["g"]
    choose_scoring(site.web.store, "g", "carnage", now=site.clock())
    site.web.touched("g")
    assert reader.get("/api/games/g/records").json()["game_system"] == "carnage"
    assert reads == ["g", "g"]
