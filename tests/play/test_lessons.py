"""The guided first game's lessons (docs/learn.md): each lesson's intended orders pass; a typical wrong answer
fails, and the explanation says why in the engine's own terms; the explanation of a phase checked over
DATC-like cases on other positions than the lessons' (a bounce, a cut support, a dislodgement, a disrupted
convoy, a retreat); progress kept per person."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.notation import parse_order
from dippouch.game import GameError, position_from_data, position_to_data
from dippouch.play import lessons as L
from dippouch.play.explain import explain
from dippouch.store import GameStore

V = load_variant("standard")
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

WRONG = {
    # lesson: (typical wrong orders, what the explanation must say, what the goal's verdict must say)
    "moves": ("A pic - bur", "A Picardy moved to Burgundy.", "Nobody stands in Belgium"),
    "bounce": ("A par H", "A Munich moved to Burgundy.", "A unit of Germany stands in Burgundy"),
    "support": (
        "A pic - bel",
        "A Picardy did not enter Belgium: it bounced off A Belgium, which stayed there. Equal strength, 1 against 1",
        "A Belgium of Germany stands in Belgium",
    ),
    "cut": (
        "A sil S A mun",
        "The support of A Silesia was cut because A Galicia attacked Silesia",
        "A Munich of Austria stands in Munich",
    ),
    "convoy": (
        "A yor - nwy\nF nth C A yor - nwy",
        "The convoy of F North Sea was disrupted: F Helgoland Bight dislodged the fleet",
        "Nobody stands in Norway: the goal wants an army of England there.",
    ),
    "retreats": (
        "A bur R pic",
        "A Burgundy was disbanded: A Belgium retreated to Picardy too",
        "France has 0 units, not the 1",
    ),
    "builds": ("Build A bre\nBuild A par", "A Brest was built.", "the goal wants a fleet of France in Brest"),
    "coasts": (
        "F mao - spa/sc",
        "F Mid-Atlantic Ocean moved to Spain (south coast).",
        "the goal wants a fleet of France in Spain (north coast)",
    ),
}


def _said(a: L.LessonAttempt) -> list[str]:
    return [str(s.text) for s in a.said]


@pytest.mark.parametrize("le", L.LESSONS, ids=lambda le: le.slug)
def test_each_lesson_s_answer_passes(le: L.Lesson) -> None:
    a = L.attempt(le, le.answer)
    assert not a.refused
    assert a.adjudicated and a.passed, [str(g) for g, _ in a.goals]
    assert a.said and a.said[0].mine  # the reader's own units are told first


def test_every_lesson_has_a_wrong_answer_here() -> None:
    assert set(WRONG) == {le.slug for le in L.LESSONS}


@pytest.mark.parametrize("le", L.LESSONS, ids=lambda le: le.slug)
def test_a_typical_wrong_answer_fails_with_the_right_explanation(le: L.Lesson) -> None:
    orders, told, verdict = WRONG[le.slug]
    a = L.attempt(le, orders)
    assert a.adjudicated and not a.passed
    assert any(told in s for s in _said(a)), _said(a)
    assert any(verdict in str(g) for g, ok in a.goals if not ok), [str(g) for g, _ in a.goals]


def test_the_winning_answers_are_told_too() -> None:
    bounce = _said(L.attempt(L.lesson("bounce"), "A par - bur"))
    assert bounce[0].startswith("A Paris and A Munich both tried to enter Burgundy and bounced")
    assert "Equal strength, 1 against 1" in bounce[0]
    assert sum("bounced" in s for s in bounce) == 1  # one bounce, told once
    cut = _said(L.attempt(L.lesson("cut"), L.lesson("cut").answer))
    assert "The support of A Bohemia was cut because A Silesia attacked Bohemia" in " ".join(cut)
    support = _said(L.attempt(L.lesson("support"), L.lesson("support").answer))
    assert "A Belgium was dislodged by A Picardy: strength 2 against 1." in " ".join(support)


def test_another_order_gets_another_explanation() -> None:
    """Nothing is written per lesson: the bounce lesson played from Marseilles says Marseilles."""
    said = _said(L.attempt(L.lesson("bounce"), "A mar - bur"))
    assert said[0].startswith("A Marseilles and A Munich both tried to enter Burgundy")
    alone = _said(L.attempt(L.lesson("convoy"), "A yor - nwy"))
    assert "A Yorkshire could not reach Norway: it is not next to it, and no fleet was ordered to convoy it" in alone[0]


def test_a_refused_line_is_not_adjudicated_and_gets_the_closest_orders() -> None:
    a = L.attempt(L.lesson("moves"), "A pic - hol")
    assert not a.adjudicated and not a.passed
    assert "closest legal: A Picardy - Belgium" in str(a.refused[0].error)
    assert not L.attempt(L.lesson("moves"), "  ").adjudicated
    with pytest.raises(GameError, match="at most"):
        L.attempt(L.lesson("moves"), "A pic H\n" * 400)


def test_the_retreat_lesson_s_board_is_the_engine_s() -> None:
    pos = L.start_position(L.lesson("retreats"))
    assert pos["phase"] == "Spring 1901 Retreats"
    french = next(d for d in pos["dislodged"] if d["power"] == "France")
    assert french["unit"] == "A bur" and french["attacker_from"] == "mun"
    assert set(french["retreats"]) == {"gas", "mar", "par", "pic"}


def test_unknown_lesson_and_progress_read_from_a_browser() -> None:
    with pytest.raises(GameError, match="no lesson"):
        L.lesson("nope")
    assert L.read_progress("moves, bounce,evil,<script>") == {"moves", "bounce"}
    nxt = L.next_lesson({"moves", "bounce"})
    assert nxt is not None and nxt.slug == "support"
    assert L.next_lesson({le.slug for le in L.LESSONS}) is None


def test_progress_is_kept_per_person(store: GameStore) -> None:
    from dippouch.store.learning.lessons import export_person, forget_person
    from dippouch.store.people.persons import create_person

    pid = create_person(store, "Ada", now=T0)
    other = create_person(store, "Bob", now=T0)
    assert L.passed(store, pid) == set()
    L.mark_passed(store, pid, "moves", now=T0)
    L.mark_passed(store, pid, "moves", now=T0)
    L.mark_passed(store, pid, "bounce", now=T0)
    assert L.passed(store, pid) == {"moves", "bounce"} and L.passed(store, other) == set()
    assert [x["lesson"] for x in export_person(store, pid)["lessons_passed"]] == ["bounce", "moves"]
    with pytest.raises(GameError):
        L.mark_passed(store, pid, "nope", now=T0)
    forget_person(store, pid, now=T0)
    assert L.passed(store, pid) == set()


# -- the explanation over DATC-like cases, on boards of their own


def _play(units: list[tuple[str, str]], orders: dict[str, list[str]], me: str) -> list[str]:
    """The explanation of one movement phase on a board of ``units``."""
    data = position_to_data(V, V.start)
    data["units"] = [{"power": p, "unit": u} for p, u in units]
    pos = position_from_data(V, data)
    parsed = {p: [parse_order(V, o) for o in os] for p, os in orders.items()}
    return [str(s.text) for s in explain(V, pos, parsed, adjudicate(V, pos, parsed), me)]


def test_explained_bounce_of_three() -> None:
    """DATC 6.A-like: two equal moves into an empty province bounce; a supported third would have won."""
    said = _play(
        [("Austria", "A vie"), ("Italy", "A ven"), ("Germany", "A mun")],
        {"Austria": ["A vie - tyr"], "Italy": ["A ven - tyr"], "Germany": ["A mun H"]},
        me="Italy",
    )
    assert said[0].startswith("A Venice and A Vienna both tried to enter Tyrolia and bounced")
    assert sum("Tyrolia" in s for s in said) == 1


def test_explained_cut_support_and_dislodgement() -> None:
    """DATC 6.D.1-like: a support from the province attacked is not cut by the unit it supports against."""
    said = _play(
        [("Germany", "A mun"), ("Germany", "A ber"), ("Russia", "A sil"), ("Russia", "A pru")],
        {"Russia": ["A sil - mun", "A pru - ber"], "Germany": ["A ber S A mun", "A mun H"]},
        me="Germany",
    )
    text = " ".join(said)
    assert "The support of A Berlin was cut because A Prussia attacked Berlin" in text
    assert "A Silesia did not enter Munich: it bounced off A Munich" in text
    said = _play(
        [("Germany", "A mun"), ("Russia", "A sil"), ("Russia", "A boh")],
        {"Russia": ["A sil - mun", "A boh S A sil - mun"], "Germany": ["A mun H"]},
        me="Germany",
    )
    assert "A Munich was dislodged by A Silesia: strength 2 against 1." in " ".join(said)


def test_explained_disrupted_convoy_and_head_to_head() -> None:
    said = _play(
        [("England", "A lon"), ("England", "F nth"), ("France", "F eng"), ("France", "F bel")],
        {"England": ["A lon - hol", "F nth C A lon - hol"], "France": ["F eng - nth", "F bel S F eng - nth"]},
        me="England",
    )
    text = " ".join(said)
    assert "The convoy of F North Sea was disrupted: F English Channel dislodged the fleet" in text
    assert "A London could not cross to Holland: the convoy of F North Sea was disrupted." in text
    said = _play(
        [("Germany", "A mun"), ("France", "A bur"), ("France", "A ruh")],
        {"Germany": ["A mun - bur"], "France": ["A bur - mun", "A ruh S A bur - mun"]},
        me="Germany",
    )
    assert "A Munich and A Burgundy moved against each other and A Munich lost. Strength 1 against 2." in said[0]


def test_explained_equal_head_to_head_is_a_bounce_told_once() -> None:
    """Two units of equal strength moving against each other both bounce: neither lost, and it is told once."""
    said = _play(
        [("Austria", "F tri"), ("Italy", "A ven")],
        {"Austria": ["F tri - ven"], "Italy": ["A ven - tri"]},
        me="Italy",
    )
    assert said[0] == (
        "A Venice and F Trieste moved against each other and bounced: neither moved. Equal strength, 1 against 1: "
        "a move needs more strength than what stands against it."
    )
    assert not any("lost" in s for s in said)
    assert sum("moved against each other" in s for s in said) == 1


def test_explained_retreats_and_builds() -> None:
    data = position_to_data(V, V.start)
    data["units"] = [
        {"power": "Germany", "unit": "A mun"},
        {"power": "Russia", "unit": "A sil"},
        {"power": "Russia", "unit": "A boh"},
    ]
    pos = position_from_data(V, data)
    setup = {"Russia": [parse_order(V, "A sil - mun"), parse_order(V, "A boh S A sil - mun")]}
    pos = adjudicate(V, pos, setup).next
    assert V.calendar.kind(pos.phase).value == "retreats"
    for typed, told in (
        ("A mun R kie", "A Munich retreated to Kiel."),
        ("A mun D", "A Munich was disbanded."),
    ):
        orders = {"Germany": [parse_order(V, typed, phase_kind=V.calendar.kind(pos.phase))]}
        res = adjudicate(V, pos, orders)
        assert [str(s.text) for s in explain(V, pos, orders, res, "Germany")] == [told]
    res = adjudicate(V, pos, {})
    assert [str(s.text) for s in explain(V, pos, {}, res, "Germany")] == [
        "A Munich had no retreat order and was disbanded."
    ]


def test_every_order_of_random_games_is_told() -> None:
    """Over many adjudications (random legal orders for every power from the opening, for three years, retreats
    and builds included): every order a power gave gets a sentence, each is said without a hole (every
    placeholder filled), and a dislodged unit is always told so."""
    import random

    from dippouch.core.legal_orders import all_legal_orders
    from dippouch.core.orders import Build, Disband

    rng = random.Random(58)
    told = 0
    for _game in range(12):
        pos = V.start
        for _phase in range(9):
            legal = all_legal_orders(V, pos)
            orders = {p: [rng.choice(opts) for opts in units.values() if opts] for p, units in legal.items()}
            if V.calendar.kind(pos.phase).value == "adjustments":
                orders = {p: [o for o in os if type(o) in (Build, Disband)][:1] for p, os in orders.items()}
            res = adjudicate(V, pos, orders)
            said = explain(V, pos, orders, res, "France")
            texts = [str(s.text) for s in said]
            assert all("%(" not in t and t.strip() for t in texts)
            for r in res.results:
                if r.index is not None or r.dislodged:
                    assert any(s.power == r.power for s in said), (r, texts)
            dislodged = [r for r in res.results if r.dislodged]
            assert sum("was dislodged" in t for t in texts) == len(dislodged), texts
            told += len(texts)
            pos = res.next
    assert told > 500
