"""The one-on-one queue's doors without a browser (``/duels``, ``/api/duels``) and the ratings page's one-on-one
board: a person not signed in is refused with a clear message; two people paired through the JSON API; a duel
finished and rated shows its board apart from the overall one, in English and German, and the JSON says so."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from dippouch.play.ratings import update_ratings
from dippouch.play.records import choose_scoring
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person
from websupport import Site


def _person(site: Site, name: str) -> tuple[int, TestClient]:
    pid = create_person(site.web.store, name, now=site.clock())
    c = site.browser()
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/duels")  # the CSRF token of the signed-in session
    return pid, c


def test_the_queue_by_json_and_its_refusals(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    anyone = site.browser()
    page = anyone.get("/duels")
    assert page.status_code == 200 and "Sign in</a> to ask for a one-on-one game" in page.text
    refused = site.api(anyone, "/api/duels", {"pairing": "fva"})
    assert refused.status_code == 401 and refused.json()["error"]
    _, a = _person(site, "Ann")
    _, b = _person(site, "Bob")
    bad = site.api(a, "/api/duels", {"pairing": "fvr"})
    assert bad.status_code in (400, 409, 422) and "no pairing 'fvr'; choose one of fva, any" in bad.json()["error"]
    waits = site.api(a, "/api/duels", {"pairing": "any"})
    assert waits.status_code == 200 and waits.json()["game"] is None
    assert a.get("/api/duels").json()["waiting"] is True
    again = site.api(a, "/api/duels", {"pairing": "any"})
    assert "already waiting" in again.json()["error"]
    # The refusal on the page is said in the reader's language.
    de = site.post_form(a, "/duels", {"pairing": "fva"}, headers={"Accept-Language": "de"})
    assert de.status_code == 400 and "Sie warten schon auf eine Partie zu zweit" in de.text
    paired = site.api(b, "/api/duels", {"pairing": "any"}).json()
    assert paired["game"].startswith("duel-") and paired["opponent"] == "Ann"
    assert paired["text"] == f"{paired['game']} starts now: you play {paired['power']} against Ann."
    mine = a.get("/api/duels").json()
    assert mine["waiting"] is False and [g["game"] for g in mine["games"]] == [paired["game"]]
    left = b.request("DELETE", "/api/duels", headers={"X-CSRF-Token": site.csrf(b)})
    assert left.status_code == 200 and left.json()["waiting"] is False


def test_a_rated_duel_shows_its_board_apart_on_the_ratings_page(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    store, now = site.web.store, site.clock()
    _, a = _person(site, "Ann")
    _, b = _person(site, "Bob")
    site.api(a, "/api/duels", {"pairing": "fva"})
    game = site.api(b, "/api/duels", {"pairing": "fva"}).json()["game"]
    for power in ("Austria", "France"):
        store_votes.vote(store, game, power, True, now=now)
    assert store_status.status(store, game, now=now).state == "finished"
    choose_scoring(store, game, "centres", now=now)
    update_ratings(store)
    page = site.browser().get("/ratings").text
    assert "Nobody is rated yet" not in page
    assert 'id="board-duel"' in page and 'id="board-overall"' not in page
    assert "One-on-one games are rated apart: they do not count toward the overall rating." in page
    de = site.browser().get("/ratings", headers={"Accept-Language": "de"}).text
    assert "Partien zu zweit werden getrennt gewertet" in de
    answer = site.browser().get("/api/ratings").json()
    assert answer["overall"]["people"] == 0
    assert [(b["variant"], b["one_on_one"], b["people"]) for b in answer["by_variant"]] == [("duel", True, 2)]


def test_the_queue_page_in_german_and_french(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    _, a = _person(site, "Ann")
    for lang, words in (
        ("de", ["Zu zweit", "Einen Gegner für mich finden", "Frankreich gegen Österreich", "Eigene Wertung"]),
        ("fr", ["Tête-à-tête", "Me trouver un adversaire", "France contre Autriche", "Classement à part"]),
    ):
        page = a.get("/duels", headers={"Accept-Language": lang}).text
        assert all(w in page for w in words), lang
    site.api(a, "/api/duels", {"pairing": "fva"})
    assert "Sie warten seit" in a.get("/duels", headers={"Accept-Language": "de"}).text
    assert "Vous attendez un adversaire depuis" in a.get("/duels", headers={"Accept-Language": "fr"}).text
