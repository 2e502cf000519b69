"""One size check for order text, with each door's own bounds (dippouch.game.check_size, issue 39): the page and
the JSON API take what a person types (TYPED: 100 lines of at most 300 characters), mail, post and the command
line what a submission holds (SUBMISSION: quoted history read past). The check runs in the use case, before the
store is asked, so text beyond the bounds records nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from dippouch.game import SUBMISSION, TYPED, GameError, OrderBounds, check_size
from dippouch.play.orders import send_orders
from dippouch.store import GameStore
from websupport import Site

HUNDRED_AND_ONE = "\n".join(["A par H"] * 101)


def test_each_bound_is_named_in_its_refusal() -> None:
    with pytest.raises(GameError, match=r"^101 lines of orders; at most 100 lines are sent or checked at once$"):
        check_size(HUNDRED_AND_ONE, TYPED)
    with pytest.raises(GameError, match=r"^line 2 is 301 characters long; an order line has at most 300"):
        check_size("A par H\n" + "x" * 301, TYPED)
    with pytest.raises(GameError, match=r"^the order text is 20,001 characters long; at most 20,000 are accepted$"):
        check_size("\n" * 20_001, TYPED)
    with pytest.raises(GameError, match="not text"):
        check_size("A par H\x00", SUBMISSION)
    with pytest.raises(GameError, match="not text"):
        check_size("A par H\ud800", TYPED)
    small = OrderBounds(total=100, chars=10, lines=5)
    with pytest.raises(
        GameError, match=r"^12 characters of orders besides quoted lines; at most 10 characters are accepted$"
    ):
        check_size("A par - bur\nA", small)


def test_quoted_history_and_blank_lines_do_not_count_as_orders() -> None:
    """A reply quoting the game's mail (a thousand quoted lines) is read past; a page's text counts its orders."""
    reply = "A par H\n\n" + "\n".join(["> " + "the report, quoted " * 5] * 1_500)
    check_size(reply, SUBMISSION)
    check_size("A par H\n\n\n" * 90, TYPED)  # 90 orders and 180 blank lines


def test_the_page_and_the_api_refuse_what_the_command_line_takes(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    site.new_game("g")
    france = site.player("g", "France")
    r = site.post_form(france, "/games/g/play/France/orders", {"orders": HUNDRED_AND_ONE})
    assert r.status_code == 400 and "101 lines of orders; at most 100" in r.text
    assert "A par H" in r.text  # the refused form keeps what was typed
    r = site.api(france, "/api/games/g/powers/France/orders", {"text": HUNDRED_AND_ONE})
    assert r.status_code == 400 and "at most 100" in r.json()["error"]
    assert france.get("/api/games/g/powers/France").json()["versions"] == []
    # The command line's and mail's door takes a whole submission: the lines are checked one by one.
    store: GameStore = site.web.store
    sent = send_orders(store, "g", "France", HUNDRED_AND_ONE, source="cli", now=datetime(2030, 1, 1, tzinfo=UTC))
    assert sent.accepted == 1 and sent.rejected == 100  # one hold, then a second order for the same army, ...
    with pytest.raises(GameError, match="not text"):
        send_orders(store, "g", "France", "A par H\x00", source="cli", now=datetime(2030, 1, 1, tzinfo=UTC))
