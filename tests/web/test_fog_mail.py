"""A fog-of-war game's results mail (issue 58): each player's report tells what their power saw, an observer's
nothing of the board, and no map of the whole board is attached while the game runs; the report asked for
without a reader (the coordinator's command line, the desk) is the whole one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.mail.notices import queue_results
from dippouch.play.reports import stored_report
from dippouch.store import GameStore
from dippouch.store.mail.models import OutboxRow

register_commands()
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

ORDERS = {
    "England": ["F lon - nth\nA lvp - yor\nF edi - nwg\n", "F nth - nwy\nA yor H\nF nwg H\n", "Build F lon\n"],
    "Russia": ["A mos - ukr\nF sev - bla\nA war - gal\n", "A ukr - rum\nF bla - ank\n", ""],
}


def run(db: str, *args: str, now: datetime) -> None:
    r = CliRunner().invoke(app, [*args, "--db", db, "--now", now.isoformat()])
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output


def test_each_player_is_mailed_what_their_power_saw(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'fog.db'}"
    run(db, "new", "w", "--variant", "standard", "--fog", now=T0)
    run(db, "players", "assign", "w", "England", "Ann", "--email", "ann@example.org", now=T0)
    run(db, "players", "assign", "w", "Russia", "Rex", "--email", "rex@example.org", now=T0)
    run(db, "mail", "setup", "w", "--observer", "watcher@example.org", now=T0)
    for turn in range(3):
        for power, texts in ORDERS.items():
            if texts[turn]:
                (tmp_path / "o.txt").write_text(texts[turn])
                run(db, "submit", "w", power, str(tmp_path / "o.txt"), now=T0 + timedelta(hours=turn, minutes=10))
        run(db, "process", "w", "--force", now=T0 + timedelta(hours=turn, minutes=30))
    store = GameStore(db)
    assert queue_results(store, T0 + timedelta(hours=4)).messages == 9
    with store.session() as s:
        rows = list(s.scalars(sa.select(OutboxRow).where(OutboxRow.kind == "results")))
        mails = [(r.to_addr, r.subject, r.body, list(r.files)) for r in rows]
    assert mails and all(files == [] for *_, files in mails)  # not even the Winter's map
    spring = {to: body for to, subject, body, _ in mails if "Spring 1901" in subject}
    assert "Moscow" not in spring["ann@example.org"] and "North Sea" in spring["ann@example.org"]
    assert "Ukraine" in spring["rex@example.org"] and "North Sea" not in spring["rex@example.org"]
    assert "Moscow" not in spring["watcher@example.org"] and "North Sea" not in spring["watcher@example.org"]
    # The whole report is still there for whoever may read it whole.
    whole = stored_report(store, "w", phase_id=1)
    assert "Moscow" in whole and "North Sea" in whole
