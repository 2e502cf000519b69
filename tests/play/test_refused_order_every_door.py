"""One refused order, every door (issue 53): "A Par - Mun" sent for France by the web form, the JSON API, the
command line, e-mail and post (a letter typed in by the coordinator: ``submit --source post``) is refused by the
one line check with one message value, and each door says it from that value in its German reader's language:
the same German sentence everywhere; the JSON API's line carries the message's code and values besides."""

from __future__ import annotations

import email.utils
import html
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch import settings
from dippouch.catalog import load_variant
from dippouch.cli import app, register_commands
from dippouch.game import GameSettings, check_orders
from dippouch.mail.intake import take_in
from dippouch.saying import say
from dippouch.store import games as store_games
from websupport import Site

ORDERS = "A Par - Mun\nF Bre - Mao"
DOORS = ("web", "api", "cli", "mail", "post")


def _refusal() -> object:
    v = load_variant("standard")
    (refused, accepted) = check_orders(v, v.start, "France", ORDERS)
    assert refused.error is not None and accepted.error is None
    return refused.error


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")  # proof is tested in tests/mail/
    settings.reread()
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    # A German game: its mail to a player is in its language (each other door follows its reader).
    store_games.create_game(s.web.store, "demo", "standard", now=s.clock(), settings=GameSettings(language="de"))
    store_games.assign(s.web.store, "demo", "France", "Fay", now=s.clock(), email="fay@example.org")
    return s


def _one_line(text: str) -> str:
    return " ".join(html.unescape(text).split())


def _said(site: Site, door: str, db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``door`` answers a German reader who sends ``ORDERS`` for France."""
    _, key = site.web.access.create_key("player", game="demo", power="France", label="Fay", now=site.clock())
    german = {"Accept-Language": "de"}
    if door == "web":
        france = site.browser(key)
        r = site.post_form(france, "/games/demo/play/France/orders", {"orders": ORDERS}, headers=german)
        assert r.status_code in (200, 303), r.text
        page = france.get(r.headers["location"], headers=german) if r.status_code == 303 else r
        return str(page.text)
    if door == "api":
        france = site.browser(key)
        r = site.api(france, "/api/games/demo/powers/France/orders?lang=de", {"text": ORDERS})
        assert r.status_code == 200, r.text
        line = next(ln for ln in r.json()["lines"] if ln.get("error"))
        assert line["code"] and line["params"]["reason"], line  # the message's id and values beside its words
        return str(r.text)
    if door in ("cli", "post"):
        register_commands()
        monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
        settings.reread()
        extra = ["--source", "post"] if door == "post" else []
        now = site.clock().isoformat()
        result = CliRunner().invoke(
            app, ["submit", "demo", "France", "-", *extra, "--db", db_url, "--now", now], input=ORDERS
        )
        assert result.exit_code in (0, 1), result.output
        return str(result.output)
    # The player's mail, in the game's language.
    m = EmailMessage()
    m["From"] = "fay@example.org"
    m["To"] = "orders@example.org"
    m["Subject"] = "demo - France - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(site.clock())
    m.set_content(ORDERS + "\n")
    take_in(site.web.store, m.as_bytes(), now=site.clock())
    with site.web.store.engine.connect() as conn:
        (receipt,) = conn.exec_driver_sql("select body from mail_outbox where kind = 'receipt'").one()
    return str(receipt)


@pytest.mark.parametrize("door", DOORS)
def test_a_refused_order_says_the_same_german_sentence_at_every_door(
    site: Site, door: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusal = _refusal()
    german, english = say(refusal, "de"), say(refusal, "en")  # type: ignore[arg-type]
    assert german != english
    said = _one_line(_said(site, door, f"sqlite:///{tmp_path / 'g.db'}", monkeypatch))
    assert _one_line(german) in said, (door, said[:2000])
    assert _one_line(english) not in said, door
