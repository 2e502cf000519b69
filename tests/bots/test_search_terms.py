"""The search level's reading of a position a phase on (dislodged enemies, exposed and open centres) and its
replies that repeat last phase's orders. Each term is shown by two positions alike but for what it counts, so
that a score without the term fails the test."""

from __future__ import annotations

import random
from dataclasses import replace

from bot_positions import V, position, province
from dippouch.bots.engine import PhaseKind, Position, adjudicate, format_order, legal_orders, parse_order
from dippouch.bots.heuristic import Values
from dippouch.bots.memory import remember
from dippouch.bots.search import EXPOSED, KILL, OPEN, _paired, _repeating, _score, _supports
from dippouch.core.calendar import Phase


def _orders(texts: dict[str, list[str]]) -> dict[str, list]:  # type: ignore[type-arg]
    return {p: [parse_order(V, o, phase_kind=PhaseKind.MOVEMENT) for o in os_] for p, os_ in texts.items()}


def test_an_enemy_unit_dislodged_counts_for_the_power_that_dislodged_it() -> None:
    before = position({"Germany": "A mun, A ruh", "France": "A bur"}, {"Germany": "mun kie ber", "France": "par"})
    after = adjudicate(V, before, _orders({"Germany": ["A mun - bur", "A ruh S A mun - bur"]})).next
    assert [d.unit.power for d in after.dislodged.values()] == ["France"]
    values = Values(V, before, "Germany")
    assert _score(after, "Germany", values) - _score(replace(after, dislodged={}), "Germany", values) == KILL


def test_an_own_centre_out_reached_by_another_power_is_exposed() -> None:
    centres = {"Germany": "kie ber mun", "France": "par"}
    one = position({"Germany": "A ber", "England": "F hel"}, centres)  # Kiel: one German against one English
    two = position({"Germany": "A ber", "England": "F hel, A den"}, centres)  # ... against two
    values = Values(V, one, "Germany")
    assert _score(one, "Germany", values) - _score(two, "Germany", values) == EXPOSED


def test_a_centre_reached_with_more_than_its_holder_can_hold_it_with_is_open() -> None:
    centres = {"Germany": "kie ber mun", "Russia": "war"}
    # Warsaw, Russia's, empty: reached by the German armies in Silesia and Prussia.
    guarded = position({"Germany": "A sil, A pru", "Russia": "A war, A ukr, A lvn"}, centres)  # held with 3
    open_ = position({"Germany": "A sil, A pru", "Russia": "A war, A sev, A stp"}, centres)  # held with 1
    values = Values(V, guarded, "Germany")
    assert _score(open_, "Germany", values) - _score(guarded, "Germany", values) == OPEN


def test_replies_repeat_last_phase_orders_where_still_legal() -> None:
    start = V.start
    first = _orders({"Russia": ["A war - gal"], "Austria": ["A vie - gal"], "Turkey": ["F ank - bla"]})
    done = adjudicate(V, start, first)
    memory = remember(V, None, "Germany", done.results)
    assert memory.last[province("war")][0] == "Russia" and memory.last[province("vie")][0] == "Austria"
    position = done.next  # Autumn 1901: nothing dislodged, so no retreats between
    assert V.calendar.kind(position.phase) is PhaseKind.MOVEMENT
    legal = legal_orders(V, position, "Russia")
    holds = [
        next(o for o in os_ if format_order(V, o, phase_kind=PhaseKind.MOVEMENT).endswith(" H"))
        for os_ in legal.values()
    ]
    again = _repeating(holds, "Russia", memory.last, legal, V, 1.0, random.Random(1))
    texts = {format_order(V, o, phase_kind=PhaseKind.MOVEMENT) for o in again}
    assert "A war - gal" in texts  # the bounced move, tried again
    assert "A mos H" in texts  # Moscow's hold stays: its unit had no order of its own to repeat
    # Another power's last order in a province is never read as this power's.
    theirs = _repeating(holds, "Austria", memory.last, legal, V, 1.0, random.Random(1))
    assert theirs == holds
    assert _repeating(holds, "Russia", memory.last, legal, V, 0.0, random.Random(1)) == holds


