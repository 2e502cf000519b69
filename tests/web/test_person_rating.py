"""A person's page shows their overall rating and place on the leaderboard (the stored ratings, as the ratings
page reads them), or says they are not rated yet."""

from __future__ import annotations

from pathlib import Path
from random import Random

from dippouch.play.duels import ask_for_duel
from dippouch.play.ratings import update_ratings
from dippouch.play.records import choose_scoring
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person
from websupport import Site, drawn_game


def test_the_person_page_shows_the_rating_and_place(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    store, now = site.web.store, site.clock()
    ann, bo, cy = (create_person(store, n, now=now) for n in ("Ann", "Bo", "Cy"))
    drawn_game(store, (ann, bo, cy), now)  # Austria 3, England 3, France 3 centres: equal shares
    assert "not rated yet" in site.browser().get(f"/people/{ann}").text  # until the worker takes the game in
    update_ratings(store)
    page = site.browser().get(f"/people/{ann}").text
    assert 'id="rating">100.00' in page and "rank 1 of 3 on the overall leaderboard" in page
    assert "1 rated game" in page
    de = site.browser().get(f"/people/{ann}", headers={"Accept-Language": "de"}).text
    assert "Platz 1 von 3 in der Gesamtwertung" in de
    nobody = create_person(store, "Dee", now=now)
    assert "not rated yet" in site.browser().get(f"/people/{nobody}").text


def test_the_person_page_shows_each_variant_pool_and_a_duel_player_off_the_overall_board(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    store, now = site.web.store, site.clock()
    ann, bo, cy = (create_person(store, n, now=now) for n in ("Ann", "Bo", "Cy"))
    drawn_game(store, (ann, bo, cy), now)
    # Two others play one duel to a draw: rated in the duel pool alone, never the overall one.
    dee, eve = (create_person(store, n, now=now) for n in ("Dee", "Eve"))
    ask_for_duel(store, dee, "fva", now=now)
    duel = ask_for_duel(store, eve, "fva", now=now, rng=Random(1)).got.game
    assert duel is not None
    for power in ("France", "Austria"):
        if store_status.status(store, duel, now=now).state != "finished":
            store_votes.vote(store, duel, power, True, now=now)
    choose_scoring(store, duel, "centres", now=now)
    update_ratings(store)

    page = site.browser().get(f"/people/{ann}").text
    assert 'id="rating">100.00' in page
    mine = page.split('id="variant-ratings"', 1)[1].split("</ul>", 1)[0]
    assert "Standard Diplomacy: 100.00" in mine and "rank 1 of 3" in mine and 'href="/ratings?variant=standard"' in mine
    assert "Duel" not in mine

    page = site.browser().get(f"/people/{dee}").text
    assert "not on the overall leaderboard (one-on-one games are rated apart)" in page
    mine = page.split('id="variant-ratings"', 1)[1].split("</ul>", 1)[0]
    assert 'href="/ratings?variant=duel"' in mine and "rank 1 of 2" in mine and "1 rated game" in mine
    de = site.browser().get(f"/people/{dee}", headers={"Accept-Language": "de"}).text
    assert "Nach Variante" in de and "Platz 1 von 2" in de
