"""A game's record as values, for its scores and statistics (:mod:`dippouch.play.records`): its line of play,
its ending, who held each seat at the end (a person, a bot, nobody) and who was in civil disorder, whether
it was a practice game, and the scoring system it chose.

The scoring system is a game setting (``GameSettings.scoring``, kept in the game's JSON ``settings`` column under
:data:`SCORING_KEY`: no new column, no migration), and each choice is an event of the game (kind
:data:`SCORING_EVENT`), so the players see who changed it and when. What a system is, and which names are valid,
is the ranking engine's to say (:mod:`dippouch.ranking.scoring`): this module stores the name it is given and
never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dippouch.core.variant import Variant
from dippouch.game import Ending, as_utc
from dippouch.store.bots import BOT_PREFIX
from dippouch.store.db import Database
from dippouch.store.readiness import powers_in_civil_disorder
from dippouch.store.records import StoredPhase
from dippouch.store.rows import active_phases, game_row, game_variant, log_event

__all__ = ["SCORING_EVENT", "SCORING_KEY", "GameRecord", "SeatFacts", "game_record", "save_scoring"]

SCORING_KEY = "scoring"
"""The key of the game's settings that names its scoring system (``GameSettings.scoring``); absent: the default."""
SCORING_EVENT = "scoring"
"""The kind of the event that records a choice of system (its detail: ``{"system": name or None}``)."""


@dataclass(frozen=True)
class SeatFacts:
    """One power's seat at the end of the record: who holds it now, and whether it is in civil disorder."""

    power: str
    player: str | None
    """The current player's name (``bot:LEVEL`` for a bot); None when nobody holds the seat."""
    person_id: int | None
    bot: bool
    civil_disorder: bool


@dataclass(frozen=True)
class GameRecord:
    """Everything a game's scores and statistics are computed from, read in one session."""

    name: str
    variant: Variant
    status: str
    """``active``, ``paused`` or ``finished``."""
    ending: Ending | None
    scoring: str | None
    """The scoring system the game chose (as stored), or None for the default."""
    practice: bool
    phases: tuple[StoredPhase, ...]
    """The game's current line of play, in order (phases a rollback abandoned are left out)."""
    seats: tuple[SeatFacts, ...]
    """One per power of the variant, in the variant's order."""

    @property
    def finished(self) -> bool:
        return self.status == "finished"


def game_record(db: Database, name: str) -> GameRecord:
    """The game ``name``'s record (:class:`GameRecord`); an unknown game is refused naming the closest."""
    with db.session() as s:
        g = game_row(s, name)
        v = game_variant(g)
        phases = tuple(StoredPhase.of(p) for p in active_phases(s, g))
        disorder = powers_in_civil_disorder(s, g, v)
        current = {p.power: p for p in g.players if p.replaced_at is None}
        seats = []
        for power in v.power_names:
            row = current.get(power)
            seats.append(
                SeatFacts(
                    power=power,
                    player=row.name if row is not None else None,
                    person_id=row.person_id if row is not None else None,
                    bot=row is not None and row.name.startswith(BOT_PREFIX),
                    civil_disorder=power in disorder,
                )
            )
        settings = dict(g.settings or {})
        chosen = settings.get(SCORING_KEY)
        return GameRecord(
            name=g.name,
            variant=v,
            status=g.status,
            ending=Ending.from_data(g.ending) if g.ending else None,
            scoring=str(chosen) if chosen else None,
            practice=bool(settings.get("practice")),
            phases=phases,
            seats=tuple(seats),
        )


def save_scoring(db: Database, name: str, system: str | None, *, now: datetime) -> None:
    """Store ``system`` (a name the caller has checked) as the game's scoring system; None goes back to the
    default. The change is an event of the game."""
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        settings = {k: v for k, v in dict(g.settings or {}).items() if k != SCORING_KEY}
        if system is not None:
            settings[SCORING_KEY] = system
        g.settings = settings
        log_event(s, g, as_utc(now), SCORING_EVENT, system=system)
