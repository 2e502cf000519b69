"""Map entry in the reader's language (issue 41): what click entry says of a unit or a build site is the pick
lists' name for it, and that name was made in English on every page: a W3K unit handed over by its owner was
"Army Deptford (Protectorate's, handed to Manchester this season)" on a German or French page, the season in
English, and a build site "Build site Brest". The names are now made in the page's language (the places and
powers as the variant writes them); the JSON API keeps its English."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from test_web_entry_browser import _point_in

from browsersupport import DESKTOP, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import submissions as store_submissions

T0 = datetime.now(UTC)
LOCALES = {"de": "de-DE", "fr": "fr-FR"}
HANDED = {
    "de": "Armee Deptford (von Protectorate, in dieser Jahreszeit Manchester übergeben)",
    "fr": "Armée Deptford (de Protectorate, confiée à Manchester cette saison)",
}
SITE = {"de": "Aufbauort Brest", "fr": "Lieu de construction Brest"}
WHICH_BUILD = {"de": "Was soll in Marseilles aufgebaut werden?", "fr": "Que construire en Marseilles ?"}


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "fr"])
def test_map_entry_names_a_unit_handed_over_in_the_pages_language(live_site: LiveSite, lang: str) -> None:
    from playwright.sync_api import expect

    store_games.create_game(live_site.store, "kingdoms", "w3k", now=T0)
    store_games.assign(live_site.store, "kingdoms", "Manchester", "Player", now=T0)
    store_submissions.submit(
        live_site.store, "kingdoms", "Protectorate", "Army Deptford is under the orders of Manchester", now=T0
    )
    page = live_site.player("kingdoms", "Manchester", DESKTOP, locale=LOCALES[lang])
    errors = watch_errors(page)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    page.locator("details.picks").evaluate("d => d.open = true")
    label = page.locator("label.pick", has=page.locator("select[name='pick:dep']"))
    expect(label).to_contain_text(HANDED[lang])
    # Click entry says the same: the unit chosen on the map, by the name its list has.
    token = page.locator("[data-interactive] #unit-dep").bounding_box()
    assert token is not None
    page.mouse.click(token["x"] + token["width"] / 2, token["y"] + token["height"] / 2)
    status = page.locator("#click-status")
    expect(status).to_contain_text(HANDED[lang])
    shoot(page, "web", f"map-entry-handed-over-{lang}", full_page=False)
    for english in ("this season", "handed to", "Army "):
        assert english not in status.inner_text() and english not in label.inner_text(), english
    # The API's answer keeps the English (scripts read it).
    answer = page.request.get(f"{live_site.base}/api/games/kingdoms/powers/Manchester").json()
    dep = next(u for u in answer["legal"] if u["province"] == "dep")
    assert dep["label"] == "Army Deptford (Protectorate's, handed to Manchester this season)"
    assert errors == [], errors


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "fr"])
def test_map_entry_names_a_build_site_in_the_pages_language(live_site: LiveSite, lang: str) -> None:
    from playwright.sync_api import expect

    store_games.create_game(
        live_site.store,
        "builds",
        "standard",
        now=T0,
        position={
            "phase": "Winter 1901 Adjustments",
            "units": [{"power": "France", "unit": "A spa"}, {"power": "France", "unit": "F por"}],
            "supply_centers": {"France": ["par", "bre", "mar", "spa", "por"]},
        },
    )
    store_games.assign(live_site.store, "builds", "France", "Player", now=T0)
    page = live_site.player("builds", "France", DESKTOP, locale=LOCALES[lang])
    errors = watch_errors(page)
    page.locator("[data-map][data-viewer-ready]").wait_for()
    labels = page.locator("label.pick > span").all_inner_texts()
    assert SITE[lang] in labels and not any("Build site" in t for t in labels), labels
    # A click on a site with a choice of builds asks what to build there, naming the place as the map does.
    at = _point_in(page, "mar")
    page.mouse.click(at["x"], at["y"])
    expect(page.locator("[data-interactive] .chooser")).to_contain_text(WHICH_BUILD[lang])
    assert errors == [], errors
