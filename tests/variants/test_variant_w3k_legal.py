"""W3K's own orders in ``legal_orders``: Convert, hand-overs (proxy orders) and Winter supply transfers.

Each kind is checked three ways: it is offered exactly when the rules allow it, every generated order
formats and reads back to itself, and the adjudicator never judges a generated order illegal.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence

import pytest

from dippouch.catalog import load_variant
from dippouch.core import legal_orders as legal
from dippouch.core.adjudicator import adjudicate
from dippouch.core.legal_orders import all_legal_orders, legal_orders
from dippouch.core.notation import format_order, parse_order
from dippouch.core.orders import Build, Hold, Move, Order, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome
from dippouch.core.rules.base import hooks_for
from dippouch.core.rules.w3k import Convert, Proxy, SendSupply
from dippouch.core.variant import Variant
from helpers import board, prov


@pytest.fixture(scope="module")
def v() -> Variant:
    return load_variant("w3k")


def position(
    v: Variant, phase: str, units: dict[str, list[str]], centres: dict[str, list[str]] | None = None
) -> Position:
    """A position from unit texts per power ("A lon", "F cae/nc"); centres per power (default: none)."""
    return board(v, phase, units, centres, homes={p: frozenset() for p in v.power_names})


def of_type(orders: Mapping[int, Sequence[Order]], cls: type) -> list[Order]:
    return [o for listed in orders.values() for o in listed if isinstance(o, cls)]


def round_trips(v: Variant, pos: Position, orders: Mapping[int, Sequence[Order]]) -> None:
    kind = v.calendar.kind(pos.phase)
    for listed in orders.values():
        for o in listed:
            text = format_order(v, o, phase_kind=kind)
            assert parse_order(v, text, phase_kind=kind) == o, text


def none_illegal(v: Variant, pos: Position, orders: Mapping[str, Sequence[Order]]) -> None:
    res = adjudicate(v, pos, orders)
    bad = [(r.power, format_order(v, r.order), r.reason) for r in res.results if r.result == Outcome.ILLEGAL]
    assert not bad


OTHERS_OF_PROTECTORATE = 9


# ------------------------------------------------------------------ Convert


def test_convert_offered_in_owned_coastal_centres_only(v: Variant) -> None:
    pos = position(
        v,
        "Summer 1642",
        {"Ormond": ["A dro", "A tip", "A lou", "F dub"], "Crown": ["F bri"]},
        {"Ormond": ["tip", "dub"], "Crown": ["dro", "bri"]},
    )
    got = legal_orders(v, pos, "Ormond")
    assert of_type(got, Convert) == [Convert("F", prov(v, "dub"))]
    # Drogheda is a coastal centre, but the Crown's: Ormond's army there may not convert.
    assert not [o for o in got[prov(v, "dro")] if isinstance(o, Convert)]
    assert of_type(legal_orders(v, pos, "Crown"), Convert) == [Convert("F", prov(v, "bri"))]


def test_an_army_on_split_coasts_is_offered_each_coast(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Cumberland": ["A cae"]}, {"Cumberland": ["cae"]})
    got = of_type(legal_orders(v, pos, "Cumberland"), Convert)
    assert got == [Convert("A", prov(v, "cae"), v.map.loc("cae/nc")), Convert("A", prov(v, "cae"), v.map.loc("cae/sc"))]
    assert [format_order(v, o) for o in got] == ["A cae convert to F cae/nc", "A cae convert to F cae/sc"]


def test_a_fleet_on_a_split_coast_converts_without_naming_one(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Cumberland": ["F cae/sc"]}, {"Cumberland": ["cae"]})
    assert of_type(legal_orders(v, pos, "Cumberland"), Convert) == [Convert("F", v.map.loc("cae/sc"))]


def test_the_start_offers_conversions_and_the_adjudicator_accepts_them(v: Variant) -> None:
    pos = v.start
    converts = {p: of_type(legal_orders(v, pos, p), Convert) for p in v.power_names}
    assert sum(map(len, converts.values())) > 10
    for p, listed in converts.items():
        for o in listed:
            assert pos.units[v.map.province_of(o.unit_loc or 0)].power == p
    res = adjudicate(v, pos, {p: list(os_) for p, os_ in converts.items() if os_})
    assert {r.result for r in res.results if not r.automatic} == {Outcome.SUCCEEDS}


# ------------------------------------------------------------------ hand-overs


def test_each_unit_may_be_handed_to_every_other_power(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Protectorate": ["A lon"], "Crown": ["A oxf"]})
    got = legal_orders(v, pos, "Protectorate")
    proxies = of_type(got, Proxy)
    assert len(proxies) == OTHERS_OF_PROTECTORATE
    assert {o.to for o in proxies if isinstance(o, Proxy)} == set(v.power_names) - {"Protectorate"}
    assert all(o.unit_loc == prov(v, "lon") for o in proxies)
    # Nobody is offered a hand-over of a unit that is not theirs.
    assert all(o.unit_loc == prov(v, "oxf") for o in of_type(legal_orders(v, pos, "Crown"), Proxy))
    assert prov(v, "lon") not in legal_orders(v, pos, "Manchester")


def handed_over(v: Variant) -> tuple[Position, Position]:
    """London's army handed by the Protectorate to Manchester: the position, and it as the hooks prepare it."""
    pos = position(v, "Summer 1642", {"Protectorate": ["A lon", "A dep"], "Manchester": ["A sry"]})
    hand = Proxy("A", prov(v, "lon"), "Manchester")
    prepared, decided = hooks_for(v).prepare_orders(pos, {"Protectorate": [hand]})
    assert decided[("Protectorate", 0)][0] == "succeeds"
    return pos, prepared


