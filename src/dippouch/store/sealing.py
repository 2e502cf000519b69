"""The seal on the open phase's orders: until its deadline the coordinator sees who sent which version and
when, never what (W3K: "the Coordinator will not be able to review submissions prior to the deadline").

Opening the seal (an unsealed export to move a running game, a new key for a seated player) needs a reason
and is recorded in the game's event log, which the players see (:func:`unsealings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import Msg, msg, quantity
from dippouch.game import GameError, as_utc
from dippouch.store.db import Database
from dippouch.store.models import EventRow
from dippouch.store.records import read_time
from dippouch.store.rows import current_phase, game_row, game_variant, log_event, power_name

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAX_REASON",
    "check_reason",
    "is_sealed",
    "record_unsealing",
    "seal_export",
    "seal_submission",
    "unsealing",
    "unsealings",
]


def is_sealed(status: str, deadline: datetime | None, now: datetime) -> bool:
    """Orders of a phase are sealed from the coordinator while it is open and its deadline has not passed
    (a paused game has no deadline running: still sealed)."""
    return status == "open" and (deadline is None or as_utc(now) < as_utc(deadline))


def seal_submission(sub: Mapping[str, Any]) -> dict[str, Any]:
    """A submission as a sealed view shows it: who, which version, when, from where; no text, no lines."""
    keep = ("id", "power", "version", "submitted_at", "ready", "late", "source", "recorded_at", "label")
    return {**{k: sub[k] for k in keep if k in sub}, "text": None, "lines": None, "sealed": True}


def seal_export(data: dict[str, Any], now: datetime) -> int:
    """Seal the open phase's submissions in an exported game file (in place), and those of a phase set aside
    unprocessed while the open phase is sealed (their orders were carried into it); returns how many."""
    n = 0
    phases = data.get("phases", [])
    open_sealed = any(is_sealed(str(ph.get("status")), read_time(ph.get("deadline")), now) for ph in phases)
    for ph in phases:
        deadline = read_time(ph.get("deadline"))
        set_aside = ph.get("status") == "abandoned" and ph.get("processed_at") is None
        if is_sealed(str(ph.get("status")), deadline, now) or (set_aside and open_sealed):
            ph["submissions"] = [seal_submission(sub) for sub in ph.get("submissions", [])]
            n += len(ph["submissions"])
    return n


MAX_REASON = 500


def check_reason(reason: str | None, power: str | None = None) -> str:
    """The reason given for opening sealed orders, as recorded and shown to the players, or a clear error: for
    an unsealed export, or (``power``) a new key for that power's player."""
    text = " ".join(str(reason or "").split())
    if not text:
        if power is None:
            raise GameError(
                msg(
                    "the open phase's orders are sealed until its deadline: an unsealed export opens them, and the "
                    "players are told who did it, when and why; give the reason (e.g. --reason 'moving the game to a "
                    "new server')"
                )
            )
        raise GameError(
            msg(
                "the open phase's orders are sealed until its deadline: a new key for %(power)s's player opens them, "
                "and the players are told who did it, when and why; give the reason",
                power=power,
            )
        )
    if len(text) > MAX_REASON:
        raise GameError(
            msg(
                "the reason is %(length)s characters long; at most %(most)s are kept",
                length=quantity(len(text)),
                most=MAX_REASON,
            )
        )
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise GameError(msg("the reason contains control characters; write it as plain text"))
    return text


def record_unsealing(
    db: Database,
    name: str,
    *,
    who: Msg | str,
    reason: str | Msg | None,
    now: datetime,
    what: Msg,
    power: str | None = None,
    seated_only: bool = False,
) -> bool:
    """Record in the game's event log that ``who`` opened the sealed orders of the open phase (``what``:
    an unsealed export, a new key for ``power``'s player), with their ``reason``, if the phase is sealed
    now; True if it was (and is now recorded). Without a reason, nothing is opened: a clear error.

    ``who``, ``what`` and a reason the program gives (a vote's) are kept as messages, said in each reader's
    language where the record is shown; a reason a person typed, and a name, are kept as written.

    ``seated_only``: only when ``power`` has a player now (a key for an empty seat reads nobody's orders).
    The players see these records on the game page (:func:`unsealings`)."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        ph = current_phase(s, g)
        if ph is None or not is_sealed(ph.status, ph.deadline, now):
            return False
        if power is not None:
            power = power_name(game_variant(g), power)
            if seated_only and not any(r.power == power and r.replaced_at is None for r in g.players):
                return False
        why: str | dict[str, Any] = reason.to_data() if isinstance(reason, Msg) else check_reason(reason, power)
        by = who.to_data() if isinstance(who, Msg) else who[:200]
        log_event(s, g, now, "unsealed", phase=ph.name, who=by, reason=why, what=what.to_data(), power=power)
        return True


def unsealings(db: Database, name: str) -> list[dict[str, Any]]:
    """Every time the seal was opened (:func:`record_unsealing`), oldest first (:func:`unsealing`)."""
    with db.session() as s:
        g = game_row(s, name)
        rows = s.scalars(
            sa.select(EventRow).where(EventRow.game_id == g.id, EventRow.kind == "unsealed").order_by(EventRow.id)
        )
        return [unsealing(r.at, r.detail) for r in rows]


def unsealing(at: datetime, detail: Mapping[str, Any]) -> dict[str, Any]:
    """One opening of the seal as its event keeps it: at, phase, power, and who, what and the reason each a
    message (:class:`Msg`) or a text (a person's words, a name, and every value of a record kept before they
    were messages: said as written)."""
    out: dict[str, Any] = {"at": at, **detail}
    for key in ("who", "what", "reason"):
        value = detail.get(key)
        if isinstance(value, Mapping) and "id" in value:
            out[key] = Msg.from_data(value)
    return out
