"""Numbers typed into forms, queries and headers are read by one parser: a character that only looks like a digit
(``'²'``, ``'٣'``, ``'９'``) or a 5,000-digit string is a 4xx with a message, never a 500 (security review,
finding 5: ``str.isdigit`` accepts what ``int`` refuses).

Every route of the app is asked, as the coordinator and as a player, with each such value in every field that
holds a number somewhere in the app, in its path's free parameters, and in ``Last-Event-ID``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route

from dippouch.web.http.inputs import number, number_or_none
from dippouch.web.http.security import BadInput
from websupport import Site

# One of each kind (a superscript, another script's digit, a full-width digit, a mix, past 64 bits, past any
# sensible length, a float's exponent); the parser's own test below draws from every digit-like category.
ODD_NUMBERS = ["²", "٣", "９", "1²", "7" * 30, "9" * 5000, "-" + "1" * 40, "1e5"]
NUMBER_FIELDS = [
    "channel",
    "missed",
    "min_reliability",
    "person",
    "arg",
    "key",
    "lines",
    "by",
    "phase",
    "version",
    "message",
    "key_id",
    "wish1",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('numbers') / 'web.db'}", limits={})
    s.new_game("demo")
    return s


@pytest.fixture(scope="module")
def france(site: Site) -> Any:
    return site.player("demo", "France", "Fay")


def _paths(site: Site, method: str, value: str) -> list[str]:
    out = []
    for route in site.app.routes:
        if not isinstance(route, Route) or method not in (route.methods or ()):
            continue
        path = route.path.replace("{name}", "demo").replace("{power}", "France").replace("{variant}", "standard")
        out.append(re.sub(r"\{[^}:]+(?::[^}]+)?\}", value.replace("/", ""), path))
    return out


@pytest.mark.parametrize("value", ODD_NUMBERS, ids=lambda v: v if len(v) < 12 else f"{len(v)}-chars")
def test_no_route_answers_an_odd_number_with_a_server_error(site: Site, france: Any, value: str) -> None:
    failures = []
    fields = {f: value for f in NUMBER_FIELDS} | {"wish" + value: "France", "action": "revoke"}
    for who, client in (("coordinator", site.coordinator), ("France", france)):
        headers = {"Last-Event-ID": value.encode("utf-8")[:64]}
        for path in _paths(site, "GET", value):
            r = client.get(path, params={f: value for f in NUMBER_FIELDS}, headers=headers)
            if r.status_code >= 500:
                failures.append(f"{who} GET {path}: {r.status_code}")
        for path in _paths(site, "POST", value):
            r = client.post(path, data={"csrf": site.csrf(client), **fields}, headers=headers, follow_redirects=False)
            if r.status_code >= 500:
                failures.append(f"{who} POST {path}: {r.status_code} {r.text[:120]}")
    assert failures == []


def test_the_stream_reads_an_odd_last_event_id_as_none(site: Site, france: Any) -> None:
    """The press stream's Last-Event-ID arrives as bytes: ``\\xb2`` is read as ``'²'``, and a 30-digit id
    overflowed the database's integer after the stream's head had been sent."""
    for value in (b"\xb2", b"1" * 30):
        with france.stream("GET", "/games/demo/play/France/press-events", headers={"Last-Event-ID": value}) as r:
            assert r.status_code < 500


@given(st.text(alphabet=st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=40))
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_the_parser_takes_ascii_digits_only(text: str) -> None:
    got = number_or_none(text)
    if text.isascii() and len(text) <= 12:
        assert got == int(text)
    else:
        assert got is None
        with pytest.raises(BadInput, match="must be a whole number"):
            number(text, "the count", say=str)


def test_the_parser_says_what_and_where() -> None:
    assert number(" 42 ", "the year", lo=1, hi=3000, say=str) == 42
    with pytest.raises(BadInput, match=r"the year must be from 1 to 3000, not 4000"):
        number("4000", "the year", lo=1, hi=3000, say=str)
    with pytest.raises(BadInput, match=r"the year must be a whole number from 1 to 3000, not '²'"):
        number("²", "the year", lo=1, hi=3000, say=str)
    assert number_or_none("-3") == -3 and number_or_none("-") is None and number_or_none("") is None


def test_no_module_reads_a_typed_number_with_isdigit_alone() -> None:
    """``isdigit()`` followed by ``int()`` is the pattern that gave the 500s; the web reads numbers through
    ``web.http.inputs.number`` instead."""
    root = Path(__file__).resolve().parents[2] / "src" / "dippouch" / "web"
    found = [
        f"{p.name}:{i}"
        for p in root.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if ".isdigit()" in line and "isascii" not in line and p.name not in ("middleware.py",)
    ]
    assert found == []