def test_the_search_level_builds_where_a_new_unit_has_somewhere_new_to_go() -> None:
    """Turkey with armies about Bulgaria, Armenia and Sevastopol and one build: the heuristic's build (the army
    value is high where the armies already go) is an army; the search level's (``crowding``), a fleet that
    opens the Aegean and the Eastern Mediterranean."""
    from dippouch.bots.engine import Build
    from dippouch.bots.heuristic import HeuristicBot

    winter = position(
        {"Turkey": "A bul, A arm, A sev, F ank", "Russia": "A ukr, A rum", "Italy": "F ion, A gre"},
        {"Turkey": "ank con smy bul sev", "Russia": "mos war stp rum", "Italy": "rom nap ven tun gre"},
    )
    winter = replace(winter, phase=Phase(1905, 4))
    assert V.calendar.kind(winter.phase) is PhaseKind.ADJUSTMENTS

    def kinds(bot: HeuristicBot) -> set[str]:
        got: set[str] = set()
        for seed in range(10):
            got |= {o.kind or "" for o in bot.orders(V, winter, "Turkey", random.Random(seed)) if isinstance(o, Build)}
        return got

    assert kinds(HeuristicBot()) == {"A"}
    assert kinds(HeuristicBot(crowding=True)) == {"F"}


def test_a_second_build_is_weighed_with_the_first_in() -> None:
    """Turkey after 1901 (the fleet in the Black Sea, armies in Bulgaria and Sevastopol) with two builds: a
    fleet in Constantinople is worth most, and a fleet in Smyrna came next when each build was weighed alone,
    so it built two fleets and parked them in Rumania and Bulgaria, where they could take nothing inland. Weighed
    after the first (half the units fleets now, and the Aegean and the Black Sea covered), the second is an
    army."""
    from dippouch.bots.engine import Build
    from dippouch.bots.heuristic import HeuristicBot
    from dippouch.bots.search import GUARDED

    winter = position(
        {
            "Turkey": "F bla, A bul, A sev",
            "Russia": "A mos, A gal, F rum, F swe",
            "Austria": "A bud, A vie, F alb",
            "Italy": "F ion, A tri, A ven",
            "Germany": "F kie, A ruh, A war",
        },
        {
            "Turkey": "ank con smy bul sev",
            "Russia": "mos stp war rum",
            "Austria": "bud vie",
            "Italy": "rom nap ven tri",
            "Germany": "ber kie mun den",
        },
        step=4,
        year=1901,
    )
    bot = HeuristicBot(crowding=True, guarded=GUARDED)
    built = [o for o in bot.orders(V, winter, "Turkey", random.Random(1)) if isinstance(o, Build)]
    assert sorted(f"{o.kind} {V.map.locations[o.loc].abbr}" for o in built) == ["A smy", "F con"]


def test_the_search_level_weighs_a_threat_to_its_own_centres_less_but_on_the_line() -> None:
    """Its score counts an exposed centre against the replies already; its values (candidates, builds) lift a
    threatened own centre by ``GUARDED`` at most, the heuristic's by ``THREATENED``, and on the stalemate line
    against a power near a solo both hold it alike."""
    from dippouch.bots.heuristic import THREATENED
    from dippouch.bots.search import GUARDED

    assert GUARDED < THREATENED
    kiel = province("kie")
    crowded = position(
        {"Germany": "A ber", "England": "F hel, A den, A hol, A ruh"},
        {"Germany": "kie ber mun", "England": "lon edi lvp den hol"},
    )
    assert Values(V, crowded, "Germany").base[kiel] == 0.5 + THREATENED
    assert Values(V, crowded, "Germany", guarded=GUARDED).base[kiel] == 0.5 + GUARDED
    big = "lon edi lvp den nwy swe stp bel hol bre par mar spa por"
    line = position(
        {"Germany": "A ber", "England": "F hel, A den, A hol, A ruh"}, {"Germany": "kie ber mun", "England": big}
    )
    assert Values(V, line, "Germany", guarded=GUARDED).mode == "line"
    assert Values(V, line, "Germany", guarded=GUARDED).base[kiel] == 0.5 + THREATENED


def test_near_a_solo_it_drives_taking_rather_than_guarding() -> None:
    """With 14 centres (the heuristic's solo mode) an exposed centre costs nothing and an open one counts
    ``DRIVE``'s weight, not ``OPEN``'s: the others gang up on a leader, and it wins by taking."""
    from dippouch.bots.search import DRIVE

    many = "kie ber mun hol bel den swe nwy war mos stp sev rum bud"
    one = position({"Germany": "A ber", "England": "F hel"}, {"Germany": many})
    two = position({"Germany": "A ber", "England": "F hel, F bal"}, {"Germany": many})
    values = Values(V, one, "Germany")
    assert values.mode == "solo"
    assert _score(one, "Germany", values) == _score(two, "Germany", values)
    assert DRIVE[1] == 0.0 and DRIVE[2] > OPEN
    # Vienna, Austria's, empty: reached by the German armies in Bohemia and Tyrolia.
    guarded = position(
        {"Germany": "A boh, A tyr", "Austria": "A vie, A bud, A gal"}, {"Germany": many, "Austria": "vie"}
    )
    open_ = position({"Germany": "A boh, A tyr", "Austria": "A vie, A ser, A rum"}, {"Germany": many, "Austria": "vie"})
    assert _score(open_, "Germany", values) - _score(guarded, "Germany", values) == DRIVE[2]