def test_the_recipient_of_a_handed_unit_gets_its_orders(v: Variant) -> None:
    pos, prepared = handed_over(v)
    lon = prov(v, "lon")
    before = legal_orders(v, pos, "Protectorate")[lon]
    got = legal_orders(v, prepared, "Manchester")
    # The unit's ordinary orders, as the owner would have had them, but no hand-over: only the owner hands on.
    assert got[lon] == [o for o in before if not isinstance(o, Proxy)]
    assert Hold("A", lon) in got[lon] and Move("A", lon, prov(v, "sry")) in got[lon]
    assert not of_type({lon: got[lon]}, Proxy)
    # Manchester's own army keeps its orders; the owner keeps only hand-overs of London (and Deptford's orders).
    assert Hold("A", prov(v, "sry")) in got[prov(v, "sry")]
    owner = legal_orders(v, prepared, "Protectorate")
    assert all(isinstance(o, Proxy) for o in owner[lon]) and len(owner[lon]) == OTHERS_OF_PROTECTORATE
    assert Hold("A", prov(v, "dep")) in owner[prov(v, "dep")]
    assert all_legal_orders(v, prepared) == {p: legal_orders(v, prepared, p) for p in v.power_names}


def test_handed_unit_orders_agree_on_the_general_path(v: Variant, monkeypatch: pytest.MonkeyPatch) -> None:
    _, prepared = handed_over(v)
    fast = all_legal_orders(v, prepared)
    monkeypatch.setattr(legal, "_FORCE_GENERAL", True)
    general = all_legal_orders(v, prepared)
    # The two paths list supports in different orders; the same orders for the same units.
    assert {p: {k: set(os_) for k, os_ in d.items()} for p, d in general.items()} == {
        p: {k: set(os_) for k, os_ in d.items()} for p, d in fast.items()
    }


def test_the_recipients_orders_for_a_handed_unit_are_never_illegal(v: Variant) -> None:
    pos, prepared = handed_over(v)
    lon = prov(v, "lon")
    hand = Proxy("A", lon, "Manchester")
    options = legal_orders(v, prepared, "Manchester")[lon]
    assert any(isinstance(o, Support) for o in options)
    for o in options:
        none_illegal(v, pos, {"Protectorate": [hand], "Manchester": [o]})
    for o in legal_orders(v, prepared, "Protectorate")[lon]:
        none_illegal(v, pos, {"Protectorate": [o]})


