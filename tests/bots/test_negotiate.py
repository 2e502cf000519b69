"""Bots that negotiate, without a database: the request parser, the structured form, decisions by
personality and board, the replies' templates, and the orders that honour what was accepted."""

from __future__ import annotations

import random

import pytest

from dippouch.bots.engine import Hold, Move, Support, Variant, format_order, parse_order
from dippouch.bots.heuristic import HeuristicBot
from dippouch.bots.negotiate import (
    HONEST,
    OPPORTUNIST,
    Commitment,
    Deal,
    accepted,
    at_war,
    decide,
    honour,
    parse_request,
    parse_structured,
    reply_text,
    structured,
)
from dippouch.catalog import load_variant
from dippouch.core.position import Position, Unit


@pytest.fixture(scope="module")
def std() -> Variant:
    return load_variant("standard")


def _asked(v: Variant, text: str) -> list[str]:
    return [structured(v, p) for p in parse_request(v, text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("support my A Burgundy to Munich", ["SUP A bur - mun"]),
        ("will you support F North Sea to Norway?", ["SUP F nth - nwy"]),
        ("Could you support my fleet in the North Sea into Norway this turn?", ["SUP F nth - nwy"]),
        ("please support my army in Burgundy to hold", ["SUP A bur"]),
        ("support A bur-mun", ["SUP A bur - mun"]),
        ("support my F stp/sc -> bot please", ["SUP F stp/sc - bot"]),
        ("peace?", ["PEACE"]),
        ("Peace? And please support my A Paris to Burgundy, thanks.", ["SUP A par - bur", "PEACE"]),
        ("How about an alliance against Russia?", ["ALLY AGAINST Russia"]),
        ("DMZ Burgundy?", ["DMZ bur"]),
        ("Shall we keep Burgundy DMZ?", ["DMZ bur"]),
        ("demilitarise the English Channel", ["DMZ eng"]),
        ("unterstütze bitte meine A Burgundy nach Munich", ["SUP A bur - mun"]),
        ("Frieden?", ["PEACE"]),
        ("soutiens mon A Burgundy vers Munich", ["SUP A bur - mun"]),
        ("[dippouch] SUP A bur - mun", ["SUP A bur - mun"]),
        ("[dippouch] PEACE\n[dippouch] DMZ bur", ["PEACE", "DMZ bur"]),
        ("hello there, how is the weather in Vienna?", []),
        ("support my A Atlantis to Munich", []),
        ("alliance against Narnia", []),
    ],
)
def test_plain_requests_and_structured_lines_read_as_proposals(std: Variant, text: str, expected: list[str]) -> None:
    assert _asked(std, text) == expected


def test_an_answer_line_proposes_nothing_and_the_structured_form_reads_back(std: Variant) -> None:
    assert parse_request(std, "Yes.\n[dippouch] YES SUP A bur - mun") == []
    for p in (
        Deal("peace"),
        Deal("ally", power="Russia"),
        Deal("dmz", place=std.map.loc("bur")),
        Deal("support", unit=std.map.loc("bur"), unit_kind="A", dest=std.map.loc("mun")),
        Deal("support", unit=std.map.loc("nth"), unit_kind="F"),
    ):
        assert parse_structured(std, "[dippouch] " + structured(std, p)) == p
    assert parse_structured(std, "[dippouch] SUP A nowhere - mun") is None
    assert parse_structured(std, "[dippouch] DANCE") is None


def _germany_asked_by_france(std: Variant, text: str, position: Position | None = None, **kw: object) -> list[bool]:
    pos = position or std.start
    return [
        decide(std, pos, "Germany", "France", p, **kw).yes  # type: ignore[arg-type]
        for p in parse_request(std, text)
    ]


