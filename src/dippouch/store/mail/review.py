"""Phases held for the coordinator's review: photographs (and held mail) that wait at a deadline.

The W3K rulebook has revisions e-mailed as photographs that the Coordinator reads only after the deadline
("collate those photographs for the Coordinator's review when determining the results of a season"). A
phase with such photographs cannot be adjudicated at its deadline without losing them, so it waits, in a
visible "awaiting review" state, until every photograph is confirmed (a transcription became a version)
or set aside (it holds no orders) and every held message is applied or dismissed, or until the coordinator
releases it (``mail release``), or until the game's review wait (``mail setup --review-wait 24h``) has run
out after the deadline. Whatever is then still unreviewed is named in the results.

Every processing path asks here (:func:`holds` under the game's lock, :func:`held_phase_ids` in the
workers' scans), so ``process``, ``worker``, ``serve``'s scheduler and "everyone is ready" agree. Only
the store runs SQL; the public functions take the open database (:class:`~dippouch.store.db.Database`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.messages import Arg, Msg, PhaseName, msg
from dippouch.game import GameError, RecordNotFound, as_utc, parse_duration
from dippouch.store.db import Database, known_in
from dippouch.store.mail.models import GameMailRow, MailAttachmentRow, MailMessageRow, MailReviewRow
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.rows import next_version_in

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "SET_ASIDE_UNSAID",
    "Pending",
    "ReviewState",
    "aside_reason",
    "attachment_data",
    "attachment_sealed",
    "game_of_attachment",
    "game_of_message",
    "held_phase_ids",
    "holds",
    "left_unreviewed",
    "pending",
    "phase_held",
    "photo_powers",
    "processed_phase",
    "release",
    "review_state",
    "set_aside",
    "took_part",
]

SET_ASIDE_UNSAID = "set aside by the coordinator"
"""What a photograph set aside without a reason records (the mark that it is set aside): not the coordinator's
words, so no reader is shown it as if it were."""


def aside_reason(why: str | None) -> str | None:
    """Why a photograph was set aside in the coordinator's words, or None when they gave none (or it is not set
    aside)."""
    return why if why and why != SET_ASIDE_UNSAID else None


PHOTO_STATUSES = ("photo", "accepted")
"""Messages whose image attachments are the power's photographed orders (``accepted``: text orders too)."""


@dataclass(frozen=True)
class Pending:
    """One thing that waits for the coordinator: a photograph (``kind="photo"``) or a held message."""

    kind: str
    mail_id: int
    attachment_id: int | None
    power: str | None
    sender: str
    received: datetime
    filename: str | None = None
    holds_phase: bool = True
    """Whether the phase waits for it. Mail from a player's own address that lacks its proof waits for the
    player's confirmation, not the coordinator's: it never holds the phase, or anyone who knows a player's
    address could stop a game by writing in their name."""

    def describe(self) -> Msg:
        """What the item is, for the coordinator's review and a phase's results (said where shown)."""
        when = f"{self.received:%Y-%m-%d %H:%M} UTC"  # a time as the review page writes it, not prose
        if self.kind == "photo":
            return msg(
                "photograph #%(id)s (%(file)s) from %(power)s, received %(when)s",
                id=self.attachment_id or 0,
                file=self.filename or "",
                power=self.power or "",
                when=when,
            )
        power: str | Msg = self.power or msg("no power")
        if self.holds_phase:
            return msg(
                "held message #%(id)s from %(sender)s for %(power)s, received %(when)s",
                id=self.mail_id,
                sender=self.sender,
                power=power,
                when=when,
            )
        return msg(
            "held message #%(id)s from %(sender)s for %(power)s, received %(when)s (unproven: waits for the "
            "player's confirmation, not the phase)",
            id=self.mail_id,
            sender=self.sender,
            power=power,
            when=when,
        )


