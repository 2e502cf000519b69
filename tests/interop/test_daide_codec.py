"""The DAIDE codec checked against an independent implementation: MILA ``diplomacy``'s DAIDE module.

Both read the same protocol documents; where they agree byte for byte (tokens, numbers, text, headers) or
message for message (MDF, NOW, SCO, orders in a SUB), each is evidence the other reads the documents right.
"""

from __future__ import annotations

import pytest
from diplomacy.daide import messages as mila_messages
from diplomacy.daide import responses as mila_responses
from diplomacy.daide import tokens as mila_tokens
from diplomacy.daide.requests import RequestBuilder
from diplomacy.daide.utils import bytes_to_str, str_to_bytes

from dippouch.catalog import load_variant
from dippouch.core.calendar import PhaseKind
from dippouch.core.notation import parse_order
from dippouch.core.position import Dislodged, Unit
from dippouch.interop.daide.board import DaideBoard, NotServable, problems
from dippouch.interop.daide.client import canonical_mdf
from dippouch.interop.daide.codec import (
    BracketError,
    Wire,
    decode,
    encode,
    frame,
    from_text,
    initial_message,
    parse,
    to_text,
    tokens_of,
)
from dippouch.interop.daide.tokens import (
    STANDARD_POWERS,
    STANDARD_PROVINCES,
    TOKENS,
    Vocabulary,
    integer,
    integer_value,
    text_tokens,
)

VOCAB = Vocabulary.standard_map()


@pytest.fixture(scope="module")
def board() -> DaideBoard:
    return DaideBoard(load_variant("standard"))


def _mila(text: str) -> list[int]:
    """Tokens of a message written in MILA's text form (numbers with '#')."""
    return decode(str_to_bytes(text))


def test_every_token_of_mila_has_our_number() -> None:
    ours = {**TOKENS, **STANDARD_POWERS, **STANDARD_PROVINCES}
    theirs = {name: int.from_bytes(value, "big") for name, value in mila_tokens.STR_TO_BYTES.items()}
    assert theirs == ours


@pytest.mark.parametrize("n", [-8192, -1901, -1, 0, 1, 255, 256, 1901, 8191])
def test_integers_are_14_bit_twos_complement_as_mila_writes_them(n: int) -> None:
    assert integer(n).to_bytes(2, "big") == bytes(mila_tokens.Token(from_int=n))
    assert integer_value(integer(n)) == n
    with pytest.raises(ValueError):
        integer(8192)


def test_text_is_one_token_a_byte() -> None:
    assert encode(text_tokens("Ab")) == bytes(mila_tokens.Token(from_str="A")) + bytes(mila_tokens.Token(from_str="b"))


def test_headers_match_milas_messages() -> None:
    assert initial_message() == bytes(mila_messages.InitialMessage())
    assert frame(Wire.RM) == bytes(mila_messages.RepresentationMessage())
    dm = mila_messages.DiplomacyMessage()
    dm.content = str_to_bytes("NOW")
    assert frame(Wire.DM, encode(from_text(VOCAB, "NOW"))) == bytes(dm)


def test_text_form_round_trips_and_reads_milas_bytes() -> None:
    text = "SUB ( SPR 1901 ) ( ( RUS FLT ( STP SCS ) ) MTO BOT ) ( ( FRA AMY PAR ) HLD )".replace("BOT", "GOB")
    tokens = from_text(VOCAB, text)
    assert to_text(VOCAB, tokens) == text
    assert tokens == _mila(text.replace("1901", "#1901"))
    assert to_text(VOCAB, from_text(VOCAB, "NME ('It''s me') ('1.0')")) == "NME ( 'It''s me' ) ( '1.0' )"


def test_brackets_that_do_not_match_are_found() -> None:
    with pytest.raises(BracketError):
        parse(from_text(VOCAB, "SUB ( ( FRA AMY PAR ) HLD"))
    with pytest.raises(BracketError):
        parse(from_text(VOCAB, "NOW )"))
    tree = parse(from_text(VOCAB, "HST ( SPR 1901 )"))
    assert len(tree) == 2 and tree[1].at == 1


