"""Seats change hands here, once for every door: the coordinator's desk and its JSON API, ``dippouch players
assign/replace`` and ``dippouch seat-bot``, a DAIDE client taking a seat, a claim from the replacement pool and a
resignation.

What a seat changing hands implies is done in the store's one transaction that changes it
(:func:`dippouch.store.games.change_seat`): the power's player keys are revoked (a browser signed in with one
loses the seat with it, and a person's own seat grant ends with their seat), and the person whose seat it was is
told by a ``seat_replaced`` event, which the notification channels hand on to them as ``seat_lost``. Around it
each door gets the same options: a seat whose e-mail address is a person's is that person's (their page and
sign-in show it), a new player's link is made with the seat when asked for (shown once), and an automatic game
whose empty powers now all have someone waiting draws them (:func:`dippouch.store.openings.draw_when_full`).

A program (a DAIDE client) takes only a seat that is empty or played by a program when it asks: the check is made
in the transaction that seats it, so a person seated a moment before keeps the seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from dippouch.bots.seats import bot_player, player_words
from dippouch.core.messages import Msg, msg, nmsg, sentences
from dippouch.interop.daide import DAIDE_PLAYER
from dippouch.play.fairness import INSTALLATION, Actor, require_alone
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store.bots import BOT_PREFIX
from dippouch.store.games import SeatChange, change_seat
from dippouch.store.people.persons import person_by_email, seat_people
from dippouch.store.repository import GameStore

__all__ = ["PROGRAMS", "Seated", "claim", "free", "resign", "seat", "seat_bot", "seat_program"]

I18N_DOMAIN = "rules"
"""The catalogue of the messages said here (locale/<lang>/LC_MESSAGES/rules.po)."""

PROGRAMS = (BOT_PREFIX, DAIDE_PLAYER)
"""The beginnings of the player names programs sit under (``bot:heuristic``, ``daide:Albert``): the seats a
DAIDE client may take from whoever holds them, a person's never."""


@dataclass(frozen=True)
class Seated:
    """A seat handed over: the change itself, the person the seat is now linked to (its address is theirs),
    the new player's link's key (id, secret) when one was made, and the powers an automatic game drew after it
    (person id -> power)."""

    game: str
    change: SeatChange
    person_id: int | None = None
    drawn: dict[int, str] = field(default_factory=dict)

    @property
    def power(self) -> str:
        return self.change.power

    @property
    def key_id(self) -> int | None:
        return self.change.key[0] if self.change.key else None

    @property
    def secret(self) -> str | None:
        return self.change.key[1] if self.change.key else None

    @property
    def said(self) -> Msg:
        """What the coordinator's doors say (the command line; the desk shows the link's page), in the reader's
        language where it is shown."""
        c = self.change
        if c.previous is None:
            said = msg(
                "%(player)s now plays %(power)s in %(game)s.",
                player=player_words(c.player),
                power=c.power,
                game=self.game,
            )
        else:
            said = msg(
                "%(player)s takes over %(power)s in %(game)s from %(previous)s.",
                player=player_words(c.player),
                power=c.power,
                game=self.game,
                previous=player_words(c.previous),
            )
        parts = [said]
        if c.revoked:
            parts.append(
                nmsg(
                    "%(num)d link of %(power)s's player revoked.",
                    "%(num)d links of %(power)s's player revoked.",
                    c.revoked,
                    power=c.power,
                )
            )
        if c.previous_person is not None:
            parts.append(msg("%(previous)s is told.", previous=c.previous or ""))
        if self.person_id is not None:
            parts.append(msg("The address is a person's: the seat is on their page (%(player)s).", player=c.player))
        if self.drawn:
            parts.append(
                nmsg(
                    "The game is full and starts: %(num)d power drawn for those waiting.",
                    "The game is full and starts: %(num)d powers drawn for those waiting.",
                    len(self.drawn),
                )
            )
        return sentences(*parts)

    @property
    def text(self) -> str:
        """:attr:`said` in English."""
        return str(self.said)


