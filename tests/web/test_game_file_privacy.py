"""What a game file gives away, and to whom; opening the seal leaves a trace the players see.

- The public game file (anyone who may see the game) carries no player's e-mail address; the coordinator's
  keeps them.
- Opening sealed orders before the deadline (an unsealed export, by the web or the command line; a new key
  for a seated power's player) needs a reason, and is recorded in the game's log and shown on the game page:
  who, when, why.
- Files that hold addresses or sealed orders are written for their owner only (0600), and a database file
  others can read is warned about.
"""

from __future__ import annotations

import html
import json
import os
import re
import stat
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game  # noqa: F401  (registers the commands)
from dippouch.cli import app
from dippouch.core.messages import msg
from dippouch.play.fairness import Actor
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import sealing as store_sealing
from dippouch.store import submissions as store_submissions
from dippouch.store import transfer as store_transfer
from dippouch.store.rows import game_row, log_event
from websupport import Site
from workersupport import dippouch_command

ADDRESSES = {"France": "bruno.secret@example.org", "Germany": "carla.hidden@example.net"}
NOW = "2026-12-01T09:00"
runner = CliRunner()


@pytest.fixture
def site(db_url: str) -> Site:
    s = Site(db_url)
    s.new_game("g")
    for power, address in ADDRESSES.items():
        r = s.api(s.coordinator, "/api/games/g/players", {"power": power, "player": power[:3], "email": address})
        assert r.status_code == 200, r.text
    return s


def _leaks(text: str) -> list[str]:
    return [a for a in ADDRESSES.values() if a in text] + re.findall(r"[\w.+-]+@[\w-]+\.[\w.]+", text)


def test_the_public_game_file_has_no_e_mail_address(site: Site) -> None:
    """An attacker (no key at all, or a player's key) fetches both game-file addresses, sealed or asking for
    unsealed: no address anywhere in the answer, and no "email" field."""
    player = site.player("g", "Italy", "Ines")
    for who in (site.browser(), player):
        asks = [who.get("/games/g/export.json"), who.get("/api/games/g/export")]
        asks.append(site.api(who, "/api/games/g/export", {"reason": "x"}))  # asking for it unsealed
        asks.append(site.post_form(who, "/games/g/export.json", {"reason": "x"}))
        for r in asks:
            url = str(r.request.url)
            if r.status_code in (401, 403):  # a call that needs a key, refused without one: nothing leaks
                assert not _leaks(r.text), (url, r.text)
                continue
            assert r.status_code == 200, r.text
            assert not _leaks(r.text), (url, _leaks(r.text))
            assert all("email" not in p for p in r.json()["players"]), url
    # The coordinator's file keeps them (it moves the game, mail intake included).
    data = site.coordinator.get("/api/games/g/export").json()
    assert {p["power"]: p.get("email") for p in data["players"] if p.get("email")} == ADDRESSES


def test_the_store_gives_the_public_view_without_addresses(db_url: str) -> None:
    store = GameStore(db_url)
    store_games.create_game(store, "g", "standard", now=_t())
    store_games.assign(store, "g", "France", "Bruno", now=_t(), email=ADDRESSES["France"])
    assert not _leaks(json.dumps(store_transfer.game_file(store, "g", view="public", now=_t())))
    assert ADDRESSES["France"] in json.dumps(store_transfer.game_file(store, "g", view="coordinator", now=_t()))
    store.close()


def _t() -> datetime:
    from dippouch.game import parse_time

    return parse_time(NOW)


# --------------------------------------------------------------------------------------------------
# Unsealing leaves a trace


