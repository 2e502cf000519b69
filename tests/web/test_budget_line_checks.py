"""A player's order checking is charged to their work budget (issue 52): the live line check while orders are
typed, the submission's checks on arrival and the refused submission's page, each dear on a long misspelt W3K
text. Once the share is spent the next is refused with 429, said in the reader's language, the page keeping
what was typed; another player's share is untouched."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dippouch.catalog import load_variant
from websupport import Site

MISSPELT = "\n".join(f"A Parisxq{i} - Burgandyz{i}" for i in range(100))
"""The most lines a player may type (100), each misspelt: every line a search for the closest names in W3K."""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    monkeypatch.setenv("DIPPOUCH_WORK_SECONDS", "0.1")  # a tenth of a second a minute: one long check spends it
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("g", "w3k")
    return s


def _powers() -> list[str]:
    return [p.name for p in load_variant("w3k").powers]


def test_a_players_line_checks_and_submissions_are_charged_to_their_budget(site: Site) -> None:
    first, second = _powers()[:2]
    player = site.player("g", first, "Ann")
    check = f"/api/games/g/powers/{first}/check"
    r = site.api(player, check, {"text": MISSPELT})
    assert r.status_code == 200 and all(ln["error"] for ln in r.json()["lines"]), r.text[:500]
    spent = site.api(player, check + "?lang=de", {"text": "A Parisxq - Burgandyz"})
    assert spent.status_code == 429, spent.text[:500]
    assert spent.json()["error"].startswith("Sie haben Ihren Anteil an der Arbeit des Servers verbraucht")
    assert int(spent.headers["Retry-After"]) >= 1
    sent = site.api(player, f"/api/games/g/powers/{first}/orders?lang=fr", {"text": MISSPELT})
    assert sent.status_code == 429, sent.text[:500]
    assert sent.json()["error"].startswith("vous avez utilisé votre part du travail du serveur"), sent.json()["error"]
    # The page's form: refused on its page, the text kept, in the page's language.
    page = site.post_form(
        player, f"/games/g/play/{first}/orders", {"orders": MISSPELT}, headers={"Accept-Language": "de"}
    )
    assert page.status_code == 429
    assert "Sie haben Ihren Anteil an der Arbeit des Servers verbraucht" in page.text
    assert "A Parisxq99 - Burgandyz99" in page.text
    # Another player at another address: their share is whole.
    other = TestClient(site.app, raise_server_exceptions=False, client=("198.51.100.7", 4000))
    key = site.seat("g", second, "Bob")
    assert other.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False).status_code == 303
    other.get("/")
    assert site.api(other, f"/api/games/g/powers/{second}/check", {"text": "A Parisxq - Burgandyz"}).is_success


def test_a_submission_of_misspelt_orders_is_charged_on_arrival(site: Site) -> None:
    """No line check asked for: the submission's own checks spend the share, and the next check is refused."""
    first = _powers()[0]
    player = site.player("g", first, "Ann")
    assert site.api(player, f"/api/games/g/powers/{first}/orders", {"text": MISSPELT}).status_code == 200
    r = site.api(player, f"/api/games/g/powers/{first}/check", {"text": "A Parisxq - Burgandyz"})
    assert r.status_code == 429 and "you have used your share of the server's work" in r.json()["error"], r.text
