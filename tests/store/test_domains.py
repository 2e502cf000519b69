"""The games core's domains register with it when the store package is imported, so a process that only opens a
``GameStore`` gets every domain's part in the core's work: postal press goes out with a phase's results, a phase
held for the coordinator's review is not due, a version made of a mailed message records the message's end in
its transaction, and a game file carries the game's mail record and the press its reader may have.

The proof runs in a fresh interpreter that imports nothing of a domain's rooms before the core calls them (it
says which were loaded before and after), so no import made by a test, a fixture or another module can have
done the registering for it.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

import dippouch.store
import dippouch.store.press.messages as press
from dbsupport import migrated_sqlite, stored_message
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import rows as store_rows
from dippouch.store.domains import registered
from dippouch.store.mail.inbox import message_record, record_message
from dippouch.store.mail.models import MailMessageRow

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
ROOMS = (
    "dippouch.store.mail.inbox",
    "dippouch.store.mail.record",
    "dippouch.store.mail.review",
    "dippouch.store.press.messages",
)
"""The domains' rooms the core's hooks call: the child must not have them before the core asks."""

CHILD = """
import json, sys
from datetime import datetime, timedelta
from dippouch.store import GameStore
from dippouch.store import claims as store_claims
from dippouch.store import processing, submissions, transfer
from dippouch.store.mail.finish import Finish

url, mail_id, t0, late = sys.argv[1], int(sys.argv[2]), datetime.fromisoformat(sys.argv[3]), datetime.fromisoformat(sys.argv[4])
rooms, game_id = json.loads(sys.argv[5]), int(sys.argv[6])
out = {"before": sorted(m for m in rooms if m in sys.modules)}
store = GameStore(url)
mailed = submissions.submit(
    store, "g", "England", "F lon - nth", now=t0, source="mail",
    then=lambda r: [Finish(mail_id, {"status": "accepted", "game_id": game_id, "power": r.power, "submission_id": r.submission_id})],
)
out["version"] = mailed.version
out["due"] = sorted(d.game for d in store_claims.due_phases(store, now=late))
out["processed"] = processing.process(store, "g", now=t0 + timedelta(days=30), force=True)
data = transfer.game_file(store, "g", view="coordinator", now=t0 + timedelta(days=30))
out["file"] = {key: data.get(key) for key in ("mail", "press")}
out["public"] = sorted(transfer.game_file(store, "g", view="public", now=t0 + timedelta(days=30)))
out["after"] = sorted(m for m in rooms if m in sys.modules)
print(json.dumps(out, default=str))
"""


def _game(store: GameStore, name: str) -> None:
    store_games.create_game(store, name, "standard", now=T0)
    for p in POWERS:
        store_games.assign(store, name, p, f"{p} player", now=T0)


def _message(store: GameStore, text: str) -> int:
    return stored_message(store, text, "england@example.org", T0)


def test_a_fresh_process_holding_only_a_store_gets_every_domains_part(tmp_path: Path) -> None:
    url = migrated_sqlite(tmp_path / "games.db")
    store = GameStore(url)
    _game(store, "g")
    _game(store, "h")
    press.set_press_rules(store, "g", {"kind": "postal"}, now=T0)
    held_letter = press.send(store, "g", "England", ["France"], "By post", now=T0)
    press.send(store, "g", "Italy", [p for p in POWERS if p != "Italy"], "To all", now=T0)
    assert held_letter.held
    with store.session() as s:
        g_id, h_id = (store_rows.game_row(s, n).id for n in ("g", "h"))
        h_phase = store_rows.current_phase(s, store_rows.game_row(s, "h"))
        assert h_phase is not None
        h_phase_id = h_phase.id
        assert h_phase.deadline is not None
        late = h_phase.deadline + timedelta(hours=1)  # both games' first deadline has passed
    # A message held for the coordinator holds game h's phase past its deadline (for a day at most).
    record_message(
        store, _message(store, "held"), status="held", game_id=h_id, phase_id=h_phase_id, power="France", was=None
    )
    mail_id = _message(store, "orders for g")
    store.close()

    child = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            url,
            str(mail_id),
            T0.isoformat(),
            late.isoformat(),
            json.dumps(ROOMS),
            str(g_id),
        ],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        check=False,
    )
    assert child.returncode == 0, child.stderr
    out = json.loads(child.stdout.strip().splitlines()[-1])
    assert out["before"] == []
    assert out["after"] == sorted(ROOMS)  # each loaded by the core's call through its domain's hook
    assert out["due"] == ["g"]  # h waits for the coordinator
    assert out["processed"] == ["Spring 1901 Movement"]
    assert [(m["status"], m["power"]) for m in out["file"]["mail"]["messages"]] == [("accepted", "England")]
    assert "To all" in json.dumps(out["file"]["press"])
    assert "mail" not in out["public"] and "press" not in out["public"]  # a running game's press stays in it

    store = GameStore(url)
    try:
        record = message_record(store, mail_id)
        assert (record.status, record.power) == ("accepted", "England")
        with store.session() as s:
            sub = s.scalar(sa.select(MailMessageRow.submission_id).where(MailMessageRow.id == mail_id))
        assert sub is not None
        letters = press.messages_since(store, "g", "France", 0)
        assert [(m.text, m.held) for m in letters if m.text == "By post"] == [("By post", False)]
    finally:
        store.close()


def test_the_package_imports_every_domain_that_registers() -> None:
    """Every domain with a ``hooks`` module is imported by the store package, and each fills the registry."""
    store = Path(dippouch.store.__file__).parent
    with_hooks = sorted(p.parent.name for p in store.glob("*/hooks.py"))
    assert list(dippouch.store.DOMAINS) == with_hooks
    tree = ast.parse((store / "__init__.py").read_text(encoding="utf-8"))
    imported = {a.name for node in tree.body if isinstance(node, ast.Import) for a in node.names}
    assert {f"dippouch.store.{d}.hooks" for d in with_hooks} <= imported
    filled = registered()
    assert filled["before_processing"] == ["people"] and filled["stand_ins"] == ["people"]
    assert filled["processed"] == ["press"] and filled["file_shares"] == ["press"]
    assert filled["review"] == ["mail"] and filled["file_records"] == ["mail"]
    assert filled["recorders"] == ["dippouch.store.mail.finish.Finish"]
