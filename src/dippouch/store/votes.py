"""The table's proposals (a pause, an extension, a cancellation, a concession, a draw of some or all, and in a
game its players run the coordinator's powers), each decided by the game's vote rule under the game's lock; a
power's "vote draw" is its ballot on the draw of every survivor (:func:`vote`), so a draw has one tally.

A vote that cannot count (no draw is possible now) is refused with the rule's words and not recorded. A proposal
is decided here the moment its ballots meet the rule, so two last ballots at the same moment pass it once; what
ends the game (a draw, a concession, a cancellation) ends it in the same transaction, and the rest (the clock,
the seats) is done by the play layer once the proposal is marked passed (:mod:`dippouch.play.votes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.messages import Msg, PhaseName, msg
from dippouch.game import (
    Ending,
    GameError,
    as_utc,
    draw_agreed,
    draw_needs,
    position_from_data,
    surviving_powers,
)
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow, VoteRow
from dippouch.store.models_openings import OpeningRow
from dippouch.store.models_votes import ProposalRow
from dippouch.store.readiness import powers_in_civil_disorder
from dippouch.store.rows import (
    current_phase,
    game_row,
    game_settings,
    game_variant,
    log_event,
    power_name,
    require_current,
)

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "ANY_DRAW",
    "ENDING_KINDS",
    "KINDS",
    "KIND_WORDS",
    "Proposal",
    "adopt_old_votes",
    "cast",
    "creator_seated",
    "current_votes",
    "describe_proposal",
    "finish",
    "lapse_stale",
    "mark_failed",
    "player_run",
    "proposals",
    "propose",
    "set_outcome",
    "tally",
    "vote",
    "vote_history",
]


def vote(db: Database, name: str, power: str, draw: bool, *, now: datetime) -> Ending | None:
    """A power's yes or no to a draw of every surviving power ("vote draw" at any door): its ballot on the
    game's open draw proposal, which a yes opens when none is, decided by the game's vote rule like every
    proposal, so a draw has one tally whichever door it came by. Each ballot is also kept in the draw votes'
    log (:func:`vote_history`: a secret ballot's own view, the game file). Refused with the rule's words,
    recording nothing, when draws are not allowed or none is possible now, when a draw of some powers is
    proposed instead (voted on by its number), and a no when no draw is proposed."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        v = game_variant(g)
        settings = game_settings(g)
        power = power_name(v, power)
        ph = require_current(s, g)
        if draw and not (settings.draws and v.victory.get("draws", True)):
            raise GameError(msg("draws are not allowed in game %(game)s", game=repr(g.name)))
        _lapse(s, g, ph, now)
        r = s.scalar(
            sa.select(ProposalRow).where(
                ProposalRow.game_id == g.id, ProposalRow.status == "open", ProposalRow.kind == "draw"
            )
        )
        if r is None and (adopted := _adopt_old_votes(s, g, ph, now)) is not None:
            if adopted.status == "passed":  # the old votes alone met the rule (a majority): the game is over
                return _ending_now(g)
            r = adopted if adopted.status == "open" else None
        if r is not None and r.values.get("powers"):
            raise GameError(
                msg(
                    "a draw of %(powers)s is proposed (number %(id)s): vote yes or no on it by its number",
                    powers=", ".join(r.values["powers"]),
                    id=r.id,
                )
            )
        if r is None and not draw:
            raise GameError(
                msg("no draw is proposed in game %(game)s: there is nothing to vote against", game=repr(g.name))
            )
        if r is None:
            # A yes that cannot count would be taken for a vote that does (ten W3K powers voted and nothing
            # happened, with nothing said): refused with the rule's words, nothing recorded.
            _checked(s, g, ph, "draw", {}, None)
        if power not in _voters(s, g, r.rule if r is not None else settings.vote_rule, "draw", {}, ph):
            # A power in civil disorder (or out of the game) has no ballot: its vote is kept in the log, as
            # it always was, and counts for nothing, so it neither opens nor decides a draw.
            s.add(VoteRow(game_id=g.id, power=power, draw=draw, at=now))
            log_event(s, g, now, "vote", power=power, draw=draw)
            return None
        if r is None:
            r = _opened(s, g, ph, "draw", {}, power, {power: True}, settings.vote_rule, now)
        else:
            r.ballots = {**r.ballots, power: draw}  # a new dict: the JSON column sees the change
            log_event(s, g, now, "ballot", proposal=r.id)
        s.add(VoteRow(game_id=g.id, power=power, draw=draw, at=now))
        s.flush()
        log_event(s, g, now, "vote", power=power, draw=draw)
        return _decide(s, g, ph, r, now)


def _old_votes(s: Session, g: GameRow) -> dict[str, bool]:
    """The draw votes a game kept before a draw was a proposal (each power's latest, which stood until the
    power changed it, from one phase to the next): power -> yes or no. Only in a game where no draw was ever
    proposed; once one is, the votes are its ballots and these rows are the log alone."""
    ever = sa.select(ProposalRow.id).where(ProposalRow.game_id == g.id, ProposalRow.kind == "draw")
    if s.scalar(ever.limit(1)) is not None:
        return {}
    out: dict[str, bool] = {}
    for power, yes in s.execute(
        sa.select(VoteRow.power, VoteRow.draw).where(VoteRow.game_id == g.id).order_by(VoteRow.id)
    ):
        out[str(power)] = bool(yes)
    return out


def _adopt_old_votes(s: Session, g: GameRow, ph: PhaseRow, now: datetime) -> ProposalRow | None:
    """The old draw votes (:func:`_old_votes`) read as what they meant: a draw of every survivor proposed in the
    open phase, with the ballots of the powers that vote now, decided by the game's rule like any proposal.
    Nothing is made when no voting power's old vote is a yes (a no alone proposes nothing) or no draw is
    possible now (the votes stay, and are read again when one is). The caller holds the game's lock."""
    old = _old_votes(s, g)
    if not any(old.values()):
        return None
    settings = game_settings(g)
    v = game_variant(g)
    if not (settings.draws and v.victory.get("draws", True)):
        return None
    voters = _voters(s, g, settings.vote_rule, "draw", {}, ph)
    ballots = {p: yes for p, yes in old.items() if p in voters}
    yes_first = [p for p in old if old[p] and p in voters]
    if not yes_first:
        return None
    try:
        _checked(s, g, ph, "draw", {}, None)
    except GameError:
        return None
    r = _opened(s, g, ph, "draw", {}, yes_first[0], ballots, settings.vote_rule, now, from_old_votes=True)
    _decide(s, g, ph, r, now)
    return r


def _opened(
    s: Session,
    g: GameRow,
    ph: PhaseRow,
    kind: str,
    values: dict[str, Any],
    proposer: str,
    ballots: dict[str, bool],
    rule: str,
    now: datetime,
    **detail: Any,
) -> ProposalRow:
    """A proposal opened in ``ph`` (it lapses at the phase's deadline) and its event logged: a power's own
    proposal, a draw vote when none is open, the old draw votes read as one."""
    r = ProposalRow(
        game_id=g.id,
        phase_id=ph.id,
        kind=kind,
        values=values,
        proposer=proposer,
        ballots=ballots,
        rule=rule,
        status="open",
        created_at=now,
        expires_at=ph.deadline,
    )
    s.add(r)
    s.flush()
    log_event(s, g, now, "proposal", proposal=r.id, proposal_kind=kind, values=values, **detail)
    return r


def _ending_now(g: GameRow) -> Ending | None:
    return Ending.from_data(g.ending) if g.status == "finished" and g.ending else None


def adopt_old_votes(db: Database, *, now: datetime) -> list[str]:
    """The deadline workers' scan (beside :func:`lapse_stale`): in every running game whose draw votes were kept
    before a draw was a proposal, those votes made the open draw proposal (:func:`_adopt_old_votes`), so the
    pages and the notices read one tally. Returns the games where a proposal was made."""
    now = as_utc(now)
    drawn = sa.select(ProposalRow.game_id).where(ProposalRow.kind == "draw")
    with db.session() as s:
        q = sa.select(GameRow.name).where(
            GameRow.status != "finished",
            GameRow.id.in_(sa.select(VoteRow.game_id).where(VoteRow.draw.is_(True))),
            GameRow.id.not_in(drawn),
        )
        names = [str(n) for n in s.scalars(q)]
    made = []
    for name in names:
        with db.session() as s, s.begin():
            g = game_row(s, name, lock=True)
            ph = current_phase(s, g)
            if ph is not None and ph.status == "open" and _adopt_old_votes(s, g, ph, now) is not None:
                made.append(name)
    return made


def vote_history(db: Database, name: str) -> list[tuple[str, bool, datetime]]:
    """Every draw vote of a game, oldest first: (power, yes, when). A secret ballot shows others a
    power's vote only as it stood when the phase it was cast in was processed."""
    with db.session() as s:
        g = game_row(s, name)
        rows = s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id))
        return [(r.power, r.draw, as_utc(r.at)) for r in rows]