def test_an_unsealed_export_on_the_web_needs_a_reason_and_the_players_see_it(site: Site) -> None:
    _, key = site.web.access.create_key("player", game="g", power="France", label="Fra", now=site.clock())
    france = site.browser(key)
    site.post_form(france, "/games/g/play/France/orders", {"orders": "A par - bur"})
    for r in (
        site.post_form(site.coordinator, "/games/g/export.json", {"reason": ""}),
        site.api(site.coordinator, "/api/games/g/export", {"reason": " "}),
    ):
        assert r.status_code == 400 and "give the reason" in r.text, r.text
        assert "A par - bur" not in r.text
    # A link (a GET, which another site can make the coordinator's browser follow) never opens the seal.
    for url in ("/games/g/export.json?unsealed=1&reason=x", "/api/games/g/export?unsealed=1&reason=x"):
        r = site.coordinator.get(url)
        assert r.status_code == 400 and "POST" in r.text and "A par - bur" not in r.text, r.text
    # Nor does a form posted from another site.
    r = site.coordinator.post("/games/g/export.json", data={"reason": "x"}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and "A par - bur" not in r.text
    assert store_sealing.unsealings(site.web.store, "g") == []
    r = site.api(site.coordinator, "/api/games/g/export", {"reason": "moving to the new server"})
    assert r.status_code == 200 and "A par - bur" in r.text
    (u,) = store_sealing.unsealings(site.web.store, "g")
    assert u["reason"] == "moving to the new server" and u["phase"] == "Spring 1901 Movement"
    assert u["at"] == site.clock() and "coordinator (key" in u["who"]
    assert any(e["kind"] == "unsealed" for e in r.json()["events"]), "the file carries its own record"
    page = france.get("/games/g").text
    assert "Sealed orders opened" in page and "moving to the new server" in page
    # The time as the deadline's is: a <time> the page's script writes as the reader's browser writes dates.
    assert re.search(
        r'opened sealed orders of Spring 1901 Movement at <time data-local="2026-12-01T09:00:00\+00:00"'
        r' datetime="2026-12-01T09:00:00\+00:00">2026-12-01 09:00 UTC</time>',
        page,
    ), page
    # After the deadline nothing is sealed: nothing to record.
    site.clock.advance(days=13)
    r = site.api(site.coordinator, "/api/games/g/export", {"reason": "after the deadline"})
    assert r.status_code == 200, r.text
    assert len(store_sealing.unsealings(site.web.store, "g")) == 1


def test_a_new_key_for_a_seated_power_while_sealed_is_recorded_with_its_reason(site: Site) -> None:
    auth = {"Authorization": f"Bearer {site.coordinator_key}"}
    bot = site.browser()
    r = bot.post("/api/games/g/keys", json={"role": "player", "power": "France"}, headers=auth)
    assert r.status_code == 400 and "give the reason" in r.json()["error"]
    r = site.post_form(site.coordinator, "/games/g/coordinate/link", {"power": "France"})
    assert r.status_code == 400 and "give the reason" in r.text
    assert store_sealing.unsealings(site.web.store, "g") == []
    r = bot.post(
        "/api/games/g/keys", json={"role": "player", "power": "France", "reason": "Bruno lost his link"}, headers=auth
    )
    assert r.status_code == 200, r.text
    (u,) = store_sealing.unsealings(site.web.store, "g")
    assert u["power"] == "France" and u["reason"] == "Bruno lost his link" and "France" in u["what"]
    assert "Bruno lost his link" in site.browser().get("/games/g").text
    # An empty seat has no orders to read: its key needs no reason and leaves no record.
    r = bot.post("/api/games/g/keys", json={"role": "player", "power": "Turkey"}, headers=auth)
    assert r.status_code == 200 and len(store_sealing.unsealings(site.web.store, "g")) == 1


def test_who_opened_the_seal_and_how_are_said_in_the_readers_language(site: Site) -> None:
    """Who opened the seal, what opened it and a reason the program gives are kept as messages and said in each
    reader's language (a German page said "the coordinator (key 1, test)" and "unsealed export" in English);
    a reason a person typed stays as written, the JSON API keeps English, and a record kept before as English
    text is still shown as it was written."""
    auth = {"Authorization": f"Bearer {site.coordinator_key}"}
    r = site.api(site.coordinator, "/api/games/g/export", {"reason": "moving to the new server"})
    assert r.status_code == 200, r.text
    r = site.browser().post(
        "/api/games/g/keys", json={"role": "player", "power": "France", "reason": "Bruno lost his link"}, headers=auth
    )
    assert r.status_code == 200, r.text
    store_sealing.record_unsealing(
        site.web.store,
        "g",
        who=Actor(msg("the table's vote (proposal %(id)s)", id=7)).who,
        reason=msg("the table voted to unseal"),
        now=site.clock(),
        what=msg("a vote"),
    )
    with site.web.store.session() as s, s.begin():  # as a record was kept before: English text
        g = game_row(s, "g")
        log_event(
            s,
            g,
            site.clock(),
            "unsealed",
            phase="Spring 1901 Movement",
            who="the coordinator (key 9)",
            reason="an old reason",
            what="unsealed export",
            power=None,
        )
    pages = {  # as read (an apostrophe is written &#39; in the page)
        lang: html.unescape(site.browser().get("/games/g", headers={"Accept-Language": lang}).text)
        for lang in ("en", "de", "fr")
    }
    said = {
        "en": [
            "the coordinator (key ",
            "an unsealed export",
            "a new key for France's player",
            "the table's vote (proposal 7)",
            "the table voted to unseal",
            "(a vote)",
        ],
        "de": [
            "der Spielleiter (Schlüssel ",
            "ein entsiegelter Export",
            "ein neuer Schlüssel für den Spieler von France",
            "die Abstimmung der Runde (Vorschlag 7)",
            "die Runde hat für das Entsiegeln gestimmt",
            "(eine Abstimmung)",
        ],
        "fr": [
            "l’arbitre (clé ",
            "un export descellé",
            "une nouvelle clé pour le joueur de France",
            "le vote de la table (proposition 7)",
            "la table a voté le descellement",
            "(un vote)",
        ],
    }
    for lang, words in said.items():
        page = pages[lang]
        for w in [
            *words,
            "moving to the new server",
            "Bruno lost his link",
            "the coordinator (key 9)",
            "an old reason",
        ]:
            assert w in page, (lang, w)
        if lang != "en":  # no English left but the old record's
            for w in said["en"]:
                assert page.count(w) == (w == "the coordinator (key "), (lang, w)
    shown = site.browser().get("/api/games/g").json()["unsealings"]
    assert [u["what"] for u in shown] == [
        "an unsealed export",
        "a new key for France's player",
        "a vote",
        "unsealed export",
    ]
    assert shown[0]["who"].startswith("the coordinator (key ") and shown[2]["reason"] == "the table voted to unseal"


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'games.db'}"