def seat(
    store: GameStore,
    game: str,
    power: str,
    player: str,
    *,
    now: datetime,
    replace: bool = False,
    email: str | None = None,
    link: bool = False,
    by: Actor = INSTALLATION,
    by_vote: bool = False,
) -> Seated:
    """The coordinator seats ``player`` on ``power`` (``replace``: hands it over from its player, or from civil
    disorder). ``email``: the address their orders by mail must come from; when it is a person's, the seat is
    that person's. ``link``: make the new player's link with the seat. ``by``: who asks (in a player-run game a
    replacement is the table's to vote, ``by_vote``: :func:`dippouch.play.fairness.require_alone`)."""
    if replace:
        require_alone(store, game, "replace", by=by, by_vote=by_vote)
    person = person_by_email(store, email) if email else None
    change = change_seat(
        store,
        game,
        power,
        player,
        now=now,
        replace=replace,
        email=email,
        person_id=person.id if person is not None else None,
        reason="coordinator",
        new_key=link,
    )
    drawn = store_openings.draw_when_full(store, game, now=now)  # the sign-ups waiting now have a power each
    return Seated(game, change, person.id if person is not None else None, drawn)


def seat_bot(
    store: GameStore,
    game: str,
    power: str,
    level: str,
    *,
    now: datetime,
    by: Actor = INSTALLATION,
    by_vote: bool = False,
) -> Seated:
    """The coordinator seats a bot of ``level`` on ``power`` (replacing whoever plays it, or taking an empty
    seat); the bot sends its orders when the caller lets the bots play (:func:`dippouch.bots.seats.play_seats`).
    A bot over a player is a replacement: in a player-run game the table's to vote."""
    if any(p.lower() == power.lower() and cur for p, cur, _ in store_games.players(store, game)):
        require_alone(store, game, "replace", by=by, by_vote=by_vote)
    change = change_seat(store, game, power, bot_player(level), now=now, replace=True, reason="bot")
    return Seated(game, change, None, store_openings.draw_when_full(store, game, now=now))


def seat_program(store: GameStore, game: str, power: str, player: str, *, now: datetime) -> Seated:
    """A program (a DAIDE client, under ``player``) takes ``power`` if it is empty or a program's now, decided in
    the transaction that seats it; a person's seat is refused (:class:`~dippouch.game.GameError`)."""
    change = change_seat(store, game, power, player, now=now, replace=True, reason="program", only_from=PROGRAMS)
    return Seated(game, change, None, store_openings.draw_when_full(store, game, now=now))


def free(
    store: GameStore, game: str, power: str, *, now: datetime, by: Actor = INSTALLATION, by_vote: bool = False
) -> str:
    """The coordinator offers a played seat to the replacement pool (its player keeps it until someone claims
    it; :func:`dippouch.store.openings.free_seat`). In a player-run game that starts a replacement, the table's
    to vote, unless the seat is the asker's own."""
    own = by.person_id is not None and any(
        p.lower() == power.lower() and pid == by.person_id for p, pid in seat_people(store, game).items()
    )
    if not own:
        require_alone(store, game, "replace", by=by, by_vote=by_vote)
    return store_openings.free_seat(store, game, power, now=now)


def claim(store: GameStore, game: str, power: str, person_id: int, *, now: datetime) -> str:
    """Take a seat from the replacement pool; in the claim's transaction the old player's links stop working
    and the person whose seat it was is told (:func:`dippouch.store.openings.claim_seat`)."""
    return store_openings.claim_seat(store, game, power, person_id, now=now)


def resign(store: GameStore, game: str, person_id: int, *, now: datetime) -> store_openings.Resigned:
    """``person_id`` leaves ``game`` (:func:`dippouch.store.openings.resign`); a seat freed before the start
    takes its links with it, in the same transaction."""
    return store_openings.resign(store, game, person_id, now=now)
