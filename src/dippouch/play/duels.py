"""Quick one-on-one matchmaking, the use case every door calls (docs/duels.md): a person asks for a one-on-one
game; the first two waiting are paired into a new game of the ``duel`` variant (France against Austria, or the
pairing the game chooses), seated and told; a person may leave the queue while they wait.

The rules, and why:

- **The pairing.** A person asks for France against Austria (``fva``, vDiplomacy's most played game) or lets
  the game choose (``any``). Everyone waiting is paired with the next to ask, whatever they asked: when either
  asked for France against Austria the game is that; otherwise one of the three pairings without a shared
  border is drawn. Which of the two plays which power is drawn too, so the first to ask has no say over the
  other's side.
- **A limit per person.** One wait at a time, and at most :data:`MOST_RUNNING` one-on-one games not finished:
  a person cannot fill the installation with games they will not play.
- **The pace** of every paired game is :data:`DEADLINES` (a move a day): both people asked for a game now, and
  neither chose a pace the other did not.
- **Rated** in their own pool (:func:`dippouch.play.ratings.one_on_one`): the games are public, so they count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from random import Random

from dippouch.core.messages import Msg, msg
from dippouch.game import GameError
from dippouch.store import duels as stored
from dippouch.store.db import Database

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals and notices, said in the reader's language where they are shown."""

__all__ = [
    "CHOICES",
    "DEADLINES",
    "MOST_RUNNING",
    "Asked",
    "QueueView",
    "ask_for_duel",
    "leave_queue",
    "queue_view",
]

CHOICES = ("fva", "any")
"""What a person may ask for: France against Austria, or the pairing the game chooses."""

MOST_RUNNING = 3
"""One-on-one games not finished a person may play at once (the queue refuses a fourth)."""

DEADLINES = {"movement": "1d", "retreats": "12h", "adjustments": "12h"}
"""The phase lengths of every paired game."""


@dataclass(frozen=True)
class Asked:
    """A request taken: waiting, or paired into a game."""

    got: stored.Taken

    @property
    def message(self) -> Msg:
        """What every door tells the person, said in their language where it is shown."""
        if self.got.game is None:
            return msg("You are waiting for an opponent: the next person to ask plays you.")
        return msg(
            "%(game)s starts now: you play %(power)s against %(opponent)s.",
            game=self.got.game,
            power=self.got.power or "",
            opponent=self.got.opponent or "",
        )


def _pairing(choice: str) -> str:
    got = choice.strip().lower() or "fva"
    if got not in CHOICES:
        raise GameError(
            msg("no pairing %(pairing)s; choose one of %(pairings)s", pairing=repr(choice), pairings=", ".join(CHOICES))
        )
    return got


def ask_for_duel(
    db: Database, person_id: int, pairing: str = "fva", *, now: datetime, rng: Random | None = None
) -> Asked:
    """``person_id`` asks for a one-on-one game (the module's note); refused with the reason."""
    return Asked(
        stored.ask(
            db, person_id, _pairing(pairing), now=now, most_running=MOST_RUNNING, deadlines=dict(DEADLINES), rng=rng
        )
    )


def leave_queue(db: Database, person_id: int, *, now: datetime) -> Msg:
    """``person_id`` leaves the queue; what to tell them (also when they were not waiting)."""
    if stored.leave(db, person_id, now=now):
        return msg("You left the queue for a one-on-one game.")
    return msg("You were not waiting for a one-on-one game.")


@dataclass(frozen=True)
class QueueView:
    """What a person's queue page shows."""

    waiting: stored.Waiting | None
    """Their wait, if they wait."""
    others: int
    """Other people waiting now."""
    games: tuple[stored.DuelGame, ...]
    """Their one-on-one games, the newest first."""
    running: int
    """Of those, the ones not finished (against :data:`MOST_RUNNING`)."""
    most: int = MOST_RUNNING


def queue_view(db: Database, person_id: int | None) -> QueueView:
    """The queue as ``person_id`` sees it (None: someone not signed in, who sees only how many wait)."""
    total = stored.waiting_count(db)
    if person_id is None:
        return QueueView(None, total, (), 0)
    mine = stored.waiting(db, person_id)
    games = tuple(stored.duel_games(db, person_id))
    return QueueView(mine, total - (1 if mine else 0), games, sum(1 for g in games if g.status != "finished"))