def test_it_drives_from_two_thirds_of_a_solos_centres() -> None:
    """With 12 centres (two thirds of 18) the fleet in the Baltic exposes nothing; with 11, Kiel and Sweden."""
    from dippouch.bots.search import EXPOSED

    for owned, cost in (
        ("kie ber mun hol bel den swe nwy war mos stp sev", 0.0),
        ("kie ber mun hol bel den swe nwy war mos stp", 2 * EXPOSED),  # Kiel and Sweden
    ):
        one = position({"Germany": "A ber", "England": "F hel"}, {"Germany": owned})
        two = position({"Germany": "A ber", "England": "F hel, F bal"}, {"Germany": owned})
        values = Values(V, one, "Germany")
        assert values.mode == ""  # the heuristic's solo mode starts at 14
        assert _score(one, "Germany", values) - _score(two, "Germany", values) == cost, len(owned.split())


def _paired_steps(p: Position, power: str, seed: int, n: int) -> list[set[str]]:
    """The orders ``n`` paired steps from ``power``'s units all holding change, as written."""
    legal = legal_orders(V, p, power)
    holds = [o for os_ in legal.values() for o in os_ if type(o).__name__ == "Hold"]
    rng = random.Random(seed)
    supports = _supports(legal, V, p, power)
    held = {format_order(V, o, phase_kind=PhaseKind.MOVEMENT) for o in holds}
    return [
        {format_order(V, o, phase_kind=PhaseKind.MOVEMENT) for o in _paired(holds, supports, legal, V, rng)} - held
        for _ in range(n)
    ]


def test_a_paired_step_moves_one_unit_and_supports_it_with_another() -> None:
    # Denmark, held by Germany's fleet, falls only to a supported attack: a one-unit step of the climb sends
    # one fleet there alone or supports a move that is not made; the paired step makes both at once.
    p = position(
        {"Russia": "F swe, F bal, A mos", "Germany": "F den, A kie, A ber"},
        {"Russia": "stp mos war sev swe", "Germany": "den kie ber"},
        step=2,
    )
    pairs = set()
    aimed = 0
    for changed in _paired_steps(p, "Russia", 3, 200):
        assert len(changed) == 2, changed
        move = next(t for t in changed if " S " not in t)
        support = next(t for t in changed if " S " in t)
        assert support.endswith(move), (move, support)  # "F bal S F swe - den" backs "F swe - den"
        pairs.add(frozenset(changed))
        aimed += move.endswith(("den", "kie", "ber"))
    assert frozenset({"F swe - den", "F bal S F swe - den"}) in pairs
    assert frozenset({"F bal - den", "F swe S F bal - den"}) in pairs
    # Most pairs go for a centre not Russia's or a province another power stands on (Denmark, Kiel, Berlin);
    # the others anywhere (a supported move into open sea).
    assert 0.6 * 200 < aimed < 200


def test_a_power_near_a_solo_is_everyone_elses_rival() -> None:
    """From 12 centres (two thirds of 18) a power is the others' rival: each centre it keeps costs them
    ``RIVAL``, so taking one is worth more than another centre, and a centre it stands on counts as its."""
    from dippouch.bots.search import CENTRE, RIVAL, _rival

    assert RIVAL > 0.0
    twelve = "kie ber mun hol bel den swe nwy war mos stp sev"
    rival = position({"Germany": "A ber", "France": "A pic"}, {"Germany": twelve, "France": "par bre mar"})
    values = Values(V, rival, "France")
    assert _rival(rival, "France", values) == "Germany"
    assert _rival(rival, "Germany", Values(V, rival, "Germany")) is None  # not its own rival
    eleven = position({"Germany": "A ber", "France": "A pic"}, {"Germany": twelve[:-4], "France": "par bre mar"})
    assert _rival(eleven, "France", Values(V, eleven, "France")) is None
    assert _score(rival, "France", values, "Germany") == _score(rival, "France", values) - 12 * RIVAL
    # France's army in Belgium: a centre of France's (stood on) and one fewer of Germany's.
    took = position({"Germany": "A ber", "France": "A bel"}, {"Germany": twelve, "France": "par bre mar"})
    gained = _score(took, "France", values, "Germany") - _score(rival, "France", values, "Germany")
    plain = _score(took, "France", values) - _score(rival, "France", values)
    assert gained - plain == RIVAL and plain >= CENTRE - 1
    # Germany's army in Paris: France's centre, stood on by its rival, counts as Germany's too.
    lost = position({"Germany": "A par", "France": "A pic"}, {"Germany": twelve, "France": "par bre mar"})
    assert _score(lost, "France", values, "Germany") - _score(lost, "France", values) == -13 * RIVAL


