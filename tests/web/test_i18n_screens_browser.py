"""The site in English, German and French in a real browser: the home page, the variants and a variant's page,
open games, the sandbox, ratings, tournaments, a game's page, its records and a player's page at desktop
(1366x768) and phone (390x844) sizes, each in the browser's language, with ``<html lang>`` set, the header's
words in that language, no script error and nothing wider than the screen (German words are long); and the
footer's language choice switching a page's language in place. Screenshots in test-artifacts/i18n/<page>-<lang>-<size>.png."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, is_phone, running_site, shoot, watch_errors, wider_than_window
from dbsupport import migrated_sqlite
from dippouch.store import games as store_games

LOCALES = {"en": "en-GB", "de": "de-DE", "fr": "fr-FR"}
OPENING = {"en": "Spring 1901 Movement", "de": "Frühjahr 1901 Bewegung", "fr": "Printemps 1901 Mouvements"}
FLEET = {"en": "Fleet Brest", "de": "Flotte Brest", "fr": "Flotte Brest"}
"""The phase and a unit as the player's page and the records name them (in English they were on every page)."""
GAME = "lingua"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[LiveSite]:
    """One site for the module: the tests read the same game, each in its own contexts (the language a page
    switches to is its browser's cookie), and a person made by one test is on no page another reads."""
    with running_site(migrated_sqlite(tmp_path_factory.mktemp("i18n") / "site.db"), chromium) as site:
        store_games.create_game(site.store, GAME, "standard", now=site.now())
        store_games.assign(site.store, GAME, "France", "Bruno", now=site.now())
        yield site


def _wider_than_screen(page: Any) -> int:
    """How many pixels the page is wider than its window (0: it fits)."""
    return wider_than_window(page)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "de", "fr"])
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_pages_in_each_language(game: LiveSite, lang: str, size: dict[str, int]) -> None:
    ctx = game.context(size, locale=LOCALES[lang])
    page = ctx.new_page()
    errors = watch_errors(page)
    where = "phone" if is_phone(size) else "desktop"
    key = game.player_key(GAME, "France")
    for name, address in (
        ("home", "/"),
        ("variants", "/variants"),
        ("variant", "/variants/standard"),
        ("open", "/open"),
        ("sandbox", "/sandbox"),
        ("ratings", "/ratings"),
        ("tournaments", "/tournaments"),
        ("game", f"/games/{GAME}"),
        ("records", f"/games/{GAME}/records"),
        ("player", f"/k/{key}"),
    ):
        page.goto(game.base + address)
        if name == "player":
            page.goto(f"{game.base}/games/{GAME}/play/France")
        assert page.evaluate("document.documentElement.lang") == lang, name
        # The header's words in the page's language (English only on English pages).
        nav = page.locator("header nav").inner_text().split()
        assert ("Variants" in nav) == (lang == "en"), f"{name} in {lang}: the header says {nav}"
        chooser = page.locator("footer form.language-choice")
        assert chooser.count() == 1, name
        assert chooser.locator('[aria-current="true"]').get_attribute("lang") == lang, name
        if name == "records":
            assert page.locator("#centre-table tbody th").first.text_content() == OPENING[lang]
        if name == "player":
            assert OPENING[lang] in page.locator(".orders-card h2").inner_text()
            assert FLEET[lang] in page.locator("label.pick span").all_inner_texts()
            assert FLEET[lang] in page.locator("ul.units").inner_text()
        if name == "player":  # the map's buttons whole, inside the map's frame, their words inside them
            frame = page.locator("[data-map]").first.bounding_box()
            assert frame is not None
            for button in page.locator("[data-map] .map-tools button").all():
                box, text = button.bounding_box(), button.inner_text()
                assert box is not None and box["x"] + box["width"] <= frame["x"] + frame["width"] + 0.5, (lang, text)
                assert button.evaluate("b => b.scrollWidth <= b.clientWidth"), f"{text!r} spills out of its button"
        shoot(page, "i18n", f"{name}-{lang}-{where}")
        assert _wider_than_screen(page) <= 0, f"{name} in {lang} at {where}: wider than the screen"
    assert not errors, errors
    ctx.close()


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_coordinators_pages_fit_a_phone_in_each_language(game: LiveSite, lang: str) -> None:
    """The desk and the coordinator's home at 390 px: their lists (a scoring system's name, the bot levels, the
    phases to roll back to) and a German tag or button row were up to 204 px wider than the screen."""
    page = game.key_page(game.coordinator_key, PHONE, locale=LOCALES[lang])
    errors = watch_errors(page)
    for name, address in (("coordinate", "/coordinate"), ("desk", f"/games/{GAME}/coordinate"), ("home", "/")):
        page.goto(game.base + address)
        assert page.evaluate("document.documentElement.lang") == lang, name
        shoot(page, "i18n", f"{name}-{lang}-phone")
        assert _wider_than_screen(page) <= 0, f"{name} in {lang}: wider than the screen"
    levels = page.locator("select[name=level] option").all_inner_texts()
    assert "heuristic" not in levels and len(levels) == 4, levels  # the reader's words, not the program's
    assert not errors, errors


@pytest.mark.slow
def test_the_footers_choice_switches_the_page_in_place(game: LiveSite) -> None:
    from playwright.sync_api import expect

    ctx = game.context(PHONE, locale="en-GB")
    page = ctx.new_page()
    page.goto(f"{game.base}/games/{GAME}")
    assert page.evaluate("document.documentElement.lang") == "en"
    page.locator('footer button[lang="fr"]').click()
    page.wait_for_url(f"{game.base}/games/{GAME}")
    assert page.evaluate("document.documentElement.lang") == "fr"
    expect(page.locator('footer [aria-current="true"]')).to_have_attribute("lang", "fr")
    expect(page.locator('footer button[lang="fr"]')).to_have_count(0)
    expect(page.locator("footer form.language-choice")).to_have_attribute("aria-label", "Langue")
    page.goto(f"{game.base}/")  # kept by the browser
    assert page.evaluate("document.documentElement.lang") == "fr"
    shoot(page, "i18n", "home-fr-chosen-phone")
    ctx.close()


@pytest.mark.slow
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_person_keeps_a_time_zone_on_their_account_page(game: LiveSite, size: dict[str, int]) -> None:
    from playwright.sync_api import expect

    from dippouch.store.people.persons import create_person, preferences

    pid = create_person(game.store, "Ann", now=game.now())
    ctx = game.person(pid, size, locale="de-DE")
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{game.base}/me")
    assert page.evaluate("document.documentElement.lang") == "de"
    zone = page.get_by_label("Zeitzone für Datum und Uhrzeit")
    expect(zone).to_have_count(1)  # on the account page once, not again in the footer
    zone.fill("Europe/Berlin")
    zone.press("Enter")
    page.wait_for_url(f"{game.base}/me")
    expect(page.get_by_label("Zeitzone für Datum und Uhrzeit")).to_have_value("Europe/Berlin")
    assert preferences(game.store, pid).time_zone == "Europe/Berlin"
    shoot(page, "i18n", f"me-de-{'phone' if is_phone(size) else 'desktop'}")
    assert _wider_than_screen(page) <= 0
    assert not errors, errors
    ctx.close()
