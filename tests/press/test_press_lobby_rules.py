"""One place for each rule (issue 40): the press rules a game's lobby shows are the game's own rules, set once
(on the opening's desk, or the press desk: the same set), and every door enforces them. The trial: the lobby's
free-text "No press during retreats and adjustments" let a Winter message through, while the real rule sat on
another page.

Each test sets the rules through the lobby's own form, reads each rule back from the lobby page as a player
would, and tries to break it through the player's page, the JSON API and a reply by mail."""

from __future__ import annotations

import email.utils
import html
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import dippouch.store.press.messages as store_press
from dippouch.mail.intake import take_in
from dippouch.mail.notices import setup as mail_setup
from dippouch.play.press import send_press
from dippouch.store import games as store_games
from dippouch.store.press.models import PressTokenRow
from websupport import Site

FRANCE = "fay@example.org"
WINTER = {
    "phase": "Winter 1901 Adjustments",
    "units": [{"power": "England", "unit": "F lon"}, {"power": "France", "unit": "A par"}],
    "supply_centers": {"England": ["lon", "edi", "lvp"], "France": ["par", "bre", "mar"]},
}
DOORS = ("web", "api", "mail")

# A rule as the lobby says it -> the rule's name in a refusal. Each is broken by France's private reply to
# England in Winter 1901 Adjustments (a quiet phase where adjustments are quiet).
BREAKABLE = {
    "No press during adjustments phases.": "quiet phase",
    "Public press only: every message goes to all powers.": "public press only",
    "No press (gunboat): only the coordinator's announcements.": "no press",
    "Allowed channels: group, public.": "channel kind",
}
RULE_SETS = {
    "quiet adjustments": {"kind": "white", "channels": ["private", "group", "public"], "quiet_phases": ["adjustments"]},
    "public only": {"kind": "public", "channels": ["private", "group", "public"]},
    "gunboat": {"kind": "none", "channels": ["private", "group", "public"]},
    "no private channel": {"kind": "white", "channels": ["group", "public"]},
}


@pytest.fixture
def site(tmp_path: Path) -> tuple[Site, int]:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    store = s.web.store
    store_games.create_game(store, "quiet", "standard", now=s.clock(), position=WINTER)
    store_games.assign(store, "quiet", "England", "Ed", now=s.clock())
    store_games.assign(store, "quiet", "France", "Fay", now=s.clock(), email=FRANCE)
    mail_setup(store, "quiet", now=s.clock(), changes={})  # France's copies carry a reply code
    first = send_press(store, "quiet", "England", "Build a fleet?", to=["France"], now=s.clock(), via="api")
    return s, first.channel


def _open_with(site: Site, rules: dict[str, Any]) -> Any:
    """The coordinator opens the game for players from the lobby's desk, setting its press rules there."""
    form = {"min_reliability": "0", "mode": "coordinator", "kind": rules["kind"], "channels": rules["channels"]}
    if rules.get("quiet_phases"):
        form["quiet_phases"] = rules["quiet_phases"]
    return site.post_form(site.coordinator, "/games/quiet/opening/open", form)


def _lobby_rules(site: Site) -> list[str]:
    """The press rules the lobby shows a visitor, sentence by sentence."""
    page = site.browser().get("/games/quiet/opening")
    assert page.status_code == 200, page.text
    m = re.search(r'<dd id="lobby-press">(.*?)</dd>', page.text, re.S)
    assert m, page.text
    return [x.strip() + "." for x in html.unescape(m.group(1)).split(".") if x.strip()]


