"""A size or a limit a refusal names is a number in its message (a Quantity), written with the reader's digit
grouping only at the door: English 1,001, German 1.001, French 1 001 (a narrow space); a stored message keeps
the number, not its text; a plain number (a year) stays as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.core.messages import Msg, Quantity, msg, quantity
from dippouch.game import TYPED, GameError, check_size
from dippouch.saying import say
from websupport import Site


def test_a_quantity_is_grouped_as_the_reader_writes_numbers() -> None:
    with pytest.raises(GameError) as refused:
        check_size("\n" * 20_001, TYPED)
    m = refused.value.msg
    assert m.args["length"] == Quantity(20_001) and m.args["most"] == Quantity(20_000)
    assert say(m, "en") == str(m) == "the order text is 20,001 characters long; at most 20,000 are accepted"
    assert "20.001" in say(m, "de") and "20.000" in say(m, "de") and "20,001" not in say(m, "de")
    assert "20\u202f001" in say(m, "fr")
    # Stored and read back, it is still a number, said in each language as before.
    back = Msg.from_data(m.to_data())
    assert back == m and m.to_data()["args"]["length"] == {"quantity": 20_001}
    assert say(back, "de") == say(m, "de")
    # A year is a plain number: never grouped.
    year = msg("The game ends after %(year)s, its last year; surviving: %(powers)s.", year=1907, powers="England")
    assert "1907" in say(year, "de") and "1907" in str(year)
    assert say(msg("%(n)s", n=quantity(1234.5)), "de") == "1.234,5"


def test_a_german_page_says_the_refused_size_in_german_digits(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    site.new_game("g")
    france = site.player("g", "France")
    france.cookies.set("lang", "de")
    text = "\n".join(["A par H"] * 1_001)
    r = site.post_form(france, "/games/g/play/France/orders", {"orders": text})
    assert r.status_code == 400
    assert "1.001 Befehlszeilen" in r.text and "1,001" not in r.text
    # The JSON API speaks English, with the number itself in the message's values.
    r = site.api(france, "/api/games/g/powers/France/orders", {"text": text})
    assert r.status_code == 400 and "1,001 lines of orders" in r.json()["error"]
