"""A sandbox costs nothing to look at (issue 52; the security review's finding 2: 64,000 characters of misspelt
W3K orders made every look at a sandbox 3.3 s of CPU, for anyone holding its share link): its order text is
bounded as a player's typed orders are, for every power at once; its check is made once, when the orders or
the board are kept, and kept with the sandbox; and what does check is charged to the work budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import dippouch.play.sandbox as use
from dippouch.catalog import load_variant, variant_names
from dippouch.game import GameError, check_size
from dippouch.store.sandboxes.boards import sandbox_by_token, save_sandbox
from websupport import Site

W3K = load_variant("w3k")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the sandbox's line checks (the real check still runs): the text each was asked for."""
    calls: list[str] = []
    real = use.check_lines

    def counting(variant: Any, position: Any, text: str) -> Any:
        calls.append(text)
        return real(variant, position, text)

    monkeypatch.setattr(use, "check_lines", counting)
    return calls


def _started(c: TestClient, variant: str = "w3k") -> tuple[str, str]:
    r = c.post("/api/sandbox", json={"variant": variant})
    assert r.status_code == 200, r.text
    return r.json()["edit"], r.json()["share"]


def _misspelt(n: int) -> str:
    return "\n".join(f"A Parisxq{i} - Burgandyz{i}" for i in range(n))


