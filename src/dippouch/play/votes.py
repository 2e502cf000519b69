"""The table's proposals (:func:`propose`, :func:`ballot`, :func:`withdraw`): a pause, an extension, a
cancellation, a concession, a draw of every survivor or of some (as the game's scoring system allows), and in a
game its players run, processing now, a roll back, a replacement and unsealing, each passing by the game's vote
rule (:attr:`dippouch.game.GameSettings.vote_rule`) and then acting through the coordinator's own use cases
(:mod:`dippouch.play.clock`, :mod:`dippouch.play.seats`) with ``by_vote``; and a power's "vote draw"
(:func:`vote`), its ballot on the draw of every survivor, which a yes proposes when none is (one tally). Every
door (the player's page, the JSON API, the command line, mail, DAIDE's ``DRW``) calls these, and says the
:class:`Decided` value in its words.

The rule (whether draws are allowed, whether one is possible now, when the votes reach one) is
:mod:`dippouch.game`'s; the store applies it under the game's lock, so two votes at the same moment cannot
both miss the last yes. Who may vote for a seat (its player, not a stand-in) is the door's to check: it knows
who is asking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, msg
from dippouch.game import Ending, GameError, GameSettings, read_version_lines
from dippouch.ranking.scoring import systems
from dippouch.store import rows as store_rows
from dippouch.store import sealing as store_sealing
from dippouch.store import variant_copy as variant_copy
from dippouch.store import votes as stored
from dippouch.store.repository import GameStore
from dippouch.store.votes import Proposal

I18N_DOMAIN = "rules"
"""The catalogue of the proposals' messages."""

__all__ = [
    "KIND_WORDS",
    "Decided",
    "Proposal",
    "Voted",
    "ballot",
    "describe",
    "draw_of",
    "from_lines",
    "mail_votes",
    "proposals",
    "propose",
    "vote",
    "withdraw",
]


@dataclass(frozen=True)
class Voted:
    """A recorded vote, and the game's ending when this vote completed a draw."""

    power: str
    draw: bool
    ending: Ending | None

    @property
    def said(self) -> Msg:
        """What every door tells the voter, in the reader's language where it is shown."""
        if self.draw:
            said = msg("%(power)s votes for a draw.", power=self.power)
        else:
            said = msg("%(power)s votes against a draw.", power=self.power)
        return game_over(said, self.ending)

    @property
    def text(self) -> str:
        """:attr:`said` in English."""
        return str(self.said)


def game_over(said: Msg, ending: Ending | None) -> Msg:
    """``said``, and the game's end when it ended the game."""
    if ending is None:
        return said
    return msg("%(said)s THE GAME IS OVER. %(ending)s", said=said, ending=ending.message)


def vote(store: GameStore, game: str, power: str, draw: bool, *, now: datetime) -> Voted:
    """``power``'s ballot on the draw of every surviving power (:func:`dippouch.store.votes.vote`: a yes
    proposes it when none is open; a no refuses it under a unanimous rule). Raises GameError with the rule's
    words, recording nothing, when draws are not allowed or none is possible now."""
    ending = stored.vote(store, game, power, draw, now=now)
    return Voted(variant_copy.variant_of(store, game).power(power).name, draw, ending)


# --------------------------------------------------------------------------------------------------
# The table's proposals

MAX_PAUSE = timedelta(days=14)
"""The longest pause the table may vote at once: a longer one is a typing mistake, or a game left (the table
may vote another when it ends)."""
MAX_EXTEND = timedelta(days=7)
"""The longest extension voted at once (the phase's own time is the game's setting, not a vote's)."""

NAMED_DRAW_FORMULAS = frozenset({"draw_size", "tribute"})
"""The scoring formulas whose scores follow who is named in a draw (:mod:`dippouch.ranking.scoring`: draw-size
scoring shares the total among the named, Tribute the draw pool). The others score a draw by centres or ranks
whoever it names, so a draw of some survivors would name a result their scores do not carry: refused."""

KIND_WORDS = stored.KIND_WORDS
"""What each kind of proposal is called (:data:`dippouch.store.votes.KIND_WORDS`)."""