def _same_phase(ph: PhaseRow) -> sa.Select[int]:
    """The ids of ``ph`` and of earlier openings of the same phase (a rollback onto a phase opens it again as
    a new row): mail sent before the rollback was sent for the phase that is open now."""
    return sa.select(PhaseRow.id).where(
        PhaseRow.game_id == ph.game_id, PhaseRow.seq == ph.seq, PhaseRow.name == ph.name
    )


def _has_mail(s: Session, ph: PhaseRow) -> bool:
    """Whether any message was taken in for ``ph`` (or an earlier opening of it): one query where a phase without
    mail (nearly every phase of a game played on the web) would otherwise cost the three of :func:`holds`, asked of
    every phase a worker processes."""
    has = bool(s.scalar(_ANY_MAIL, {"game_id": ph.game_id, "seq": ph.seq, "name": ph.name}))
    if not has:
        known_in(s)[(_NO_MAIL, ph.id)] = True
    return has


_NO_MAIL = "mail.none"
"""What :func:`known_in` knows of a phase :func:`_has_mail` found no mail for (by its id)."""

ANY_MAIL = sa.exists().where(
    MailMessageRow.phase_id.in_(
        sa.select(PhaseRow.id).where(
            PhaseRow.game_id == sa.bindparam("game_id"),
            PhaseRow.seq == sa.bindparam("seq"),
            PhaseRow.name == sa.bindparam("name"),
        )
    )
)
"""Whether any message was taken in for the phase of the bound ``game_id``, ``seq`` and ``name`` (or an earlier
opening of it): the domain's condition (:data:`dippouch.store.domains.Condition`), false for nearly every phase."""
_ANY_MAIL = sa.select(ANY_MAIL)
""":func:`_has_mail`'s question (:func:`_same_phase`'s phases), built once: asked of every phase processed."""


def _photo_filter() -> tuple[sa.ColumnElement[bool], ...]:
    # Plain comparisons, not an IN list: the page lookup (may_hold) is sent as the driver's SQL, which expands none.
    return (
        sa.or_(*(MailMessageRow.status == status for status in PHOTO_STATUSES)),
        MailAttachmentRow.content_type.like("image/%"),
        MailAttachmentRow.submission_id.is_(None),
        MailAttachmentRow.set_aside_at.is_(None),
    )


def pending(s: Session, ph: PhaseRow) -> list[Pending]:
    """What waits for the coordinator in ``ph``: unconfirmed photographs sent on time, held messages."""
    same = _same_phase(ph)
    photos = s.execute(
        sa.select(MailAttachmentRow, MailMessageRow)
        .join(MailMessageRow, MailMessageRow.id == MailAttachmentRow.mail_id)
        .where(MailMessageRow.phase_id.in_(same), *_photo_filter())
        .order_by(MailMessageRow.received_at, MailAttachmentRow.id)
    ).all()
    out = [
        Pending("photo", m.id, a.id, m.power, m.sender, m.received_at, a.filename)
        for a, m in photos
        if ph.deadline is None or m.received_at <= ph.deadline
    ]
    held = s.scalars(
        sa.select(MailMessageRow)
        .where(MailMessageRow.phase_id.in_(same), MailMessageRow.status == "held")
        .order_by(MailMessageRow.received_at, MailMessageRow.id)
    )
    out += [
        Pending(
            "held",
            m.id,
            None,
            m.power,
            m.sender,
            m.received_at,
            holds_phase=not (isinstance(m.reading, dict) and m.reading.get("unproven")),
        )
        for m in held
    ]
    return out


STRANGER_WAIT = timedelta(hours=24)
"""How long after its deadline a phase waits, at most, for the coordinator to decide on mail held because it
came from an address not registered for its power, when the game sets no review wait. The rulebook's player
writing from a second address needs the coordinator's word; but without a limit anyone who knows a game's
subject line could hold it up for as long as the coordinator is away. The message is kept either way, and
the registered player was told to send it again from their own address."""


def review_wait(s: Session, game_id: int) -> timedelta | None:
    """The game's review wait (``mail setup --review-wait``): how long after the deadline a phase waits for
    the coordinator before it is processed with its photographs unreviewed; ``None``: until released."""
    row = s.get(GameMailRow, game_id)
    text = dict(row.config).get("review_wait") if row is not None else None
    if not text:
        return None
    try:
        return parse_duration(str(text))
    except GameError:
        return None