_DRAW_TALLY = (
    sa.select(ProposalRow)
    .join(PhaseRow, PhaseRow.id == ProposalRow.phase_id)
    .where(ProposalRow.game_id == sa.bindparam("game_id"), ProposalRow.kind == "draw")
    .where(
        sa.or_(
            sa.and_(ProposalRow.status == "open", PhaseRow.status == "open"),
            ProposalRow.status == "passed",
        )
    )
    .order_by(ProposalRow.id.desc())
    .limit(1)
)
"""Built once (every game page's status sends it)."""
ANY_DRAW = sa.exists().where(ProposalRow.game_id == GameRow.id, ProposalRow.kind == "draw")
"""Whether the game (the row a statement reads) ever had a draw proposed: :data:`_DRAW_TALLY` finds nothing
without, so a page that reads this beside the game's row asks :func:`current_votes` only of games that had one."""


def current_votes(s: Session, g: GameRow) -> dict[str, bool]:
    """Power -> its ballot on the draw of every survivor proposed in the open phase (or, once the game is over,
    the one that ended it): the draw's one tally, as the game's status shows each power's draw vote. One
    query (every game page's status asks it)."""
    r = s.scalars(_DRAW_TALLY, {"game_id": g.id}).first()
    if r is None or r.values.get("powers") or (r.status == "passed" and g.status != "finished"):
        return {}  # a draw of some powers is voted on by its number; a draw passed then rolled back is over
    return {str(k): bool(b) for k, b in r.ballots.items()}


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


