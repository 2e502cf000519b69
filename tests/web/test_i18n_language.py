"""The reader's language: the browser's (Accept-Language), the browser's choice (the ``lang`` cookie, set by the
footer's form), a signed-in person's stored choice; the page says which (``<html lang>``, Content-Language)
and that it differs by them (Vary); the anonymous game page is cached once per language."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from dippouch.game import GameError
from dippouch.i18n import translations
from dippouch.store.people.persons import Preferences, clean_time_zone, create_person, preferences
from dippouch.web.http.security import SESSION_COOKIE
from dippouch.web.routes.language import same_site_path
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo", movement="2d")
    return s


def person_browser(site: Site, name: str = "Ann", pid: int | None = None) -> tuple[int, TestClient]:
    """A browser signed in as a new person ``name`` (or as person ``pid``)."""
    pid = pid if pid is not None else create_person(site.web.store, name, now=site.clock())
    c = TestClient(site.app, raise_server_exceptions=False)
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return pid, c


def html_lang(page: str) -> str:
    m = re.search(r'<html lang="([a-z]+)"', page)
    assert m, page[:300]
    return m.group(1)


@pytest.mark.parametrize(
    ("accept", "lang"), [("de-DE,de;q=0.9,en;q=0.5", "de"), ("fr-CH, fr;q=0.9", "fr"), ("es", "en")]
)
def test_the_browsers_language_is_the_pages(site: Site, accept: str, lang: str) -> None:
    r = site.browser().get("/", headers={"Accept-Language": accept})
    assert r.status_code == 200
    assert html_lang(r.text) == lang
    assert r.headers["content-language"] == lang
    vary = {v.strip().lower() for v in r.headers["vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary


def test_the_language_choice_lists_each_language_in_itself(site: Site) -> None:
    page = site.browser().get("/", headers={"Accept-Language": "de"}).text
    form = page[page.index('action="/language"') :]
    form = form[: form.index("</form>")]
    assert 'lang="en"' in form and ">English<" in form and ">Deutsch<" in form and ">Français<" in form
    # The page's own language is shown, not offered; the others are buttons, each in its own language.
    assert '<strong lang="de" aria-current="true">Deutsch</strong>' in form
    assert '<button class="link" name="lang" value="fr" lang="fr">Français</button>' in form
    assert 'value="de"' not in form
    assert 'aria-label="Sprache"' in form  # the form's name, in the page's language
    assert 'name="next" value="/"' in form


def test_a_chosen_language_is_kept_by_the_browser(site: Site) -> None:
    c = site.browser()
    r = site.post_form(c, "/language", {"lang": "fr", "next": "/games/demo"}, headers={"Accept-Language": "de"})
    assert r.status_code == 303 and r.headers["location"] == "/games/demo"
    assert c.cookies.get("lang") == "fr"
    for path in ("/", "/games/demo"):
        got = c.get(path, headers={"Accept-Language": "de"})
        assert html_lang(got.text) == "fr" and got.headers["content-language"] == "fr", path


def test_an_unknown_language_is_refused_in_words(site: Site) -> None:
    c = site.browser()
    r = site.post_form(c, "/language", {"lang": "xx"})
    assert r.status_code == 400
    assert "There is no language &#39;xx&#39; here: choose one of English (en), Deutsch (de), Français (fr)." in r.text
    assert c.cookies.get("lang") is None
    r = site.post_form(c, "/language", {"lang": "xx"}, headers={"Accept-Language": "de"})
    assert "Die Sprache &#39;xx&#39; gibt es hier nicht" in r.text


def test_a_refused_choice_goes_back_to_its_page(site: Site) -> None:
    c = site.browser()
    r = site.post_form(c, "/language", {"lang": "klingon"}, headers={"Referer": "http://testserver/games/demo"})
    assert r.status_code == 303 and r.headers["location"] == "/games/demo"
    assert "There is no language" in c.get("/games/demo").text


def test_the_choice_needs_the_pages_token(site: Site) -> None:
    c = site.browser()
    r = c.post("/language", data={"lang": "de"}, follow_redirects=False)
    assert r.status_code == 403
    assert c.cookies.get("lang") is None


@pytest.mark.parametrize(
    ("given", "back"),
    [
        ("/games/demo?x=1", "/games/demo?x=1"),
        ("/", "/"),
        ("", "/"),
        ("//evil.example/x", "/"),
        ("https://evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("javascript:alert(1)", "/"),
        ("/a\r\nSet-Cookie: x=1", "/"),
        ("games/demo", "/"),
    ],
)
def test_only_a_path_of_this_site_is_followed_back(given: str, back: str) -> None:
    assert same_site_path(given) == back


def test_the_redirect_never_leaves_the_site(site: Site) -> None:
    c = site.browser()
    r = site.post_form(c, "/language", {"lang": "de", "next": "//evil.example/"})
    assert r.status_code == 303 and r.headers["location"] == "/"


def test_a_signed_in_persons_choice_is_stored_and_followed_in_their_other_browsers(site: Site) -> None:
    pid, laptop = person_browser(site)
    r = site.post_form(laptop, "/language", {"lang": "de", "next": "/me"})
    assert r.status_code == 303 and r.headers["location"] == "/me"
    assert preferences(site.web.store, pid) == Preferences("de", None)
    # Another browser of theirs, which never chose, with an English browser language: German.
    _, phone = person_browser(site, pid=pid)
    got = phone.get("/", headers={"Accept-Language": "en"})
    assert html_lang(got.text) == "de" and got.headers["content-language"] == "de"
    # Signed out, the browser is asked again.
    assert html_lang(site.browser().get("/", headers={"Accept-Language": "en"}).text) == "en"


def test_a_browsers_own_choice_wins_over_the_stored_one(site: Site) -> None:
    pid, laptop = person_browser(site)
    site.post_form(laptop, "/language", {"lang": "de"})
    _, other = person_browser(site, pid=pid)
    site.post_form(other, "/language", {"lang": "fr"})  # stored now: fr
    laptop.cookies.set("lang", "de")
    assert html_lang(laptop.get("/").text) == "de"
    assert preferences(site.web.store, pid).language == "fr"


def _queries(site: Site) -> list[str]:
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    for engine in {site.web.store.engine, site.web.read.engine}:
        sa.event.listen(engine, "before_cursor_execute", count)
    return seen


def test_the_stored_choice_is_read_once_a_minute_not_on_every_page(site: Site) -> None:
    """Measured: a signed-in person's page reads their stored language once; the next pages within
    CHOICE_TTL read nothing more for it (the session lookup is unchanged)."""
    _, c = person_browser(site)
    site.post_form(c, "/language", {"lang": "fr"})
    c.cookies.delete("lang")
    site.web.kept("language.choices", dict).clear()
    seen = _queries(site)
    for _ in range(3):
        assert html_lang(c.get("/").text) == "fr"
    reads = [q for q in seen if q.startswith("SELECT people.id, people.language, people.time_zone")]
    assert len(reads) == 1, reads


def test_a_time_zone_is_kept_for_a_signed_in_person(site: Site) -> None:
    pid, c = person_browser(site)
    page = c.get("/me").text
    assert page.count('action="/language/zone"') == 1  # on the account page only, once
    assert 'action="/language/zone"' not in c.get("/").text
    r = site.post_form(c, "/language/zone", {"zone": "europe/berlin", "next": "/me"})
    assert r.status_code == 400 and "There is no time zone &#39;europe/berlin&#39;" in r.text
    r = site.post_form(c, "/language/zone", {"zone": "Europe/Berlin", "next": "/me"})
    assert r.status_code == 303 and r.headers["location"] == "/me"
    assert preferences(site.web.store, pid).time_zone == "Europe/Berlin"
    assert 'value="Europe/Berlin"' in c.get("/me").text
    site.post_form(c, "/language/zone", {"zone": "", "next": "/me"})
    assert preferences(site.web.store, pid).time_zone is None


@pytest.mark.parametrize("zone", ["Europe", "America/Argentina", "../../etc", "/etc/localtime", "Europe/Berlin\x00"])
def test_a_folder_or_a_path_is_no_time_zone(site: Site, zone: str) -> None:
    """``Europe`` is a folder of the zone database: refused like any unknown zone, where it answered 500
    (IsADirectoryError; security review, finding 8). A person's zone is read as a game's is."""
    pid, c = person_browser(site)
    r = site.post_form(c, "/language/zone", {"zone": zone, "next": "/me"})
    assert r.status_code == 400, r.text
    assert f"There is no time zone {zone.strip()!r}: write it as" in html.unescape(r.text)
    assert preferences(site.web.store, pid).time_zone is None
    with pytest.raises(GameError, match="unknown time zone"):
        clean_time_zone(zone)


def test_a_time_zone_needs_a_person(site: Site) -> None:
    r = site.post_form(site.browser(), "/language/zone", {"zone": "Europe/Berlin"})
    assert r.status_code == 401


def test_the_anonymous_game_page_is_cached_once_per_language(site: Site) -> None:
    c = site.browser()
    pages = {lang: c.get("/games/demo", headers={"Accept-Language": lang}) for lang in ("en", "de", "fr", "de")}
    for lang, r in pages.items():
        assert r.status_code == 200
        assert html_lang(r.text) == lang and r.headers["content-language"] == lang
        assert "accept-language" in r.headers["vary"].lower()
    assert {("game", "demo", "en"), ("game", "demo", "de"), ("game", "demo", "fr")} <= set(site.web.pages)
    # Served from memory, in the language asked for.
    again = c.get("/games/demo", headers={"Accept-Language": "fr"})
    assert html_lang(again.text) == "fr"


def test_static_files_keep_their_caching(site: Site) -> None:
    c = site.browser()
    page = c.get("/").text
    css = re.search(r'href="(/static/app\.css\?v=[^"]+)"', page)
    assert css
    r = c.get(css.group(1).replace("&amp;", "&"), headers={"Accept-Language": "de"})
    assert r.status_code == 200
    assert "immutable" in r.headers["cache-control"]
    assert "content-language" not in r.headers and "accept-language" not in r.headers.get("vary", "").lower()


HOME_SENTENCES = (
    "Diplomacy games",
    "Play Diplomacy and its variants by web, e-mail or post: join an open game, start one of your own, or practise "
    "against bots at once.",
    "Join an open game",
    "Start a game",
)
"""Sentences of the home page (index.html, domain site), looked for in each language as its catalogue says them."""


def _home_in(page: str, lang: str) -> None:
    """The home page's sentences as ``lang``'s catalogue writes them, and no English one left (for English:
    the English)."""
    t = translations(lang)
    for sentence in HOME_SENTENCES:
        said = html.escape(t.gettext(sentence), quote=False)
        if lang != "en":
            assert said != html.escape(sentence, quote=False), f"{sentence!r} has no {lang} translation"
            assert html.escape(sentence, quote=False) not in page, sentence
        assert said in page, (lang, said)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_home_page_in_the_browsers_language(site: Site, lang: str) -> None:
    accept = {"en": "en-GB,en;q=0.9", "de": "de-AT,de;q=0.9,en;q=0.3", "fr": "fr-FR,fr;q=0.9,en;q=0.3"}[lang]
    page = site.browser().get("/", headers={"Accept-Language": accept}).text
    assert html_lang(page) == lang
    _home_in(page, lang)


def test_the_home_page_in_the_chosen_and_the_stored_language(site: Site) -> None:
    c = site.browser()
    site.post_form(c, "/language", {"lang": "fr"})
    _home_in(c.get("/", headers={"Accept-Language": "de"}).text, "fr")
    pid, ann = person_browser(site)
    site.post_form(ann, "/language", {"lang": "de"})
    _, phone = person_browser(site, pid=pid)  # never chose: the stored choice
    _home_in(phone.get("/", headers={"Accept-Language": "fr"}).text, "de")
