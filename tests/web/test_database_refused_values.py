"""A value PostgreSQL cannot hold is the request's fault, said as such: an id past its integer column
(``/people/2147483648``) or text with a NUL character (``/games/%00``) answered 500 there, where SQLite answers
"not found" (the full fuzz, tests/web/test_fuzz_every_route.py, found them on every route with such a value).
Both databases answer each request below with a refusal, never a 500."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest

from websupport import ACCEPT, Site

TOO_LARGE = "a number in the request is far too large"
NOT_STORED = "the request contains a value the database cannot store (a NUL character, or a number out of range)"


@pytest.fixture
def site(db_url: str, tmp_path: Path) -> Site:
    s = Site(db_url, limits={})
    s.new_game("g")
    return s


def _said(r: Any) -> str:
    if r.headers.get("content-type", "").startswith("application/json"):
        return str(r.json()["error"])
    return html.unescape(str(r.text))


@pytest.mark.parametrize(
    ("url", "said", "on_sqlite"),  # on SQLite: 404, or another refusal of a number it holds
    [
        ("/api/people/2147483648", TOO_LARGE, 404),
        ("/people/99999999999999999999", TOO_LARGE, 400),  # past SQLite's 64 bits too (its OverflowError)
        ("/api/games/g/keys/2147483648/revoke", TOO_LARGE, "no key 2147483648 in this game"),
        ("/api/games/%00", NOT_STORED, 404),
        ("/games/a%00b/opening", NOT_STORED, 404),
    ],
)
def test_a_value_the_database_cannot_hold_is_refused(
    site: Site, db_url: str, url: str, said: str, on_sqlite: int | str
) -> None:
    """On PostgreSQL a refusal saying why; SQLite holds a 64-bit integer and text with a NUL, so there the
    person, key or game is simply not found."""
    c = site.coordinator
    r = site.api(c, url, {}) if url.endswith("revoke") else c.get(url)
    if db_url.startswith("sqlite") and on_sqlite == 404:
        assert r.status_code == 404, r.text
        return
    if db_url.startswith("sqlite") and isinstance(on_sqlite, str):
        assert r.status_code == 400 and on_sqlite in _said(r), r.text
        return
    assert r.status_code == 400, r.text
    assert said in _said(r)


def test_the_refusal_is_said_in_german_and_french(site: Site, db_url: str) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite holds text with a NUL character: the game is not found")
    c = site.browser()
    de = c.get("/games/%00", headers={"Accept-Language": ACCEPT["de"]})
    assert de.status_code == 400 and "die Anfrage enthält einen Wert, den die Datenbank nicht speichern kann" in _said(
        de
    )
    fr = c.get("/games/%00", headers={"Accept-Language": ACCEPT["fr"]})
    assert fr.status_code == 400 and "la requête contient une valeur que la base de données ne peut pas" in _said(fr)
    r = c.get("/api/people/2147483648?lang=fr")
    assert r.status_code == 400 and r.json()["error"] == "un nombre de la requête est bien trop grand", r.text
