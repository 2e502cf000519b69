"""A person's page shows their overall rating and place on the leaderboard (the stored ratings, as the ratings
page reads them), or says they are not rated yet."""

from __future__ import annotations

from pathlib import Path

from dippouch.play.ratings import update_ratings
from dippouch.play.records import choose_scoring
from dippouch.store.people import create_person, seat_person
from websupport import Site

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def test_the_person_page_shows_the_rating_and_place(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    store, now = site.web.store, site.clock()
    ann, bo, cy = (create_person(store, n, now=now) for n in ("Ann", "Bo", "Cy"))
    store.create_game("g", "standard", now=now)
    for power, person in zip(POWERS, (ann, bo, cy), strict=False):
        store.assign("g", power, power, now=now)
        seat_person(store, "g", power, person, now=now)
    for power in POWERS:
        if store.status("g", now=now).state != "finished":
            store.vote("g", power, True, now=now)
    choose_scoring(store, "g", "centres", now=now)  # Austria 3, England 3, France 3 centres: equal shares
    assert "not rated yet" in site.browser().get(f"/people/{ann}").text  # until the worker takes the game in
    update_ratings(store)
    page = site.browser().get(f"/people/{ann}").text
    assert 'id="rating">100.00' in page and "rank 1 of 3 on the overall leaderboard" in page
    assert "1 rated game" in page
    de = site.browser().get(f"/people/{ann}", headers={"Accept-Language": "de"}).text
    assert "Platz 1 von 3 in der Gesamtwertung" in de
    nobody = create_person(store, "Dee", now=now)
    assert "not rated yet" in site.browser().get(f"/people/{nobody}").text