def test_every_hand_over_and_conversion_at_the_start_is_judged_legal(v: Variant) -> None:
    pos = v.start
    extras = {
        p: {
            loc: [o for o in listed if isinstance(o, (Proxy, Convert))]
            for loc, listed in legal_orders(v, pos, p).items()
        }
        for p in v.power_names
    }
    rounds = max(len(listed) for mine in extras.values() for listed in mine.values())
    assert rounds == OTHERS_OF_PROTECTORATE + 1  # nine hand-overs and a conversion
    for i in range(rounds):
        orders = {p: [listed[i] for listed in mine.values() if i < len(listed)] for p, mine in extras.items()}
        none_illegal(v, pos, orders)


# ------------------------------------------------------------------ supply transfers


def winter(v: Variant) -> Position:
    """Argyll: five centres, two units (3 to spare, with three vacant sites); Crown: two centres, two units."""
    return position(
        v,
        "Winter 1643",
        {"Argyll": ["A edi", "F kis"], "Crown": ["A oxf", "A wor"]},
        {"Argyll": ["edi", "kis", "ftw", "gla", "ipo"], "Crown": ["oxf", "wor"]},
    )


def test_transfers_of_every_amount_to_every_other_power(v: Variant) -> None:
    pos = winter(v)
    got = legal_orders(v, pos, "Argyll")
    sites = {prov(v, "ftw"), prov(v, "gla"), prov(v, "ipo")}
    assert set(got) == sites
    want = {SendSupply(n, p) for p in v.power_names if p != "Argyll" for n in (1, 2, 3)}
    for site in sites:
        listed = got[site]
        assert {o for o in listed if isinstance(o, SendSupply)} == want
        assert any(isinstance(o, Build) for o in listed) and Waive() in listed
    # No excess, no transfers; none in movement phases.
    assert not of_type(legal_orders(v, pos, "Crown"), SendSupply)
    moving = pos.with_(phase=v.calendar.parse("Spring 1643"))
    assert not of_type(legal_orders(v, moving, "Argyll"), SendSupply)


def test_excess_without_a_vacant_site_lists_transfers_under_an_owned_centre(v: Variant) -> None:
    # Argyll owns three centres, all occupied (one by the Crown), and has two units: one unit's supply to spare.
    pos = position(
        v,
        "Winter 1643",
        {"Argyll": ["A edi", "F kis"], "Crown": ["A gla"]},
        {"Argyll": ["edi", "kis", "gla"]},
    )
    got = legal_orders(v, pos, "Argyll")
    first = min(prov(v, c) for c in ("edi", "kis", "gla"))
    assert list(got) == [first]
    assert got[first] == [SendSupply(1, p) for p in v.power_names if p != "Argyll"]


def test_received_supply_gives_builds_but_cannot_be_sent_on(v: Variant) -> None:
    # The Crown has one unit's supply of its own to spare (London), and receives two from Argyll.
    pos = winter(v).with_(centres={**winter(v).centres, prov(v, "lon"): "Crown"})
    prepared, _ = hooks_for(v).prepare_orders(pos, {"Argyll": [SendSupply(2, "Crown")]})
    assert hooks_for(v).adjustment_delta(prepared, "Crown") == 3
    crown = legal_orders(v, prepared, "Crown")
    assert Build("A", prov(v, "lon")) in crown[prov(v, "lon")]
    assert {o.count for o in of_type(crown, SendSupply) if isinstance(o, SendSupply)} == {1}


def test_every_transfer_is_judged_legal_and_reads_back(v: Variant) -> None:
    pos = winter(v)
    got = legal_orders(v, pos, "Argyll")
    round_trips(v, pos, got)
    sends = sorted({o for o in of_type(got, SendSupply) if isinstance(o, SendSupply)}, key=lambda o: (o.to, o.count))
    for o in sends:
        none_illegal(v, pos, {"Argyll": [o]})
    # With builds in the same list, up to what is left.
    site = prov(v, "ftw")
    none_illegal(v, pos, {"Argyll": [SendSupply(2, "Crown"), Build("A", site)]})


