"""The lobby's press rules and the lower layers' refusals on pages other than the player's, in the page's language
(issue 41, point 4).

Checked on German and French pages on 2026-11-25 (after the player's page learnt to say the lower layers'
words): the open games' list and a game's opening showed the game's press rules in English ("White press: every
message names its sender. ..."), and so did the press kinds ("white", "grey"); a refusal of the play layer or the
store reached every page but the player's in English: a sign-up refused on the opening ("England is in your
wishes twice; rank each power once"), a message refused on a channel's page ("not sent (empty): the message is
empty: write something to send"), a filter refused on the list ("no press kind 'loud'; ..."), and what joining a
game tells the person ("You signed up to ..."). They are now described through the reader's catalogue
(:func:`dippouch.press.rules.describe`) and said from their message values by :func:`dippouch.saying.say`; the
JSON API's ``error`` is English unless a language is asked for. A finished game's open press page shows the rules that opened it, in its language.

The last tests make each message of the press rules and the lobby from the code that writes it and say it in
German and French: a message whose translation is missing fails there, not silently on a page."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dippouch.play.openings import Joined, resign_message
from dippouch.press.rules import Attempt, PressRules, refusal
from dippouch.saying import say
from dippouch.store import votes as store_votes
from dippouch.store.openings import Opening, Resigned
from dippouch.store.people.persons import create_person
from dippouch.store.press import messages as store_press
from dippouch.store.press.messages import PressRefused
from dippouch.web.http.security import SESSION_COOKIE
from websupport import ACCEPT, Site

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")

RULES = {
    "en": ["White press: every message names its sender.", "At most 5000 characters a message"],
    "de": ["Weiße Presse: jede Nachricht nennt ihren Absender.", "Höchstens 5000 Zeichen je Nachricht"],
    "fr": ["Presse blanche : chaque message nomme son expéditeur.", "Au plus 5000 caractères par message"],
}
"""A standard game's press rules (the variant's: white press), as the lobby describes them."""
KIND = {"en": ">white<", "de": ">weiß<", "fr": ">blanche<"}
"""The press kind in the list's column and filter."""


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _text(r: Any) -> str:
    return str(r.text).replace("&#39;", "'")


def _get(c: Any, url: str, lang: str, status: int = 200) -> str:
    r = c.get(url, headers={"Accept-Language": ACCEPT[lang]})
    assert r.status_code == status, r.text
    return _text(r)


def _person(site: Site, name: str) -> Any:
    pid = create_person(site.web.store, name, now=site.clock())
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def _opened(site: Site, name: str) -> None:
    site.new_game(name)
    r = site.api(site.coordinator, f"/api/games/{name}/opening", {"mode": "preferences"})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_lobby_describes_the_press_rules_in_the_page_s_language(site: Site, lang: str) -> None:
    _opened(site, "lobby")
    visitor = site.browser()
    for url in ("/open", "/games/lobby/opening"):
        page = _get(visitor, url, lang)
        for words in RULES[lang]:
            assert words in page, (url, lang, words)
        if lang != "en":
            for english in RULES["en"]:
                assert english not in page, (url, lang, "still in English", english)
    listing = _get(visitor, "/open", lang)
    assert listing.count(KIND[lang]) >= 2, (lang, "the kind in the column and the filter")  # column and filter
    # The JSON API keeps the English, whatever the browser asks.
    got = visitor.get("/api/open", headers={"Accept-Language": ACCEPT[lang]}).json()["games"][0]
    assert got["press"].startswith(RULES["en"][0]) and got["press_kind"] == "white"


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_finished_game_s_open_press_page_shows_its_rules_in_the_page_s_language(site: Site, lang: str) -> None:
    site.new_game("done")
    en = site.player("done", "England", "Ann")
    r = site.api(en, "/api/games/done/powers/England/press", {"to": ["all"], "text": "To the world"})
    assert r.status_code == 200, r.text
    for p in POWERS:
        store_votes.vote(site.web.store, "done", p, True, now=site.clock())
    site.web.touched("done")
    page = _get(site.browser(), "/games/done/press", lang)
    assert "To the world" in page and 'id="press-rules"' in page
    assert RULES[lang][0] in page and RULES["en"][0] not in page
    # The game file carries the rules as the store keeps them: in English.
    carried = store_press.export_press(site.web.store, "done", coordinator=False)
    assert carried is not None and carried["rules_text"][0] == RULES["en"][0]


def test_a_sign_up_refused_on_the_opening_is_said_in_german(site: Site) -> None:
    _opened(site, "lobby")
    c = _person(site, "Ann")
    form = {"wish1": "England", "wish2": "England"}
    headers = {"Accept-Language": ACCEPT["de"], "Referer": "http://testserver/games/lobby/opening"}
    r = site.post_form(c, "/games/lobby/opening/signup", form, headers=headers)
    assert r.status_code == 303 and r.headers["location"] == "/games/lobby/opening", r.text
    page = _get(c, "/games/lobby/opening", "de")
    assert "England steht zweimal in Ihren Wünschen; nennen Sie jede Macht nur einmal" in page
    assert "is in your wishes twice" not in page
    # Signed up after all: what the play layer tells the person, in German too.
    r = site.post_form(c, "/games/lobby/opening/signup", {"wish1": "England"}, headers=headers)
    assert r.status_code == 303, r.text
    page = _get(c, "/games/lobby/opening", "de")
    assert "Sie haben sich für lobby angemeldet; mit 6 weiteren Anmeldung(en) ist sie voll." in page
    # The JSON API answers the same refusal in English.
    r = site.api(c, "/api/games/lobby/signup", {"preferences": ["France", "France"]})
    assert r.status_code == 400 and r.json()["error"] == "France is in your wishes twice; rank each power once"


