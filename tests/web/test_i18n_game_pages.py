"""The game pages in the reader's language (the "games" catalogue): the game, phase, player, records, replay and
sandbox pages asked for in German and in French (the browser's Accept-Language) say their words in it, and
English stays as written; the scripts' words come in a JSON block in the page's language, and a script writes
them (a browser test: the replay's counter, stepped by its script, in German and French)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from browsersupport import LiveSite, running_site, watch_errors
from dbsupport import migrated_sqlite
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from websupport import ACCEPT, Site

# What each page says, in each language: a heading or button every visitor of that page sees.
WORDS: dict[str, dict[str, list[str]]] = {
    "game": {
        "en": ["History", "Latest results", "Deadlines calendar (.ics)"],
        "de": ["Verlauf", "Neueste Ergebnisse", "Kalender der Fristen (.ics)"],
        "fr": ["Historique", "Derniers résultats", "Calendrier des échéances (.ics)"],
    },
    "phase": {
        "en": ["Orders and results", "Open in a sandbox", "Results"],
        "de": ["Befehle und Ergebnisse", "In einem Sandkasten öffnen", "Ergebnisse"],
        "fr": ["Ordres et résultats", "Ouvrir dans un bac à sable", "Résultats"],
    },
    "player": {
        "en": ["Send orders", "Your units", "Orders for Fall 1901 Movement"],
        "de": ["Befehle senden", "Ihre Einheiten", "Befehle für Herbst 1901 Bewegung"],
        "fr": ["Envoyer les ordres", "Vos unités", "Ordres pour Automne 1901 Mouvements"],
    },
    "records": {
        "en": ["Centres by power", "Key events", "Scoring systems"],
        "de": ["Zentren nach Macht", "Schlüsselereignisse", "Wertungssysteme"],
        "fr": ["Centres par puissance", "Événements clés", "Systèmes de score"],
    },
    "replay": {
        "en": ["Every picture", "Take it with you", "3 pictures"],
        "de": ["Alle Bilder", "Zum Mitnehmen", "3 Bilder"],
        "fr": ["Toutes les images", "À emporter", "3 images"],
    },
    "sandbox": {
        "en": ["Edit the board", "Place a unit", "Adjudicate"],
        "de": ["Das Brett bearbeiten", "Eine Einheit platzieren", "Auswerten"],
        "fr": ["Modifier le plateau", "Placer une unité", "Résoudre"],
    },
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A game whose first movement phase is processed (results, a replay of three pictures) with France seated."""
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('i18n') / 'web.db'}", limits={})
    s.new_game("g")
    store_submissions.submit(s.web.store, "g", "France", "A par - bur", now=s.clock())
    assert store_processing.process(s.web.store, "g", now=s.clock(), force=True) == ["Spring 1901 Movement"]
    return s


@pytest.fixture(scope="module")
def pages(site: Site) -> dict[str, str]:
    """Each page's address (the player's page through France's own browser: see ``_get``)."""
    first = site.web.access.phases("g")[0]
    sandbox = site.post_form(site.browser(), "/sandbox", {"variant": "standard"})
    assert sandbox.status_code == 303, sandbox.text
    return {
        "game": "/games/g",
        "phase": f"/games/g/phases/{first.id}",
        "player": "/games/g/play/France",
        "records": "/games/g/records",
        "replay": "/games/g/replay",
        "sandbox": str(sandbox.headers["location"]),
    }


@pytest.fixture(scope="module")
def france(site: Site) -> Any:
    return site.player("g", "France", "Françoise")


def _get(site: Site, france: Any, page: str, url: str, lang: str) -> str:
    c = france if page == "player" else site.browser()
    r = c.get(url, headers={"Accept-Language": ACCEPT[lang]})
    assert r.status_code == 200, r.text
    return str(r.text)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