# --------------------------------------------------------------------------------------------------
# The table's proposals

KINDS = ("pause", "extend", "cancel", "concede", "draw", "process", "rollback", "replace", "unseal")
"""What may be proposed; the last four only in a game its players run (a coordinator decides them elsewhere)."""
PLAYER_RUN_KINDS = frozenset({"process", "rollback", "replace", "unseal"})
ENDING_KINDS = frozenset({"cancel", "concede", "draw"})
"""The kinds that end the game: done here, in the transaction that passes them."""


KIND_WORDS: dict[str, Msg] = {
    "pause": msg("a pause"),
    "extend": msg("an extension"),
    "cancel": msg("cancelling the game"),
    "concede": msg("conceding the game"),
    "draw": msg("a draw"),
    "process": msg("processing the phase now"),
    "rollback": msg("a roll back"),
    "replace": msg("replacing a player"),
    "unseal": msg("unsealing the open phase's orders"),
}
"""What each kind of proposal is called (a message inside the messages below)."""


def describe_proposal(kind: str, values: dict[str, Any]) -> Msg:
    """A proposal in a few words, with its values ("a pause of 48 hours", "a draw of France, Italy"): the
    player's page and the notice a proposal sends say it alike."""
    v = values
    if kind in ("pause", "extend"):
        return msg("%(kind)s of %(hours)s hours", kind=KIND_WORDS[kind], hours=v.get("hours", 0))
    if kind == "concede":
        return msg("conceding the game to %(power)s", power=v.get("power", ""))
    if kind == "draw":
        if v.get("powers"):
            return msg("a draw of %(powers)s", powers=", ".join(v["powers"]))
        return msg("a draw of every surviving power")
    if kind == "rollback":
        return msg("a roll back to %(phase)s", phase=PhaseName(str(v.get("phase", ""))))
    if kind == "replace":
        return msg("replacing %(power)s's player by %(player)s", power=v.get("power", ""), player=v.get("player", ""))
    return KIND_WORDS.get(kind, msg("a proposal"))