def test_a_message_refused_on_a_channel_s_page_is_said_in_german(site: Site) -> None:
    site.new_game("g")
    en = site.player("g", "England")
    r = site.api(en, "/api/games/g/powers/England/press", {"to": ["France"], "text": "Hello"})
    assert r.status_code == 200, r.text
    channel = r.json()["channel"]
    r = site.post_form(
        en,
        "/games/g/play/England/press",
        {"channel": str(channel), "text": "  ", "from": "channel"},
        headers={"Accept-Language": ACCEPT["de"]},
    )
    assert r.status_code == 303, r.text
    page = _get(en, str(r.headers["location"]).split("#")[0], "de")
    assert "nicht gesendet (leer): die Nachricht ist leer: schreiben Sie etwas, um sie zu senden" in page
    assert "the message is empty" not in page


@pytest.mark.parametrize(
    ("lang", "said_here"),
    [
        ("en", "no press kind 'loud'; choose one of none, white, grey, public, postal"),
        ("de", "keine Presseart 'loud'; wählen Sie eine von: none, white, grey, public, postal"),
        ("fr", "pas de type de presse 'loud' ; choisissez parmi : none, white, grey, public, postal"),
    ],
)
def test_a_filter_refused_on_the_list_is_said_in_the_page_s_language(site: Site, lang: str, said_here: str) -> None:
    page = _get(site.browser(), "/open?press=loud", lang, status=400)
    assert said_here in page
    api = site.browser().get("/api/open?press=loud", headers={"Accept-Language": ACCEPT[lang]})
    assert api.status_code == 400 and api.json()["error"].startswith("no press kind 'loud'")


def test_a_refusal_on_an_error_page_is_said_in_german(site: Site) -> None:
    """A refusal no form takes back (a claim of a seat nobody offers, posted without a page before it): the
    error page says it in the page's language."""
    site.new_game("g")
    c = _person(site, "Bo")
    r = site.post_form(c, "/games/g/opening/claim", {"power": "England"}, headers={"Accept-Language": ACCEPT["de"]})
    assert r.status_code == 400, r.text
    assert "England in g wird dem Ersatzpool nicht angeboten (oder wurde gerade übernommen)" in _text(r)


# --------------------------------------------------------------------------------------------------
# Every listed template reads the text its code writes


def _attempt(**kw: Any) -> Attempt:
    base: dict[str, Any] = {
        "sender": "England",
        "recipients": ("France",),
        "powers": POWERS,
        "phase_kind": "movement",
        "text": "Hello",
    }
    return Attempt(**(base | kw))


REFUSED = [
    (PressRules(), _attempt(text=" ")),
    (PressRules(max_length=3), _attempt()),
    (PressRules(), _attempt(recipients=())),
    (PressRules(kind="none", by_post=True), _attempt()),
    (PressRules(kind="none"), _attempt()),
    (PressRules(), _attempt(phase_kind=None)),
    (PressRules(quiet_phases=frozenset({"movement"})), _attempt()),
    (PressRules(quiet_phases=frozenset({"retreats"})), _attempt(phase_kind="retreats")),
    (PressRules(quiet_phases=frozenset({"adjustments"})), _attempt(phase_kind="adjustments")),
    (PressRules(kind="public"), _attempt()),
    (PressRules(kind="public"), _attempt(recipients=("France", "Germany"))),
    (PressRules(), _attempt(blocked_by=frozenset({"France"}))),
    (PressRules(per_minute=3), _attempt(sent_last_minute=3, free_in=1)),
    (PressRules(per_minute=3), _attempt(sent_last_minute=3, free_in=12)),
]


@pytest.mark.parametrize("lang", ["de", "fr"])
@pytest.mark.parametrize(("rules", "attempt"), REFUSED)
def test_every_press_refusal_listed_is_said_in_the_readers_language(
    rules: PressRules, attempt: Attempt, lang: str
) -> None:
    why = refusal(rules, attempt)
    assert why is not None
    refused = PressRefused(why)
    text = str(refused)
    got = say(refused.msg, lang)
    assert got != text and "not sent" not in got and str(why.message) not in got, (text, got)


def _opening(needed: int) -> Opening:
    now = datetime(2026, 11, 25, tzinfo=UTC)
    return Opening(
        game="lobby",
        variant="standard",
        press="",
        min_reliability=0,
        mode="preferences",
        opened_at=now,
        closed_at=None,
        powers=list(POWERS),
        empty=list(POWERS[:needed]),
        deadlines={},
        deadline=None,
    )


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_what_joining_and_leaving_tell_the_person_is_said_in_the_readers_language(lang: str) -> None:
    messages = [
        Joined("lobby", "England", _opening(0)).message,
        Joined("lobby", None, _opening(0), waiting_list=True).message,
        Joined("lobby", None, _opening(3)).message,
        resign_message(Resigned("lobby", None, "withdrawn")),
        resign_message(Resigned("lobby", "England", "freed")),
        resign_message(Resigned("lobby", "England", "pool")),
    ]
    for m in messages:
        text, got = str(m), say(m, lang)
        assert got != text and "lobby" in got, (text, got)
