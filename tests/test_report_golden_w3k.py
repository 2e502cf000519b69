"""The results reports of a recorded W3K season read the same in English as before messages were values (issue
53), whatever way the adjudicator's reasons and the arrival check's refusals are kept (text or message values):
a golden comparison over a season full of refused lines, failed and illegal orders, hand-overs, conversions,
retreats and a Winter's adjustments. And the same reports in German and French leave none of those reasons and
refusals in English.

The season is scripted from one seed (:mod:`w3k_season`): every power sends a random choice of its legal orders,
some of another power's, orders to places its units cannot reach and misspelt lines, so every phase has
refusals and failures. The golden file was first written with the code of the change; the same season played
by the code before it (commit ``d623a4b2^``, this file run as a script with that code's ``src`` first on
``PYTHONPATH``, as ``tests/mail/test_mail_golden_w3k.py`` says) writes it byte for byte: no line of the English
reports changed. To write the golden file again (after a change meant to alter the English):
DIPPOUCH_REGEN_GOLDEN=1.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.game import GameSettings
from dippouch.report import phase_report
from dippouch.store import GameStore

if __name__ == "__main__":  # run as a script (recording with other code): the tests' helpers are beside it
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from dbsupport import migrated_sqlite
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from w3k_season import season_orders

GOLDEN = Path(__file__).parent / "data" / "golden" / "w3k_reports_en.txt"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PHASES = 9
"""From Summer 1642: movements, retreats, a Winter's adjustments and the movements after them."""


def _season(tmp_path: Path) -> Iterator[tuple[GameStore, list[dict[str, object]]]]:
    store = GameStore(migrated_sqlite(tmp_path / "w3k.db"))
    store_games.create_game(store, "golden", "w3k", now=T0, settings=GameSettings(language="en"))
    rng = random.Random(1642)
    t = T0
    records: list[dict[str, object]] = []
    for _ in range(PHASES):
        phase = str(records[-1]["next_phase"]) if records else None
        for power, text in season_orders(rng, store, "golden", phase).items():
            store_submissions.submit(store, "golden", power, text, now=t)
        t += timedelta(hours=1)
        store_processing.process(store, "golden", now=t, force=True)
        records.append(dict(store_history.phase_record(store, "golden")))
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
    from dippouch.saying import say  # today's door (the code before the change, run as a script, had none)

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


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for _store, played in _season(Path(d)):
            Path(sys.argv[1]).write_text(_reports(played, "en"), encoding="utf-8")
