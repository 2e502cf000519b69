"""One use case, every door: ready orders sent by the web form, the JSON API, the command line or a mail make
the game go on at once when every power is ready, and the bots seated in it order the phase that opens
(issue 39: "submit --ready" from the CLI and from mail did not process; the web alone did).

The same request goes through each door: France's orders with a line "Ready" (every door reads it, as the
web's box), in a game whose six other powers are bots."""

from __future__ import annotations

import email.utils
import re
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch import settings
from dippouch.bots.seats import play_seats, seat_bot
from dippouch.cli import app, register_commands
from dippouch.mail.intake import take_in
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from websupport import Site

ORDERS = "A Par - Bur\nA Mar - Spa\nF Bre - Mao\nReady"
DOORS = ("web", "api", "cli", "mail")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    # The mail door's sender is taken as proven by its address (proof is tested in tests/mail/).
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    settings.reread()
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("demo")
    store = s.web.store
    for power in ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"):
        seat_bot(store, "demo", power, "hold", now=s.clock())
    store_games.assign(store, "demo", "France", "Fay", now=s.clock(), email="fay@example.org")
    play_seats(store, now=s.clock(), games=["demo"])  # the bots order Spring 1901 (ready) as they would
    return s


def _send(site: Site, door: str, db_url: str, orders: str = ORDERS) -> str:
    """Send ``orders`` for France through ``door``; the text the door answered."""
    _, key = site.web.access.create_key("player", game="demo", power="France", label="Fay", now=site.clock())
    if door == "web":
        france = site.browser(key)
        r = site.post_form(france, "/games/demo/play/France/orders", {"orders": orders})
        assert r.status_code == 303, r.text
        return str(france.get(r.headers["location"]).text)
    if door == "api":
        france = site.browser(key)
        r = site.api(france, "/api/games/demo/powers/France/orders", {"text": orders})
        assert r.status_code == 200, r.text
        return str(r.text)
    if door == "cli":
        register_commands()
        now = site.clock().isoformat()
        result = CliRunner().invoke(app, ["submit", "demo", "France", "-", "--db", db_url, "--now", now], input=orders)
        assert result.exit_code == 0, result.output
        return str(result.output)
    m = EmailMessage()
    m["From"] = "fay@example.org"
    m["To"] = "orders@example.org"
    m["Subject"] = "demo - France - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(site.clock())
    m.set_content(orders + "\n")
    outcome = take_in(site.web.store, m.as_bytes(), now=site.clock())
    assert outcome.status == "accepted", outcome
    return str(outcome.reason)  # the mail log's reason, in English


@pytest.mark.parametrize("door", DOORS)
def test_ready_orders_make_the_game_go_on_whichever_door_they_come_through(
    site: Site, door: str, tmp_path: Path
) -> None:
    said = _send(site, door, f"sqlite:///{tmp_path / 'g.db'}")
    store: GameStore = site.web.store
    st = store_status.status(store, "demo", now=site.clock())
    assert st.phase == "Fall 1901 Movement", (door, st.phase, said)
    fall = {ps.power: ps for ps in st.powers}
    # France's orders were adjudicated (Paris moved to Burgundy); the six bots ordered the phase that opened.
    assert fall["France"].version is None and fall["France"].units == 3, door
    assert all(fall[p].version is not None and fall[p].ready for p in fall if p != "France"), door
    assert (
        "'power': 'france', 'unit': 'a bur'"
        in str(store_history.phase_record(store, "demo", "Fall 1901 Movement")["position"]).lower()
    )
    assert "processed" in said.lower() or "Spring 1901 Movement" in said, (door, said)


COUNTED = {
    "web": r"0 orders accepted, 1 rejected",
    "api": r'"accepted":0,"rejected":1',
    "cli": r"0 orders accepted, 1 rejected",
    "mail": r"\(0 accepted, 1 rejected\)",
}


@pytest.mark.parametrize("door", DOORS)
def test_every_door_counts_a_receipt_alike(site: Site, door: str, tmp_path: Path) -> None:
    """A line "no orders" is the player's word, not an order: no door counts it as an order accepted (the web
    and mail counted it, the command line did not)."""
    said = _send(site, door, f"sqlite:///{tmp_path / 'g.db'}", "no orders\nA Xyz - Bur")
    assert re.search(COUNTED[door], said.replace(" ", "") if door == "api" else said), (door, said)