def holds(s: Session, ph: PhaseRow, now: datetime) -> bool:
    """Whether ``ph`` waits for the coordinator now (it is then not due, before or after its deadline)."""
    if ph.status != "open" or not _has_mail(s, ph) or s.get(MailReviewRow, ph.id) is not None:
        return False
    holding = [p for p in pending(s, ph) if p.holds_phase]
    if not holding:
        return False
    if ph.deadline is not None and now >= ph.deadline:
        wait = review_wait(s, ph.game_id)
        if wait is None and all(p.kind == "held" for p in holding):
            wait = STRANGER_WAIT
        if wait is not None and now >= ph.deadline + wait:
            return False
    return True


def _holding() -> tuple[tuple[sa.ColumnElement[bool], ...], tuple[sa.ColumnElement[bool], ...]]:
    """What makes a phase's mail hold it, over the phase and its message (and, for the second, the message's
    attachment): a held message, and a photograph not dealt with (what :func:`pending` reads, whatever their
    times), of a phase still open or set aside by a rollback onto the same phase. As plain comparisons, not IN
    lists: the page lookup (:func:`may_hold`) is sent as the driver's SQL, which expands none."""
    live = sa.or_(PhaseRow.status == "open", PhaseRow.status == "abandoned")
    return (live, MailMessageRow.status == "held"), (live, *_photo_filter())


def may_hold(game_id: sa.ColumnElement[int]) -> sa.ColumnElement[bool]:
    """An SQL condition, false where no phase of the game ``game_id`` names can wait for the coordinator: none of
    its phases has mail that holds it (:func:`_holding`)."""
    held, photos = _holding()
    of_game = (PhaseRow.id == MailMessageRow.phase_id, PhaseRow.game_id == game_id)
    return sa.or_(
        sa.exists().where(*of_game, *held),
        sa.exists().where(*of_game, MailAttachmentRow.mail_id == MailMessageRow.id, *photos),
    )


@cache
def _held_keys() -> sa.CompoundSelect[int, int, str]:
    """(game id, seq, name) of the phases whose mail holds them (:func:`_holding`): built once, as the workers ask
    it several times a call (building a union of joins cost more than the database's answer on an empty table)."""
    held, photos = _holding()
    with_photos = (
        sa.select(PhaseRow.game_id, PhaseRow.seq, PhaseRow.name)
        .join(MailMessageRow, MailMessageRow.phase_id == PhaseRow.id)
        .join(MailAttachmentRow, MailAttachmentRow.mail_id == MailMessageRow.id)
        .where(*photos)
    )
    with_held = (
        sa.select(PhaseRow.game_id, PhaseRow.seq, PhaseRow.name)
        .join(MailMessageRow, MailMessageRow.phase_id == PhaseRow.id)
        .where(*held)
    )
    return with_photos.union(with_held)


def held_phase_ids(s: Session, now: datetime) -> list[int]:
    """The open phases that wait for the coordinator now: the workers' scans leave them out.

    Asked from the mail's side (messages for phases that are open, or set aside by a rollback onto the same
    phase), so a database with no photographs or held mail answers at once however many games it holds:
    the workers ask before every phase they take."""
    keys = {tuple(r) for r in s.execute(_held_keys()).all()}
    out = []
    for game_id, seq, name in sorted(keys):
        ph = s.scalars(
            sa.select(PhaseRow).where(
                PhaseRow.game_id == game_id, PhaseRow.seq == seq, PhaseRow.name == name, PhaseRow.status == "open"
            )
        ).first()
        if ph is not None and holds(s, ph, now):
            out.append(ph.id)
    return sorted(out)


def photo_powers(s: Session, ph: PhaseRow) -> set[str]:
    """Powers that sent photographed orders on time for ``ph`` (not set aside): they took part in the phase,
    whatever the coordinator has made of the photographs yet."""
    return set(_photo_times(s, ph))