def test_the_standard_map_definition_equals_milas(board: DaideBoard) -> None:
    ours = parse(tokens_of(board.vocab, *board.mdf()))
    theirs = parse(decode(bytes(mila_responses.MapDefinitionResponse("standard"))))
    assert canonical_mdf(VOCAB, ours[1:]) == canonical_mdf(VOCAB, theirs[1:])
    assert board.vocab.rm() == b"" and board.map_name == "standard"


def _groups(tokens: list[int]) -> set[str]:
    return {to_text(VOCAB, tokens[t.at : t.end + 1]) for t in parse(tokens)[1:]}  # type: ignore[union-attr]


def test_now_and_sco_of_the_opening_equal_milas(board: DaideBoard) -> None:
    v = board.variant
    ours_now = tokens_of(VOCAB, *board.now(v.start))
    units = {
        p.upper(): [f"{u.kind} {v.map.locations[u.loc].abbr.upper()}" for u in v.start.units_of(p)]
        for p in v.power_names
    }
    theirs_now = decode(bytes(mila_responses.CurrentPositionResponse("S1901M", units, {p: {} for p in units})))
    assert _groups(ours_now) == _groups(theirs_now)
    centres = {p.upper(): [v.map.provinces[c].abbr.upper() for c in v.start.centres_of(p)] for p in v.power_names}
    theirs_sco = decode(bytes(mila_responses.SupplyCenterResponse(centres, "standard")))
    assert _groups(tokens_of(VOCAB, *board.sco(v.start))) == _groups(theirs_sco)


def test_a_dislodged_unit_is_written_with_its_retreats_as_mila_does(board: DaideBoard) -> None:
    v = board.variant
    m = v.map
    war = Unit("Russia", "A", m.loc("war"))
    pos = v.start.with_(
        units={k: u for k, u in v.start.units.items() if u.power == "Russia" and u.kind == "F"},
        dislodged={m.province_of(war.loc): Dislodged(war, frozenset({m.loc("ukr"), m.loc("gal")}))},
    )
    ours = tokens_of(VOCAB, *board.now(pos))
    theirs = decode(
        bytes(
            mila_responses.CurrentPositionResponse(
                "S1901M", {"RUSSIA": ["F SEV", "F STP/SC"]}, {"RUSSIA": {"A WAR": ["GAL", "UKR"]}}
            )
        )
    )
    assert _groups(ours) == _groups(theirs)


ORDERS = [
    ("movement", "England", "A lvp H", "A LVP H"),
    ("movement", "Russia", "F stp/sc - bot", "F STP/SC - BOT"),
    ("movement", "England", "F edi S F lon - nth", "F EDI S F LON - NTH"),
    ("movement", "France", "A par S A mar", "A PAR S A MAR"),
    ("movement", "Italy", "A ven - tri", "A VEN - TRI"),
    ("retreats", "England", "A lvp - yor", "A LVP R YOR"),
    ("retreats", "England", "A lvp D", "A LVP D"),
    ("adjustments", "Russia", "Build F stp/nc", "F STP/NC B"),
    ("adjustments", "England", "Remove A lvp", "A LVP D"),
    ("adjustments", "England", "Waive", "WAIVE"),
]


@pytest.mark.parametrize(("kind", "power", "text", "mila"), ORDERS)
def test_orders_we_write_are_read_by_mila_as_the_same_orders(
    board: DaideBoard, kind: str, power: str, text: str, mila: str
) -> None:
    v = board.variant
    phase_kind = PhaseKind(kind)
    pos = v.start
    if phase_kind is PhaseKind.RETREATS:
        lvp = v.start.units[v.map.province_of(v.map.loc("lvp"))]
        pos = pos.with_(dislodged={lvp.loc: Dislodged(lvp, frozenset({v.map.loc("yor")}))})
    order = parse_order(v, text, phase_kind=phase_kind)
    tokens = tokens_of(VOCAB, "SUB", board.order(order, power, pos, phase_kind))
    request = RequestBuilder.from_bytes(encode(tokens))
    expected = mila.replace("BOT", "GOB") if "BOT" in mila else mila
    assert [o.replace("BOT", "GOB") for o in request.orders] == [expected]


