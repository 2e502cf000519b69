"""Held mail, every door (issue 54): a mail from an address not registered for the power is held, and the
coordinator applies it from the review page or with ``dippouch mail apply`` (run in process). Both apply it
through the use case that sends orders (:func:`dippouch.play.orders.send_orders`, not the store's submit): the
same version, received when the mail arrived, from mail; and the same refusal, in the same words, when it is
applied a second time.
"""

from __future__ import annotations

import email.utils
import html
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.mail.intake import take_in
from dippouch.store import GameStore
from dippouch.store import history as store_history
from websupport import Site

DOORS = ("desk", "cli")


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proof of the sender is tested in tests/mail/test_mail_proof.py; here the registered address is enough."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("g")
    r = s.api(s.coordinator, "/api/games/g/players", {"power": "France", "player": "Fran", "email": "f@example.org"})
    assert r.status_code == 200, r.text
    return s


def held_mail(site: Site) -> int:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = (
        "fran.away@example.net",
        "orders@dip.example",
        "g - France - Spring 1901 Movement",
    )
    m["Message-ID"] = email.utils.make_msgid(domain="example.net")
    m.set_content("A par - bur\nA mar - spa\n")
    got = take_in(site.web.store, m.as_bytes(), now=site.clock())
    assert got.status == "held", got
    assert got.mail_id is not None
    return int(got.mail_id)


def apply(site: Site, door: str, mail_id: int, do: str = "apply") -> tuple[int, str]:
    if door == "cli":
        register_commands()
        db = str(site.web.store.engine.url)
        when = ["--now", site.clock().isoformat()] if do == "apply" else []
        got = CliRunner().invoke(app, ["mail", do, str(mail_id), "--db", db, *when])
        return got.exit_code, str(got.output)
    r = site.post_form(site.coordinator, f"/games/g/review/held/{mail_id}", {"do": do})
    said = unquote(r.headers.get("set-cookie", ""))
    return (0 if r.status_code == 303 and "not held" not in said else 1), html.unescape(said)


@pytest.mark.parametrize("door", DOORS)
def test_a_held_mail_is_applied_as_orders_through_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    arrived = site.clock()
    mail_id = held_mail(site)
    site.clock.advance(hours=5)
    code, said = apply(site, door, mail_id)
    assert code == 0, said
    rec = store_history.phase_record(store, "g", "Spring 1901 Movement")
    sub = [s for s in rec["submissions"] if s["power"] == "France"][-1]
    assert (sub["version"], sub["source"], sub["text"]) == (1, "mail", "A par - bur\nA mar - spa"), door
    assert sub["submitted_at"] == arrived.isoformat(), door  # received when the mail came, not when applied
    code, said = apply(site, door, mail_id)
    assert code != 0 and f"message #{mail_id} is applied, not held" in said, (door, said)
    assert (
        len(
            [
                s
                for s in store_history.phase_record(store, "g", "Spring 1901 Movement")["submissions"]
                if s["power"] == "France"
            ]
        )
        == 1
    ), door


@pytest.mark.parametrize("door", DOORS)
def test_a_held_mail_is_dismissed_through_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    mail_id = held_mail(site)
    code, said = apply(site, door, mail_id, "dismiss")
    assert code == 0, said
    assert [
        s
        for s in store_history.phase_record(store, "g", "Spring 1901 Movement")["submissions"]
        if s["power"] == "France"
    ] == []
    code, said = apply(site, door, mail_id, "dismiss")
    assert code != 0 and f"message #{mail_id} is dismissed, not held" in said, (door, said)
