"""A game's statistics on small constructed histories: centre counts by phase, the first centre to change
hands, eliminations, and the stab detector (an attack on a power one supported the phase before; a support
one is given, cut by oneself), including what is not a stab."""

from __future__ import annotations

from collections.abc import Mapping

from dippouch.core.orders import Hold, Move, Order, Support
from dippouch.core.results import OrderResult, Outcome
from dippouch.ranking.stats import (
    EventKind,
    GameEvent,
    GameHistory,
    PhaseFacts,
    centre_series,
    eliminations,
    first_centre_taken,
    key_events,
    stabs,
)

# Province ids of a small made-up board (only the ids matter to the statistics).
VIE, BUD, TRI, VEN, ROM, TYR, SER, MUN, BER, SPA, SPA_SC = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 101

AUS, ITA, GER = "Austria", "Italy", "Germany"


def phase(
    name: str,
    centres: Mapping[str, set[int]],
    units: Mapping[str, tuple[int, ...]],
    orders: tuple[tuple[str, Order, Outcome], ...] = (),
) -> PhaseFacts:
    year = int(name[1:5])
    kind = {"M": "movement", "R": "retreats", "A": "adjustments"}[name[-1]]
    return PhaseFacts(
        name=name,
        year=year,
        season={"S": "spring", "F": "fall", "W": "winter"}[name[0]],
        kind=kind,
        centres={p: frozenset(c) for p, c in centres.items()},
        units=dict(units),
        results=tuple(OrderResult(power, order, outcome) for power, order, outcome in orders),
    )


START = {AUS: {VIE, BUD, TRI}, ITA: {VEN, ROM}, GER: {MUN, BER}}


def history(*phases: PhaseFacts) -> GameHistory:
    return GameHistory(phases, province_of={SPA_SC: SPA})


def spring_support() -> PhaseFacts:
    """Austria's Trieste supports Italy's Venice into Tyrolia; Germany holds."""
    return phase(
        "S1901M",
        START,
        {AUS: (TRI, VIE), ITA: (VEN,), GER: (MUN,)},
        (
            (ITA, Move("A", VEN, TYR), Outcome.SUCCEEDS),
            (AUS, Support("A", TRI, "A", VEN, TYR), Outcome.GIVEN),
            (AUS, Hold("A", VIE), Outcome.STANDS),
            (GER, Hold("A", MUN), Outcome.STANDS),
        ),
    )


def test_an_attack_on_a_power_one_supported_is_a_stab() -> None:
    """In the fall Austria walks into Venice, Italy's centre (its army has left for Tyrolia): the power
    Austria supported in the spring."""
    fall = phase(
        "F1901M",
        START,
        {AUS: (TRI, VIE), ITA: (TYR,), GER: (MUN,)},
        ((AUS, Move("A", TRI, VEN), Outcome.SUCCEEDS), (ITA, Hold("A", TYR), Outcome.STANDS)),
    )
    assert stabs(history(spring_support(), fall)) == [GameEvent("F1901M", EventKind.STAB_ATTACK, AUS, ITA, VEN)]


def test_a_support_cut_by_the_power_it_was_given_to_is_a_stab() -> None:
    """Germany's Munich supports Italy's Tyrolia to hold, and Italy's Tyrolia attacks Munich."""
    fall = phase(
        "F1901M",
        START,
        {AUS: (TRI,), ITA: (TYR,), GER: (MUN,)},
        (
            (GER, Support("A", MUN, "A", TYR), Outcome.CUT),
            (ITA, Move("A", TYR, MUN), Outcome.FAILS),
            (AUS, Hold("A", TRI), Outcome.STANDS),
        ),
    )
    assert stabs(history(fall)) == [GameEvent("F1901M", EventKind.STAB_CUT, ITA, GER, MUN)]


def test_what_is_not_a_stab() -> None:
    """An attack on a power one never supported; an attack two movement phases after the support (with
    another movement phase between); a support of one's own unit; cutting a support given to a third
    power; an illegal support; a retreat phase."""
    never = phase(
        "F1901M",
        START,
        {AUS: (TRI, VIE), ITA: (TYR,), GER: (MUN,)},
        ((AUS, Move("A", VIE, MUN), Outcome.FAILS),),
    )
    assert stabs(history(spring_support(), never)) == []

    quiet = phase("F1901M", START, {AUS: (TRI,), ITA: (TYR,)}, ((AUS, Hold("A", TRI), Outcome.STANDS),))
    later = phase("S1902M", START, {AUS: (TRI,), ITA: (TYR,)}, ((AUS, Move("A", TRI, VEN), Outcome.SUCCEEDS),))
    retreat = phase("F1901R", START, {AUS: (TRI,), ITA: (TYR,)}, ((AUS, Move("A", TRI, VEN), Outcome.SUCCEEDS),))
    assert stabs(history(spring_support(), quiet, later)) == []
    assert stabs(history(spring_support(), retreat)) == []

    own = phase(
        "S1901M",
        START,
        {AUS: (TRI, VIE)},
        ((AUS, Support("A", TRI, "A", VIE), Outcome.GIVEN), (AUS, Move("A", VIE, BUD), Outcome.SUCCEEDS)),
    )
    next_own = phase("F1901M", START, {AUS: (TRI, BUD)}, ((AUS, Move("A", TRI, VIE), Outcome.SUCCEEDS),))
    assert stabs(history(own, next_own)) == []

    # Italy cuts Germany's support of Austria's unit: a support cut, but not one given to Italy.
    others = phase(
        "F1901M",
        START,
        {AUS: (TRI,), ITA: (TYR,), GER: (MUN,)},
        ((GER, Support("A", MUN, "A", TRI), Outcome.CUT), (ITA, Move("A", TYR, MUN), Outcome.FAILS)),
    )
    assert stabs(history(others)) == []

    illegal = phase(
        "S1901M",
        START,
        {AUS: (TRI,), ITA: (VEN,)},
        ((AUS, Support("A", TRI, "A", VEN, ROM), Outcome.ILLEGAL),),
    )
    attack = phase("F1901M", START, {AUS: (TRI,), ITA: (VEN,)}, ((AUS, Move("A", TRI, VEN), Outcome.FAILS),))
    assert stabs(history(illegal, attack)) == []