def test_a_convoy_is_written_with_its_fleets_and_read_by_mila(board: DaideBoard) -> None:
    v = board.variant
    m = v.map
    pos = v.start.with_(
        units={
            m.province_of(m.loc("yor")): Unit("England", "A", m.loc("yor")),
            m.province_of(m.loc("nth")): Unit("England", "F", m.loc("nth")),
        }
    )
    move = parse_order(v, "A yor - nwy via convoy", phase_kind=PhaseKind.MOVEMENT)
    convoy = parse_order(v, "F nth C A yor - nwy", phase_kind=PhaseKind.MOVEMENT)
    parts = [board.order(o, "England", pos, PhaseKind.MOVEMENT, [move, convoy]) for o in (move, convoy)]
    tokens = tokens_of(VOCAB, "SUB", *parts)
    assert to_text(VOCAB, tokens) == (
        "SUB ( ( ENG AMY YOR ) CTO NWY VIA ( NTH ) ) ( ( ENG FLT NTH ) CVY ( ENG AMY YOR ) CTO NWY )"
    )
    assert RequestBuilder.from_bytes(encode(tokens)).orders == ["A YOR - NWY VIA", "F NTH C A YOR - NWY"]


def test_orders_mila_writes_are_read_back_to_our_orders(board: DaideBoard) -> None:
    text = "SUB ( ( ENG FLT EDI ) SUP ( ENG FLT LON ) MTO NTH ) ( ( RUS FLT ( STP SCS ) ) MTO GOB ) ( ( ENG AMY LVP ) HLD )"
    tree = parse(_mila(text))
    v = board.variant
    read = [board.read_order(t) for t in tree[1:]]
    written = [board.order(r.order, r.power, v.start, PhaseKind.MOVEMENT) for r in read]
    assert to_text(VOCAB, tokens_of(VOCAB, "SUB", *written)) == text


def test_responses_mila_would_send_read_as_ours_write_them() -> None:
    sub = _mila("SUB ( ( ENG AMY LVP ) HLD )")
    assert encode(tokens_of(VOCAB, "REJ", [*map(_raw, sub)])) == bytes(mila_responses.RejectResponse(encode(sub)))
    assert bytes_to_str(bytes(mila_responses.TimeToDeadlineResponse(60))) == "TME ( #60 )"
    assert to_text(VOCAB, decode(bytes(mila_responses.TimeToDeadlineResponse(60)))) == "TME ( 60 )"


def _raw(token: int) -> object:
    from dippouch.interop.daide.codec import Raw

    return Raw((token,))


def test_variants_daide_cannot_describe_are_refused_with_reasons() -> None:
    assert problems(load_variant("standard")) == []
    why = problems(load_variant("w3k"))
    assert any("calendar" in w for w in why) and any("256" in w for w in why)
    with pytest.raises(NotServable, match="unit kinds"):
        DaideBoard(load_variant("1000ad"))


def test_a_variant_map_gets_its_own_tokens_by_the_protocols_rules() -> None:
    board = DaideBoard(load_variant("hundred"))
    assert not board.standard and board.map_name == "hundred"
    vocab = Vocabulary.from_rm(board.vocab.rm())
    assert vocab.powers == board.vocab.powers and vocab.provinces == board.vocab.provinces
    lows = sorted(t & 0xFF for t in vocab.provinces.values())
    assert lows == list(range(len(lows)))
    assert sorted(t & 0xFF for t in vocab.powers.values()) == list(range(len(vocab.powers)))
    for name, token in vocab.provinces.items():
        assert len(name) == 3 and name not in TOKENS
        prov = board.variant.map.provinces[board.prov_of_token[token]]
        assert bool(token >> 8 & 1) == prov.supply_centre
    mdf = parse(tokens_of(vocab, *board.mdf()))
    assert canonical_mdf(vocab, mdf[1:]) == canonical_mdf(vocab, mdf[1:])
