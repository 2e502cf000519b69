"""The results reports of a recorded W3K season read the same in English whatever way the adjudicator's reasons
and the arrival check's refusals are kept (text or message values): a golden comparison over a season full of
refused lines, failed and illegal orders, hand-overs, conversions, retreats and a Winter's adjustments. And the
same reports in German and French leave none of those reasons and refusals in English.

The season is scripted from one seed: every power sends a random choice of its legal orders, some of another
power's, orders to places its units cannot reach and misspelt lines, so every phase has refusals and failures.
To write the golden file again (after a change meant to alter the English): DIPPOUCH_REGEN_GOLDEN=1.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.core.legal_orders import all_legal_orders
from dippouch.core.notation import format_order
from dippouch.core.orders import Move, Order, Support
from dippouch.game import Settings, may_submit, position_from_data
from dippouch.report import phase_report
from dippouch.saying import say
from dippouch.store import GameStore

GOLDEN = Path(__file__).parent / "data" / "golden" / "w3k_reports_en.txt"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PHASES = 9
"""From Summer 1642: movements, retreats, a Winter's adjustments and the movements after them."""
GARBLED = ["A bristle - lundy", "F nowhere H", "A cork S", "build army", "A x - y - z", "F lon C A"]


def _orders(rng: random.Random, store: GameStore, game: str, phase: str | None) -> dict[str, str]:
    """Each power's text for the open phase: most of its legal orders, some another's, some impossible, some
    misspelt."""
    variant = load_variant("w3k")
    rec = store.phase_record(game, phase, open_ok=True, submissions=False)
    pos = position_from_data(variant, rec["position"])
    kind = variant.calendar.kind(pos.phase)
    legal = all_legal_orders(variant, pos)
    occupied = {i for i in range(len(variant.map.locations)) if variant.map.province_of(i) in pos.units}
    every = [o for p in legal.values() for os_ in p.values() for o in os_]
    out: dict[str, str] = {}
    for power, by_unit in legal.items():
        if not by_unit or not may_submit(variant, pos, power):
            continue
        chosen = {loc: _pick(rng, os_, occupied) for loc, os_ in by_unit.items() if os_}
        for move in [o for o in chosen.values() if isinstance(o, Move)]:
            # Another unit of the power supports the move where it can: attacks that dislodge.
            for loc, os_ in by_unit.items():
                backing = [o for o in os_ if isinstance(o, Support) and (o.target, o.dest) == (move.loc, move.dest)]
                if backing and not isinstance(chosen.get(loc), Move):
                    chosen[loc] = backing[0]
                    break
        lines = [format_order(variant, o, phase_kind=kind) for o in chosen.values()]
        if every and rng.random() < 0.6:
            lines.append(format_order(variant, rng.choice(every), phase_kind=kind))
        if lines and rng.random() < 0.5:
            lines.insert(0, rng.choice(lines))  # a second order for one unit: the first counts
        if rng.random() < 0.5:
            lines.append(rng.choice(GARBLED))
        rng.shuffle(lines)
        out[power] = "\n".join(lines)
    return out


def _pick(rng: random.Random, options: list[Order], occupied: set[int]) -> Order:
    """Attacks on occupied provinces, other moves and supports more often than their share, so units bounce,
    cut and dislodge."""
    attacks = [o for o in options if isinstance(o, Move) and o.dest in occupied]
    if attacks and rng.random() < 0.5:
        return rng.choice(attacks)
    moving = [o for o in options if isinstance(o, Move) or (isinstance(o, Support) and o.dest is not None)]
    return rng.choice(moving if moving and rng.random() < 0.8 else options)


def _season(tmp_path: Path) -> Iterator[tuple[GameStore, list[dict[str, object]]]]:
    store = GameStore(f"sqlite:///{tmp_path / 'w3k.db'}")
    store.create_game("golden", "w3k", now=T0, settings=Settings(language="en"))
    rng = random.Random(1642)
    t = T0
    records: list[dict[str, object]] = []
    for _ in range(PHASES):
        phase = str(records[-1]["next_phase"]) if records else None
        for power, text in _orders(rng, store, "golden", phase).items():
            store.submit("golden", power, text, now=t)
        t += timedelta(hours=1)
        store.process("golden", now=t, force=True)
        records.append(dict(store.phase_record("golden")))
    yield store, records
    store.close()


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[dict[str, object]]]:
    for _store, records in _season(tmp_path_factory.mktemp("golden")):
        yield records


def _reports(records: list[dict[str, object]], lang: str) -> str:
    variant = load_variant("w3k")
    return "\n".join(phase_report(variant, rec, lang=lang) for rec in records)


def test_the_english_reports_read_as_recorded(season: list[dict[str, object]]) -> None:
    english = _reports(season, "en")
    if os.environ.get("DIPPOUCH_REGEN_GOLDEN"):
        GOLDEN.write_text(english, encoding="utf-8")
    assert english == GOLDEN.read_text(encoding="utf-8")


def test_the_season_has_what_the_comparison_needs(season: list[dict[str, object]]) -> None:
    """A golden file of holds only would prove nothing: the season refuses, fails and dislodges."""
    english = _reports(season, "en")
    for seen in ("sent but not accepted", "(illegal)", "(fails)", "bounced", "Conversion", "retreat", "builds"):
        assert seen in english, seen


def _english_texts(records: list[dict[str, object]]) -> set[str]:
    """Every reason and refusal of the records, in English."""
    out: set[str] = set()
    for rec in records:
        for r in rec.get("results") or []:  # type: ignore[attr-defined]
            if r.get("reason") and r["reason"] != "no order: holds":
                out.add(say(r["reason"], "en"))
        for sub in rec.get("submissions") or []:  # type: ignore[attr-defined]
            for ln in sub.get("lines") or []:
                if ln.get("error"):
                    out.add(say(ln["error"], "en"))
    return out


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_no_reason_or_refusal_stays_english(season: list[dict[str, object]], lang: str) -> None:
    said = "".join(_reports(season, lang).split())  # lines wrapped anywhere read as one
    texts = _english_texts(season)
    assert len(texts) > 20
    english = sorted(t for t in texts if "".join(t.split()) in said)
    assert english == []
