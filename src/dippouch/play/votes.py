"""A power's draw vote: a yes or a no recorded, and the game's end when every surviving power says yes.

The rule (whether draws are allowed, whether one is possible now, when the votes reach one) is
:mod:`dippouch.game`'s; the store applies it under the game's lock, so two votes at the same moment cannot
both miss the last yes. Who may vote for a seat (its player, not a stand-in) is the door's to check: it knows
who is asking.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dippouch.game import Ending
from dippouch.store.repository import GameStore

__all__ = ["Voted", "vote"]


@dataclass(frozen=True)
class Voted:
    """A recorded vote, and the game's ending when this vote completed a draw."""

    power: str
    draw: bool
    ending: Ending | None

    @property
    def text(self) -> str:
        """What every door tells the voter."""
        said = f"{self.power} votes {'for' if self.draw else 'against'} a draw."
        return f"{said} THE GAME IS OVER. {self.ending.text}" if self.ending is not None else said


def vote(store: GameStore, game: str, power: str, draw: bool, *, now: datetime) -> Voted:
    """Record ``power``'s draw vote in ``game`` (``draw=False`` withdraws a yes). Raises GameError with the
    rule's words, recording nothing, when draws are not allowed or none is possible now."""
    ending = store.vote(game, power, draw, now=now)
    return Voted(store.variant(game).power(power).name, draw, ending)
