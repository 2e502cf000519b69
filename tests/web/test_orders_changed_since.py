"""Orders typed over one version are not recorded over another that arrived meanwhile (the players' walk: a
second tab's send silently replaced what the first had sent, and the first tab still showed its own orders as
standing). The page's form carries the version it was typed over; the store refuses it under the power's lock
when another has come since, with 409, the version that came and when, and the typed text kept; sent again
from that page, it replaces it (the player has seen it). The JSON API takes the same ``based_on``."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fastapi.testclient import TestClient

from dippouch.store import submissions as store_submissions
from websupport import Site, page_text

URL = "/games/g/play/France"


def _based_on(page: str) -> str:
    m = re.search(r'name="based_on" value="(\d+)"', page)
    assert m, page
    return m.group(1)


def _latest(c: TestClient) -> tuple[int, str]:
    """The number and text of France's latest version in the open phase, as its player's view has them."""
    view = c.get("/api/games/g/powers/France").json()
    return (view["versions"][0]["version"], view["versions"][0]["text"]) if view["versions"] else (0, "")


def test_a_second_tab_does_not_replace_orders_it_never_saw(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    site.new_game("g")
    c = site.player("g", "France")
    tab_a, tab_b = c.get(URL).text, c.get(URL).text  # two tabs, opened before either sent anything
    assert _based_on(tab_a) == _based_on(tab_b) == "0"

    first = "A par - bur\nA mar - spa\nF bre - mao"
    r = site.post_form(c, f"{URL}/orders", {"orders": first, "phase": "Spring 1901 Movement", "based_on": "0"})
    assert r.status_code == 303, r.text
    assert _latest(c) == (1, first)

    second = "A par - pic"
    r = site.post_form(c, f"{URL}/orders", {"orders": second, "phase": "Spring 1901 Movement", "based_on": "0"})
    assert r.status_code == 409, r.text
    said = " ".join(html.unescape(page_text(r.text)).split())
    assert "orders for France arrived while these were written: version 1 at" in said, said
    assert "Nothing was recorded; look at it and send again to replace it" in said
    assert f">{second}</textarea>" in r.text  # what tab B typed is still in its box
    shown = re.search(r'<pre class="standing-now" id="standing-now">(.*?)</pre>', r.text, re.S)
    assert shown and html.unescape(shown.group(1)) == first  # beside it, the version that came meanwhile
    assert _latest(c) == (1, first)  # nothing replaced
    assert _based_on(r.text) == "1"  # the refused page was made over version 1: sending from it is the player's word

    r = site.post_form(c, f"{URL}/orders", {"orders": second, "phase": "Spring 1901 Movement", "based_on": "1"})
    assert r.status_code == 303, r.text
    assert _latest(c) == (2, second)

    # Over a version that is no longer the latest, the refusal names the one that came and the one seen.
    r = site.post_form(c, f"{URL}/orders", {"orders": first, "phase": "Spring 1901 Movement", "based_on": "1"})
    assert r.status_code == 409
    said = " ".join(html.unescape(page_text(r.text)).split())
    assert "France's orders changed while these were written: version 2 arrived at" in said
    assert "after the version 1 these were written over" in said
    de = site.post_form(
        c,
        f"{URL}/orders",
        {"orders": first, "phase": "Spring 1901 Movement", "based_on": "1"},
        headers={"Accept-Language": "de"},
    )
    assert de.status_code == 409 and "version 2 arrived" not in de.text and "Version 2" in de.text

    # A number no version of this phase has is refused too, and a form without one replaces as before.
    r = site.post_form(c, f"{URL}/orders", {"orders": first, "phase": "Spring 1901 Movement", "based_on": "7"})
    assert r.status_code == 409 and "has no version 7 in this phase" in html.unescape(r.text)
    r = site.post_form(c, f"{URL}/orders", {"orders": first, "phase": "Spring 1901 Movement", "based_on": "-1"})
    assert r.status_code == 409 and "has no version -1 in this phase" in html.unescape(r.text)
    r = site.post_form(c, f"{URL}/orders", {"orders": first, "phase": "Spring 1901 Movement"})
    assert r.status_code == 303 and _latest(c) == (3, first)


def test_the_api_takes_the_version_its_orders_were_written_over(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    site.new_game("g")
    c = site.player("g", "France")
    api = "/api/games/g/powers/France"
    assert c.get(api).json()["latest_version"] == 0
    r = site.api(c, f"{api}/orders", {"text": "A par - bur", "based_on": 0})
    assert r.status_code == 200 and r.json()["version"] == 1
    assert c.get(api).json()["latest_version"] == 1
    r = site.api(c, f"{api}/orders", {"text": "A par - pic", "based_on": 0})
    assert r.status_code == 409, r.text
    assert "version 1" in r.json()["error"]
    r = site.api(c, f"{api}/orders", {"text": "A par - pic"})  # without it, as before: it replaces
    assert r.status_code == 200 and r.json()["version"] == 2


def test_the_store_checks_under_the_lock(tmp_path: Path) -> None:
    """The use case every door calls refuses it, not only the page: a program's call with a stale number."""
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    site.new_game("g")
    store = site.web.store
    store_submissions.submit(store, "g", "France", "A par - bur", now=site.clock(), source="web", based_on=0)
    from dippouch.game import Changed

    try:
        store_submissions.submit(store, "g", "France", "A par - pic", now=site.clock(), source="web", based_on=0)
    except Changed as e:
        assert "version 1" in str(e)
    else:
        raise AssertionError("orders over a version replaced since were recorded")