def took_part(s: Session, ph: PhaseRow) -> set[str]:
    """:func:`photo_powers` as the processing of ``ph`` asks it: a phase its transaction found without mail
    (:func:`holds`, asked of it first) has none, without a query. (The processing takes no mail in.)"""
    if known_in(s).get((_NO_MAIL, ph.id)):
        return set()
    return photo_powers(s, ph)


def next_version_past_photos(store: Database, phase_id: int, power: str) -> int:
    """The version a power's next message becomes: past its recorded versions and past each of its messages
    whose photographs wait for the coordinator in the phase (each becomes a version when confirmed). One read,
    where a receipt needs both."""
    with store.session() as s:
        ph = s.get(PhaseRow, phase_id)
        if ph is None:
            raise RecordNotFound(msg("no phase #%(id)s", id=phase_id))
        waiting = {p.mail_id for p in pending(s, ph) if p.kind == "photo" and p.power == power}
        return next_version_in(s, phase_id, power) + len(waiting)


@dataclass(frozen=True)
class ReviewPhase:
    phase_id: int
    deadline: datetime | None
    processed_at: datetime | None


def processed_phase(store: Database, game_id: int, phase: str) -> ReviewPhase | None:
    """The processed phase of that name in the game's line of play (the newest, after a rollback): whether
    mail for it arrived before its deadline, and when it was processed."""
    with store.session() as s:
        row = s.scalars(
            sa.select(PhaseRow)
            .where(PhaseRow.game_id == game_id, PhaseRow.name == phase, PhaseRow.status == "processed")
            .order_by(PhaseRow.id.desc())
            .limit(1)
        ).first()
        return None if row is None else ReviewPhase(row.id, row.deadline, row.processed_at)


# -- the coordinator's view and decisions ------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewState:
    game: str
    phase: str | None
    phase_id: int | None
    deadline: datetime | None
    items: list[Pending]
    """What waits for the coordinator (photographs not confirmed or set aside, held messages)."""
    held: bool
    """The phase waits for the coordinator now (not processed at its deadline)."""
    released: bool
    wait: timedelta | None
    photos: dict[str, list[datetime]] = field(default_factory=dict)
    """Power -> arrival times of its photographs sent on time for the phase (confirmed or not)."""

    @property
    def wait_until(self) -> datetime | None:
        return self.deadline + self.wait if self.deadline is not None and self.wait is not None else None


def _open_phase(s: Session, game: str) -> tuple[GameRow, PhaseRow | None]:
    g = s.scalars(sa.select(GameRow).where(GameRow.name == game)).first()
    if g is None:
        names = list(s.scalars(sa.select(GameRow.name).order_by(GameRow.name)))
        if names:
            raise RecordNotFound(msg("no game %(game)s; games: %(games)s", game=repr(game), games=", ".join(names)))
        raise RecordNotFound(msg("no game %(game)s", game=repr(game)))
    ph = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status == "open")).first()
    return g, ph


def _photo_times(s: Session, ph: PhaseRow) -> dict[str, list[datetime]]:
    rows = s.execute(
        sa.select(MailMessageRow.power, MailMessageRow.received_at)
        .join(MailAttachmentRow, MailAttachmentRow.mail_id == MailMessageRow.id)
        .where(
            MailMessageRow.phase_id.in_(_same_phase(ph)),
            MailMessageRow.status.in_(PHOTO_STATUSES),
            MailAttachmentRow.content_type.like("image/%"),
            MailAttachmentRow.set_aside_at.is_(None),
        )
        .order_by(MailMessageRow.received_at)
    ).all()
    out: dict[str, list[datetime]] = {}
    for power, at in rows:
        if power is not None and (ph.deadline is None or at <= ph.deadline):
            out.setdefault(power, []).append(at)
    return out


