"""Order notation: every spelling players use, DATC's long form, errors with suggestions, round trips."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dippouch.catalog import load_variant
from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import msg
from dippouch.core.notation import (
    OrderParseError,
    OrderReader,
    format_order,
    format_unit,
    parse_order,
    parse_orders,
    parse_unit,
    register_format,
    register_syntax,
)
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive

V = load_variant("standard")


def L(name: str) -> int:
    return V.map.loc(name)


CASES = [
    # moves
    ("A Par - Bur", Move("A", L("par"), L("bur"))),
    ("A PAR-BUR", Move("A", L("par"), L("bur"))),
    ("a par -> bur", Move("A", L("par"), L("bur"))),
    ("Army Paris moves to Burgundy", Move("A", L("par"), L("bur"))),
    ("A Par M Bur", Move("A", L("par"), L("bur"))),
    ("Par - Bur", Move(None, L("par"), L("bur"))),
    ("A Lon - Bel via convoy", Move("A", L("lon"), L("bel"), True)),
    ("A Lon - Bel VIA", Move("A", L("lon"), L("bel"), True)),
    ("A Liverpool - Edinburgh via Convoy", Move("A", L("lvp"), L("edi"), True)),
    ("F Mid-Atlantic Ocean - Spain(nc)", Move("F", L("mao"), L("spa/nc"))),
    ("F Gulf of Bothnia - St Petersburg(sc)", Move("F", L("bot"), L("stp/sc"))),
    ("A St. Petersburg - Moscow", Move("A", L("stp"), L("mos"))),
    # coasts
    ("F stp/sc - bot", Move("F", L("stp/sc"), L("bot"))),
    ("F stp(sc) - bot", Move("F", L("stp/sc"), L("bot"))),
    ("F St Petersburg (south coast) - bot", Move("F", L("stp/sc"), L("bot"))),
    ("F spa nc - mao", Move("F", L("spa/nc"), L("mao"))),
    ("F Spain(nc) - Gascony", Move("F", L("spa/nc"), L("gas"))),
    # DATC 6.B.1/6.B.2: no coast given on a split-coast destination keeps the province
    ("F Portugal - Spain", Move("F", L("por"), L("spa"))),
    # DATC 6.B.10: a wrong coast of the ordered unit is kept as written
    ("F Spain(sc) - Gulf of Lyon", Move("F", L("spa/sc"), L("lyo"))),
    # convoys and supports
    ("F NTH C A LON - BEL", Convoy("F", L("nth"), L("lon"), L("bel"))),
    ("Fleet North Sea convoys Army London to Belgium", Convoy("F", L("nth"), L("lon"), L("bel"))),
    ("F North Sea Convoys A London - Belgium", Convoy("F", L("nth"), L("lon"), L("bel"))),
    ("A Mun S A Sil - Ber", Support("A", L("mun"), "A", L("sil"), L("ber"))),
    ("A Mun supports A Ber", Support("A", L("mun"), "A", L("ber"), None)),
    ("A Mun S A Ber", Support("A", L("mun"), "A", L("ber"), None)),
    ("A Mun S A Ber H", Support("A", L("mun"), "A", L("ber"), None)),
    ("F Constantinople Supports F Black Sea - Ankara", Support("F", L("con"), "F", L("bla"), L("ank"))),
    # DATC 6.D.35's slip: the target's unit type is kept as written
    ("A Smyrna Supports F Armenia - Ankara", Support("A", L("smy"), "F", L("arm"), L("ank"))),
    ("A mun S sil - ber", Support("A", L("mun"), None, L("sil"), L("ber"))),
    # holds
    ("A Par H", Hold("A", L("par"))),
    ("A Par holds", Hold("A", L("par"))),
    ("A Paris Holds", Hold("A", L("par"))),
    # retreats
    ("A Mun R Boh", Retreat("A", L("mun"), L("boh"))),
    ("A Mun retreats to Boh", Retreat("A", L("mun"), L("boh"))),
    ("A Mun disband", Disband("A", L("mun"))),
    ("Disband A Moscow", Disband("A", L("mos"))),
    # builds and removals
    ("Build A Par", Build("A", L("par"))),
    ("A Par B", Build("A", L("par"))),
    ("B F Stp/nc", Build("F", L("stp/nc"))),
    ("Build F St Petersburg(nc)", Build("F", L("stp/nc"))),
    ("Remove F Lon", Disband("F", L("lon"))),
    ("Disband F Lon", Disband("F", L("lon"))),
    ("F Lon D", Disband("F", L("lon"))),
    ("Waive", Waive()),
    ("waive", Waive()),
]


@pytest.mark.parametrize(("text", "order"), CASES, ids=[c[0] for c in CASES])
def test_parse(text: str, order: object) -> None:
    assert parse_order(V, text) == order


@pytest.mark.parametrize(("text", "order"), CASES, ids=[c[0] for c in CASES])
def test_format_round_trip(text: str, order: object) -> None:
    canonical = format_order(V, parse_order(V, text))
    assert parse_order(V, canonical) == order


@pytest.mark.parametrize(
    ("order", "text"),
    [
        (Move("A", L("par"), L("bur")), "A par - bur"),
        (Move("F", L("stp/sc"), L("bot")), "F stp/sc - bot"),
        (Move("A", L("lon"), L("bel"), True), "A lon - bel via convoy"),
        (Convoy("F", L("nth"), L("lon"), L("bel")), "F nth C A lon - bel"),
        (Support("A", L("mun"), "A", L("sil"), L("ber")), "A mun S A sil - ber"),
        (Support("A", L("mun"), "A", L("ber")), "A mun S A ber"),
        (Hold("A", L("par")), "A par H"),
        (Retreat("A", L("mun"), L("boh")), "A mun R boh"),
        (Disband("A", L("mun")), "A mun D"),
        (Build("A", L("par")), "Build A par"),
        (Build("F", L("stp/nc")), "Build F stp/nc"),
        (Waive(), "Waive"),
        (Move(None, L("par"), L("bur")), "par - bur"),
    ],
)
def test_canonical_form(order: object, text: str) -> None:
    assert format_order(V, order) == text  # type: ignore[arg-type]


def test_removal_formats_as_remove_in_adjustments() -> None:
    order = Disband("F", L("lon"))
    assert format_order(V, order, phase_kind=PhaseKind.ADJUSTMENTS) == "Remove F lon"
    assert parse_order(V, "Remove F lon") == order


def test_move_in_retreat_phase_is_a_retreat() -> None:
    assert parse_order(V, "A Mun - Boh") == Move("A", L("mun"), L("boh"))
    assert parse_order(V, "A Mun - Boh", phase_kind=PhaseKind.RETREATS) == Retreat("A", L("mun"), L("boh"))
    assert parse_order(V, "A Mun - Boh", phase_kind="retreats") == Retreat("A", L("mun"), L("boh"))


def test_unit() -> None:
    assert parse_unit(V, "F North Sea") == ("F", L("nth"))
    assert parse_unit(V, "F stp/sc") == ("F", L("stp/sc"))
    assert parse_unit(V, "A par") == ("A", L("par"))
    assert parse_unit(V, "Paris") == (None, L("par"))
    with pytest.raises(OrderParseError):
        parse_unit(V, "A par - bur")


@pytest.mark.parametrize(
    ("text", "token", "message_part", "suggestion"),
    [
        ("A Burgandy - Par", "Burgandy", "no province 'Burgandy'; did you mean Burgundy (bur)?", "Burgundy (bur)"),
        ("A Gulf of Bothnai - Swe", "Gulf of Bothnai", "no province 'Gulf of Bothnai'", "Gulf of Bothnia (bot)"),
        ("F spa/ec - mao", "ec", "Spain has no coast 'ec'", "spa/nc"),
        ("F Gascony(nc) - spa", "nc", "Gascony has no separate coasts", None),
        ("A par", "A par", "Add a verb", None),
        ("A par X bur", "X", "expected an order verb", None),
        ("A par suport A bur", "suport", "expected an order verb (H, -, S, C, R, D, B) but found 'suport'", "support"),
        ("Build par", "Build par", "a build needs a unit type", None),
        ("A par - bur - ", "", "expected a province", None),
        ("", "", "empty order", None),
        ("F nth C A lon", "", "a convoy names where the army goes", None),
        ("A par - bur please", "please", "unexpected 'please' after a complete order", None),
    ],
)
def test_errors_are_specific(text: str, token: str, message_part: str, suggestion: str | None) -> None:
    with pytest.raises(OrderParseError) as info:
        parse_order(V, text)
    err = info.value
    assert err.token == token
    assert message_part in str(err)
    if suggestion is not None:
        assert suggestion in err.suggestions


def test_pasted_block() -> None:
    block = """
    # spring orders
    England:
    F Lon - Nth   // the usual
    F Edi - Nwg

    A Lvp - Yor
    France: A Par - Bur
    A Mar - Spq
    Germany:
    """
    lines = parse_orders(V, block)
    assert [(p.line, p.power, p.text) for p in lines] == [
        (4, "England", "F Lon - Nth"),
        (5, "England", "F Edi - Nwg"),
        (7, "England", "A Lvp - Yor"),
        (8, "France", "A Par - Bur"),
        (9, "France", "A Mar - Spq"),
    ]
    assert lines[0].order == Move("F", L("lon"), L("nth"))
    assert lines[3].order == Move("A", L("par"), L("bur"))
    assert lines[4].order is None and lines[4].error is not None
    assert lines[4].error.token == "Spq"
    assert "Spain (spa)" in lines[4].error.suggestions


def test_dashless_move_and_route() -> None:
    assert parse_order(V, "A par bur") == Move("A", L("par"), L("bur"))
    assert parse_order(V, "A lon - nth - bel") == Move("A", L("lon"), L("bel"), True)
    with pytest.raises(OrderParseError, match="a retreat cannot go by convoy"):
        parse_order(V, "A par bur via", phase_kind="retreats")


# --------------------------------------------------------------------------------------------------
# Fuzz: any text gives an order or an OrderParseError, never another exception.


_WORDS = st.sampled_from(
    [
        "A",
        "F",
        "-",
        "->",
        "S",
        "C",
        "H",
        "R",
        "D",
        "B",
        "via",
        "convoy",
        "(",
        ")",
        "/",
        "nc",
        "sc",
        "Build",
        "Waive",
        "Remove",
        "Disband",
        "par",
        "bur",
        "stp",
        "spa",
        "North",
        "Sea",
        "Gulf",
        "of",
        "St",
        "Petersburg",
        "coast",
        "south",
        "to",
        "moves",
        "supports",
        "convoys",
        "holds",
        "England:",
        "#",
        "//",
        ",",
        ".",
        "Burgandy",
        "X",
        "",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_fuzz_random_text_never_crashes(text: str) -> None:
    try:
        parse_order(V, text)
    except OrderParseError as e:
        assert str(e)
    parse_orders(V, text)


@settings(max_examples=600, deadline=None)
@given(st.lists(_WORDS, max_size=9), st.sampled_from([None, "movement", "retreats", "adjustments"]))
def test_fuzz_word_salad_never_crashes(words: list[str], phase: str | None) -> None:
    text = " ".join(words)
    try:
        order = parse_order(V, text, phase_kind=phase)
    except OrderParseError as e:
        assert str(e)
    else:
        assert parse_order(V, format_order(V, order), phase_kind=phase) == order


# --------------------------------------------------------------------------------------------------
# Extension points: variant order kinds and unit kinds are switched on by the variant's [rules] table.


@dataclass(frozen=True, slots=True)
class _Convert(Order):
    kind: str | None
    loc: int
    to: str


def _read_convert(r: OrderReader) -> Order | None:
    if r.accept(("convert", "converts")) is None:
        kind, loc = r.unit()
        if r.accept(("convert", "converts")) is None:
            return None
    else:
        kind, loc = r.unit()
    r.accept(("to", "into"))
    to = r.kind()
    if to is None:
        raise r.fail(msg("convert to what? A or F"))
    return _Convert(kind, loc, to)


register_syntax("test_convert", _read_convert)
register_format(_Convert, lambda v, o, full: f"{format_unit(v, o.kind, o.loc)} convert {o.to}")  # type: ignore[attr-defined]


def test_variant_syntax_is_off_unless_the_rules_enable_it() -> None:
    with pytest.raises(OrderParseError):
        parse_order(V, "Convert A lon to F")
    w = replace(V, rules={**V.rules, "test_convert": True})
    order = parse_order(w, "Convert A lon to F")
    assert order == _Convert("A", L("lon"), "F")
    assert parse_order(w, "A lon converts into fleet") == order
    assert format_order(w, order) == "A lon convert F"
    # The standard grammar still works in that variant.
    assert parse_order(w, "A lon - wal") == Move("A", L("lon"), L("wal"))
    with pytest.raises(OrderParseError, match="convert to what"):
        parse_order(w, "Convert A lon")


def test_variant_unit_kinds() -> None:
    w = replace(V, rules={**V.rules, "moves_as": {"D": "A"}, "unit_names": {"D": ["3d", "defensive army"]}})
    assert parse_order(w, "D mos - war") == Move("D", L("mos"), L("war"))
    assert parse_order(w, "3D mos - war") == Move("D", L("mos"), L("war"))
    assert parse_order(w, "Defensive Army Moscow holds") == Hold("D", L("mos"))
    assert parse_order(w, "Build D mos") == Build("D", L("mos"))
    assert parse_order(w, "Disband D mos") == Disband("D", L("mos"))
    assert parse_order(w, "D mos D") == Disband("D", L("mos"))
    assert format_order(w, Move("D", L("mos"), L("war"))) == "D mos - war"


# --------------------------------------------------------------------------------------------------
# Ambiguous words: the reader tries the other readings when the first fails, a verb before a dashless move.


def test_ambiguous_readings_in_other_variants() -> None:
    ad = load_variant("1000ad")

    def at(name: str) -> int:
        return ad.map.loc(name)

    # "Norwegian S" is an alias of the Norwegian Sea, but here "S" is the support.
    assert parse_order(ad, "F Norwegian S F Leon") == Support("F", at("norwegian"), "F", at("leo"), None)
    assert parse_order(ad, "F Norwegian S - Leon") == Move("F", at("norwegian"), at("leo"))
    # "W" may mean waive, but "w.wales" is a province (an alias of Cornwall).
    assert parse_order(ad, "A w.wales H") == Hold("A", at("w.wales"))
    assert parse_order(ad, "W") == Waive()
    # "con" is Constantinople as well as "convoy".
    assert parse_order(V, "A smy con") == Move("A", L("smy"), L("con"))
    assert parse_order(V, "F bla con A bul - sev") == Convoy("F", L("bla"), L("bul"), L("sev"))
    # "spa north" could be Spain's north coast; here "north atlantic" is the destination.
    assert parse_order(V, "F spa north atlantic") == Move("F", L("spa"), L("nao"))
    assert parse_order(V, "F spa north - mao") == Move("F", L("spa/nc"), L("mao"))


def test_typography_and_accents() -> None:
    assert parse_order(V, "A Par \u2013 Bur") == Move("A", L("par"), L("bur"))  # en dash
    assert parse_order(V, "A Par \u2192 Bur") == Move("A", L("par"), L("bur"))  # arrow
    assert parse_order(V, "A Mun - M\u00fcnchen") == Move("A", L("mun"), L("mun"))  # the alias "munchen"
    assert parse_order(V, "A PAR - BUR.") == Move("A", L("par"), L("bur"))


def test_a_misspelt_variant_verb_is_recognised() -> None:
    """W3K's extra verbs are listed and matched like the standard ones ("convrt": did you mean convert?)."""
    w3k = load_variant("w3k")
    with pytest.raises(OrderParseError) as info:
        parse_order(w3k, "F Bristol convrt")
    assert "(H, -, S, C, R, D, B, Convert, Send)" in str(info.value)
    assert info.value.suggestions == ["convert"]
    with pytest.raises(OrderParseError) as info:
        parse_order(V, "F bre convrt")
    assert "Convert" not in str(info.value)  # the standard game has no conversions
    assert info.value.suggestions == []
