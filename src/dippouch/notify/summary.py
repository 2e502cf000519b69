"""What a processed phase did for one power, for the one mail a player gets after it: their orders with the
result of each (and why one failed), the lines they sent that were not accepted, and every power's supply
centres with the change. The whole report is a link away; this is what a player reads first.

Words are messages (:func:`dippouch.core.messages.msg`) said in the reader's language; orders, places and
powers are as the variant writes them, and the adjudicator's reasons are said as the report says them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dippouch.core.messages import msg, nmsg
from dippouch.game import in_fog, position_from_data
from dippouch.names import order_text
from dippouch.report import _result_note, refused_lines
from dippouch.saying import say
from dippouch.store.db import Database
from dippouch.store.history import phase_record
from dippouch.store.variant_copy import variant_of

__all__ = ["I18N_DOMAIN", "PhaseSummary", "read"]

I18N_DOMAIN = "mail"
"""The summary's words are the results mail's: its catalogue is the game mail's."""


class PhaseSummary:
    """A processed phase read once (its record and variant), said for each power and language asked."""

    def __init__(self, db: Database, game: str, phase_id: int) -> None:
        self.variant = variant_of(db, game)
        self.record: Mapping[str, Any] = phase_record(db, game, phase_id=phase_id)

    def text(self, power: str, lang: str) -> str:
        """The power's part in ``lang``: its orders and their results, the lines not accepted, the centres."""
        v, rec = self.variant, self.record
        pos = position_from_data(v, rec["position"])
        kind = v.calendar.kind(pos.phase)
        refused = refused_lines(rec)
        # In a fog-of-war game a result's reason may name a unit the power does not see, and the others' counts of
        # centres are not told (as on the game page: views/fog.py).
        seen = rec
        fog = in_fog(rec)
        if fog:
            from dippouch.render.fog import fog_record  # the renderer is imported only when a fog asks for it

            seen = fog_record(v, rec, (power,))
        mine = [r for r in seen.get("results") or [] if str(r["power"]) == power]
        out: list[str] = []
        if mine or power in refused:
            out.append(say(msg("What your orders did (%(power)s):", power=power), lang))
        for r in mine:
            # The report's own note: the result where it is not a plain success, and the adjudicator's reason.
            out.append(f"  {order_text(v, str(r['order']), kind)}{_result_note(r, power in refused, lang)}")
        for line, why in refused.get(power, []):
            out.append(say(msg("  not accepted: %(line)s (%(why)s)", line=line, why=why), lang))
        if not mine and power in set(rec.get("missed") or []):
            out.append(say(msg("No orders of %(power)s were received: its units held.", power=power), lang))
        nxt = rec.get("next_position")
        if nxt is not None and fog:
            held = len(position_from_data(v, nxt).centres_of(power))
            mine_told = nmsg("You hold %(num)d supply centre.", "You hold %(num)d supply centres.", held)
            out += ["", say(mine_told, lang)]
        elif nxt is not None:
            after = position_from_data(v, nxt)
            counts = []
            for p in v.power_names:
                held, before = len(after.centres_of(p)), len(pos.centres_of(p))
                if held or before:
                    counts.append(f"{p} {held}" + (f" ({held - before:+d})" if held != before else ""))
            if counts:
                held = len(after.centres_of(power))
                told = nmsg(
                    "You hold %(num)d supply centre. Everyone's: %(counts)s.",
                    "You hold %(num)d supply centres. Everyone's: %(counts)s.",
                    held,
                    counts="; ".join(counts),
                )
                out += ["", say(told, lang)]
        return "\n".join(out).strip("\n")


def read(db: Database, game: str, phase_id: int) -> PhaseSummary | None:
    """The phase's summary, or None where its record cannot be read (the results mail then goes without it)."""
    try:
        return PhaseSummary(db, game, phase_id)
    except Exception:  # a game set aside or a variant no longer built: the mail still says the phase was processed
        return None
