"""The player's page: what every seat of a game sees alike (the board, the last turn's results, the proposals,
who plays which seat) is made once per state of the game and language, kept in the database for every web
process (dippouch.web.views.player_page.shared_part), and each seat's own part (its orders, its letters, its ballot)
added on top. Never shown stale: after a phase processed by another process, a proposal and a ballot, a draw
vote and a seat's orders, every seat's page shows the change at once. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from dippouch.play import votes
from dippouch.store import processing as store_processing
from dippouch.store.models_pages import SharedPageRow
from dippouch.web.views import player_page
from websupport import TwoProcesses


class Pair(TwoProcesses):
    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.keys = {p: self.a.seat("g", p, f"{p} player") for p in ("France", "Germany", "Italy")}

    def b(self, power: str) -> TestClient:
        """The second process's browser of ``power``'s player, signed in by its key."""
        return self.signed_in(self.b_app, self.keys[power])

    def a_player(self, power: str) -> TestClient:
        return self.a.browser(self.keys[power])

    def kept(self) -> list[str]:
        with self.other.session() as s:
            return sorted(str(k) for k in s.scalars(sa.select(SharedPageRow.kind)))


@pytest.fixture
def pair(db_url: str) -> Iterator[Pair]:
    p = Pair(db_url)
    yield p
    p.close()


def _made_count(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The games whose shared part is made (not read back), as they are made."""
    made: list[str] = []
    real = player_page._made_shared

    def counted(web: Any, name: str, viewer: Any, lang: str, reading: Any) -> dict[str, Any]:
        made.append(name)
        return real(web, name, viewer, lang, reading)

    monkeypatch.setattr(player_page, "_made_shared", counted)
    return made


def _page(c: TestClient, power: str) -> str:
    r = c.get(f"/games/g/play/{power}")
    assert r.status_code == 200, r.text[:500]
    return str(r.text)


def test_every_seat_reads_the_part_one_seat_made(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    made = _made_count(monkeypatch)
    france = _page(pair.a_player("France"), "France")
    assert made == ["g"] and [k for k in pair.kept() if k.startswith("play-")] == ["play-member-all"]
    germany = _page(pair.b("Germany"), "Germany")
    italy = _page(pair.b("Italy"), "Italy")
    assert made == ["g"], "another seat's page, in another process, made the shared part again"
    # Each page is its seat's own all the same.
    assert "Orders for Spring 1901 Movement" in france and ">France<" in france
    assert "A Ber" in germany or "Army Berlin" in germany
    assert "Army Rome" in italy and "Army Rome" not in france.split('id="legal-data"')[1]


def test_processing_by_a_worker_is_never_shown_stale(pair: Pair) -> None:
    germany = pair.b("Germany")
    assert "Last turn:" not in _page(germany, "Germany")
    assert store_processing.process(pair.other, "g", now=pair.a.clock(), force=True) == ["Spring 1901 Movement"]
    page = _page(germany, "Germany")
    assert "Orders for Fall 1901 Movement" in page and "Last turn:" in page
    # The seat's own orders come first in the last turn's results, whoever made the shared part.
    rows = page.split('id="last-turn-results"')[1].split("</tbody>")[0]
    assert rows.index("Germany") < rows.index("Austria")
    france = _page(pair.a_player("France"), "France")
    rows = france.split('id="last-turn-results"')[1].split("</tbody>")[0]
    assert rows.index("France") < rows.index("Austria")


def test_a_proposal_and_a_ballot_are_never_shown_stale(pair: Pair) -> None:
    germany, italy = pair.b("Germany"), pair.b("Italy")
    assert "Nothing is proposed now." in _page(germany, "Germany")
    assert "Nothing is proposed now." in _page(italy, "Italy")
    got = votes.propose(pair.other, "g", "France", "extend", now=pair.a.clock(), hours=24)
    pid = got.proposal.id
    page = _page(germany, "Germany")
    assert f'id="proposal-{pid}"' in page and "Proposed by France." in page and "Vote yes" in page
    votes.ballot(pair.other, "g", pid, "Italy", True, now=pair.a.clock())
    page = _page(italy, "Italy")
    assert "You voted yes." in page and "Yes: France, Italy." in page
    # Another seat reads the same shared part with its own ballot (none) and its own buttons.
    page = _page(germany, "Germany")
    assert "Yes: France, Italy." in page and "You voted yes." not in page and "Vote yes" in page


def test_a_draw_vote_and_a_seat_s_orders_are_never_shown_stale(pair: Pair) -> None:
    germany = pair.b("Germany")
    assert "Not voted yes yet: Austria, England, France, Germany" in _page(germany, "Germany")
    votes.vote(pair.other, "g", "France", True, now=pair.a.clock())
    assert "Not voted yes yet: Austria, England, Germany" in _page(germany, "Germany")
    france_a = pair.a_player("France")
    assert pair.a.post_form(france_a, "/games/g/play/France/orders", {"orders": "A par - bur"}).status_code == 303
    page = _page(pair.b("France"), "France")
    assert "<pre>A par - bur</pre>" in page
    assert "Your versions" in page
