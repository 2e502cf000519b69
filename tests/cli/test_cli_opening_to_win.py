"""Whole games from each variant's opening position to a win, through the coordinator CLI.

One power is played by a simple greedy bot (take the nearest centres, support attacks on occupied ones);
the others send nothing after their first phase, so they meet missed orders and civil disorder. On the way
the game sees a late submission that must not count, a rollback, and an export/import round trip; it runs
on SQLite and on PostgreSQL (the ``db_url`` fixture).
"""

from __future__ import annotations

import json
import re
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game  # noqa: F401  (registers the commands)
from dippouch.catalog import load_variant
from dippouch.cli import app
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.notation import format_order
from dippouch.core.orders import Build, Hold, Move, Order, Support
from dippouch.core.position import Position
from dippouch.core.rules.base import hooks_for
from dippouch.core.variant import Variant
from dippouch.game import position_from_data

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
STEP = timedelta(days=2)  # every phase lasts a day; the clock jumps past each deadline


class Cli:
    def __init__(self, db: str) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, now: datetime | None = None) -> str:
        argv = [*args, "--db", self.db]
        if now is not None:
            argv += ["--now", now.isoformat()]
        r = self.runner.invoke(app, argv, input=input, env={"COLUMNS": "200"})
        assert "Traceback" not in r.output, r.output
        assert r.exit_code == 0, f"dippouch {' '.join(args)} exited {r.exit_code}:\n{r.output}"
        return r.output


def current(status: str) -> str | None:
    """The open phase's name from ``dippouch status``, or None when the game is over."""
    if "is over" in status:
        return None
    m = re.match(r"Game \S+ \(\S+\), (.+?), \w+\.", status)
    assert m, status
    return m.group(1)


def board(cli: Cli, v: Variant, game: str, phase: str) -> Position:
    record = json.loads(cli("show", game, phase, "--json"))
    return position_from_data(v, record["position"])


def distances_to(v: Variant, targets: set[int]) -> list[int]:
    """Moves from each province to the nearest target, by any unit's borders (a greedy bot's compass)."""
    m = v.map
    graph: list[set[int]] = [set(a) for a in m.army_adj]
    for loc, reach in enumerate(m.fleet_reach):
        graph[m.province_of(loc)].update(reach)
    dist = [10**6] * m.province_count
    queue = deque(targets)
    for t in targets:
        dist[t] = 0
    while queue:
        p = queue.popleft()
        for q in graph[p]:
            if dist[q] > dist[p] + 1:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def greedy(v: Variant, pos: Position, power: str) -> list[Order]:
    """Sit on centres not yet ours, attack them (with support where a unit stands), close in on the rest."""
    m = v.map
    legal = legal_orders(v, pos, power)
    kind = v.calendar.kind(pos.phase)
    if kind == PhaseKind.ADJUSTMENTS:
        builds = [o for os in legal.values() for o in os if isinstance(o, Build) and o.kind == "A"]
        builds += [o for os in legal.values() for o in os if isinstance(o, Build) and o.kind == "F"]
        owed = hooks_for(v).adjustment_delta(pos, power)  # 1897's opening winter: one build each
        chosen: list[Order] = []
        sites: set[int] = set()
        for b in builds:
            if len(chosen) < owed and m.province_of(b.loc) not in sites:
                chosen.append(b)
                sites.add(m.province_of(b.loc))
        return chosen
    if kind != PhaseKind.MOVEMENT:
        return []
    targets = {c for c in m.supply_centres if pos.centres.get(c) != power}
    orders: dict[int, Order] = {}
    taken: set[int] = set()  # provinces our units will stand in
    for loc in legal:
        p = m.province_of(loc)
        if p in targets:  # standing on a centre we do not own yet: stay until it is ours
            orders[loc] = Hold(pos.units[p].kind, loc)
            taken.add(p)
    free = [loc for loc in legal if loc not in orders]
    for t in sorted(targets - taken):
        movers = [
            (loc, o)
            for loc in free
            if loc not in orders
            for o in legal[loc]
            if isinstance(o, Move) and m.province_of(o.dest) == t and not o.via_convoy
        ]
        if not movers:
            continue
        enemy = t in pos.units and pos.units[t].power != power
        mover_loc, move = movers[0]
        if enemy:
            support = next(
                (
                    o
                    for loc, _ in movers[1:]
                    if loc not in orders
                    for o in legal[loc]
                    if isinstance(o, Support) and o.target == mover_loc and o.dest is not None
                    and m.province_of(o.dest) == t
                ),
                None,
            )  # fmt: skip
            if support is None:
                continue
            orders[support.loc] = support
        orders[mover_loc] = move
        taken.add(t)
    dist = distances_to(v, targets) if targets else [0] * m.province_count
    for loc in legal:
        if loc in orders:
            continue
        here = dist[m.province_of(loc)]
        best: Order = Hold(pos.units[m.province_of(loc)].kind, loc)
        for o in legal[loc]:
            if isinstance(o, Move) and not o.via_convoy:
                q = m.province_of(o.dest)
                if q not in taken and q not in pos.units and dist[q] < here:
                    best, here = o, dist[q]
        if isinstance(best, Move):
            taken.add(m.province_of(best.dest))
        else:
            taken.add(m.province_of(loc))
        orders[loc] = best
    return list(orders.values())


