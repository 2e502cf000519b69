"""The site's own pages (domain ``site``) in German and French: a browser that asks for the language by
``Accept-Language`` reads the home, sign-in, variants, open games and account pages in it, with no English
sentence of the catalogue left on them; and every text the site's templates and modules mark has its German
and French translation (a marked text missing from a catalogue shows in English on a German page)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.pofile import read_po

import dippouch
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site

PACKAGE = Path(dippouch.__file__).parent
TEMPLATES = PACKAGE / "web" / "templates"
DOMAIN = "site"
MARK = re.compile(r"^\{#\s*i18n:\s*(\w+)\s*#\}")
DOMAIN_LINE = re.compile(r'^I18N_DOMAIN\s*=\s*"(\w+)"', re.M)


def _templates() -> list[Path]:
    return [p for p in sorted(TEMPLATES.glob("*.html")) if (m := MARK.match(p.read_text())) and m[1] == DOMAIN]


def _modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if (m := DOMAIN_LINE.search(p.read_text())) and m[1] == DOMAIN]


def _marked(path: Path) -> list[tuple[str | tuple[str, ...], str | None]]:
    """The texts ``path`` marks, each with its context (``pgettext("press kind", "white")``) or ``None``, read
    by Babel's extractors (the Jinja one for a template)."""
    if path.suffix == ".html":
        method, options = "jinja2.ext:babel_extract", {"extensions": "jinja2.ext.i18n", "newstyle_gettext": "true"}
    else:
        method, options = "python", {}
    found = extract_from_file(method, str(path), keywords=DEFAULT_KEYWORDS, options=options)
    return [(msg, context) for _, msg, _, context in found]


def _messages(path: Path) -> list[str | tuple[str, ...]]:
    """The texts ``path`` marks."""
    return [msg for msg, _ in _marked(path)]


def _catalogue(lang: str) -> Catalog:
    with (PACKAGE / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def _untranslated(
    marked: list[str | tuple[str, ...]], catalogue: Catalog, contexts: list[str | None] | None = None
) -> list[str | tuple[str, ...]]:
    """The marked texts ``catalogue`` has no translation of (none, or an empty one), each read under its
    context if ``contexts`` gives them (a text marked with one is another message than the same without)."""
    out = []
    for msg, context in zip(marked, contexts or [None] * len(marked), strict=True):
        got = catalogue.get(msg[0] if isinstance(msg, tuple) else msg, context=context)
        strings = got.string if got is not None else None
        if not strings or (isinstance(strings, tuple) and not all(strings)):
            out.append(msg)
    return out


def test_the_site_templates_and_modules_are_marked() -> None:
    names = {p.name for p in _templates()}
    assert {"base.html", "index.html", "signin.html", "me.html", "open.html", "opening.html"} <= names
    assert {"accounts.py", "openings.py", "notify.py"} <= {p.name for p in _modules()}


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_every_marked_text_of_the_site_has_its_translation(lang: str) -> None:
    marked = [m for p in [*_templates(), *_modules()] for m in _marked(p)]
    assert len(marked) > 300
    assert _untranslated([msg for msg, _ in marked], _catalogue(lang), [context for _, context in marked]) == []


def test_a_marked_text_missing_from_the_catalogue_is_found() -> None:
    """The check above can fail: a text the catalogue lacks, or holds untranslated, is listed."""
    catalogue = _catalogue("de")
    catalogue.add("A sentence nobody translated", "")
    assert _untranslated(["Sign in", "A sentence nobody translated", "Not in the catalogue at all"], catalogue) == [
        "A sentence nobody translated",
        "Not in the catalogue at all",
    ]


# --------------------------------------------------------------------------------------------------
# The pages, as a German or French browser reads them


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _sentences(*templates: str) -> list[str]:
    """The English sentences ``templates`` mark (three words or more, no value put in): none may be left on a
    translated page."""
    out = []
    for name in templates:
        for msg in _messages(TEMPLATES / name):
            text = msg[0] if isinstance(msg, tuple) else msg
            if "%(" not in text and len(text.split()) >= 3:
                out.append(text.replace("%%", "%"))
    return out


def _english_left(page: str, sentences: list[str]) -> list[str]:
    shown = html.unescape(page)
    return [s for s in sentences if s in page or html.unescape(s) in shown]


def _person(site: Site, name: str) -> Any:
    pid = create_person(site.web.store, name, now=site.clock())
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, token)
    return c