@dataclass(frozen=True)
class Proposal:
    """A proposal as every door reads it: the ballots by power, who may vote, and how it stands."""

    id: int
    game: str
    kind: str
    values: dict[str, Any]
    proposer: str
    ballots: dict[str, bool]
    rule: str
    status: str
    created_at: datetime
    expires_at: datetime | None
    decided_at: datetime | None
    outcome: dict[str, Any] | None
    voters: tuple[str, ...]
    """The powers whose ballots count (surviving, not in civil disorder, and not concerned where the rule
    leaves the concerned out)."""
    concerned: tuple[str, ...]

    @property
    def yes(self) -> int:
        return sum(1 for p in self.voters if self.ballots.get(p) is True)

    @property
    def no(self) -> int:
        return sum(1 for p in self.voters if self.ballots.get(p) is False)

    @property
    def needed(self) -> int:
        """How many yes ballots pass it under its rule."""
        return len(self.voters) // 2 + 1 if self.rule == "majority" else len(self.voters)


def tally(rule: str, voters: tuple[str, ...], ballots: dict[str, bool]) -> str:
    """``passed``, ``refused`` (it can no longer pass) or ``open``: unanimous and "of the players not concerned"
    need every voter's yes (the concerned are not among the voters of the latter); a majority more than half."""
    yes = sum(1 for p in voters if ballots.get(p) is True)
    no = sum(1 for p in voters if ballots.get(p) is False)
    if not voters:
        return "refused"
    if rule == "majority":
        need = len(voters) // 2 + 1
        if yes >= need:
            return "passed"
        return "refused" if len(voters) - no < need else "open"
    if no:
        return "refused"
    return "passed" if yes == len(voters) else "open"


def creator_seated(s: Session, g: GameRow) -> bool:
    """The one test of a game its players run (issue 56): the person who started it (and so coordinates it)
    holds one of its seats now, and has not deleted their account (their seat is then kept under a name only).
    Everything that asks whether a game is player-run comes here: the store inside the transaction that
    decides a proposal, everyone else through :func:`dippouch.play.fairness.player_run`."""
    creator = s.scalar(sa.select(OpeningRow.creator_id).where(OpeningRow.game_id == g.id))
    if creator is None:
        return False
    q = (
        sa.select(PlayerRow.id)
        .join(PersonRow, PersonRow.id == PlayerRow.person_id)
        .where(
            PlayerRow.game_id == g.id,
            PlayerRow.person_id == creator,
            PlayerRow.replaced_at.is_(None),
            PersonRow.deleted_at.is_(None),
        )
    )
    return s.scalar(q.limit(1)) is not None


def player_run(db: Database, name: str) -> bool:
    """:func:`creator_seated` read in a session of its own; an unknown game is nobody's."""
    with db.session() as s:
        g = s.scalar(sa.select(GameRow).where(GameRow.name == name))
        return g is not None and creator_seated(s, g)


def _concerned(kind: str, values: dict[str, Any]) -> tuple[str, ...]:
    return (str(values["power"]),) if kind in ("replace", "concede") and values.get("power") else ()


def _voters(s: Session, g: GameRow, rule: str, kind: str, values: dict[str, Any], ph: PhaseRow) -> tuple[str, ...]:
    v = game_variant(g)
    cd = powers_in_civil_disorder(s, g, v)
    pos = position_from_data(v, ph.position)
    left_out = set(_concerned(kind, values)) if rule == "unconcerned" else set()
    return tuple(p for p in surviving_powers(v, pos) if p not in cd and p not in left_out)


def _stale(r: ProposalRow, ph: PhaseRow | None, now: datetime) -> bool:
    """An open proposal whose time is over: its phase is no longer the open one, or the open phase's deadline
    has passed (a proposal lives as long as the phase it was made in)."""
    return ph is None or r.phase_id != ph.id or (ph.deadline is not None and as_utc(ph.deadline) <= now)