def text(v: Variant, orders: list[Order]) -> str:
    return "".join(format_order(v, o) + "\n" for o in orders) or "\n"


CASES = [
    # variant, the bot's power, a power that sends its first orders and then nothing, phases allowed
    ("hundred", "England", "France", 30),
    ("1897", "Germany", "Italy", 80),
]


@pytest.mark.parametrize(("variant", "bot", "quitter", "limit"), CASES)
def test_from_the_opening_to_a_win(
    variant: str, bot: str, quitter: str, limit: int, db_url: str, tmp_path: Path
) -> None:
    cli = Cli(db_url)
    v = load_variant(variant)
    now = T0
    out = cli(
        "new", "g", "--variant", variant, "--movement", "1d", "--retreats", "1d", "--adjustments", "1d",
        "--missed", "2", now=now,
    )  # fmt: skip
    first = v.calendar.name(v.start.phase)
    assert first in out
    cli("players", "assign", "g", bot, "Bot", now=now)
    cli("players", "assign", "g", quitter, "Quitter", now=now)

    rolled_back = late_checked = disorder_seen = False
    played: list[str] = []
    for _ in range(limit):
        status = cli("status", "g", now=now)
        phase = current(status)
        if phase is None:
            break
        quitter_row = next(line for line in status.splitlines() if line.startswith(f"│ {quitter}"))
        disorder_seen = disorder_seen or "CIVIL DISORDER" in quitter_row
        pos = board(cli, v, "g", phase)
        mine = greedy(v, pos, bot)
        if mine:  # nothing to send in a retreat phase without our units, or with no builds owed
            sent = cli("submit", "g", bot, input=text(v, mine), now=now + timedelta(hours=1))
            assert "REJECTED" not in sent, sent
        if phase == first:
            quits = greedy(v, pos, quitter)
            assert quits
            assert "REJECTED" not in cli("submit", "g", quitter, input=text(v, quits), now=now + timedelta(hours=1))
        moves = [o for o in mine if isinstance(o, Move)]
        if not late_checked and moves:
            # A late version (everything holds) is kept but does not count: the move still happens.
            late = "".join(f"{format_order(v, Hold(o.kind, o.loc))}\n" for o in moves)
            out = cli("submit", "g", bot, input=late, now=now + STEP - timedelta(minutes=1) + timedelta(days=1))
            assert "after the deadline" in out
            late_move = format_order(v, moves[0], full=True)  # as the report writes it
        now += STEP
        report = cli("process", "g", now=now)
        assert f"{phase} results" in report
        if not late_checked and moves:
            assert f"{late_move}" in report and f"{late_move.split(' - ')[0]} H" not in report, report
            assert "LATE" in cli("show", "g", phase)
            late_checked = True
        played.append(phase)
        if not rolled_back and len(played) == 4:
            # Take the last phase back and play it again: the abandoned one stays in the history.
            cli("rollback", "g", phase, now=now)
            assert "abandoned" in cli("history", "g")
            rolled_back = True
    else:
        pytest.fail(f"{variant}: no winner within {limit} phases; last status:\n{cli('status', 'g', now=now)}")

    status = cli("status", "g", now=now)
    assert f"{bot} wins" in status, status
    assert rolled_back and late_checked
    assert disorder_seen  # the quitter missed two movement phases in a row
    assert f"{first} results" in cli("report", "g", first)  # the opening is still on record

    exported = tmp_path / "g.json"
    cli("export", "g", str(exported))
    assert f"{bot} wins" in cli("import", str(exported), "--name", "copy", now=now)
    again = json.loads(cli("export", "copy"))
    original = json.loads(exported.read_text())
    for key in ("variant", "options"):
        assert again.get(key) == original.get(key)
    assert cli("report", "copy", played[-1]).splitlines()[2:] == cli("report", "g", played[-1]).splitlines()[2:]