PAGES = {
    # page: (its template, the German words it must show, the French ones)
    "/": ("index.html", ["Diplomacy-Partien", "Übungspartie starten", "Offene Partien"],
          ["Parties de Diplomatie", "Lancer une partie d’entraînement", "Parties ouvertes"]),
    "/signin": ("signin.html", ["Link per Mail schicken", "Mit Passkey anmelden"],
                ["M’envoyer un lien", "Se connecter avec une clé d’accès"]),
    "/variants": ("variants.html", ["Regeln und Karte", "7 Mächte", "34 Versorgungszentren"],
                  ["Règles et carte", "7 puissances", "34 centres de ravitaillement"]),
    "/variants/standard": ("variant.html", ["Regeln in Kürze", "Heimatzentren", "Versorgungszentrum"],
                           ["Règles en bref", "Centres d’origine", "centre de ravitaillement"]),
    "/open": ("open.html", ["Partie finden", "Wartet auf Spieler", "Ersatz gesucht"],
              ["Trouver une partie", "En attente de joueurs", "Remplaçant recherché"]),
    "/ratings": ("ratings.html", ["Ruhmeshalle"], ["Panthéon"]),
}  # fmt: skip

ACCOUNT_PAGES = {
    "/me": ("me.html", ["Meine Partien", "Mein Kalender", "Passkey hinzufügen", "Sie spielen noch keinen Platz."],
            ["Mes parties", "Mon agenda", "Ajouter une clé d’accès", "Vous ne jouez encore aucune place."]),
    "/notifications": ("notifications.html", ["Benachrichtigungen", "Ihre Partie beginnt", "Webhook hinzufügen"],
                       ["Notifications", "Votre partie commence", "Ajouter le webhook"]),
    "/me/absences": ("absences.html", ["Abwesenheit eintragen"], ["Indiquer une absence"]),
    "/me/addresses": ("addresses.html", ["Adresse hinzufügen"], ["Ajouter une adresse"]),
    "/new-game": ("new_game.html", ["Partie starten", "Vorlage"], ["Lancer la partie", "Modèle"]),
}  # fmt: skip


@pytest.mark.parametrize("lang", ["de", "fr"])
@pytest.mark.parametrize("path", list(PAGES))
def test_a_page_in_the_browser_language(site: Site, path: str, lang: str) -> None:
    template, de, fr = PAGES[path]
    r = site.browser().get(path, headers={"Accept-Language": f"{lang}-CH,{lang};q=0.9,en;q=0.5"})
    assert r.status_code == 200, r.text
    assert f'<html lang="{lang}">' in r.text
    for words in de if lang == "de" else fr:
        assert words in r.text, words
    assert _english_left(r.text, _sentences(template, "base.html")) == []


@pytest.mark.parametrize("lang", ["de", "fr"])
@pytest.mark.parametrize("path", list(ACCOUNT_PAGES))
def test_an_account_page_in_the_browser_language(site: Site, path: str, lang: str) -> None:
    template, de, fr = ACCOUNT_PAGES[path]
    c = _person(site, "Anna")
    r = c.get(path, headers={"Accept-Language": lang})
    assert r.status_code == 200, r.text
    for words in de if lang == "de" else fr:
        assert words in r.text, words
    assert _english_left(r.text, _sentences(template, "base.html")) == []


def test_the_english_page_is_unchanged(site: Site) -> None:
    """No Accept-Language, or English: the source text, as before the pages were marked."""
    for accept in (None, "en-GB,en;q=0.9"):
        headers = {"Accept-Language": accept} if accept else {}
        page = site.browser().get("/", headers=headers).text
        assert "<h1>Diplomacy games</h1>" in page and "Start a practice game" in page
        assert "Übungspartie" not in page


def test_a_flash_message_in_the_browser_language(site: Site) -> None:
    """Text a route writes itself (here the sign-out's) follows the page's language too."""
    c = site.browser()
    r = site.post_form(c, "/signout", headers={"Accept-Language": "fr"})
    assert r.status_code == 303
    page = c.get("/", headers={"Accept-Language": "fr"}).text
    assert "Déconnecté." in page and "Signed out." not in page


@pytest.mark.parametrize(("lang", "heading"), [("en", "Spring 1901 Movement"), ("de", "Frühjahr 1901 Bewegung")])
def test_a_variants_opening_map_is_headed_in_the_readers_words(site: Site, lang: str, heading: str) -> None:
    """The map drawn on a variant's page names its phase in the reader's words, as a game's does (it was drawn
    once for everyone, in English, with an English sentence for its title)."""
    page = site.browser().get("/variants/standard", headers={"Accept-Language": lang}).text
    titles = [html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", page)]
    assert f"Standard Diplomacy: {heading}" in titles, titles
    assert lang == "en" or "opening position" not in page


@pytest.mark.parametrize(("lang", "default"), [("en", "default false"), ("de", "Standard false")])
def test_a_variants_yes_or_no_option_shows_its_default_as_it_is_set(site: Site, lang: str, default: str) -> None:
    """A yes-or-no option's default reads as the option is set (``-o judge_calendar=false``), not as Python
    spells it (``False``)."""
    page = site.browser().get("/variants/hundred3", headers={"Accept-Language": lang}).text
    assert f"<code>judge_calendar</code> ({default})" in page
