"""A split coast and a unit's kind in the page's language (the players' walk: "Army Piedmont: kann sich nach
... zurückziehen", "Flotte Spain (south coast)" on German pages). Place names stay as the variant writes them."""

from __future__ import annotations

import pytest

from dippouch.names import coast_words


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "Spain (south coast)"), ("de", "Spain (Südküste)"), ("fr", "Spain (côte sud)")],
)
def test_a_split_coast_is_said_in_the_readers_language(lang: str, said: str) -> None:
    assert coast_words("Spain (south coast)", lang) == said


def test_a_name_without_a_standard_coast_is_left_as_written() -> None:
    assert coast_words("Spain", "de") == "Spain"
    assert coast_words("the south coast of Caernarfonshire", "de") == "the south coast of Caernarfonshire"
    assert coast_words("Isle (gold coast)", "de") == "Isle (gold coast)"


def test_the_retreat_notice_names_the_unit_in_the_readers_words() -> None:
    from jinja2 import Environment

    from dippouch.web.app import _templates

    env: Environment = _templates("de").env
    macro = env.get_template("_words.html").module.unit_words  # type: ignore[attr-defined]
    assert str(macro("Fleet Spain (south coast)")) == "Flotte Spain (Südküste)"
    assert str(macro("Army Piedmont")) == "Armee Piedmont"