@dataclass(frozen=True)
class Decided:
    """A proposal after a door's proposal, ballot or withdrawal: how it stands, the game's ending if passing
    it ended the game, and what every door tells the person who asked."""

    proposal: Proposal
    ending: Ending | None

    @property
    def said(self) -> Msg:
        p = self.proposal
        what = describe(p)
        if p.status == "passed":
            return msg("Proposal %(id)s passed: %(what)s.", id=p.id, what=what)
        if p.status == "refused":
            return msg("Proposal %(id)s was refused: %(what)s.", id=p.id, what=what)
        if p.status == "withdrawn":
            return msg("Proposal %(id)s was withdrawn: %(what)s.", id=p.id, what=what)
        if p.status == "failed":
            why = p.outcome.get("why") if p.outcome else None
            return msg(
                "Proposal %(id)s passed but could not be done: %(why)s",
                id=p.id,
                why=Msg.from_data(why) if isinstance(why, dict) else msg("the game had changed"),
            )
        return msg(
            "Proposal %(id)s is open: %(what)s (%(yes)s of %(needed)s yes votes).",
            id=p.id,
            what=what,
            yes=p.yes,
            needed=p.needed,
        )

    @property
    def told(self) -> Msg:
        """What the command line tells the voter: :attr:`said`, and the game's end when the vote ended it."""
        return game_over(self.said, self.ending)

    @property
    def text(self) -> str:
        """:attr:`told` in English."""
        return str(self.told)


def describe(p: Proposal) -> Msg:
    """The proposal in a few words, with its values: "a pause of 48 hours", "a draw of France, Italy"."""
    return stored.describe_proposal(p.kind, p.values)