def test_a_coast_counts_as_its_province() -> None:
    """Italy's fleet on Spain's south coast is supported by Austria; Austria's army then moves into Spain."""
    spring = phase(
        "S1901M",
        START,
        {AUS: (SER,), ITA: (SPA_SC,)},
        ((AUS, Support("A", SER, "F", SPA_SC), Outcome.GIVEN), (ITA, Hold("F", SPA_SC), Outcome.STANDS)),
    )
    fall = phase("F1901M", START, {AUS: (SER,), ITA: (SPA_SC,)}, ((AUS, Move("A", SER, SPA), Outcome.FAILS),))
    assert stabs(history(spring, fall)) == [GameEvent("F1901M", EventKind.STAB_ATTACK, AUS, ITA, SPA)]


def test_centre_series_first_centre_taken_and_eliminations() -> None:
    phases = history(
        phase("S1901M", START, {AUS: (TRI,), ITA: (VEN,), GER: (MUN,)}),
        # Austria takes neutral Serbia: not a centre changing hands.
        phase(
            "W1901A",
            {AUS: {VIE, BUD, TRI, SER}, ITA: {VEN, ROM}, GER: {MUN, BER}},
            {AUS: (SER,), ITA: (VEN,), GER: (MUN,)},
        ),
        # Austria takes Venice from Italy, Germany takes Rome: the first change of hands is the lower id.
        phase(
            "W1902A", {AUS: {VIE, BUD, TRI, SER, VEN}, GER: {MUN, BER, ROM}}, {AUS: (VEN,), ITA: (TYR,), GER: (ROM,)}
        ),
        # Italy's last unit is gone: eliminated here, and only once.
        phase("S1903M", {AUS: {VIE, BUD, TRI, SER, VEN}, GER: {MUN, BER, ROM}}, {AUS: (VEN,), GER: (ROM,)}),
        phase("F1903M", {AUS: {VIE, BUD, TRI, SER, VEN}, GER: {MUN, BER, ROM}}, {AUS: (VEN,), GER: (ROM,)}),
    )
    assert centre_series(phases) == {AUS: (3, 4, 5, 5, 5), ITA: (2, 2, 0, 0, 0), GER: (2, 2, 3, 3, 3)}
    assert first_centre_taken(phases) == GameEvent("W1902A", EventKind.CENTRE_TAKEN, AUS, ITA, VEN)
    assert eliminations(phases) == [GameEvent("S1903M", EventKind.ELIMINATED, ITA)]
    assert key_events(phases) == [
        GameEvent("W1902A", EventKind.CENTRE_TAKEN, AUS, ITA, VEN),
        GameEvent("S1903M", EventKind.ELIMINATED, ITA),
    ]


def test_a_quiet_game_has_no_events() -> None:
    still = history(phase("S1901M", START, {AUS: (TRI,)}), phase("F1901M", START, {AUS: (TRI,)}))
    assert first_centre_taken(still) is None
    assert eliminations(still) == []
    assert key_events(still) == []


def test_key_events_come_in_phase_order() -> None:
    fall = phase(
        "F1901M",
        {AUS: {VIE, BUD, TRI}, ITA: {VEN, ROM}, GER: {MUN, BER}},
        {AUS: (TRI, VIE), ITA: (TYR,), GER: (MUN,)},
        ((AUS, Move("A", TRI, VEN), Outcome.SUCCEEDS),),
    )
    # Germany's centres left unowned (a made-up board may do that) and its army gone: eliminated.
    winter = phase("W1901A", {AUS: {VIE, BUD, TRI, VEN}, ITA: {ROM}}, {AUS: (VEN, VIE), ITA: (TYR,)})
    got = key_events(history(spring_support(), fall, winter))
    assert [e.kind for e in got] == [EventKind.STAB_ATTACK, EventKind.CENTRE_TAKEN, EventKind.ELIMINATED]
    assert got[2].power == GER
