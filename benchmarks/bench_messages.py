"""Messages as values (issue 53): what a player's page with 50 line checks and a phase's results costs to make,
in English and in German, with the code of today or with the code before the change.

    .venv/bin/python benchmarks/bench_messages.py [--repeat 40]
    PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/bench_messages.py   # a worktree of d623a4b2^

One W3K game on SQLite, in this process: its first phase played from the golden season's seed (refused
lines, failed, illegal and invalid orders, hand-overs: every kind of reason in the results), then Crown
sends 50 lines for the next phase (its orders, other powers' units, a second order for one unit, misspelt
lines: each line a check, about half refused). Timed, each --repeat times:

- the player's page, made: GET of Crown's page through the app (FastAPI's in-process client, the work pool
  inline as the tests' sites run), with ``Accept-Language`` English or German. Today's code keeps the part
  every seat sees alike (the board, the last turn's results) made once per state and language (issue 52's
  page store): it is emptied before each request here, so the page is made whole each time, as the code
  before the change always made it; ``as served`` is the same page with that part kept;
- the results report: the phase's report as the results mail says it (``report.phase_report``);
- their messages said: every reason of the phase's results and every refusal of the stored submissions (the
  results' phase's and Crown's 50 lines), said in the language by the door of the code that runs: the part
  of the page's and the report's work that the change moved.

Medians of wall-clock time and of this process's CPU time (fastest and slowest beside them). The code that
runs is found by what it has (``dippouch.saying`` is today's door; the old code said messages with
``said``), so the same script measures both. The machine is shared: the load average is printed. Not a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the golden season's script

POWER = "Crown"
GARBLED = ["A bristle - lundy", "F nowhere H", "A cork S", "build army", "A x - y - z", "F lon C A", "A oxf - zzz"]


def timed(
    fn: Callable[[], Any], repeat: int, before: Callable[[], None] | None = None
) -> tuple[list[float], list[float]]:
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        if before is not None:
            before()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def line(label: str, wall: list[float], cpu: list[float], extra: str = "") -> str:
    return (
        f"{label:<34} {statistics.median(wall) * 1000:7.2f} ms  CPU {statistics.median(cpu) * 1000:7.2f} ms"
        f"  (fastest {min(wall) * 1000:.1f}, slowest {max(wall) * 1000:.1f}){extra}"
    )


def fifty_lines(store: Any, game: str, phase: str) -> str:
    """Crown's 50 lines: each of its units ordered, then other powers' units, a unit ordered twice and
    misspelt lines, in turn, until there are 50."""
    from dippouch.catalog import load_variant
    from dippouch.core.legal_orders import all_legal_orders
    from dippouch.core.notation import format_order
    from dippouch.game import position_from_data

    variant = load_variant("w3k")
    rec = store_history.phase_record(store, game, phase, open_ok=True, submissions=False)
    pos = position_from_data(variant, rec["position"])
    kind = variant.calendar.kind(pos.phase)
    legal = all_legal_orders(variant, pos)
    rng = random.Random(53)
    own = [format_order(variant, rng.choice(os_), phase_kind=kind) for os_ in legal[POWER].values() if os_]
    others = [
        format_order(variant, rng.choice(os_), phase_kind=kind)
        for p, by_unit in legal.items()
        if p != POWER
        for os_ in by_unit.values()
        if os_
    ]
    lines = list(own)
    while len(lines) < 50:
        lines.append(rng.choice(others))
        lines.append(rng.choice(GARBLED))
        lines.append(rng.choice(own))
    return "\n".join(lines[:50])


def sayer(records: list[dict[str, Any]]) -> Callable[[str], list[str]]:
    """Every line check and result reason of ``records`` said in a language, by the door of the code that runs:
    today a stored message value said with one catalogue lookup (``saying.say``); before, the English text
    read back by the templates of ``said`` and written again."""
    results = [r for rec in records for r in rec.get("results") or []]
    lines = [ln for rec in records for sub in rec.get("submissions") or [] for ln in sub.get("lines") or []]
    if importlib.util.find_spec("dippouch.saying") is not None:
        from dippouch.game import stored_msg
        from dippouch.saying import say

        kept = [stored_msg(r.get("why"), r.get("reason")) for r in results]
        kept += [stored_msg(ln.get("error_msg"), ln.get("error")) for ln in lines if ln.get("error")]
        values = [m for m in kept if m is not None]
        return lambda lang: [say(m, lang) for m in values]
    from dippouch.said import said  # type: ignore[import-not-found,unused-ignore]

    texts = [str(r["reason"]) for r in results if r.get("reason")]
    texts += [str(ln["error"]) for ln in lines if ln.get("error")]
    return lambda lang: [str(said(t, lang)) for t in texts]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeat", type=int, default=40)
    args = ap.parse_args()
    os.environ.setdefault("DIPPOUCH_WORK_PROCESSES", "0")  # line checks inline: their CPU is this process's
    os.environ.setdefault("DIPPOUCH_WORK_SECONDS", "3600")  # no work budget runs out while timing
    os.environ.setdefault("DIPPOUCH_CACHE_DIR", tempfile.mkdtemp(prefix="bench-messages-cache-"))

    import sqlalchemy as sa
    from fastapi.testclient import TestClient

    import dippouch
    from dippouch.catalog import load_variant
    from dippouch.report import phase_report
    from dippouch.settings import DEFAULT_PUBLIC_URL
    from dippouch.web.app import create_app
    from w3k_season import season_orders

    today = importlib.util.find_spec("dippouch.saying") is not None
    print(
        f"code: {Path(dippouch.__file__).parent} ({'messages as values' if today else 'before: said() reads text back'})"
    )
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")

    db = Path(tempfile.mkdtemp(prefix="bench-messages-")) / "bench.db"
    app = create_app(f"sqlite:///{db}", limits={})
    web = app.state.web
    store = web.store
    now = datetime.now(UTC) - timedelta(hours=2)
    store_games.create_game(store, "bench", "w3k", now=now)
    for power, text in season_orders(random.Random(1642), store, "bench", None).items():
        store_submissions.submit(store, "bench", power, text, now=now)
    store_processing.process(store, "bench", now=now + timedelta(minutes=1), force=True)
    done = store_history.phase_record(store, "bench")
    phase = str(done["next_phase"])
    text = fifty_lines(store, "bench", phase)
    store_submissions.submit(store, "bench", POWER, text, now=now + timedelta(minutes=2))
    sent = store_history.phase_record(store, "bench", phase, open_ok=True)
    mine = [s for s in sent["submissions"] if s.get("power") == POWER][-1]["lines"]
    refused = sum(1 for ln in mine if ln.get("error"))
    print(f"{POWER}'s submission for {phase}: {len(mine)} lines, {refused} refused; the results of {done['name']}")

    key = web.access.create_key("player", game="bench", power=POWER, now=now)[1]
    client = TestClient(app, base_url=DEFAULT_PUBLIC_URL, raise_server_exceptions=True)
    first = client.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"})
    assert first.status_code == 200, first.status_code
    url = str(first.url)
    tables = set(sa.inspect(store.engine if hasattr(store, "engine") else store.db.engine).get_table_names())
    kept = "shared_pages" in tables

    def forget() -> None:
        if kept:
            with store.session() as s:
                s.execute(sa.text("DELETE FROM shared_pages"))
                s.commit()

    said = {"en": "no province &#39;nowhere&#39;", "de": "keine Provinz &#39;nowhere&#39;"}  # as HTML writes it
    variant = load_variant("w3k")
    say_all = sayer([dict(done), dict(sent)])
    for lang in ("en", "de"):
        headers = {"Accept-Language": lang}

        def page(headers: dict[str, str] = headers) -> str:
            r = client.get(url, headers=headers)
            assert r.status_code == 200, r.status_code
            return str(r.text)

        shown = page()
        if said[lang] not in shown:
            print(f"  (the {lang} page does not say {said[lang]!r}: its line checks are not in {lang})")
        wall, cpu = timed(page, args.repeat, forget)
        print(line(f"player's page, made, {lang}", wall, cpu, f"  {len(shown):,} bytes"))
        if kept:
            wall, cpu = timed(page, args.repeat)
            print(line(f"player's page, as served, {lang}", wall, cpu))

        def report(lang: str = lang) -> str:
            return phase_report(variant, done, lang=lang)

        wall, cpu = timed(report, args.repeat)
        print(line(f"results report, {lang}", wall, cpu, f"  {len(report()):,} characters"))

        def messages(lang: str = lang) -> list[str]:
            return say_all(lang)

        wall, cpu = timed(messages, args.repeat)
        print(line(f"their messages said, {lang}", wall, cpu, f"  {len(messages())} messages"))


if __name__ == "__main__":
    main()