def test_a_power_near_its_end_is_finished_first() -> None:
    """Germany's army in the Ruhr can take Holland (England's, one of its last two centres) or Belgium (one of
    France's five). Belgium is worth more to the spread values (a bigger power's centre); with the ``FINISH``
    term Holland scores higher: a power left on a few centres is ended, not left to survive a solo."""
    from dippouch.bots.search import FINISH, _weak

    centres = {"Germany": "kie ber mun", "England": "lon hol", "France": "par bre mar bel spa"}
    before = position({"Germany": "A ruh", "England": "F lon", "France": "A par"}, centres)
    values = Values(V, before, "Germany")
    weak = _weak(before, "Germany")
    assert weak == {"England"}
    assert "England" not in _weak(before, "England")  # a power is never its own to finish
    holland = position({"Germany": "A hol", "England": "F lon", "France": "A par"}, centres)
    belgium = position({"Germany": "A bel", "England": "F lon", "France": "A par"}, centres)
    assert _score(belgium, "Germany", values) > _score(holland, "Germany", values)  # without the term
    assert _score(holland, "Germany", values, None, weak) > _score(belgium, "Germany", values, None, weak)
    assert _score(holland, "Germany", values, None, weak) - _score(holland, "Germany", values) == FINISH


def test_a_paired_step_sometimes_brings_a_second_support() -> None:
    # Munich, held by Germany's army and supported from Berlin, falls only to three units at once: France's armies
    # in Burgundy, the Ruhr and Bohemia. A pair (a move and one support) bounces there as the lone move does.
    p = position(
        {"France": "A bur, A ruh, A boh", "Germany": "A mun, A ber"},
        {"France": "par bre mar", "Germany": "mun ber kie"},
        step=2,
    )
    three = ["A bur - mun", "A ruh S A bur - mun", "A boh S A bur - mun"]
    steps = set()
    for changed in _paired_steps(p, "France", 5, 300):
        move = next(t for t in changed if " S " not in t)
        assert all(t.endswith(move) for t in changed if " S " in t), changed  # every support backs the move
        steps.add(frozenset(changed))
    assert frozenset(three) in steps
    assert frozenset(three[:2]) in steps  # pairs still come
    held = ["A mun H", "A ber S A mun"]
    triple = adjudicate(V, p, _orders({"France": three, "Germany": held})).next
    pair = adjudicate(V, p, _orders({"France": three[:2], "Germany": held})).next
    assert [d.unit.power for d in triple.dislodged.values()] == ["Germany"] and not pair.dislodged


def test_a_budget_in_adjudications_plays_a_seed_the_same_every_time() -> None:
    """The ladder's ``--evaluations``: with the budget counted in adjudications rather than seconds, no decision
    makes more than the budget (one more at most: the check comes before each), and two runs of a seed end on
    the same position, which a budget in seconds (the default, half a second here) does not promise."""
    from dippouch.bots.play import play_game
    from dippouch.bots.search import SearchBot

    def played() -> tuple[Position | None, list[int]]:
        bot = SearchBot()
        bot.count_evaluations(120)
        made: list[int] = []
        decide = bot.orders

        def orders(*args, **kwargs):  # type: ignore[no-untyped-def]
            chosen = decide(*args, **kwargs)
            made.append(bot.last_evaluations)
            bot.last_evaluations = 0
            return chosen

        bot.orders = orders  # type: ignore[method-assign]
        return play_game(V, dict.fromkeys(V.power_names, bot), 7, max_years=1).final, made

    (first, made), (again, _) = played(), played()
    assert first is not None and first == again
    assert max(made) == 121 and all(0 <= n <= 121 for n in made)