@pytest.mark.parametrize("page", sorted(WORDS))
def test_each_game_page_speaks_the_browser_s_language(
    site: Site, pages: dict[str, str], france: Any, page: str, lang: str
) -> None:
    text = _get(site, france, page, pages[page], lang)
    assert f'<html lang="{lang}"' in text
    for word in WORDS[page][lang]:
        assert word in text, f"{page} in {lang}: {word!r} not on the page"
    if lang != "en":
        for word in WORDS[page]["en"]:
            assert f">{word}<" not in text, f"{page} in {lang}: {word!r} still in English"


def test_power_and_province_names_stay_as_the_variant_gives_them(site: Site, pages: dict[str, str]) -> None:
    """Only the site's words are translated: the variant's names and the orders' notation are not (a phase's
    name is the calendar's words, said in the reader's language: "Frühjahr 1901")."""
    text = _get(site, site.browser(), "game", pages["game"], "de")
    assert "Frühjahr 1901" in text and "France" in text and "Centres:" not in text and "Zentren:" in text
    assert "Burgundy" in text and "Bourgogne" not in text


def test_the_scripts_words_come_in_the_page_s_language_and_english_needs_none(
    site: Site, pages: dict[str, str], france: Any
) -> None:
    def words(lang: str) -> dict[str, str] | None:
        text = _get(site, france, "player", pages["player"], lang)
        m = re.search(r'<script type="application/json" id="dp-words">(.*?)</script>', text, re.S)
        return json.loads(m.group(1)) if m else None

    assert words("en") is None  # the scripts write their own English
    de, fr = words("de"), words("fr")
    assert de is not None and fr is not None
    assert de["Send reply"] == "Antwort senden" and fr["Send reply"] == "Envoyer la réponse"
    # A placeholder is kept for the script to fill in.
    assert de["%(count)s unread"] == "%(count)s ungelesen" and fr["%(at)s of %(count)s"] == "%(at)s sur %(count)s"


def test_a_language_the_site_lacks_gets_english(site: Site, pages: dict[str, str], france: Any) -> None:
    r = site.browser().get(pages["records"], headers={"Accept-Language": "es-ES,es;q=0.9"})
    assert r.status_code == 200 and '<html lang="en"' in r.text and "Key events" in r.text


# --------------------------------------------------------------------------------------------------
# In a browser: a script's message in the page's language

T0 = datetime.now(UTC)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[LiveSite]:
    db = tmp_path_factory.mktemp("i18n-live") / "site.db"
    with running_site(migrated_sqlite(db), chromium) as s:
        store_games.create_game(s.store, "g", "standard", now=T0)
        store_submissions.submit(s.store, "g", "France", "A par - bur", now=T0)
        assert store_processing.process(s.store, "g", now=T0, force=True) == ["Spring 1901 Movement"]
        yield s


@pytest.mark.parametrize(("locale", "counter"), [("de-DE", "2 von 3"), ("fr-FR", "2 sur 3"), ("en-GB", "2 of 3")])
def test_the_replay_script_counts_in_the_page_s_language(live: LiveSite, locale: str, counter: str) -> None:
    page = live.context(locale=locale, reduced_motion="reduce").new_page()
    errors = watch_errors(page)
    page.goto(live.base + "/games/g/replay")
    page.locator("[data-replay][data-ready]").wait_for()
    page.locator("[data-step=forward]").click()
    assert page.locator("#replay-count").text_content() == counter
    if not locale.startswith("en"):
        # The play button's name is the script's too, and it says it in the page's language.
        label = page.locator("[data-play]").get_attribute("aria-label")
        assert label in {"de-DE": ("Abspielen",), "fr-FR": ("Lecture",)}[locale]
    assert not errors, errors
    page.context.close()


def test_the_roster_s_words_are_the_store_s_in_english() -> None:
    """The roster's choices are translated from the English the store keeps: same keys, same order, same text."""
    from dippouch.people.absences import POLICIES
    from dippouch.store.people.addresses import VISIBILITIES
    from dippouch.web.routes.roster import policy_words, visibility_words

    assert list(visibility_words(str).items()) == list(VISIBILITIES.items())
    assert list(policy_words(str).items()) == list(POLICIES.items())