def _try(site: Site, channel: int) -> dict[str, tuple[bool, str]]:
    """France's private reply to England through each door: whether it was taken, and the door's words."""
    out: dict[str, tuple[bool, str]] = {}
    _, key = site.web.access.create_key("player", game="quiet", power="France", label="Fay", now=site.clock())
    france = site.browser(key)
    text = "Yes, build it in London."
    r = site.post_form(france, "/games/quiet/play/France/press", {"channel": str(channel), "text": text})
    out["web"] = (r.status_code == 303, r.text)
    r = site.api(france, f"/api/games/quiet/powers/France/press/channels/{channel}", {"text": text})
    out["api"] = (r.status_code == 200, r.text)
    with site.web.store.session() as s:
        token = s.scalars(sa.select(PressTokenRow.token).where(PressTokenRow.power == "France")).one()
    m = EmailMessage()
    m["From"] = FRANCE
    m["To"] = "press@example.org"
    m["Subject"] = f"Re: quiet: press from England (private) [press {token}]"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(site.clock())
    m.set_content(text + "\n")
    got = take_in(site.web.store, m.as_bytes(), now=site.clock())
    out["mail"] = (got.status == "accepted", str(got.reason))
    return out


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_each_rule_the_lobby_shows_is_enforced_at_every_door(site: tuple[Site, int], name: str) -> None:
    s, channel = site
    r = _open_with(s, RULE_SETS[name])
    assert r.status_code == 303, r.text
    shown = _lobby_rules(s)
    # The lobby says what the players' own panel says: one set of rules, in the same words.
    panel = s.player("quiet", "Germany").get("/games/quiet/play/Germany").text
    for sentence in shown:
        assert html.escape(sentence, quote=False) in panel or sentence in html.unescape(panel), sentence
    breakable = [x for x in shown if x in BREAKABLE]
    assert breakable, (name, shown)
    said = _try(s, channel)
    for door in DOORS:
        took, words = said[door]
        assert not took, (name, door, words)
        assert any(f"not sent ({BREAKABLE[x]})" in html.unescape(words) for x in breakable), (name, door, words)
    page = store_press.channel_page(s.web.store, "quiet", channel, power="England")
    assert [m.text for m in page.messages] == ["Build a fleet?"], name  # nothing got through


def test_rules_set_on_the_press_desk_are_the_ones_the_lobby_shows(site: tuple[Site, int]) -> None:
    s, _ = site
    assert _open_with(s, RULE_SETS["quiet adjustments"]).status_code == 303
    r = s.post_form(
        s.coordinator,
        "/games/quiet/coordinate/press",
        {"kind": "grey", "channels": ["private", "group", "public"], "quiet_phases": ["retreats"]},
    )
    assert r.status_code == 303
    shown = _lobby_rules(s)
    assert "Grey press: senders are not shown to readers until the game ends." in shown
    assert "No press during retreats phases." in shown and "No press during adjustments phases." not in shown
    # The opening's desk shows the rules as they stand, to change them there.
    desk = s.coordinator.get("/games/quiet/opening").text
    assert re.search(r'<option value="grey" selected>', desk)


@pytest.mark.parametrize("door", ["api", "web"])
def test_a_free_text_for_the_press_is_refused_naming_where_the_rules_are_set(site: tuple[Site, int], door: str) -> None:
    s, _ = site
    if door == "api":
        r = s.api(s.coordinator, "/api/games/quiet/opening", {"press": "No press during adjustments"})
        assert r.status_code == 400, r.text
        words = r.json()["error"]
    else:
        r = s.post_form(
            s.coordinator,
            "/games/quiet/opening/open",
            {"press": "No press during adjustments", "min_reliability": "0", "mode": "coordinator"},
        )
        assert r.status_code in (303, 400), r.text
        words = html.unescape(r.text if r.status_code == 400 else s.coordinator.get(r.headers["location"]).text)
    assert "no press text of its own" in words and "press_rules" in words, words
    assert store_press.press_rules(s.web.store, "quiet").quiet_phases == frozenset()  # nothing set
    # The API sets the same rules by their settings.
    r = s.api(s.coordinator, "/api/games/quiet/opening", {"press_rules": {"quiet_phases": ["adjustments"]}})
    assert r.status_code == 200, r.text
    assert "No press during adjustments phases." in r.json()["press"]