def test_a_support_that_makes_sense_is_accepted_and_one_against_the_bot_refused(std: Variant) -> None:
    # Spring 1901: Germany's A Munich can support France's A Paris into Burgundy.
    assert _germany_asked_by_france(std, "support my A Paris to Burgundy") == [True]
    # Into Munich itself: against the bot.
    p = parse_request(std, "support my A Burgundy to Munich")[0]
    moved = std.start.with_(
        units={
            **{k: u for k, u in std.start.units.items() if u.loc != std.map.loc("par")},
            std.map.loc("bur"): Unit("France", "A", std.map.loc("bur")),
        }
    )
    assert decide(std, moved, "Germany", "France", p).why == "attacks me"
    # No German unit reaches Brest's neighbourhood: nothing to give.
    assert (
        decide(
            std, std.start, "Germany", "France", parse_request(std, "support my F Brest to Mid-Atlantic Ocean")[0]
        ).why
        == "cannot"
    )
    # A unit that is not the asker's, and the asker at war with the bot.
    assert (
        decide(std, std.start, "Germany", "France", parse_request(std, "support A Vienna to Bohemia")[0]).why
        == "not yours"
    )
    assert (
        decide(
            std,
            std.start,
            "Germany",
            "France",
            parse_request(std, "support my A Paris to Burgundy")[0],
            hostile={"France"},
        ).why
        == "war"
    )
    # The only unit that could give it was promised already.
    mun = std.map.loc("mun")
    assert (
        decide(
            std, std.start, "Germany", "France", parse_request(std, "support my A Paris to Burgundy")[0], promised={mun}
        ).why
        == "promised"
    )


def test_the_honest_bot_does_not_feed_a_leader_the_opportunist_does(std: Variant) -> None:
    big = std.start.with_(centres={**std.start.centres, **{std.map.loc(c): "France" for c in ("spa", "por", "bel")}})
    p = parse_request(std, "support my A Paris to Burgundy")[0]
    assert decide(std, big, "Germany", "France", p, personality=HONEST).why == "leader"
    assert decide(std, big, "Germany", "France", p, personality=OPPORTUNIST).yes


def test_peace_alliance_and_dmz_decisions_read_the_board(std: Variant) -> None:
    assert _germany_asked_by_france(std, "peace?") == [True]
    taken = std.start.with_(centres={**std.start.centres, std.map.loc("mun"): "France"})
    assert decide(std, taken, "Germany", "France", Deal("peace")).why == "homes"
    assert decide(std, std.start, "Germany", None, Deal("peace")).why == "anonymous"
    # Russia's A Warsaw borders Germany's Silesia and Prussia: a threat; Turkey is no threat to Germany yet.
    assert decide(std, std.start, "Germany", "France", Deal("ally", power="Russia")).yes
    assert decide(std, std.start, "Germany", "France", Deal("ally", power="Turkey")).why == "no threat"
    assert decide(std, std.start, "Germany", "France", Deal("ally", power="Turkey"), personality=OPPORTUNIST).yes
    assert decide(std, std.start, "Germany", "France", Deal("ally", power="France")).why == "no sense"
    assert decide(std, std.start, "Germany", "France", Deal("dmz", place=std.map.loc("bur"))).yes
    assert decide(std, std.start, "Germany", "France", Deal("dmz", place=std.map.loc("mun"))).why == "my unit"


def test_at_war_reads_attacks_on_the_bots_units_and_centres(std: Variant) -> None:
    recent = [
        ("France", parse_order(std, "A par - bur")),
        ("Russia", parse_order(std, "A war - sil")),
        ("Austria", parse_order(std, "A vie S A war - sil")),
        ("England", parse_order(std, "F lon - nth")),
    ]
    # Silesia is not German; Munich, Berlin and Kiel are. An attack means a move into what the bot holds.
    assert at_war(std, std.start, "Germany", recent) == set()
    recent.append(("Russia", parse_order(std, "A war S A sil - ber")))
    recent.append(("Austria", parse_order(std, "A vie - mun")))
    assert at_war(std, std.start, "Germany", recent) == {"Russia", "Austria"}