def test_the_coordinator_s_roster_settings_in_french(site: Site) -> None:
    text = site.coordinator.get("/games/g/roster", headers={"Accept-Language": ACCEPT["fr"]}).text
    assert "Réglages (arbitre)" in text and "les joueurs de la partie et son arbitre" in text
    assert "un remplaçant désigné donne les ordres pour la place" in text


def test_the_replay_s_captions_in_german(site: Site, pages: dict[str, str], france: Any) -> None:
    """Each picture's words are a message said in the reader's language, the phase's name with them."""
    text = _get(site, france, "replay", pages["replay"], "de")
    assert "Frühjahr 1901 Bewegung: Befehle und Ergebnisse" in text and "Nach Frühjahr 1901 Bewegung" in text
    assert "Herbst 1901 Bewegung: das Brett jetzt" in text and "orders and results" not in text
    english = site.browser().get("/api/games/g/replay").json()
    assert [f["caption"] for f in english["frames"]][:2] == [
        "Spring 1901 Movement: orders and results",
        "After Spring 1901 Movement",
    ]


def test_the_desk_s_messages_in_german(site: Site) -> None:
    """What the desk says after an action (its flash) is in the coordinator's language; the JSON API's in English."""
    from urllib.parse import unquote

    game = site.new_game("h")
    r = site.post_form(site.coordinator, f"/games/{game}/coordinate/pause", headers={"Accept-Language": ACCEPT["de"]})
    assert r.status_code == 303, r.text
    flash = unquote(r.cookies.get("dp_flash") or "")
    assert flash.startswith("Angehalten mit") and "Restzeit auf der Uhr" in flash, flash
    said = site.api(site.coordinator, f"/api/games/{game}/actions", {"action": "resume"})
    assert said.status_code == 200 and said.json()["message"].startswith("Resumed; due"), said.text


def test_the_receipt_is_flashed_in_the_player_s_language() -> None:
    """The receipt a submission flashes is one sentence per fact in the reader's language (the English is as
    it was; the counts, versions and notes are filled in)."""
    from dippouch.web.routes.play import receipt_words
    from dippouch.web.views.answers.play import Receipt

    got = Receipt(
        phase="Spring 1901 Movement",
        power="France",
        version=2,
        late=True,
        ready=False,
        lines=[],
        stands=False,
        standing=1,
        ready_refused=None,
        accepted=0,
        rejected=1,
        processed=[],
        unordered=[],
        unordered_notes=[],
    )
    en = receipt_words(got, "en")
    assert en.startswith("Version 2 recorded: 0 orders accepted, 1 rejected. It has no accepted order, so it")
    assert "version 1 stands" in en and "after the deadline" in en
    de = receipt_words(got, "de")
    assert de.startswith("Version 2 gespeichert: 0 Befehle angenommen, 1 abgelehnt.") and "Version 1 gilt" in de
    fr = receipt_words(got, "fr")
    assert fr.startswith("Version 2 enregistrée") and "la version 1 reste valable" in fr
    # Readiness that moved the game on: one phase, or two at once (a Fall and a Winter nobody had to order).
    one = got.model_copy(update={"processed": ["Spring 1901 Movement"]})
    assert receipt_words(one, "en").endswith("Spring 1901 Movement has been processed.")
    two = got.model_copy(update={"processed": ["Fall 1901 Movement", "Winter 1901 Adjustments"]})
    assert receipt_words(two, "en").endswith("Fall 1901 Movement, Winter 1901 Adjustments have been processed.")
    assert receipt_words(two, "de").endswith("Herbst 1901 Bewegung, Winter 1901 Aufbau wurden ausgewertet.")
    assert receipt_words(two, "fr").endswith("ont été résolues.")
