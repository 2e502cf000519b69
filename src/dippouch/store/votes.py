"""Draw votes: a power's yes or no to a draw, and the game's end when every surviving power says yes.

A vote that cannot count (no draw is possible now) is refused with the rule's words and not recorded.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.messages import msg
from dippouch.game import Ending, GameError, as_utc, draw_needs, draw_reached, position_from_data
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PhaseRow, VoteRow
from dippouch.store.readiness import powers_in_civil_disorder
from dippouch.store.rows import game_row, game_settings, game_variant, log_event, power_name, require_current

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["current_votes", "finish", "vote", "vote_history"]


def vote(db: Database, name: str, power: str, draw: bool, *, now: datetime) -> Ending | None:
    """Record a draw vote; when every surviving power (not in civil disorder) says yes, the game ends."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        v = game_variant(g)
        settings = game_settings(g)
        power = power_name(v, power)
        ph = require_current(s, g)
        if draw and not (settings.draws and v.victory.get("draws", True)):
            raise GameError(msg("draws are not allowed in game %(game)s", game=repr(g.name)))
        pos = position_from_data(v, ph.position)
        cd = powers_in_civil_disorder(s, g, v)
        needs = draw_needs(v, pos, settings, {}, cd)
        if draw and not needs.possible:
            # A yes that cannot count would be taken for a vote that does (ten W3K powers voted and nothing
            # happened, with nothing said): refused with the rule's words, nothing recorded.
            why = needs.why_not or ""  # the rule's words: set whenever no draw is possible
            raise GameError(msg("no draw is possible now: %(reason)s Your vote was not recorded.", reason=why))
        s.add(VoteRow(game_id=g.id, power=power, draw=draw, at=now))
        s.flush()
        ending = draw_reached(v, pos, settings, current_votes(s, g), cd)
        if ending is not None:
            finish(s, g, ph, ending, now)
        log_event(s, g, now, "vote", power=power, draw=draw)
        return ending


def vote_history(db: Database, name: str) -> list[tuple[str, bool, datetime]]:
    """Every draw vote of a game, oldest first: (power, yes, when). A secret ballot shows others a
    power's vote only as it stood when the phase it was cast in was processed."""
    with db.session() as s:
        g = game_row(s, name)
        rows = s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id))
        return [(r.power, r.draw, as_utc(r.at)) for r in rows]


def current_votes(s: Session, g: GameRow) -> dict[str, bool]:
    """Power -> its latest draw vote (yes or no), for the powers that have voted."""
    out: dict[str, bool] = {}
    for r in s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id)):
        out[r.power] = r.draw
    return out


def finish(s: Session, g: GameRow, ph: PhaseRow, ending: Ending, now: datetime) -> None:
    """End the game at an open phase (a draw): the phase is closed as abandoned-by-ending."""
    g.status = "finished"
    g.ending = ending.to_data()
    ph.status = "processed"
    ph.processed_at = now
    ph.orders = {}
    ph.results = []
    ph.next_position = None
    ph.missed = []
