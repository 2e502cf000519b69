"""The coordinator's new-game form chooses the game's scoring system and the language of its mail: both are
offered (the language the page is read in first), stored with the game, and a name that is no system is
refused in words, the form kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.store import games as store_games
from dippouch.store import status as store_status
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'g.db'}")


def test_the_form_offers_the_systems_and_languages(site: Site) -> None:
    page = site.coordinator.get("/coordinate", headers={"Accept-Language": "de"}).text
    assert '<select name="scoring">' in page and '<option value="sos">' in page and "Carnage" in page
    assert '<option value="de" lang="de" selected>Deutsch</option>' in page
    assert '<option value="fr" lang="fr">Français</option>' in page


def test_a_game_is_made_with_its_system_and_language(site: Site) -> None:
    site.new_game("g", scoring="sos", language="fr")
    settings = store_status.status(site.web.store, "g", now=site.clock()).settings
    assert settings.scoring == "sos" and settings.language == "fr"
    site.new_game("plain")
    settings = store_status.status(site.web.store, "plain", now=site.clock()).settings
    assert settings.scoring is None and settings.language == "en"


def test_an_unknown_system_is_refused_in_words(site: Site) -> None:
    r = site.post_form(site.coordinator, "/coordinate/new", {"name": "g", "variant": "standard", "scoring": "carnge"})
    assert r.status_code in (303, 400), r.text
    shown = site.coordinator.get(r.headers["location"]).text if r.status_code == 303 else r.text
    assert "did you mean &#39;carnage&#39;" in shown or "did you mean 'carnage'" in shown
    assert "g" not in {row[0] for row in store_games.games(site.web.store)}