def review_state(store: Database, game: str, *, now: datetime) -> ReviewState:
    """The open phase's review: what waits, and whether the phase waits for it now."""
    now = as_utc(now)
    with store.session() as s:
        g, ph = _open_phase(s, game)
        if ph is None:
            return ReviewState(g.name, None, None, None, [], False, False, None)
        return ReviewState(
            g.name,
            ph.name,
            ph.id,
            ph.deadline,
            pending(s, ph),
            held=_held(s, g, ph, now),
            released=s.get(MailReviewRow, ph.id) is not None,
            wait=review_wait(s, g.id),
            photos=_photo_times(s, ph),
        )


def phase_held(store: Database, game: str, *, now: datetime) -> bool:
    """Whether the game's open phase waits for the coordinator's review now (:func:`holds`): what a page past
    its deadline says, without the rest of :func:`review_state` (the desk's list, the photographs' times): six
    statements where that took eleven."""
    now = as_utc(now)
    with store.session() as s:
        g, ph = _open_phase(s, game)
        return ph is not None and _held(s, g, ph, now)


def _held(s: Session, g: GameRow, ph: PhaseRow, now: datetime) -> bool:
    """Whether ``ph`` of ``g`` waits for the coordinator now: only a game under way waits (:func:`holds`)."""
    return g.status == "active" and holds(s, ph, now)


def release(store: Database, game: str, *, now: datetime) -> ReviewState:
    """The coordinator's word that the review is over: the phase is processed with what stands; whatever is
    still unreviewed is named in its results. Refused before the deadline (nothing may be read yet)."""
    now = as_utc(now)
    with store.session() as s, s.begin():
        _g, ph = _open_phase(s, game)
        if ph is None:
            raise GameError(msg("game %(game)s has no open phase to release", game=repr(game)))
        if ph.deadline is None:
            raise GameError(
                msg(
                    "game %(game)s is paused; resume it before releasing %(phase)s",
                    game=repr(game),
                    phase=PhaseName(ph.name),
                )
            )
        if now < ph.deadline:
            raise GameError(
                msg(
                    "%(phase)s is sealed until its deadline (%(time)s UTC); the review comes after it",
                    phase=PhaseName(ph.name),
                    time=f"{ph.deadline:%Y-%m-%d %H:%M}",
                )
            )
        if s.get(MailReviewRow, ph.id) is None:
            left = pending(s, ph)
            # What was left unreviewed, as message values (said where it is ever shown).
            note = json.dumps([p.describe().to_data() for p in left], ensure_ascii=False) if left else ""
            s.add(MailReviewRow(phase_id=ph.id, released_at=now, note=note))
    return review_state(store, game, now=now)


def set_aside(store: Database, attachment_id: int, *, now: datetime, why: str = "") -> tuple[str, str]:
    """The coordinator looked at a photograph and found no orders in it: it no longer holds the phase.
    Returns (game, power). Refused before the deadline, once confirmed, and once the phase is processed."""
    now = as_utc(now)
    with store.session() as s, s.begin():
        row = s.get(MailAttachmentRow, attachment_id)
        if row is None:
            raise GameError(msg("no attachment #%(id)s (see `dippouch mail review GAME`)", id=attachment_id))
        mail = s.get(MailMessageRow, row.mail_id)
        assert mail is not None
        ph = s.get(PhaseRow, mail.phase_id) if mail.phase_id is not None else None
        g = s.get(GameRow, mail.game_id) if mail.game_id is not None else None
        if ph is None or g is None or mail.power is None:
            raise GameError(msg("attachment #%(id)s belongs to no power's submission", id=attachment_id))
        if row.submission_id is not None:
            raise GameError(msg("attachment #%(id)s was confirmed already; it is not set aside", id=attachment_id))
        if row.set_aside_at is not None:
            raise GameError(msg("attachment #%(id)s was set aside already", id=attachment_id))
        _, current = _open_phase(s, g.name)
        if current is None or (current.seq, current.name) != (ph.seq, ph.name):
            raise GameError(
                msg(
                    "%(phase)s has been processed; its photographs can no longer be set aside", phase=PhaseName(ph.name)
                )
            )
        if current.deadline is None or now < current.deadline:
            raise GameError(
                msg(
                    "%(phase)s is sealed until its deadline; photographs are reviewed after it",
                    phase=PhaseName(ph.name),
                )
            )
        row.set_aside_at, row.set_aside_why = now, why or SET_ASIDE_UNSAID
        return g.name, mail.power