def _hours(kind: str, hours: float | None) -> float:
    longest = MAX_PAUSE if kind == "pause" else MAX_EXTEND
    if hours is None or not 1 <= hours <= longest.total_seconds() / 3600:
        raise GameError(
            msg(
                "%(kind)s is from 1 to %(most)s hours (it was %(hours)s)",
                kind=KIND_WORDS[kind],
                most=int(longest.total_seconds() // 3600),
                hours=hours if hours is not None else "none",
            )
        )
    return hours


def _named_draws(store: GameStore, game: str) -> Msg | None:
    """Why the game's scoring system refuses a draw of some survivors (None: it allows one)."""
    from dippouch.play.records import DEFAULT_SYSTEM  # the default system, one truth with the scores

    with store.session() as s:
        settings = store_rows.game_row(s, game).settings
    name = GameSettings.from_data(settings).scoring or DEFAULT_SYSTEM
    system = systems().get(name.lower())
    if system is None or system.formula in NAMED_DRAW_FORMULAS:
        return None
    return msg(
        "the game is scored by %(system)s, which scores a draw the same whoever it names: a draw here includes "
        "every surviving power",
        system=system.title,
    )


def propose(
    store: GameStore,
    game: str,
    power: str,
    kind: str,
    *,
    now: datetime,
    hours: float | None = None,
    to: str | None = None,
    powers: Sequence[str] = (),
    phase: str | None = None,
    player: str | None = None,
    email: str | None = None,
) -> Decided:
    """``power`` proposes ``kind`` to the table, voting yes itself; it may pass at once (then it acts).
    ``hours``: a pause's or an extension's length; ``to``: the power conceded to, or whose player is replaced;
    ``powers``: a draw's powers (none: every survivor); ``phase``: a roll back's; ``player``/``email``: the
    replacement."""
    kind = kind.strip().lower()
    values: dict[str, Any] = {}
    if kind in ("pause", "extend"):
        length = _hours(kind, hours)
        values["hours"] = int(length) if float(length).is_integer() else length  # "48 hours", not "48.0"
    elif kind in ("concede", "replace"):
        if not to:
            raise GameError(msg("%(kind)s names a power", kind=KIND_WORDS[kind]))
        values["power"] = to
        if kind == "replace":
            if not player or not player.strip():
                raise GameError(msg("replacing a player names the new player"))
            values["player"] = player.strip()[:200]
            if email:
                values["email"] = email.strip()
    elif kind == "draw" and powers:
        values["powers"] = list(powers)
    elif kind == "rollback":
        if not phase or not phase.strip():
            raise GameError(msg("a roll back names the phase to open again"))
        values["phase"] = phase.strip()
    named = _named_draws(store, game) if kind == "draw" and powers else None
    p, ending = stored.propose(store, game, power, kind, values, now=now, named_draws=named)
    return _acted(store, game, Decided(p, ending), now)


def ballot(store: GameStore, game: str, proposal: int, power: str, yes: bool, *, now: datetime) -> Decided:
    """``power`` votes yes or no on a proposal (a second ballot replaces its first while the proposal is open);
    the ballot that meets the game's rule passes it, and it acts at once."""
    p, ending = stored.cast(store, game, proposal, power, yes, now=now)
    return _acted(store, game, Decided(p, ending), now)


def withdraw(store: GameStore, game: str, proposal: int, power: str, *, now: datetime) -> Decided:
    """The proposer takes an open proposal back."""
    p, ending = stored.cast(store, game, proposal, power, None, now=now)
    return Decided(p, ending)


def proposals(store: GameStore, game: str, *, now: datetime) -> list[Proposal]:
    """The open proposals and the last decided ones, newest first: a pure read, so a page view takes no write
    lock. What time ends (a proposal past its phase, a voted pause over) the deadline workers' scan marks
    (:func:`dippouch.store.votes.lapse_stale`, :func:`dippouch.play.fairness.end_voted_pauses`); until then an
    expired proposal reads as expired."""
    return stored.proposals(store, game, now=now)


def _acted(store: GameStore, game: str, d: Decided, now: datetime) -> Decided:
    """A proposal that has just passed does what it says through the coordinator's use cases (``by_vote``:
    the table decided it); an act the game now refuses marks it failed, with the reason."""
    p = d.proposal
    if p.status != "passed" or p.kind in stored.ENDING_KINDS or p.outcome is not None:
        return d
    from dippouch.play import clock
    from dippouch.play.fairness import Actor
    from dippouch.play.seats import seat

    by = Actor(msg("the table's vote (proposal %(id)s)", id=p.id))
    v = p.values
    outcome: dict[str, Any] = {"done": now.isoformat()}
    try:
        if p.kind == "pause":
            clock.pause(store, game, by=by, now=now, by_vote=True)
            outcome["until"] = (now + timedelta(hours=float(v["hours"]))).isoformat()
        elif p.kind == "extend":
            got = clock.extend(store, game, timedelta(hours=float(v["hours"])), by=by, now=now, by_vote=True)
            outcome["deadline"] = got.deadline.isoformat() if got.deadline else None
        elif p.kind == "process":
            clock.process(store, game, by=by, now=now, by_vote=True)
        elif p.kind == "rollback":
            clock.rollback(store, game, str(v["phase"]), by=by, now=now, by_vote=True)
        elif p.kind == "replace":
            seat(store, game, str(v["power"]), str(v["player"]), now=now, replace=True, email=v.get("email"))
        elif p.kind == "unseal":
            store_sealing.record_unsealing(
                store, game, who=by.who, reason=msg("the table voted to unseal"), now=now, what=msg("a vote")
            )
    except DippouchError as e:
        stored.mark_failed(store, game, p.id, e.msg, now=now)
    else:
        stored.set_outcome(store, game, p.id, outcome)
    return Decided(next(q for q in stored.proposals(store, game, now=now) if q.id == p.id), d.ending)


def draw_of(store: GameStore, game: str, power: str, powers: Sequence[str], *, now: datetime) -> Decided:
    """A yes to a draw of ``powers`` (DAIDE's ``DRW (power power ...)``): the ballot on the open draw proposal
    that names the same powers, else a new one proposed (both by the one use case of every door)."""
    wanted = {p.casefold() for p in powers}
    for p in proposals(store, game, now=now):
        named = p.values.get("powers") or (() if not wanted else p.voters)  # none named: every survivor's draw
        if p.status == "open" and p.kind == "draw" and {q.casefold() for q in named} == wanted:
            return ballot(store, game, p.id, power, True, now=now)
    return propose(store, game, power, "draw", powers=list(powers), now=now)


def from_lines(store: GameStore, game: str, power: str, text: str, *, now: datetime) -> tuple[Msg, ...]:
    """The vote lines of a mail (:attr:`dippouch.game.VersionLines.votes`: "Vote draw", "Vote yes 3", "Vote no
    3", "Vote withdraw 3"), each done by this module's use cases; what each did, or why it was refused, for the
    reply. A refused line refuses nothing else: the orders beside it stand as sent."""
    said: list[Msg] = []
    for what, number in read_version_lines(text).votes:
        try:
            if what == "draw":
                said.append(draw_of(store, game, power, [], now=now).said)
            elif number is None:
                said.append(msg("'vote %(what)s' names a proposal by its number: vote %(what)s 3", what=what))
            elif what == "withdraw":
                said.append(withdraw(store, game, number, power, now=now).said)
            else:
                said.append(ballot(store, game, number, power, what == "yes", now=now).said)
        except DippouchError as e:
            said.append(e.msg)
    return tuple(said)


def mail_votes(store: GameStore, game: str, power: str, text: str, *, now: datetime) -> tuple[tuple[Msg, ...], str]:
    """A mail's vote lines done before its orders are recorded (:func:`from_lines`), so the receipt, made
    inside the orders' own transaction, can say what each did: returns that, and the text with those lines
    blank (the line numbers the receipt gives stay the player's), which the orders' use case reads without
    doing the votes again."""
    if not read_version_lines(text).votes:
        return (), text
    said = from_lines(store, game, power, text, now=now)
    return said, "\n".join("" if read_version_lines(line).votes else line for line in text.splitlines())