def _read(s: Session, g: GameRow, r: ProposalRow, ph: PhaseRow | None, now: datetime) -> Proposal:
    """The proposal as it stands at ``now``: an open one whose time is over reads as expired (it is marked so
    where work is done anyway: :func:`lapse_stale`, a ballot, a proposal), so reading writes nothing."""
    status, decided_at, expires_at = r.status, r.decided_at, r.expires_at
    if status == "open":
        if _stale(r, ph, now):
            status, decided_at = "expired", expires_at or now
        elif ph is not None:
            expires_at = ph.deadline  # the phase's deadline as it stands (an extension moves it)
    voters = _voters(s, g, r.rule, r.kind, r.values, ph) if ph is not None and ph.id == r.phase_id else ()
    return Proposal(
        id=r.id,
        game=g.name,
        kind=r.kind,
        values=dict(r.values),
        proposer=r.proposer,
        ballots={str(k): bool(b) for k, b in r.ballots.items()},
        rule=r.rule,
        status=status,
        created_at=as_utc(r.created_at),
        expires_at=as_utc(expires_at) if expires_at is not None else None,
        decided_at=as_utc(decided_at) if decided_at is not None else None,
        outcome=dict(r.outcome) if r.outcome is not None else None,
        voters=voters,
        concerned=_concerned(r.kind, r.values),
    )


def _lapse(s: Session, g: GameRow, ph: PhaseRow | None, now: datetime) -> None:
    """Open proposals whose time is over expire (logged); the others keep the open phase's deadline."""
    for r in s.scalars(sa.select(ProposalRow).where(ProposalRow.game_id == g.id, ProposalRow.status == "open")):
        if not _stale(r, ph, now):
            r.expires_at = ph.deadline if ph is not None else None
            continue
        r.status = "expired"
        r.decided_at = now
        log_event(s, g, now, "proposal_decided", proposal=r.id, proposal_kind=r.kind, status="expired")


def proposals(db: Database, name: str, *, now: datetime, decided: int = 10) -> list[Proposal]:
    """The game's open proposals and the ``decided`` most recently decided ones, newest first. A pure read (a
    page view takes no write lock): one whose time is over reads as expired without being marked."""
    now = as_utc(now)
    with db.session() as s:
        g = game_row(s, name)
        ph = current_phase(s, g)
        q = sa.select(ProposalRow).where(ProposalRow.game_id == g.id).order_by(ProposalRow.id.desc())
        read = [_read(s, g, r, ph, now) for r in s.scalars(q)]
        return [p for p in read if p.status == "open"] + [p for p in read if p.status != "open"][:decided]


def lapse_stale(db: Database, *, now: datetime) -> list[str]:
    """Mark expired every open proposal whose time is over, in every game (the deadline workers' scan, beside
    the due processing): the record and the event log say so, and no page view has to. Returns the games
    where one lapsed; a game with none is only read. The old draw votes are read as proposals first
    (:func:`adopt_old_votes`)."""
    now = as_utc(now)
    adopt_old_votes(db, now=now)
    with db.session() as s:
        games = s.scalars(
            sa.select(GameRow).where(GameRow.id.in_(sa.select(ProposalRow.game_id).where(ProposalRow.status == "open")))
        )
        due = []
        for g in games:
            ph = current_phase(s, g)
            rows = s.scalars(sa.select(ProposalRow).where(ProposalRow.game_id == g.id, ProposalRow.status == "open"))
            if any(_stale(r, ph, now) for r in rows):
                due.append(g.name)
    for name in due:
        with db.session() as s, s.begin():
            g = game_row(s, name, lock=True)
            _lapse(s, g, current_phase(s, g), now)
    return due