def test_an_unsealed_export_by_the_command_line_needs_a_reason_is_recorded_and_private(tmp_path: Path) -> None:
    db = _db(tmp_path)
    store = GameStore(db)
    store_games.create_game(store, "g", "standard", now=_t())
    store_games.assign(store, "g", "France", "Bruno", now=_t(), email=ADDRESSES["France"])
    store_submissions.submit(store, "g", "France", "A par - bur", now=_t())
    out = tmp_path / "g.json"
    r = runner.invoke(app, ["export", "g", str(out), "--unsealed", "--db", db, "--now", NOW])
    assert r.exit_code != 0 and "give the reason" in r.output and not out.exists()
    assert store_sealing.unsealings(store, "g") == []
    r = runner.invoke(
        app, ["export", "g", str(out), "--unsealed", "--reason", "moving servers", "--db", db, "--now", NOW]
    )
    assert r.exit_code == 0, r.output
    assert "A par - bur" in out.read_text()
    assert stat.S_IMODE(out.stat().st_mode) == 0o600, "a file with sealed orders is for its owner only"
    (u,) = store_sealing.unsealings(store, "g")
    assert u["reason"] == "moving servers" and "dippouch export" in u["who"]
    # An existing file readable by others is made private as it is overwritten; so is the sealed export
    # (it holds the players' addresses).
    other = tmp_path / "sealed.json"
    other.write_text("{}")
    other.chmod(0o644)
    r = runner.invoke(app, ["export", "g", str(other), "--db", db, "--now", NOW])
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(other.stat().st_mode) == 0o600 and "A par - bur" not in other.read_text()
    store.close()


def test_a_database_file_others_can_read_is_warned_about(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    GameStore(f"sqlite:///{path}").close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    env = {**os.environ, "DIPPOUCH_DATABASE_URL": f"sqlite:///{path}"}
    cmd = [*dippouch_command(), "games"]
    quiet = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert quiet.returncode == 0 and "readable" not in quiet.stderr, quiet.stderr
    path.chmod(0o644)
    loud = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert loud.returncode == 0, loud.stderr
    assert f"{path}" in loud.stderr and "readable by other users" in loud.stderr and "chmod 600" in loud.stderr
