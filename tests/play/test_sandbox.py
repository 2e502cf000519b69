"""The sandbox's use cases: a convoy and a retreat adjudicated by the real engine step after step, the board
edited (and each bad edit refused in words), "Back", and the game it was copied from never touched."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dippouch.catalog import load_variant
from dippouch.game import GameError, position_to_data
from dippouch.play import sandbox as sb
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store.sandboxes.boards import Sandbox

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
V = load_variant("standard")


def _opening(store: GameStore) -> Sandbox:
    made, secret = sb.start(store, V, position_to_data(V, V.start), now=T0)
    assert secret.startswith("dp_")
    return made


def _units(s: Sandbox) -> set[tuple[str, str]]:
    return {(u["power"], u["unit"]) for u in s.position["units"]}


def test_a_convoy_is_adjudicated_by_the_engine(store: GameStore) -> None:
    s = _opening(store)
    s = sb.adjudicate_step(store, V, s, "F lon - nth\nF edi - nwg", now=T0)
    assert s.position["phase"] == "Fall 1901 Movement"
    assert ("England", "F nth") in _units(s)
    s = sb.add_unit(store, V, s, "England", "A", "London", now=T0)
    s = sb.adjudicate_step(store, V, s, "A lon - bel\nEngland: F nth C A lon - bel", now=T0)
    assert ("England", "A bel") in _units(s)
    assert s.step is not None and s.step["phase"] == "Fall 1901 Movement"
    by_order = {r["order"]: r["result"] for r in s.step["results"]}
    assert by_order["A lon - bel"] == "succeeds"
    assert by_order["F nth C A lon - bel"] == "available"  # the engine's word for a convoy that carried
    assert s.position["phase"] == "Spring 1902 Movement"  # four centres, four units: no adjustments
    assert "bel" in s.position["supply_centers"]["England"]


def test_a_dislodgement_then_its_retreat_next_step(store: GameStore) -> None:
    s = _opening(store)
    s = sb.add_unit(store, V, s, "Germany", "army", "bur", now=T0)
    s = sb.adjudicate_step(store, V, s, "A par - bur\nA mar S A par - bur", now=T0)
    assert s.position["phase"] == "Spring 1901 Retreats"
    assert [d["unit"] for d in s.position["dislodged"]] == ["A bur"]
    # The retreat's power is inferred from the dislodged unit, as a move's is from the unit.
    lines = sb.check_lines(V, sb.position_of(V, s), "A bur - par\nA bur - ruh")
    assert lines[0].error is not None and "legal retreats" in lines[0].error  # not to where the attack came from
    s = sb.adjudicate_step(store, V, s, "A bur - ruh", now=T0)
    assert s.position["phase"] == "Fall 1901 Movement"
    assert ("Germany", "A ruh") in _units(s) and ("France", "A bur") in _units(s)
    assert s.step is not None and s.step["orders"] == {"Germany": ["A bur R ruh"]}
    # Back: the retreat phase again, with the orders that were typed for it.
    s = sb.back(store, V, s, now=T0)
    assert s.position["phase"] == "Spring 1901 Retreats" and s.orders == "A bur - ruh"


def test_edits_and_their_refusals(store: GameStore) -> None:
    s = _opening(store)
    for args, words in [
        (("England", "A", "lon"), "already stands in London"),
        (("England", "F", "ruh"), "inland"),
        (("England", "A", "nth"), "cannot stand in North Sea"),
        (("England", "F", "spa"), "coasts"),
        (("England", "A", "Londn"), "did you mean"),
        (("Atlantis", "A", "bel"), "no power"),
        (("England", "X", "bel"), r"army \(A\) or a fleet \(F\)"),
    ]:
        with pytest.raises(GameError, match=words):
            sb.add_unit(store, V, s, *args, now=T0)
    s = sb.add_unit(store, V, s, "Russia", "F", "bul/ec", now=T0)
    assert ("Russia", "F bul/ec") in _units(s)
    s = sb.remove_unit(store, V, s, "Paris", now=T0)
    assert ("France", "A par") not in _units(s)
    with pytest.raises(GameError, match="no unit in Paris"):
        sb.remove_unit(store, V, s, "par", now=T0)
    s = sb.set_centre(store, V, s, "bel", "England", now=T0)
    assert "bel" in s.position["supply_centers"]["England"]
    s = sb.set_centre(store, V, s, "lon", "none", now=T0)
    assert "lon" not in s.position["supply_centers"]["England"]
    with pytest.raises(GameError, match="not a supply centre"):
        sb.set_centre(store, V, s, "bur", "France", now=T0)
    s = sb.set_phase(store, V, s, "Fall 1902 Movement", now=T0)
    assert s.position["phase"] == "Fall 1902 Movement"
    assert len(s.history) == 5
    for _ in range(5):
        s = sb.back(store, V, s, now=T0)
    assert s.position == position_to_data(V, V.start)
    with pytest.raises(GameError, match="nothing to go back to"):
        sb.back(store, V, s, now=T0)


def test_order_lines_each_get_a_verdict_and_a_refused_line_stops_the_step(store: GameStore) -> None:
    s = _opening(store)
    pos = sb.position_of(V, s)
    lines = sb.check_lines(V, pos, "England:\nF lon - nth\nA xyz H\nF bre - mao\nA mun - par\nA bel H")
    verdicts = {ln.line: ln for ln in lines}
    assert verdicts[2].order == "F lon - nth" and verdicts[2].power == "England"
    assert verdicts[3].error and "xyz" in str(verdicts[3].error)
    # Under "England:", France's fleet is not England's to order.
    assert verdicts[4].error is not None
    assert verdicts[5].error is not None  # Munich to Paris is no move
    assert verdicts[6].error is not None
    with pytest.raises(GameError, match="line 3"):
        sb.adjudicate_step(store, V, s, "England:\nF lon - nth\nA xyz H", now=T0)
    assert sb.set_orders(store, V, s, "A par - bur", now=T0).orders == "A par - bur"


def test_a_kept_check_keeps_each_refusal_as_a_message_and_reads_an_old_text_one(store: GameStore) -> None:
    s = sb.set_orders(store, V, _opening(store), "A par - burgndy\nF nth - lon\nA mun H", now=T0)
    kept = sb.checked(s)
    assert kept is not None and s.checked is not None
    misspelt, whose, held = kept
    assert misspelt.error is not None and misspelt.error.to_data() == s.checked[0]["error"]
    assert whose.error is not None
    assert say(misspelt.error, "de").startswith("keine Provinz 'burgndy'; meinten Sie Burgundy (bur)")
    assert say(whose.error, "fr").startswith("à qui est cet ordre ? Aucune unité ne s'y trouve")
    assert held.error is None and held.order == "A mun H"
    with pytest.raises(GameError) as refused:
        sb.adjudicate_step(store, V, s, s.orders, now=T0)
    assert say(refused.value.msg, "de").startswith("Zeile 1 (A par - burgndy): keine Provinz 'burgndy'")
    assert refused.value.msg.args["line"] == 1 and "(and 1 more line)" in str(refused.value)
    # A check kept before verdicts were message values: its English text, said as it is or whole translated.
    old = sb.Line.of({"line": 1, "text": "banana", "power": None, "order": None, "error": "not an order"})
    assert old.error is not None and old.error.id == "not an order" and say(old.error, "de") == "kein Befehl"


def test_a_sandbox_from_a_game_never_touches_the_game(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=T0)
    before = [(h.id, h.name, h.status, h.position, h.orders) for h in store_history.history(store, "g")]
    ph = store_history.history(store, "g")[-1]
    s, _ = sb.start(store, V, ph.position, now=T0, game="g", phase_id=ph.id)
    assert s.game == "g" and s.phase_id == ph.id
    sb.adjudicate_step(store, V, s, "A par - bur\nF lon - nth", now=T0)
    assert [(h.id, h.name, h.status, h.position, h.orders) for h in store_history.history(store, "g")] == before


def test_builds_are_adjudicated_in_an_adjustment_phase(store: GameStore) -> None:
    s = _opening(store)
    s = sb.remove_unit(store, V, s, "lon", now=T0)
    s = sb.set_centre(store, V, s, "bel", "England", now=T0)
    s = sb.set_phase(store, V, s, "Winter 1901", now=T0)
    assert s.position["phase"] == "Winter 1901 Adjustments"
    lines = sb.check_lines(V, sb.position_of(V, s), "Build F lon\nBuild A lvp\nwaive")
    assert lines[0].power == "England" and lines[0].error is None  # the centre's owner builds there
    assert lines[1].error is not None and "occupied" in lines[1].error
    assert lines[2].error is not None and "name the power" in lines[2].error
    s = sb.adjudicate_step(store, V, s, "Build F lon\nEngland: waive", now=T0)
    assert s.position["phase"] == "Spring 1902 Movement"
    assert ("England", "F lon") in _units(s)
