"""The web's own refusals of every class (Forbidden, NeedsKey, NotFound, TooMany, Busy, BadInput) in German and
French (issue 41, point 4), made by the code that raises them.

51 of them were bare English on 2026-11-25: the ones made where no request's words are at hand are message
values (or texts marked for the catalogue, said whole), which the application's handler says for a page and for
the JSON API asked with ``?lang=``; the review's and the desk's are marked for the request's catalogue. These
make the refusals from the code and say them, so a message without its translation fails here.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.core.messages import Msg, msg
from dippouch.game import GameError
from dippouch.saying import say
from dippouch.web.http import deps
from dippouch.web.http.budget import WorkBudget
from dippouch.web.http.security import BadInput, RateLimiter, TooMany
from dippouch.web.routes import roster, sandbox, tournaments
from dippouch.web.views import maps
from websupport import Site

NOW = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


def _too_many(make: object) -> Msg:
    try:
        make()  # type: ignore[operator]
    except (TooMany, BadInput) as e:
        return e.msg
    raise AssertionError("expected a refusal")


def said(m: Msg | str, lang: str) -> str:
    """``m`` as a page in ``lang`` says it (a hint as the web words it)."""
    return say(m, lang, "web")


def test_a_rate_limit_says_what_it_counts_in_the_reader_s_language() -> None:
    limiter = RateLimiter({"signin": (1, 60.0)}, clock=lambda: 100.0)
    limiter.hit("signin", "1.2.3.4", "failed sign-ins")
    text = _too_many(lambda: limiter.hit("signin", "1.2.3.4", "failed sign-ins"))
    assert str(text) == "too many failed sign-ins from you: at most 1 in 60 seconds; try again in 61 s"
    assert said(text, "de") == (
        "zu viele fehlgeschlagene Anmeldungen von Ihnen: höchstens 1 in 60 Sekunden; versuchen Sie es in 61 s erneut"
    )
    assert said(text, "fr") == (
        "trop de connexions échouées de votre part : au plus 1 en 60 secondes ; réessayez dans 61 s"
    )


def test_a_spent_work_budget_is_said_in_german_and_french() -> None:
    text = _too_many(lambda: WorkBudget(0.0, 60.0).check("1.2.3.4"))
    assert str(text).startswith("you have used your share of the server's work"), text
    assert said(text, "de").startswith("Sie haben Ihren Anteil an der Arbeit des Servers verbraucht (0,0 s")
    assert said(text, "fr").startswith("vous avez utilisé votre part du travail du serveur (0,0 s")


def test_the_json_api_s_days_keep_their_field_names_in_german() -> None:
    text = _too_many(lambda: roster._api_days("2026-08-10", "2026-08-03"))
    assert said(text, "de") == (
        "last_day: 2026-08-03 liegt vor 'first_day' (2026-08-10); meinten Sie vom 2026-08-03 bis zum 2026-08-10?"
    )


@pytest.mark.parametrize(
    "text",
    [
        deps.NEED_PERSON,
        deps.NEEDS_KEY,
        roster.NEED_SIGN_IN,
        tournaments.NEED_SIGN_IN,
        tournaments.NEED_CREATOR,
        sandbox.NO_SANDBOX,
        sandbox.READ_ONLY,
        str(maps.NO_MAP),
    ],
)
def test_the_web_s_sign_in_and_address_texts_are_translated(text: str) -> None:
    for lang in ("de", "fr"):
        assert said(text, lang) != text, (lang, text)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_forbidden_and_not_found_on_pages_and_to_the_api_asked_for_a_language(site: Site) -> None:
    """Checked on 2026-11-25: a review page opened without a coordinator's key, a photograph that is not there
    and a phase that is not there were refused in English on German and French pages."""
    site.new_game("g")
    r = site.browser().get("/games/g/review", headers={"Accept-Language": "de"})
    assert r.status_code == 403
    assert "Sie brauchen einen Spielleiter-Schlüssel, um g zu leiten; melden Sie sich zuerst damit an" in html.unescape(
        r.text
    ), r.text[-1200:]
    r = site.coordinator.get("/games/g/review/photo/9", headers={"Accept-Language": "fr"})
    assert r.status_code == 404 and "aucune photo nº 9 dans g" in html.unescape(r.text), r.text[-1200:]
    r = site.coordinator.get("/games/g/phases/999", headers={"Accept-Language": "de"})
    assert r.status_code == 404
    assert "die Partie 'g' hat keine Phase mit der Kennung 999" in html.unescape(r.text), r.text[-1200:]
    r = site.coordinator.get("/api/games/g/phases/999?lang=fr")
    assert r.status_code == 404 and r.json()["error"] == "la partie 'g' n'a pas de phase d'identifiant 999"
    r = site.coordinator.get("/api/games/g/phases/999")
    assert r.json()["error"] == "game 'g' has no phase with id 999"  # the JSON API: English unless asked


def test_a_tournament_with_no_games_says_so_in_the_readers_words(tmp_path: Path) -> None:
    """Its games' list was English ("none yet") inside a German sentence unless the whole text was read back:
    a tournament with no games says so in a message of its own."""
    from dippouch.store.repository import GameStore
    from dippouch.store.tournaments.stored import create_tournament, remove_game

    store = GameStore(migrated_sqlite(tmp_path / "t.db"))
    try:
        create_tournament(store, "t", system="sos", variant=None, creator_id=None, now=NOW)
        with pytest.raises(GameError) as e:
            remove_game(store, "t", "g")
    finally:
        store.close()
    assert say(e.value.msg, "de") == "die Partie 'g' ist nicht im Turnier 't' (seine Partien: noch keine)"


def test_the_application_s_own_answers_are_in_the_page_s_language(site: Site) -> None:
    """Checked on 2026-11-25: a page that is not there and an address that does not take a method were answered
    in English on German and French pages (web/app.py's handlers); the JSON API keeps English unless asked."""
    c = site.browser()
    r = c.get("/no/such/page/here", headers={"Accept-Language": "de"})
    assert r.status_code == 404 and "diese Seite gibt es nicht" in html.unescape(r.text), r.text[-1200:]
    r = c.delete("/", headers={"Accept-Language": "fr"})
    assert r.status_code == 405
    assert "cette adresse n'accepte pas cette méthode" in html.unescape(r.text), r.text[-1200:]
    assert c.get("/api/no-such-thing").json()["error"] == "no such page"
    assert c.get("/api/no-such-thing?lang=fr").json()["error"] == "cette page n'existe pas"
    bug = msg("internal error %(id)s: this is a bug in dippouch; it has been logged under that id", id="0a1b2c")
    assert said(bug, "de") == (
        "interner Fehler 0a1b2c: das ist ein Fehler in dippouch; er wurde unter dieser Kennung protokolliert"
    )


def test_a_seat_not_signed_in_to_points_to_the_seat_s_own_link() -> None:
    """A practice game has no coordinator: the refusal names the link its player kept, as the mailed one."""
    from dippouch.web.http.service import Web

    refused = Web._not_signed_in("practice-1a2b3c", "Germany")
    text = refused.message
    assert text.startswith("you are not signed in as Germany in practice-1a2b3c: open the link to your seat")
    assert "coordinator" not in text
    text = refused.msg  # type: ignore[assignment]
    assert said(text, "de").startswith("Sie sind nicht als Germany in practice-1a2b3c angemeldet: öffnen Sie")
    assert said(text, "fr").startswith("vous n'êtes pas connecté comme Germany dans practice-1a2b3c : ouvrez")


def test_every_count_a_limit_names_is_one_list_and_translated() -> None:
    """What a rate limit counts is said inside its refusal by its id (``too many %(counted)s ...``): each text
    a caller of the limiter names (``limiter.hit(bucket, client, "failed sign-ins")``, and accounts' own
    ``_limit``) must be in :data:`dippouch.web.http.security.COUNTED`, the one list the catalogue takes them from, or
    a German page says it in English."""
    import ast

    from dippouch.web.http.security import COUNTED

    web = Path(__file__).resolve().parents[2] / "src" / "dippouch" / "web"
    named: set[str] = set()
    for path in web.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute | ast.Name)
                and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
                in ("hit", "failed", "_limit")
                and node.args
                and isinstance(last := node.args[-1], ast.Constant)
                and isinstance(last.value, str)
            ):
                named.add(last.value)
    assert {"failed sign-ins", "submissions", "sign-in attempts"} <= named
    assert named <= set(COUNTED), sorted(named - set(COUNTED))
    for lang in ("de", "fr"):
        assert all(say(what, lang) != what for what in COUNTED), lang
