"""A measure inside a message (seconds of computing, a coach's expected centres) is a value with its decimals,
written as the reader's language writes numbers ("about 2,5 s" in German), and kept so when stored."""

from __future__ import annotations

from dippouch.core.messages import Msg, msg, quantity, render
from dippouch.saying import say


def test_a_measure_is_written_with_its_decimals_in_the_readers_language() -> None:
    m = msg(
        "%(phase)s: %(power)s's expected centres went from %(before)s to %(after)s",
        phase="S1901M",
        power="France",
        before=quantity(3.25, 1),
        after=quantity(5, 1),
    )
    assert render(m).endswith("went from 3.2 to 5.0")
    assert say(m, "de").endswith("von 3,2 auf 5,0")
    assert say(m, "fr").endswith("de 3,2 à 5,0")
    assert render(msg("%(n)s", n=quantity(1234.5678))) == "1,234.568"  # no places: up to three, as Babel's


def test_the_decimals_are_kept_in_the_stored_message() -> None:
    m = msg("tesseract took longer than %(seconds)s s on this image", seconds=quantity(12.0, 0))
    back = Msg.from_data(m.to_data())
    assert back == m and say(back, "de").count("12") == 1 and "12,0" not in say(back, "de")
    plain = Msg.from_data(msg("%(n)s", n=quantity(7)).to_data())
    assert plain == msg("%(n)s", n=quantity(7)) and "places" not in str(msg("%(n)s", n=quantity(7)).to_data())