def test_replies_come_from_templates_in_the_games_language_with_the_structured_line(std: Variant) -> None:
    p = parse_request(std, "support my A Paris to Burgundy")[0]
    yes = decide(std, std.start, "Germany", "France", p)
    assert reply_text(std, [yes], partner="France") == (
        "Yes: I will support your A Paris to Burgundy.\n[dippouch] YES SUP A par - bur"
    )
    assert reply_text(std, [yes], partner="France", lang="de").startswith(
        "Ja: Ich unterstütze deine A Paris nach Burgundy."
    )
    assert reply_text(std, [yes], partner="France", lang="fr").startswith(
        "Oui : je soutiendrai votre A Paris vers Burgundy."
    )
    no = decide(std, std.start, "Germany", "France", Deal("peace"), hostile={"France"})
    assert no.yes  # peace is what a war needs
    refused = decide(std, std.start, "Germany", "France", Deal("ally", power="Turkey"))
    text = reply_text(std, [refused, yes], partner="France")
    assert text.splitlines() == [
        "No: no alliance against Turkey. Turkey is no threat to me. Yes: I will support your A Paris to Burgundy.",
        "[dippouch] NO ALLY AGAINST Turkey WITH France",
        "[dippouch] YES SUP A par - bur",
    ]
    assert reply_text(std, [], partner="France").startswith("I did not understand.")
    assert "„Frieden?“" in reply_text(std, [], partner="France", lang="de")


def test_what_was_accepted_is_read_back_supports_for_their_phase_only(std: Variant) -> None:
    said = [
        ("Spring 1901 Movement", "Yes.\n[dippouch] YES PEACE WITH France\n[dippouch] YES SUP A par - bur"),
        ("Spring 1901 Movement", "No.\n[dippouch] NO DMZ bur WITH France"),
        ("Fall 1901 Movement", "Yes.\n[dippouch] YES SUP A bur - bel"),
    ]
    got = accepted(std, said, "Fall 1901 Movement")
    assert [(structured(std, c.proposal), c.partner) for c in got] == [("PEACE", "France"), ("SUP A bur - bel", None)]


def _orders(std: Variant, power: str, position: Position | None = None) -> list[str]:
    pos = position or std.start
    return sorted(format_order(std, o) for o in HeuristicBot().orders(std, pos, power, random.Random(1)))


def test_the_honest_bot_orders_the_support_it_promised(std: Variant) -> None:
    p = parse_request(std, "support my A Paris to Burgundy")[0]
    own = HeuristicBot().orders(std, std.start, "Germany", random.Random(1))
    kept = honour(std, std.start, "Germany", own, [Commitment(p, "France", "Spring 1901 Movement")])
    texts = sorted(format_order(std, o) for o in kept)
    assert "A mun S A par - bur" in texts
    assert len(kept) == 3  # every unit still has one order
    # Nothing promised: the plan is the level's own.
    assert honour(std, std.start, "Germany", own, []) == own


def test_peace_and_a_dmz_keep_the_honest_bot_out_and_the_opportunist_takes_a_centre(std: Variant) -> None:
    # Germany's A Munich next to a French-held, empty Burgundy (a centre in this made-up position) and Belgium.
    bur, mun, par = std.map.loc("bur"), std.map.loc("mun"), std.map.loc("par")
    units = {k: u for k, u in std.start.units.items() if u.power == "Germany"}
    units[par] = Unit("France", "A", par)
    pos = std.start.with_(units=units)
    plan = [Move("A", mun, bur), Hold("A", std.map.loc("ber")), Hold("F", std.map.loc("kie"))]
    peace = [Commitment(Deal("peace"), "France", "Spring 1901 Movement")]
    dmz = [Commitment(Deal("dmz", place=bur), "France", "Spring 1901 Movement")]
    assert Hold("A", mun) in honour(std, pos, "Germany", plan, dmz)
    # Burgundy is no centre: the opportunist keeps the DMZ too; Paris is one, and France's.
    assert Hold("A", mun) in honour(std, pos, "Germany", plan, dmz, personality=OPPORTUNIST)
    to_paris = [Move("A", bur, par)]
    pos2 = pos.with_(units={**{k: u for k, u in pos.units.items() if k != mun}, bur: Unit("Germany", "A", bur)})
    assert honour(std, pos2, "Germany", to_paris, peace) == [Hold("A", bur)]
    assert honour(std, pos2, "Germany", to_paris, peace, personality=OPPORTUNIST) == to_paris
    # A partner who attacked since is no partner: the peace no longer binds.
    assert honour(std, pos2, "Germany", to_paris, peace, hostile={"France"}) == to_paris


