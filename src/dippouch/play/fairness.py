"""Who may change a game's course alone: the one rule every clock and seat use case asks before it acts
(issue 56, the creator who plays).

A game is *player-run* when the person who started it (the creator, :func:`dippouch.store.openings.opening`'s
``creator_id``, whose grant makes them its coordinator) also holds a seat in it. In such a game the actions that
could favour one player are not the creator's to take alone, nor anyone's but the installation's: pausing
(beyond one short grace), extending, processing before the deadline, rolling back, replacing a player, seating a
bot over a player, unsealing the open phase's orders, and resuming a pause the creator did not take as their
grace. The use case refuses with :class:`TableMustVote`; a passed vote of the table acts through the same use
case with ``by_vote=True``. The installation's coordinator (the command line, an installation key) is never
refused: they run the site and play in nobody's game.

The grace: the creator of a player-run game may pause it once, for at most :data:`GRACE` (a player called
away mid-game should not need a vote to stop the clock for a night). The pause is marked in the event log
(:data:`GRACE_WHY`), so a second one is refused, and it ends by itself :data:`GRACE` later
(:func:`end_lapsed_graces`, run by the deadline workers' scan).

What changes nobody's chances stays the creator's: the game's name and description, its visibility, its
invitations and empty seats before the start.

Also here: a game's coordinator by a key of that game who is not the installation's may not hold a seat in it
(:func:`refuse_seat_for_coordinator`), so a coordinated game stays coordinated by someone who does not play.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dippouch.core.messages import Msg, msg
from dippouch.game import GameError
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import votes as stored_votes
from dippouch.store.mail.games import events_since, game_id
from dippouch.store.openings import opening
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals."""

__all__ = [
    "GRACE",
    "GRACE_WHY",
    "INSTALLATION",
    "Actor",
    "TableMustVote",
    "end_lapsed_graces",
    "end_voted_pauses",
    "grace_used",
    "in_grace",
    "player_run",
    "refuse_seat_for_coordinator",
    "require_alone",
]

GRACE = timedelta(hours=24)
"""How long the creator's one pause of a player-run game may last before the clock starts again by itself."""

GRACE_WHY = "the creator's one pause (24 h at most)"
"""The reason kept with the grace pause's event: how a second grace is told from the first, and how the
workers find a grace to end."""


@dataclass(frozen=True)
class Actor:
    """Who asks a coordinator's action of a game: what the game's event log names them by (a message, said in
    each reader's language where the log is shown; a text is a name, said as it is), whether they are the
    installation's coordinator (never refused), and the person signed in, when there is one."""

    who: Msg | str
    installation: bool = False
    person_id: int | None = None


INSTALLATION = Actor(msg("the installation's coordinator"), installation=True)
"""The command line, the workers and an installation key: the site's own operator."""


class TableMustVote(GameError):
    """An action a player-run game's table decides, asked by one person alone: the refusal says to propose it."""


# What each guarded action is called in the refusal (a message inside a message, said in the reader's words).
ACTIONS: dict[str, Msg] = {
    "pause": msg("a pause"),
    "resume": msg("resuming the game"),
    "extend": msg("an extension"),
    "process": msg("processing before the deadline"),
    "rollback": msg("a roll back"),
    "replace": msg("replacing a player"),
    "unseal": msg("unsealing the open phase's orders"),
}


def player_run(store: GameStore, game: str) -> bool:
    """Whether ``game``'s creator holds a seat in it now: the store's one test
    (:func:`dippouch.store.votes.creator_seated`), which its proposals ask inside their transaction too."""
    return stored_votes.player_run(store, game)


def require_alone(store: GameStore, game: str, action: str, *, by: Actor, by_vote: bool = False) -> None:
    """Refuse ``action`` (a key of :data:`ACTIONS`) by ``by`` alone in a player-run game: the table must vote
    for it. A passed vote (``by_vote``) and the installation's coordinator act; a coordinated game is not
    asked about (two reads spared for the installation and a vote)."""
    if by.installation or by_vote:
        return
    if player_run(store, game):
        raise TableMustVote(
            msg(
                "In a game you play in, %(action)s needs the table's vote: propose it on your page.",
                action=ACTIONS[action],
            )
        )


def refuse_seat_for_coordinator(store: GameStore, game: str, person_id: int | None, *, coordinator: bool) -> None:
    """A person who coordinates ``game`` by its key (``coordinator``) but did not create it may not take a seat
    in it: a coordinated game's coordinator does not play (the creator who plays makes the game player-run
    instead, under :func:`require_alone`)."""
    if not coordinator or person_id is None:
        return
    o = opening(store, game, scores=False)
    if o is not None and o.creator_id == person_id:
        return
    raise GameError(
        msg(
            "you coordinate %(game)s, so you may not play in it: a coordinated game's coordinator does not take a seat",
            game=game,
        )
    )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _pauses(store: GameStore, game: str) -> list[tuple[int, str, dict[str, object]]]:
    return events_since(store, game_id(store, game), _EPOCH, ["pause", "resume"])


def grace_used(store: GameStore, game: str) -> bool:
    """Whether the creator of ``game`` took their grace pause already (one a game)."""
    return any(kind == "pause" and detail.get("why") == GRACE_WHY for _, kind, detail in _pauses(store, game))


def in_grace(store: GameStore, game: str) -> bool:
    """Whether the pause standing now is the creator's grace (the last pause or resume logged is that pause)."""
    log = _pauses(store, game)
    return bool(log) and log[-1][1] == "pause" and log[-1][2].get("why") == GRACE_WHY


def end_lapsed_graces(store: GameStore, *, now: datetime) -> list[str]:
    """Resume every game whose creator's grace pause has lasted :data:`GRACE` (as the
    installation: the grace ends by itself); returns the games resumed. A grace has lapsed when it is the pause
    standing and no grace pause was logged within the last ``GRACE``."""
    resumed = []
    for name in store_games.paused(store):
        if not in_grace(store, name):
            continue
        # A pause exactly GRACE ago has lapsed: the window starts just after it.
        recent = events_since(store, game_id(store, name), now - GRACE + timedelta(microseconds=1), ["pause"])
        if not any(detail.get("why") == GRACE_WHY for _, _, detail in recent):
            store_deadlines.resume(store, name, now=now)
            resumed.append(name)
    return resumed


def voted_pause_over(store: GameStore, game: str, p: stored_votes.Proposal, now: datetime) -> bool:
    """End a passed pause proposal whose time is up: its outcome marked resumed and the game's clock started
    again (as the installation: the table decided it, so nobody is refused). False when ``p`` is no such pause."""
    if p.kind != "pause" or p.status != "passed" or not p.outcome or p.outcome.get("resumed"):
        return False
    until = datetime.fromisoformat(str(p.outcome.get("until")))
    if now < until:
        return False
    stored_votes.set_outcome(store, game, p.id, {**p.outcome, "resumed": now.isoformat()})
    if store_status.status(store, game, now=now, drift=False, due=False).state == "paused":
        store_deadlines.resume(store, game, now=now)
    return True


def end_voted_pauses(store: GameStore, *, now: datetime) -> list[str]:
    """Start again every paused game whose table voted a pause that is now over; returns the games resumed.
    The deadline workers look every few minutes (dippouch.play.processing), so a voted pause ends by itself
    whether or not anyone reads the game."""
    resumed = []
    for name in store_games.paused(store):
        if any(voted_pause_over(store, name, p, now) for p in stored_votes.proposals(store, name, now=now)):
            resumed.append(name)
    return resumed