def left_unreviewed(store: Database, phase_id: int) -> list[Msg]:
    """For a processed phase's results: the photographs and held messages the phase was processed without
    (unreviewed when it was released or its review wait ran out), and the photographs set aside."""
    with store.session() as s:
        ph = s.get(PhaseRow, phase_id)
        if ph is None:
            return []
        out = [
            msg("%(item)s: not reviewed (not used)", item=p.describe())
            if p.kind == "photo"
            else msg("%(item)s: not applied", item=p.describe())
            for p in pending(s, ph)
        ]
        aside = s.execute(
            sa.select(MailAttachmentRow, MailMessageRow)
            .join(MailMessageRow, MailMessageRow.id == MailAttachmentRow.mail_id)
            .where(MailMessageRow.phase_id.in_(_same_phase(ph)), MailAttachmentRow.set_aside_at.is_not(None))
        ).all()
        for a, m in aside:
            which: dict[str, Arg] = {"id": a.id, "file": a.filename or "", "power": m.power or ""}
            if why := aside_reason(a.set_aside_why):
                said = msg(
                    "photograph #%(id)s (%(file)s) from %(power)s: set aside by the coordinator (%(why)s)",
                    why=why,
                    **which,
                )
            else:
                said = msg("photograph #%(id)s (%(file)s) from %(power)s: set aside by the coordinator", **which)
            out.append(said)
        return out


def attachment_data(store: Database, attachment_id: int) -> bytes:
    """The bytes of an attachment (the coordinator looks at a photograph: ``mail review --save``)."""
    with store.session() as s:
        row = s.get(MailAttachmentRow, attachment_id)
        if row is None:
            raise GameError(msg("no attachment #%(id)s (see `dippouch mail review GAME`)", id=attachment_id))
        return bytes(row.data)


def game_of_message(store: Database, mail_id: int) -> str:
    """The name of the game a message was for ("" if none)."""
    with store.session() as s:
        m = s.get(MailMessageRow, mail_id)
        g = s.get(GameRow, m.game_id) if m is not None and m.game_id is not None else None
        return g.name if g is not None else ""


def attachment_sealed(store: Database, attachment_id: int, *, now: datetime) -> str | None:
    """The phase whose deadline still seals a photograph (its name), or None once the coordinator may see it.

    By the photograph's own phase, not the game's open one: a review page opened before the worker processed
    the phase asks for its photographs after, when the open phase is the next one, still before its deadline
    (the season walk's browser met a 400 for a photograph of the phase just processed). A mail that named
    no phase is sealed by the open one, as before."""
    now = as_utc(now)
    with store.session() as s:
        a = s.get(MailAttachmentRow, attachment_id)
        m = s.get(MailMessageRow, a.mail_id) if a is not None else None
        if m is None or m.game_id is None:
            return None
        ph = s.get(PhaseRow, m.phase_id) if m.phase_id is not None else None
        if ph is not None and ph.status != "open":  # rolled back: the same phase, opened again, seals it
            ph = s.scalars(
                sa.select(PhaseRow).where(PhaseRow.id.in_(_same_phase(ph)), PhaseRow.status == "open")
            ).first()
        elif ph is None:
            g = s.get(GameRow, m.game_id)
            ph = _open_phase(s, g.name)[1] if g is not None else None
        if ph is None:
            return None
        return ph.name if ph.deadline is None or now < ph.deadline else None


def game_of_attachment(store: Database, attachment_id: int) -> str:
    with store.session() as s:
        a = s.get(MailAttachmentRow, attachment_id)
        m = s.get(MailMessageRow, a.mail_id) if a is not None else None
        g = s.get(GameRow, m.game_id) if m is not None and m.game_id is not None else None
        return g.name if g is not None else ""