def test_the_opportunist_breaks_a_support_that_costs_it_a_centre(std: Variant) -> None:
    # Germany's A Munich could take an empty, unowned Burgundy-side centre? Use Belgium: A Ruhr next to it.
    ruh, bel, bur, par = std.map.loc("ruh"), std.map.loc("bel"), std.map.loc("bur"), std.map.loc("par")
    units = {ruh: Unit("Germany", "A", ruh), par: Unit("France", "A", par)}
    pos = std.start.with_(units=units)
    plan = [Move("A", ruh, bel)]
    promise = [Commitment(Deal("support", unit=par, unit_kind="A", dest=bur), None, "Spring 1901 Movement")]
    assert honour(std, pos, "Germany", plan, promise) == [Support("A", ruh, "A", par, bur)]
    assert honour(std, pos, "Germany", plan, promise, personality=OPPORTUNIST) == plan


def test_other_variants_read_their_own_names() -> None:
    v = load_variant("hundred")
    first = next(iter(v.start.units.values()))
    name = v.map.locations[first.loc].name
    got = parse_request(v, f"support my {first.kind} {name} to hold")
    assert [p.unit for p in got] == [first.loc]


def test_unknown_text_in_every_part_never_raises(std: Variant) -> None:
    for text in (
        "",
        "support",
        "support my",
        "support to",
        "DMZ",
        "alliance against",
        "[dippouch]",
        "[dippouch] SUP",
        "💥" * 50,
    ):
        parse_request(std, text)


def test_the_honest_bot_keeps_a_centre_its_plan_takes_the_opportunist_promises_anyway(std: Variant) -> None:
    ruh, bel, bur, par = std.map.loc("ruh"), std.map.loc("bel"), std.map.loc("bur"), std.map.loc("par")
    pos = std.start.with_(units={ruh: Unit("Germany", "A", ruh), par: Unit("France", "A", par)})
    p = Deal("support", unit=par, unit_kind="A", dest=bur)
    plan = [Move("A", ruh, bel)]
    assert decide(std, pos, "Germany", "France", p, plan=plan).why == "busy"
    assert decide(std, pos, "Germany", "France", p, plan=[Hold("A", ruh)]).yes
    assert decide(std, pos, "Germany", "France", p, plan=plan, personality=OPPORTUNIST).yes
    no = decide(std, pos, "Germany", "France", p, plan=plan)
    assert "My units have plans of their own this phase." in reply_text(std, [no], partner="France")


def test_a_unit_the_peace_stops_supports_one_of_its_own_moves_instead(std: Variant) -> None:
    ruh, kie, hol, bur = std.map.loc("ruh"), std.map.loc("kie"), std.map.loc("hol"), std.map.loc("bur")
    units = {ruh: Unit("Germany", "A", ruh), kie: Unit("Germany", "A", kie), bur: Unit("France", "A", bur)}
    pos = std.start.with_(units=units)
    plan = [Move("A", ruh, bur), Move("A", kie, hol)]
    peace = [Commitment(Deal("peace"), "France", "Spring 1901 Movement")]
    kept = honour(std, pos, "Germany", plan, peace)
    assert sorted(format_order(std, o) for o in kept) == ["A kie - hol", "A ruh S A kie - hol"]


def test_at_peace_the_bot_plans_with_its_partners_centres_as_no_targets(std: Variant) -> None:
    from dippouch.bots.negotiate import planning_view

    peace = [Commitment(Deal("peace"), "France", "Spring 1901 Movement")]
    view = planning_view(std, std.start, "Germany", peace)
    par = std.map.loc("par")
    assert std.start.centres[par] == "France" and view.centres[par] == "Germany"
    assert view.units == std.start.units and view.centres[std.map.loc("vie")] == "Austria"
    assert planning_view(std, std.start, "Germany", peace, hostile={"France"}) is std.start
    assert planning_view(std, std.start, "Germany", []) is std.start
