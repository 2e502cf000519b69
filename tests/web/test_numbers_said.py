"""Scores, ratings and shares on the pages are written as the reader's language writes numbers (``18,18`` and
``57 %`` on a German page), as the end mail and the command line write them: one function
(:func:`dippouch.saying.number`) for every door, so a German reader never sees ``18.18`` beside ``18,18``."""

from __future__ import annotations

import re
from pathlib import Path

from dippouch.play.ratings import update_ratings
from dippouch.play.records import score_game
from dippouch.saying import number, percent
from dippouch.store.people.persons import create_person
from websupport import Site, drawn_game


def test_number_and_percent_follow_the_language() -> None:
    assert [number(1234.5, lang, 2) for lang in ("en", "de", "fr")] == ["1,234.50", "1.234,50", "1\u202f234,50"]
    assert [number(3, lang) for lang in ("en", "de")] == ["3", "3"]
    assert [percent(57.14, lang) for lang in ("en", "de", "fr")] == ["57%", "57\u00a0%", "57\u00a0%"]
    assert percent(57.14, "de", 1) == "57,1\u00a0%"
    assert number(2.5, "xx") == "2.5"  # a language the site does not speak: English
    assert percent(57.14, "xx") == "57%"


def test_scores_and_ratings_are_written_in_the_readers_numbers(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    store, now = site.web.store, site.clock()
    ann, bo, cy = (create_person(store, n, now=now) for n in ("Ann", "Bo", "Cy"))
    drawn_game(store, (ann, bo, cy), now, "sos")
    update_ratings(store)
    scores = [row.score for row in score_game(store, "g").rows]
    odd = [s for s in scores if round(s, 2) != round(s)]
    assert odd, scores  # some score has decimals to write, or the test could not tell the forms apart

    english = site.browser().get("/games/g/records").text
    german = site.browser().get("/games/g/records", headers={"Accept-Language": "de"}).text
    for s in odd:
        assert f">{s:.2f}<" in english
        assert f">{number(s, 'de', 2)}<" in german and f">{s:.2f}<" not in german

    for path in ("/ratings", f"/people/{ann}"):
        de = site.browser().get(path, headers={"Accept-Language": "de"}).text
        assert "100,00" in de and "100.00" not in de, path
    de = site.browser().get("/ratings", headers={"Accept-Language": "de"}).text
    shares = re.findall(r"\d+(?:,\d)?\u00a0%", de)
    assert shares and not re.search(r"\d\.\d%", de), shares