def test_a_look_at_a_sandbox_never_checks_its_orders_again(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The orders are checked once when kept; the JSON view, the edit page and the share page, looked at again
    and again, show that check (each line's verdict) without making another."""
    checks = _counted(monkeypatch)
    c = site.browser()
    edit, share = _started(c)
    text = "A glo H\n" + _misspelt(200)
    r = c.post(f"/api{edit}/orders", json={"orders": text, "adjudicate": False})
    assert r.status_code == 200, r.text
    assert checks == [text]
    verdicts = r.json()["lines"]
    assert len(verdicts) == 201 and verdicts[0]["error"] is None and all(v["error"] for v in verdicts[1:])
    for _ in range(3):
        assert c.get(f"/api{edit}").json()["lines"] == verdicts
        assert c.get(f"/api{share}").json()["lines"] == verdicts
        page = c.get(edit)
        assert page.status_code == 200 and "Burgandyz199" in page.text
        assert site.browser().get(share).status_code == 200
    assert checks == [text]


def test_the_check_follows_the_board_and_back(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit placed where an order names one makes that order good: the orders kept are checked again, on the
    new board, when it is kept; "Back" keeps the check of the board it returns to."""
    checks = _counted(monkeypatch)
    c = site.browser()
    edit, _ = _started(c, "standard")
    r = c.post(f"/api{edit}/orders", json={"orders": "Germany: A ruh - bel", "adjudicate": False})
    assert r.status_code == 200 and r.json()["lines"][0]["error"], r.text
    r = c.post(f"/api{edit}/units", json={"power": "Germany", "kind": "A", "where": "ruh"})
    assert r.status_code == 200 and r.json()["lines"][0]["error"] is None, r.json()["lines"]
    assert c.get(f"/api{edit}").json()["lines"][0]["error"] is None
    r = c.post(f"/api{edit}/back", json={})
    assert r.status_code == 200 and r.json()["lines"][0]["error"], r.text
    assert c.get(f"/api{edit}").json()["lines"] == r.json()["lines"]
    assert len(checks) == 3  # kept, the board changed, back: never on a look


def test_a_sandbox_kept_before_checks_were_is_checked_once_on_its_first_look(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = site.browser()
    _, share = _started(c, "standard")
    got = sandbox_by_token(site.web.store, share.rsplit("/", 1)[-1])
    assert got is not None
    sb = got[0]
    # As a sandbox whose orders were kept before the check was stored (migration 0021 leaves it NULL).
    save_sandbox(
        site.web.store,
        sb.id,
        position=sb.position,
        orders="A par - bur\nA xyz H",
        step=None,
        history=[],
        now=sb.updated_at,
    )
    checks = _counted(monkeypatch)
    first = c.get(f"/api{share}").json()["lines"]
    assert [ln["error"] is None for ln in first] == [True, False]
    for _ in range(2):
        assert c.get(f"/api{share}").json()["lines"] == first
    assert len(checks) == 1


def test_orders_beyond_the_bound_are_refused_with_the_bound(site: Site) -> None:
    """W3K: a line for each province's unit and a heading for each power (268); one more is refused, in the
    submission's own words, by the JSON API and by the page (its form comes back filled); so is a line longer
    than a typed order line may be."""
    b = use.bounds(W3K)
    assert (b.lines, b.line, b.chars) == (268, 300, 40_200)
    c = site.browser()
    edit, _ = _started(c)
    assert c.post(f"/api{edit}/orders", json={"orders": _misspelt(268), "adjudicate": False}).status_code == 200
    r = c.post(f"/api{edit}/orders", json={"orders": _misspelt(269), "adjudicate": False})
    assert r.status_code == 400
    assert r.json()["error"] == "269 lines of orders; at most 268 lines are sent or checked at once"
    r = c.post(f"/api{edit}/orders", json={"orders": "A lon - " + "x" * 300, "adjudicate": True})
    assert r.status_code == 400
    assert r.json()["error"] == "line 1 is 308 characters long; an order line has at most 300 (one order a line)"
    r = c.post(f"/api{edit}/orders", json={"orders": "A lon H\n" * 10 + ("A " + "y" * 290 + "\n") * 150})
    assert r.status_code == 400 and r.json()["error"].startswith("the order text is 44,")
    page = site.post_form(c, edit + "/orders", {"orders": _misspelt(269), "do": "check"})
    assert page.status_code in (303, 400), page.text
    assert c.get(f"/api{edit}").json()["orders"] == _misspelt(268)  # nothing kept from the refused text


def test_every_variant_s_bound_is_under_what_the_api_reads() -> None:
    for name in variant_names():
        b = use.bounds(load_variant(name))
        assert b.total <= use.MAX_ORDERS and b.lines >= 100 and b.line == 300, name
    with pytest.raises(GameError, match="at most 100 lines"):
        check_size(_misspelt(101), use.bounds(load_variant("standard")))


def test_setting_and_adjudicating_orders_are_charged_to_the_work_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A share of 0.1 s a minute: W3K's largest misspelt text, checked once when kept (half a second), leaves
    its asker owing; the next change is refused with the wait, before anything is checked, while the sandbox
    is still looked at freely."""
    monkeypatch.setenv("DIPPOUCH_WORK_SECONDS", "0.1")
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    checks = _counted(monkeypatch)
    c = site.browser()
    edit, share = _started(c)
    assert c.post(f"/api{edit}/orders", json={"orders": _misspelt(268), "adjudicate": False}).status_code == 200
    r = c.post(f"/api{edit}/orders", json={"orders": "A glo H", "adjudicate": True})
    assert r.status_code == 429, r.text
    assert "your share of the server's work" in r.json()["error"] and int(r.headers["retry-after"]) >= 1
    assert len(checks) == 1
    assert c.get(f"/api{share}").status_code == 200 and c.get(edit).status_code == 200
    assert len(checks) == 1


def test_a_sandbox_board_is_drawn_once_a_state_however_many_look(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages of a sandbox draw its board (and its last step): drawn once for each state it is kept in and
    kept with the game maps, so a share link read by many costs one drawing; a change draws the new state."""
    import dippouch.render as render

    drawn: list[bool] = []
    real = render.render_phase_svg

    def counting(*a: Any, **kw: Any) -> Any:
        drawn.append(bool(kw.get("orders")))
        return real(*a, **kw)

    monkeypatch.setattr(render, "render_phase_svg", counting)
    c = site.browser()
    edit, share = _started(c, "standard")
    for _ in range(3):
        assert c.get(edit).status_code == 200
        assert site.browser().get(share).status_code == 200
    assert drawn == [False]
    r = c.post(f"/api{edit}/orders", json={"orders": "Germany: A ber - kie", "adjudicate": True})
    assert r.status_code == 200, r.text
    for _ in range(3):
        assert "<svg" in c.get(edit).text
        assert site.browser().get(share).status_code == 200
    assert drawn == [False, False, True]  # the new board, and the step that led to it