def propose(
    db: Database,
    name: str,
    power: str,
    kind: str,
    values: dict[str, Any],
    *,
    now: datetime,
    named_draws: Msg | None = None,
) -> tuple[Proposal, Ending | None]:
    """Open a proposal with the proposer's yes (it may pass at once: a table of one, a majority of two); the
    values' form is the play layer's to check; the powers they name are checked here against the board (a
    draw's and a concession's survivors). ``named_draws``: why a draw of some survivors is refused (the
    scoring system's word; None: allowed). Refused when the game is over, the power has no vote, the kind
    is a player-run game's and this game is not, or the same proposal is open already."""
    now = as_utc(now)
    if kind not in KINDS:
        raise GameError(
            msg("no proposal of the kind %(kind)s; the kinds are %(kinds)s", kind=repr(kind), kinds=", ".join(KINDS))
        )
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        v = game_variant(g)
        power = power_name(v, power)
        ph = require_current(s, g)
        _lapse(s, g, ph, now)
        if kind in PLAYER_RUN_KINDS and not creator_seated(s, g):
            raise GameError(
                msg(
                    "only in a game its players run is %(kind)s put to the vote: in game %(game)s the coordinator decides it",
                    kind=kind,
                    game=repr(g.name),
                )
            )
        settings = game_settings(g)
        rule = settings.vote_rule
        everyone = _voters(s, g, "unanimous", kind, values, ph)
        values = _checked(s, g, ph, kind, dict(values), named_draws)
        if power not in everyone:
            raise GameError(
                msg(
                    "%(power)s has no vote in game %(game)s now (only surviving powers not in civil disorder vote)",
                    power=power,
                    game=repr(g.name),
                )
            )
        adopted = _adopt_old_votes(s, g, ph, now) if kind == "draw" else None
        if adopted is not None and adopted.status == "open" and not values.get("powers"):
            # The old votes proposed this draw already: the proposer's yes is a ballot on it.
            adopted.ballots = {**adopted.ballots, power: True}
            log_event(s, g, now, "ballot", proposal=adopted.id)
            ending = _decide(s, g, ph, adopted, now)
            return _read(s, g, adopted, current_phase(s, g) or ph, now), ending
        if adopted is not None and adopted.status == "passed":
            return _read(s, g, adopted, current_phase(s, g) or ph, now), _ending_now(g)
        same = s.scalar(
            sa.select(ProposalRow.id).where(
                ProposalRow.game_id == g.id, ProposalRow.status == "open", ProposalRow.kind == kind
            )
        )
        if same is not None:
            raise GameError(
                msg(
                    "a proposal to %(kind)s is open already (number %(id)s): vote on it, or wait until it is decided",
                    kind=kind,
                    id=same,
                )
            )
        # The concerned proposer of a concession or a replacement casts no ballot under "not concerned".
        r = _opened(s, g, ph, kind, values, power, {power: True}, rule, now)
        ending = _decide(s, g, ph, r, now)
        return _read(s, g, r, current_phase(s, g) or ph, now), ending


def cast(
    db: Database, name: str, proposal: int, power: str, yes: bool | None, *, now: datetime
) -> tuple[Proposal, Ending | None]:
    """Record ``power``'s ballot on a proposal (``yes=None``: the proposer withdraws it); decided at once."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        v = game_variant(g)
        power = power_name(v, power)
        ph = current_phase(s, g)
        _lapse(s, g, ph, now)
        r = s.scalar(sa.select(ProposalRow).where(ProposalRow.game_id == g.id, ProposalRow.id == proposal))
        if r is None:
            raise GameError(msg("game %(game)s has no proposal number %(id)s", game=repr(g.name), id=proposal))
        if r.status != "open" or ph is None:
            raise GameError(
                msg(
                    "proposal number %(id)s is decided already (%(status)s): nothing was recorded",
                    id=proposal,
                    status=r.status,
                )
            )
        if yes is None:
            if r.proposer != power:
                raise GameError(
                    msg(
                        "only %(power)s, who proposed it, may withdraw proposal number %(id)s",
                        power=r.proposer,
                        id=proposal,
                    )
                )
            r.status = "withdrawn"
            r.decided_at = now
            log_event(s, g, now, "proposal_decided", proposal=r.id, proposal_kind=r.kind, status="withdrawn")
            return _read(s, g, r, ph, now), None
        voters = _voters(s, g, r.rule, r.kind, r.values, ph)
        if power not in voters:
            raise GameError(msg("%(power)s has no vote on proposal number %(id)s", power=power, id=proposal))
        r.ballots = {**r.ballots, power: yes}  # a new dict: the JSON column sees the change
        # Logged without the power (the log is read where a secret ballot hides who voted what): the game's
        # change marker moves, so every page made of the game is made again.
        log_event(s, g, now, "ballot", proposal=r.id)
        ending = _decide(s, g, ph, r, now)
        return _read(s, g, r, current_phase(s, g) or ph, now), ending


def _checked(
    s: Session, g: GameRow, ph: PhaseRow, kind: str, values: dict[str, Any], named_draws: Msg | None
) -> dict[str, Any]:
    """The values with the powers they name by their canonical names, checked against the open phase's board."""
    v = game_variant(g)
    pos = position_from_data(v, ph.position)
    survivors = surviving_powers(v, pos)
    if kind in ("concede", "replace"):
        values["power"] = power_name(v, str(values.get("power") or ""))
        if kind == "concede" and values["power"] not in survivors:
            raise GameError(
                msg(
                    "%(power)s has no unit and no supply centre: the game cannot be conceded to it",
                    power=values["power"],
                )
            )
    if kind == "draw":
        cd = powers_in_civil_disorder(s, g, v)
        needs = draw_needs(v, pos, game_settings(g), {}, cd)
        if not needs.possible:
            raise GameError(
                msg("no draw is possible now: %(reason)s Your vote was not recorded.", reason=needs.why_not or "")
            )
        named = [power_name(v, str(p)) for p in values.get("powers") or []]
        if named and sorted(set(named)) != sorted(survivors):
            out = [p for p in named if p not in survivors]
            if out:
                raise GameError(
                    msg(
                        "a draw is shared by surviving powers only; %(powers)s have no unit and no supply centre",
                        powers=", ".join(out),
                    )
                )
            if len(set(named)) < 2:
                raise GameError(msg("a draw is shared by two powers or more: for one, propose a concession"))
            if named_draws is not None:
                raise GameError(
                    msg("a draw of some of the surviving powers is refused: %(reason)s", reason=named_draws)
                )
            values["powers"] = sorted(set(named), key=survivors.index)
        else:
            values.pop("powers", None)  # every survivor: the draw the rulebook knows
    return values


