"""Download and delete my data: everything kept about a person in one file, and a delete that empties the
person, ends their sessions and removes their passkeys while the games keep their seats' history; other
modules join both through the registry (store/people/data.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from accounts_support import sign_in_by_mail

from dippouch.store.db import Database
from dippouch.store.people import data as people_data
from dippouch.store.people.accounts import add_passkey
from dippouch.store.people.persons import person, person_by_email
from mailservers import SmtpServer
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


def _ann(site: Site, smtp: SmtpServer) -> Any:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=site.player("demo", "France", "Ann"))
    key_id = c.get("/api/me").json()["keys_to_add"][0]["key_id"]
    site.post_form(c, "/me/seats/add", {"key_id": str(key_id)})
    return c


def test_my_data_holds_name_address_seats_sessions_and_passkeys(site: Site, smtp: SmtpServer) -> None:
    c = _ann(site, smtp)
    pid = c.get("/api/me").json() and person_by_email(site.web.store, "ann@example.org")
    assert pid is not None
    add_passkey(site.web.store, pid.id, "cred-1", b"\x01\x02", 0, label="laptop", now=site.clock())
    site.post_form(c, "/me/calendar", {"action": "renew"})
    r = c.get("/me/data.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    data = json.loads(r.text)
    account = data["account"]
    assert account["person"]["name"] == "Ann" and account["person"]["email"] == "ann@example.org"
    assert [(s["game"], s["power"]) for s in account["seats"]] == [("demo", "France")]
    assert len(account["sessions"]) >= 1 and account["passkeys"][0]["label"] == "laptop"
    assert account["calendar_feeds"] and account["signin_links"]
    assert "token" not in r.text and "hash" not in r.text  # no secret, not even hashed


def test_deleting_my_data_empties_me_ends_my_sessions_and_keeps_the_seat_history(site: Site, smtp: SmtpServer) -> None:
    c = _ann(site, smtp)
    other_browser = sign_in_by_mail(site, smtp, "ann@example.org")
    p = person_by_email(site.web.store, "ann@example.org")
    assert p is not None
    add_passkey(site.web.store, p.id, "cred-1", b"\x01\x02", 0, label="laptop", now=site.clock())
    page = c.get("/me/delete")
    assert page.status_code == 200
    assert "not yet sent are taken out of the mail queue" in " ".join(page.text.split())
    r = site.post_form(c, "/me/delete", {"confirm": "yes"})
    assert r.status_code == 400 and "type the word delete" in r.text
    assert person(site.web.store, p.id) is not None and not person(site.web.store, p.id).deleted  # type: ignore[union-attr]
    r = site.post_form(c, "/me/delete", {"confirm": "delete"})
    assert r.status_code == 303
    gone = person(site.web.store, p.id)
    assert gone is not None and gone.deleted and gone.name == "" and gone.email is None
    assert person_by_email(site.web.store, "ann@example.org") is None
    for b in (c, other_browser):
        assert b.get("/api/me").status_code == 401
        assert b.get("/me/data.json").status_code == 401
    assert other_browser.get("/games/demo/play/France").status_code in (401, 403)
    with site.web.store.engine.connect() as conn:
        assert conn.exec_driver_sql("select count(*) from passkeys").scalar() == 0
        assert conn.exec_driver_sql("select count(*) from signin_links").scalar() == 0
        outbox = conn.exec_driver_sql("select to_addr, body, status from mail_outbox where kind = 'signin'").all()
        # Sign-in mail not sent yet is taken out of the queue (never sent after the deletion, not even to a
        # placeholder address); any sent keeps neither address nor words.
        assert all("ann@example.org" not in str(row) and row[2] == "sent" for row in outbox)
    # The game keeps the seat under the player's name.
    assert site.coordinator.get("/api/games/demo/coordinate").json()["game"]["powers"]
    desk = site.coordinator.get("/games/demo/coordinate").text
    assert "Ann" in desk
    # The address may sign up afresh, as a new person.
    again = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann Again")
    assert again.get("/api/me").json() == {**again.get("/api/me").json(), "name": "Ann Again", "seats": []}


class _Notes:
    """A module of another engineer's kind: it keeps notes about people and registers its pair."""

    def __init__(self) -> None:
        self.notes: dict[int, str] = {}
        self.forgot_while_person_existed: list[bool] = []

    def export_person(self, db: Database, person_id: int) -> dict[str, Any]:
        return {"note": self.notes.get(person_id)}

    def forget_person(self, db: Database, person_id: int, *, now: datetime) -> None:
        p = person(db, person_id)
        self.forgot_while_person_existed.append(p is not None and not p.deleted)
        self.notes.pop(person_id, None)


@pytest.fixture
def notes() -> Iterator[_Notes]:
    n = _Notes()
    people_data.register("notes", n.export_person, n.forget_person)
    yield n
    people_data._registry.pop("notes", None)


def test_other_modules_join_download_and_delete_through_the_registry(
    site: Site, smtp: SmtpServer, notes: _Notes
) -> None:
    c = _ann(site, smtp)
    p = person_by_email(site.web.store, "ann@example.org")
    assert p is not None
    notes.notes[p.id] = "prefers Turkey"
    assert "notes" in people_data.registered()
    data = c.get("/me/data.json").json()
    assert data["notes"] == {"note": "prefers Turkey"} and data["account"]["person"]["name"] == "Ann"
    site.post_form(c, "/me/delete", {"confirm": "delete"})
    assert notes.notes == {} and notes.forgot_while_person_existed == [True]
    with pytest.raises(ValueError, match="accounts' own"):
        people_data.register("account", notes.export_person, notes.forget_person)


def test_tournaments_join_download_and_delete() -> None:
    """A tournament a person runs is theirs: its section is in the download and forgotten on deletion."""
    assert "tournaments" in people_data.registered()