# ------------------------------------------------------------------ text and import order


def test_every_generated_order_at_the_start_reads_back(v: Variant) -> None:
    for p in v.power_names:
        round_trips(v, v.start, legal_orders(v, v.start, p))
    _, prepared = handed_over(v)
    round_trips(v, prepared, legal_orders(v, prepared, "Manchester"))


def test_registered_even_when_core_legal_is_imported_first() -> None:
    """``core.legal_orders`` imports the rule package, which imports ``w3k``: the registration must not be circular."""
    code = (
        "from dippouch.core.legal_orders import legal_orders\n"
        "from dippouch.catalog import load_variant\n"
        "v = load_variant('w3k')\n"
        "print(sum(type(o).__name__ == 'Convert' for os_ in legal_orders(v, v.start, 'Crown').values() for o in os_))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout.strip()) > 0


def test_a_removal_covered_by_supply_received_fails_rather_than_being_illegal(v: Variant) -> None:
    # The Crown owes one removal (one centre, two units) and orders it; Argyll's transfer covers the deficit.
    pos = position(
        v,
        "Winter 1643",
        {"Argyll": ["A edi", "F kis"], "Crown": ["A oxf", "A wor"]},
        {"Argyll": ["edi", "kis", "ftw", "gla", "ipo"], "Crown": ["oxf"]},
    )
    removal = legal_orders(v, pos, "Crown")[prov(v, "wor")][0]
    res = adjudicate(v, pos, {"Argyll": [SendSupply(1, "Crown")], "Crown": [removal]})
    crown = [r for r in res.results if r.power == "Crown"]
    assert [(r.result, r.automatic) for r in crown] == [(Outcome.FAILS, False)]
    assert "supply received" in crown[0].reason
    assert res.next.units[prov(v, "wor")] == Unit("Crown", "A", prov(v, "wor"))
    # Without the transfer the removal is carried out.
    alone = adjudicate(v, pos, {"Crown": [removal]})
    assert [r.result for r in alone.results if r.power == "Crown"] == [Outcome.SUCCEEDS]


def test_only_the_removals_beyond_what_is_still_owed_fail(v: Variant) -> None:
    # Two removals owed (one centre, three units), one unit's supply received: the first removal listed counts.
    pos = position(
        v,
        "Winter 1643",
        {"Argyll": ["A edi", "F kis"], "Crown": ["A oxf", "A wor", "A lon"]},
        {"Argyll": ["edi", "kis", "ftw", "gla", "ipo"], "Crown": ["oxf"]},
    )
    removals = [legal_orders(v, pos, "Crown")[prov(v, c)][0] for c in ("lon", "wor")]
    res = adjudicate(v, pos, {"Argyll": [SendSupply(1, "Crown")], "Crown": removals})
    assert [r.result for r in sorted((r for r in res.results if r.power == "Crown"), key=lambda r: r.index or 0)] == [
        Outcome.SUCCEEDS,
        Outcome.FAILS,
    ]
    assert prov(v, "lon") not in res.next.units and prov(v, "wor") in res.next.units


def test_several_units_handed_to_one_power(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Protectorate": ["A lon", "A dep"], "Crown": ["A oxf"]})
    hands = [Proxy("A", prov(v, "lon"), "Manchester"), Proxy("A", prov(v, "dep"), "Manchester")]
    prepared, _ = hooks_for(v).prepare_orders(pos, {"Protectorate": hands})
    before = legal_orders(v, pos, "Protectorate")
    got = legal_orders(v, prepared, "Manchester")
    assert set(got) == {prov(v, "lon"), prov(v, "dep")}
    for loc, listed in got.items():
        assert listed == [o for o in before[loc] if not isinstance(o, Proxy)]
    assert set(legal_orders(v, prepared, "Protectorate")) == {prov(v, "lon"), prov(v, "dep")}
    assert prov(v, "lon") not in legal_orders(v, prepared, "Crown")