def _decide(s: Session, g: GameRow, ph: PhaseRow, r: ProposalRow, now: datetime) -> Ending | None:
    """Mark the proposal passed or refused when its ballots meet the rule; a passed draw, concession or
    cancellation ends the game here."""
    voters = _voters(s, g, r.rule, r.kind, r.values, ph)
    state = tally(r.rule, voters, {str(k): bool(b) for k, b in r.ballots.items()})
    if state == "open":
        return None
    r.status = state
    r.decided_at = now
    yes = sum(1 for p in voters if r.ballots.get(p) is True)
    no = sum(1 for p in voters if r.ballots.get(p) is False)
    log_event(s, g, now, "proposal_decided", proposal=r.id, proposal_kind=r.kind, status=state, yes=yes, no=no)
    if state != "passed" or r.kind not in ENDING_KINDS:
        return None
    ending = _ending_of(s, g, ph, r)
    finish(s, g, ph, ending, now)
    r.outcome = ending.to_data()
    log_event(s, g, now, "ended_by_vote", proposal=r.id, proposal_kind=r.kind, ending=ending.to_data())
    return ending


def _ending_of(s: Session, g: GameRow, ph: PhaseRow, r: ProposalRow) -> Ending:
    # The ending's words are stored in English, as every ending's are (:class:`dippouch.game.Ending`).
    if r.kind == "concede":
        winner = str(r.values["power"])
        return Ending.of(
            "victory", (winner,), msg("%(power)s wins: the other powers conceded the game by vote.", power=winner)
        )
    if r.kind == "cancel":
        return Ending.of("cancelled", (), msg("The game was cancelled by its players' vote: it has no result."))
    v = game_variant(g)
    sharing = tuple(r.values.get("powers") or surviving_powers(v, position_from_data(v, ph.position)))
    voters = [p for p in _voters(s, g, r.rule, r.kind, r.values, ph) if r.ballots.get(p) is True]
    # The draw's words as a message (said in each reader's language), the same whichever door voted it.
    return Ending.of("draw", sharing, draw_agreed(voters, sharing))


def mark_failed(db: Database, name: str, proposal: int, why: Msg, *, now: datetime) -> None:
    """A passed proposal whose act was refused (the game was paused meanwhile...): kept as failed, with why."""
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        r = s.scalar(sa.select(ProposalRow).where(ProposalRow.game_id == g.id, ProposalRow.id == proposal))
        if r is None:
            return
        r.status = "failed"
        r.outcome = {"why": why.to_data()}
        log_event(s, g, as_utc(now), "proposal_decided", proposal=r.id, proposal_kind=r.kind, status="failed")


def set_outcome(db: Database, name: str, proposal: int, outcome: dict[str, Any]) -> None:
    """What a passed proposal's act did (a pause's end, the new deadline), kept with it."""
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        r = s.scalar(sa.select(ProposalRow).where(ProposalRow.game_id == g.id, ProposalRow.id == proposal))
        if r is not None:
            r.outcome = outcome
