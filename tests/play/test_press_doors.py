"""One use case, every door: a message France writes into its channel with England lands there the same way
whether it came from the player's page, the JSON API or a reply by mail, and the game's press rules refuse it
the same way at every door, with the same rule named and nothing stored (issue 39: "send press" is one use
case, dippouch.play.press.send_press; issue 40: the rules every door checks are the game's one set).

France's seat has an address and no account (a player seated with an address: mail is their way in), so
England's message reached it as a copy with a reply code, which the mail door's reply carries."""

from __future__ import annotations

import email.utils
from email.message import EmailMessage
from pathlib import Path

import pytest
import sqlalchemy as sa

import dippouch.store.press.messages as store_press
from dippouch.mail.intake import take_in
from dippouch.mail.notices import setup as mail_setup
from dippouch.play.press import MessageSent, PressRefused, send_press
from dippouch.saying import say
from dippouch.store import games as store_games
from dippouch.store.press.models import PressTokenRow
from websupport import Site

DOORS = ("web", "api", "mail")
FRANCE = "fay@example.org"


@pytest.fixture
def site(tmp_path: Path) -> tuple[Site, int]:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("demo")
    store = s.web.store
    store_games.assign(store, "demo", "England", "Ed", now=s.clock())
    store_games.assign(store, "demo", "France", "Fay", now=s.clock(), email=FRANCE)
    mail_setup(store, "demo", now=s.clock(), changes={})  # the game's mail takes replies: France gets copies
    first = send_press(
        store, "demo", "England", "Shall we keep the Channel empty?", to=["France"], now=s.clock(), via="api"
    )
    assert first.mailed == 1
    return s, first.channel


def _token(site: Site) -> str:
    with site.web.store.session() as s:
        return str(s.scalars(sa.select(PressTokenRow.token).where(PressTokenRow.power == "France")).one())


def _reply(site: Site, door: str, channel: int, text: str) -> tuple[bool, str]:
    """France writes ``text`` into ``channel`` through ``door``: whether the door took it, and its words."""
    if door in ("web", "api"):
        _, key = site.web.access.create_key("player", game="demo", power="France", label="Fay", now=site.clock())
        france = site.browser(key)
        if door == "api":
            r = site.api(france, f"/api/games/demo/powers/France/press/channels/{channel}", {"text": text})
            return r.status_code == 200, str(r.text)
        r = site.post_form(france, "/games/demo/play/France/press", {"channel": str(channel), "text": text})
        if r.status_code == 303:
            page = france.get(r.headers["location"])
            return "not sent (" not in page.text, str(page.text)
        return False, str(r.text)
    m = EmailMessage()
    m["From"] = FRANCE
    m["To"] = "press@example.org"
    m["Subject"] = f"Re: demo: press from England (private) [press {_token(site)}]"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(site.clock())
    m.set_content(text + "\n")
    outcome = take_in(site.web.store, m.as_bytes(), now=site.clock())
    return outcome.status == "accepted", str(outcome.reason)


def _said(site: Site, channel: int) -> list[tuple[str, str]]:
    page = store_press.channel_page(site.web.store, "demo", channel, power="England")
    return [(m.sender, m.text) for m in page.messages]


def _via(site: Site) -> list[str]:
    from dippouch.store.press.models import PressMessageRow

    with site.web.store.session() as s:
        return [str(v) for v in s.scalars(sa.select(PressMessageRow.via).order_by(PressMessageRow.id))]


@pytest.mark.parametrize("door", DOORS)
def test_a_reply_lands_in_its_channel_whichever_door_it_came_through(site: tuple[Site, int], door: str) -> None:
    s, channel = site
    took, said = _reply(s, door, channel, "Agreed: no fleet in the Channel.")
    assert took, (door, said)
    assert _said(s, channel) == [
        ("England", "Shall we keep the Channel empty?"),
        ("France", "Agreed: no fleet in the Channel."),
    ], door
    assert _via(s)[-1] == door


@pytest.mark.parametrize("door", DOORS)
def test_the_games_rules_refuse_the_same_message_at_every_door(site: tuple[Site, int], door: str) -> None:
    s, channel = site
    store_press.set_press_rules(s.web.store, "demo", {"kind": "public"}, now=s.clock())
    took, said = _reply(s, door, channel, "Agreed, privately.")
    assert not took, (door, said)
    assert "public press only" in said, (door, said)
    assert _said(s, channel) == [("England", "Shall we keep the Channel empty?")], door


def test_send_press_answers_a_typed_result(site: tuple[Site, int]) -> None:
    s, _ = site
    sent = send_press(s.web.store, "demo", "France", "Hello all.", to=["ALL"], now=s.clock(), via="web")
    assert isinstance(sent, MessageSent) and sent.kind == "public" and say(sent.said, "en") == "Sent."
    assert say(sent.said, "de") == "Gesendet."  # a value, said in the sender's language at the door
    store_press.set_press_rules(s.web.store, "demo", {"kind": "none"}, now=s.clock())
    with pytest.raises(PressRefused) as got:
        send_press(s.web.store, "demo", "France", "Hello again.", to=["all"], now=s.clock(), via="web")
    assert got.value.refusal.rule.id == "no press"
