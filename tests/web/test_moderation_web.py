"""Blocks, reports and the installation's review of accounts on the web (issue 56): a person blocks another from
their profile or a message and unblocks them from their account page; the lobby warns the blocker and refuses
the blocked in neutral words; the review page's signals come from real sign-ins (two accounts signed in by
mailed links in one browser share its device cookie); reports are queued with their evidence and acted on;
merges and bans are logged. Nobody but the installation's coordinator reaches the review pages (404, as for a
page that does not exist), and no other page shows a signal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.play.press import send_press
from dippouch.play.seats import seat
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store.moderation import stored as store_moderation
from dippouch.store.people import accounts as store_accounts
from dippouch.store.people.persons import create_person, person_by_email, seats_of
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site, page_text, page_words

REVIEW = ("/desk/review/accounts", "/desk/review/reports")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})


def person(site: Site, name: str) -> tuple[int, Any]:
    """A person and a browser signed in as them (the session a mailed link leaves behind)."""
    pid = create_person(site.web.store, name, now=site.clock(), email=f"{name.lower()}@example.org")
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, token)
    c.get("/")
    return pid, c


def sign_in_by_mail(site: Site, email: str, name: str = "", browser: Any = None) -> Any:
    """A browser signed in (or up) by the link the site mails ``email``, used as a person uses it: the link's
    page, then its button (the sign-in every person makes; only the mail's delivery is left out)."""
    tokens: list[str] = []

    def compose(token: str, name: str | None, known: bool) -> tuple[str, str]:
        tokens.append(token)
        return "sign in", token

    store_accounts.create_signin_link(site.web.store, email, now=site.clock(), compose=compose, name=name or None)
    c = browser or site.browser()
    assert c.get(f"/signin/link/{tokens[0]}").status_code == 200
    r = site.post_form(c, f"/signin/link/{tokens[0]}", {"name": name} if name else {})
    assert r.status_code == 303, r.text
    return c


def _seated_game(site: Site, **seats: str) -> None:
    site.new_game("demo")
    for power, name in seats.items():
        seat(site.web.store, "demo", power, name, now=site.clock(), email=f"{name.lower()}@example.org")


def _flash(site: Site, c: Any, r: Any) -> str:
    """The words a form's answer shows: the next page's flash, or the refusal's page (a refused form posted
    without a page of ours before it is answered in place)."""
    if r.status_code == 303:
        return page_words(c.get(r.headers["location"]).text)
    assert r.status_code in (400, 403, 404), r.text
    return page_words(r.text)


# --------------------------------------------------------------------------------------------------
# Blocks


def test_a_person_blocks_from_a_profile_and_unblocks_from_the_account_page(site: Site) -> None:
    ann, a = person(site, "Ann")
    bob, b = person(site, "Bob")
    page = a.get(f"/people/{bob}")
    assert 'id="block-person"' in page.text
    assert "Blocked: no press passes between you" in _flash(site, a, site.post_form(a, f"/people/{bob}/block"))
    assert "You block this person" in a.get(f"/people/{bob}").text
    me = a.get("/me")
    assert 'id="blocks"' in me.text and f'href="/people/{bob}">Bob</a>' in me.text
    # Never shown to the blocked person: not on her profile, not on his account page.
    assert "You block" not in b.get(f"/people/{ann}").text
    assert "Ann" not in page_text(b.get("/me").text).split("People you block")[1].split("My data")[0]
    # Blocking oneself is refused, and said.
    r = site.post_form(a, f"/people/{ann}/block")
    assert r.status_code == 400 and "cannot block yourself" in r.text
    r = site.post_form(a, f"/people/{bob}/unblock", {"back": "me"})
    assert r.headers["location"] == "/me#blocks" and "Unblocked." in _flash(site, a, r)
    assert store_moderation.blocked_people(site.web.store, ann) == []
    # Without signing in as a person there is nobody to block for.
    anon = site.browser()
    assert site.post_form(anon, f"/people/{bob}/block").status_code == 401


def test_a_block_from_a_message_hides_press_both_ways_on_the_players_pages(site: Site) -> None:
    ann, a = person(site, "Ann")
    bob, b = person(site, "Bob")
    _seated_game(site, England="Ann", France="Bob")
    sent = send_press(
        site.web.store, "demo", "France", "Care for an alliance?", to=["England"], now=site.clock(), via="web"
    )
    page = a.get(f"/games/demo/play/England/press/{sent.channel}")
    assert "Care for an alliance?" in page.text and "Block the sender in every game" in page.text
    r = site.post_form(a, f"/games/demo/play/England/press-block/{sent.id}")
    assert "Blocked" in _flash(site, a, r)
    assert store_moderation.blocked_people(site.web.store, ann)[0].person_id == bob
    assert "Care for an alliance?" not in a.get(f"/games/demo/play/England/press/{sent.channel}").text
    # Her answer is stored (she is not refused) and never reaches him; his page does not say why.
    r = site.post_form(a, "/games/demo/play/England/press", {"to": "France", "text": "No thanks"})
    assert r.status_code == 303
    his = b.get(f"/games/demo/play/France/press/{sent.channel}").text
    assert "Care for an alliance?" in his and "No thanks" not in his
    assert "blocks you" not in his and "You block" not in his and "Blocked" not in his
    # A message one may not read cannot be used to block its sender.
    r = site.post_form(b, f"/games/demo/play/France/press-block/{sent.id + 1}")
    assert "cannot be blocked" in _flash(site, b, r)


def test_the_lobby_warns_the_blocker_and_refuses_the_blocked_in_neutral_words(site: Site) -> None:
    ann, a = person(site, "Ann")
    _, b = person(site, "Bob")
    dee, d = person(site, "Dee")
    r = site.post_form(d, "/new-game", {"template": "standard-1d-full", "name": "lobby"})
    assert r.status_code == 303
    site.post_form(b, f"/people/{ann}/block")  # Bob blocks Ann
    assert site.post_form(a, "/games/lobby/opening/signup", {"wish1": "any"}).status_code == 303
    page = b.get("/games/lobby/opening")
    assert "someone you block is in this game" in page.text and 'name="despite_block"' in page.text
    assert "someone you block" not in a.get("/games/lobby/opening").text
    r = site.post_form(b, "/games/lobby/opening/signup", {"wish1": "any"})
    assert r.status_code == 400 and "someone you block is in this game" in r.text
    r = site.post_form(b, "/games/lobby/opening/signup", {"wish1": "any", "despite_block": "1"})
    assert r.status_code == 303
    # The other way: Carl blocks Ann after she joined a game he is in; she is not told why she cannot join his.
    carl, c = person(site, "Carl")
    site.post_form(d, "/new-game", {"template": "standard-1d-full", "name": "second"})
    site.post_form(c, "/games/second/opening/signup", {"wish1": "any"})
    site.post_form(c, f"/people/{ann}/block")
    r = site.post_form(a, "/games/second/opening/signup", {"wish1": "any"})
    assert r.status_code == 400 and "cannot take your sign-up" in r.text and "block" not in page_words(r.text).lower()
    r = site.api(a, "/api/games/second/signup", {"preferences": ["any"]})
    assert r.status_code == 400 and "cannot take your sign-up" in r.json()["error"]
    opened = store_openings.opening(site.web.store, "second")
    assert opened is not None and [s.person_id for s in opened.signups] == [carl]
    assert dee


# --------------------------------------------------------------------------------------------------
# Devices and the review of accounts


def test_two_accounts_signed_in_on_one_browser_show_on_the_review_page_and_nowhere_else(
    site: Site,
) -> None:
    c = sign_in_by_mail(site, "ann@example.org", name="Ann")
    device = c.cookies.get("dp_device")
    assert device and len(device) >= 32
    sign_in_by_mail(site, "ann.alt+games@example.org", name="Alt", browser=c)
    assert c.cookies.get("dp_device") == device  # the browser keeps its id across accounts
    other = sign_in_by_mail(site, "cy@example.org", name="Cy")
    assert other.cookies.get("dp_device") != device
    ann = person_by_email(site.web.store, "ann@example.org")
    alt = person_by_email(site.web.store, "ann.alt+games@example.org")
    assert ann and alt
    page = site.coordinator.get("/desk/review/accounts")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert 'data-kind="device"' in page.text and f"(#{ann.id})" in page.text and f"(#{alt.id})" in page.text
    cy = person_by_email(site.web.store, "cy@example.org")
    assert cy is not None and f"(#{cy.id})" not in page.text  # (a bare "Cy" can be inside the page's CSRF token)
    # Stored hashed: the cookie's value is nowhere in the database.
    with site.web.store.engine.connect() as conn:
        stored = [r[0] for r in conn.exec_driver_sql("select device_hash from person_devices")]
    assert device not in stored and len(set(stored)) == 2
    # Every other viewer: 404 on the review pages and their actions, and no signal on their own pages.
    game_key = site.web.access.create_key("coordinator", game=site.new_game("demo"), label="gm", now=site.clock())[1]
    viewers = {"anonymous": site.browser(), "Alt": c, "Cy": other, "a game's coordinator": site.browser(game_key)}
    for who, v in viewers.items():
        for path in REVIEW:
            assert v.get(path).status_code == 404, (who, path)
        for path in ("/desk/review/accounts/ban", "/desk/review/accounts/merge", "/desk/review/reports/1"):
            r = site.post_form(v, path, {"person": str(ann.id), "from": str(alt.id), "into": str(ann.id)})
            assert r.status_code == 404, (who, path)
        for path in ("/me", f"/people/{ann.id}", f"/people/{alt.id}", "/"):
            text = v.get(path).text
            assert "one device" not in text and "Review of accounts" not in text, (who, path)
    assert store_moderation.banned(site.web.store, ann.id) is False


def test_a_second_account_of_one_device_is_refused_into_a_game_it_is_in(site: Site) -> None:
    c = sign_in_by_mail(site, "ann@example.org", name="Ann")
    dee, d = person(site, "Dee")
    site.post_form(d, "/new-game", {"template": "standard-1d-full", "name": "lobby"})
    assert site.post_form(c, "/games/lobby/opening/signup", {"wish1": "any"}).status_code == 303
    sign_in_by_mail(site, "bo@example.org", name="Bo", browser=c)
    r = site.post_form(c, "/games/lobby/opening/signup", {"wish1": "any"})
    assert r.status_code == 400 and "another account signed in on this device is in this game" in r.text
    assert dee


def test_merge_and_ban_are_done_and_logged(site: Site) -> None:
    _seated_game(site, England="Ann", France="Alt", Germany="Cy")
    store_openings.open_game(site.web.store, "demo", now=site.clock())  # a replacement pool for freed seats
    ann, alt, cy = (
        create_person(site.web.store, n, now=site.clock(), email=f"{n.lower()}@example.org")
        for n in ("Ann", "Alt", "Cy")
    )
    # Seats made before the people existed are linked now (the desk seats by address).
    for power, name in (("England", "Ann"), ("France", "Alt"), ("Germany", "Cy")):
        seat(site.web.store, "demo", power, name, now=site.clock(), replace=True, email=f"{name.lower()}@example.org")
    r = site.post_form(site.coordinator, "/desk/review/accounts/merge", {"from": str(alt), "into": str(ann)})
    assert "Merged" in _flash(site, site.coordinator, r)
    assert sorted(s.power for s in seats_of(site.web.store, ann)) == ["England", "France"]
    assert store_moderation.banned(site.web.store, alt)
    # A refused merge keeps what was typed and says why.
    r = site.post_form(site.coordinator, "/desk/review/accounts/merge", {"from": str(ann), "into": str(ann)})
    assert r.status_code == 400 and "cannot be merged into themselves" in _flash(site, site.coordinator, r)
    r = site.post_form(site.coordinator, "/desk/review/accounts/merge", {"from": "x", "into": str(ann)})
    assert r.status_code == 400 and "a number" in _flash(site, site.coordinator, r)
    # Ban: signed out at once, sign-in refused, seats freed through the seat use case.
    c = sign_in_by_mail(site, "cy@example.org")
    assert c.get("/me").status_code == 200
    r = site.post_form(
        site.coordinator, "/desk/review/accounts/ban", {"person": str(cy), "kind": "signin", "reason": "cheating"}
    )
    assert "Banned" in _flash(site, site.coordinator, r)
    assert c.get("/me").status_code == 401
    assert seats_of(site.web.store, cy) == []
    opening = store_openings.opening(site.web.store, "demo")
    assert opening is not None and "Germany" in opening.empty  # freed for sign-up (the game has not started)
    with pytest.raises(AssertionError):
        sign_in_by_mail(site, "cy@example.org")
    page = site.coordinator.get("/desk/review/accounts")
    assert "ban-signin" in page.text and "merge" in page.text and "cheating" in page.text


# --------------------------------------------------------------------------------------------------
# Reports


def test_reports_are_queued_with_their_evidence_and_acted_on(site: Site) -> None:
    ann, a = person(site, "Ann")
    bob, b = person(site, "Bob")
    _seated_game(site, England="Ann", France="Bob")
    sent = send_press(
        site.web.store, "demo", "France", "You will regret this", to=["England"], now=site.clock(), via="web"
    )
    store_openings.open_game(site.web.store, "demo", now=site.clock())
    assert 'href="/report?kind=game&amp;game=demo"' in a.get("/games/demo/opening").text
    assert a.get("/report?kind=game&game=demo").status_code == 200
    form = a.get(f"/report?kind=message&game=demo&power=England&message={sent.id}")
    assert form.status_code == 200 and 'id="report-form"' in form.text
    # Refusals: an empty reason (the form keeps its fields), a message that is not hers, an unknown kind, herself.
    r = site.post_form(
        a, "/report", {"kind": "message", "game": "demo", "power": "England", "message": str(sent.id), "reason": " "}
    )
    assert r.status_code == 400 and "say in a few words what is wrong" in _flash(site, a, r)
    r = site.post_form(
        b, "/report", {"kind": "message", "game": "demo", "power": "England", "message": str(sent.id), "reason": "x"}
    )
    assert r.status_code == 403
    r = site.post_form(
        a, "/report", {"kind": "message", "game": "demo", "power": "England", "message": "99999", "reason": "x"}
    )
    assert r.status_code == 404
    assert site.post_form(a, "/report", {"kind": "weather", "reason": "x"}).status_code == 400
    r = site.post_form(a, "/report", {"kind": "person", "person": str(ann), "reason": "me"})
    assert r.status_code == 400 and "cannot report yourself" in _flash(site, a, r)
    assert site.browser().get(f"/report?kind=person&person={bob}").status_code == 401
    # Three reports: the message, the person, the game.
    for data in (
        {"kind": "message", "game": "demo", "power": "England", "message": str(sent.id), "reason": "a threat"},
        {"kind": "person", "person": str(bob), "reason": "rude everywhere"},
        {"kind": "game", "game": "demo", "reason": "the coordinator never processes"},
    ):
        r = site.post_form(a, "/report", data)
        assert "Your report went to the site" in _flash(site, a, r)
    queue = site.coordinator.get("/desk/review/reports")
    words = page_words(queue.text)
    assert "You will regret this" in words and "a threat" in words and "Message from France" in words
    assert "rude everywhere" in words and "the coordinator never processes" in words
    assert "Spring 1901" in words or "S1901M" in words  # the phase it was written in
    ids = [r.id for r in store_moderation.reports(site.web.store)]
    assert len(ids) == 3
    # Warn: the person reads the warning (never the reporter's words, never who reported).
    r = site.post_form(site.coordinator, f"/desk/review/reports/{ids[0]}", {"action": "warn", "note": "Keep it civil."})
    assert "Done; logged." in _flash(site, site.coordinator, r)
    his = page_text(b.get("/me").text)
    assert "Keep it civil." in his and "a threat" not in his and "Ann" not in his.split("Warnings")[1]
    # Block from press: his messages are refused in every game.
    site.post_form(site.coordinator, f"/desk/review/reports/{ids[1]}", {"action": "mute"})
    r = site.post_form(b, "/games/demo/play/France/press", {"to": "England", "text": "again"})
    assert "moderators have stopped your press" in _flash(site, b, r)
    # A game names nobody: only dismissed; a second decision on a closed report is refused.
    r = site.post_form(site.coordinator, f"/desk/review/reports/{ids[2]}", {"action": "ban"})
    assert "names nobody to act on" in _flash(site, site.coordinator, r)
    site.post_form(site.coordinator, f"/desk/review/reports/{ids[2]}", {"action": "dismiss"})
    r = site.post_form(site.coordinator, f"/desk/review/reports/{ids[2]}", {"action": "dismiss"})
    assert "no open report" in _flash(site, site.coordinator, r)
    assert "No open reports." in site.coordinator.get("/desk/review/reports").text
    log = site.coordinator.get("/desk/review/accounts").text
    assert "warn" in log and "mute" in log and "dismiss" in log and "ban-press" in log
    # The players see none of it on the queue's address.
    assert a.get("/desk/review/reports").status_code == 404 and b.get("/desk/review/reports").status_code == 404


def test_in_a_game_that_hides_its_players_a_block_from_a_message_mutes_the_power_there_only(site: Site) -> None:
    """Blocking the person would name them on the blocker's account page: until the game ends, the power is
    muted in that game instead, and the page says why."""
    from dippouch.game import GameSettings

    ann, a = person(site, "Ann")
    person(site, "Bob")
    store_games.create_game(
        site.web.store, "masked", "standard", now=site.clock(), settings=GameSettings(anonymous=True)
    )
    for power, name in (("England", "Ann"), ("France", "Bob")):
        seat(site.web.store, "masked", power, name, now=site.clock(), email=f"{name.lower()}@example.org")
    sent = send_press(site.web.store, "masked", "France", "Guess who", to=["England"], now=site.clock(), via="web")
    r = site.post_form(a, f"/games/masked/play/England/press-block/{sent.id}")
    assert "Muted in this game: its players are hidden until it ends" in _flash(site, a, r)
    assert store_moderation.blocked_people(site.web.store, ann) == []
    assert "Bob" not in page_text(a.get("/me").text)
    assert "Guess who" not in a.get(f"/games/masked/play/England/press/{sent.channel}").text
