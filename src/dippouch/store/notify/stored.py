"""Notifications as stored: each person's choices, their push subscriptions and webhooks, and the one queue.

The queue has the mail outbox's guarantees (:mod:`dippouch.mail.outbox`, :mod:`dippouch.store.mail.outbox`):

- Queuing is idempotent: each delivery has a unique ``key`` (person, event, channel and target), so two
  workers scanning the same processed phase make one row, and an event recorded in ``notify_marks`` in the
  same transaction as its deliveries is queued once, whichever process gets there.
- Sending claims a row first, in its own short transaction (a lease, ``claimed_until``), with ``FOR UPDATE
  SKIP LOCKED`` on PostgreSQL and SQLite's write lock otherwise: two workers never send the same row. The row
  is marked sent in its own commit right after the receiver said yes; a worker killed meanwhile leaves a
  claim that runs out, and another worker sends the row again (the one window, milliseconds wide; Matrix
  even drops that repeat, as its transaction id is the row's key).
- Failures are recorded on the row (``last_error``, ``attempts``) and retried with back-off; a target that
  refuses for good (gone, 4xx) marks the row ``failed``, kept with the receiver's words. Nothing is dropped.

Only the store speaks SQL: :mod:`dippouch.notify` and the web call these functions. Nothing here reads the
clock: every write takes ``now``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from dippouch.core.messages import msg
from dippouch.game import GameError, RecordNotFound, as_utc
from dippouch.store.db import Database
from dippouch.store.mail.models import OutboxRow
from dippouch.store.mail.outbox import forget_mail_to
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow
from dippouch.store.models_openings import OpeningRow
from dippouch.store.notify.models import (
    NotifyDeliveryRow,
    NotifyKeyRow,
    NotifyMarkRow,
    NotifyPrefRow,
    NotifySettingsRow,
    NotifyTargetRow,
)
from dippouch.store.ratings.models import RatedGameRow, RatingLineRow

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAX_TARGETS",
    "PRESS_BY_MAIL",
    "PRESS_BY_MAIL_DEFAULT",
    "Delivery",
    "Target",
    "add_target",
    "deliveries",
    "export_person",
    "finish_delivery",
    "forget_person",
    "notify_queue_depth",
    "press_by_mail",
    "queue_deliveries",
    "remove_target",
    "set_preferences",
    "stored_preferences",
    "targets",
    "vapid_key",
]

MAX_TARGETS = 20
"""Push subscriptions and webhooks one person may keep (a browser per device, a few chat rooms)."""


@dataclass(frozen=True)
class Target:
    id: int
    person_id: int
    channel: str
    kind: str
    label: str
    config: dict[str, Any]
    """Secret: the push endpoint and keys, the webhook URL, a Matrix token. Never shown as it is."""
    created_at: datetime


@dataclass(frozen=True)
class Delivery:
    """A claimed delivery with what sending it needs: the target's secret config, or the person's address."""

    id: int
    key: str
    person_id: int
    event: str
    channel: str
    title: str
    body: str
    url: str
    attempts: int
    status: str
    target: Target | None
    email: str | None
    created_at: datetime
    sent_at: datetime | None
    last_error: str | None
    game_id: int | None = None

    @property
    def phase_id(self) -> int | None:
        """The processed phase a ``phase_processed`` delivery tells of (its key names it: see
        :func:`dippouch.notify.queue.items_for`), else None."""
        if self.event != "phase_processed":
            return None
        got = self.key.split(":")[1:2]
        return int(got[0]) if got and got[0].isdigit() else None


def _target(r: NotifyTargetRow) -> Target:
    return Target(r.id, r.person_id, r.channel, r.kind, r.label, dict(r.config), r.created_at)


# -- choices -----------------------------------------------------------------------------------------------


PRESS_BY_MAIL = ("message_received", "email")
"""The choice "a message (press) for you, by e-mail": a person's one choice of press by e-mail, honoured by the
copies with a reply code (:mod:`dippouch.store.press.messages`) and by the notification e-mail alike."""
PRESS_BY_MAIL_DEFAULT = False
"""Off unless the person chooses it: a message is talk, and e-mail for each would flood an inbox."""


def press_by_mail(s: Any, person_ids: Iterable[int]) -> set[int]:
    """Those of ``person_ids`` whose choice is press by e-mail (stored, else :data:`PRESS_BY_MAIL_DEFAULT`),
    in the caller's session (the sender's transaction)."""
    ids = set(person_ids)
    if not ids:
        return set()
    event, channel = PRESS_BY_MAIL
    q = sa.select(NotifyPrefRow.person_id, NotifyPrefRow.enabled).where(
        NotifyPrefRow.person_id.in_(ids), NotifyPrefRow.event == event, NotifyPrefRow.channel == channel
    )
    stored = {pid: bool(on) for pid, on in s.execute(q)}
    return {pid for pid in ids if stored.get(pid, PRESS_BY_MAIL_DEFAULT)}


def stored_preferences(db: Database, person_id: int) -> tuple[dict[tuple[str, str], bool], int | None]:
    """The person's stored choices ((event, channel) -> on) and deadline lead in hours; what is not stored
    takes the defaults of :mod:`dippouch.notify.events`."""
    with db.session() as s:
        rows = s.scalars(sa.select(NotifyPrefRow).where(NotifyPrefRow.person_id == person_id))
        choices = {(r.event, r.channel): bool(r.enabled) for r in rows}
        st = s.get(NotifySettingsRow, person_id)
        return choices, (st.deadline_hours if st is not None else None)


def set_preferences(
    db: Database, person_id: int, choices: Mapping[tuple[str, str], bool], deadline_hours: int | None = None
) -> None:
    """Store the person's choices (each given pair replaces the stored one) and, if given, the deadline lead."""
    with db.session() as s, s.begin():
        p = s.get(PersonRow, person_id)
        if p is None or p.deleted_at is not None:
            raise RecordNotFound(msg("no person %(person)s", person=person_id))
        for (event, channel), on in choices.items():
            row = s.get(NotifyPrefRow, (person_id, event, channel))
            if row is None:
                s.add(NotifyPrefRow(person_id=person_id, event=event, channel=channel, enabled=bool(on)))
            else:
                row.enabled = bool(on)
        if deadline_hours is not None:
            st = s.get(NotifySettingsRow, person_id)
            if st is None:
                s.add(NotifySettingsRow(person_id=person_id, deadline_hours=deadline_hours))
            else:
                st.deadline_hours = deadline_hours


# -- targets -----------------------------------------------------------------------------------------------


def add_target(
    db: Database,
    person_id: int,
    *,
    channel: str,
    kind: str,
    config: dict[str, Any],
    label: str,
    now: datetime,
    same: str | None = None,
) -> int:
    """Keep a new target for the person (at most :data:`MAX_TARGETS`). ``same``: the config field that names
    the target (a push endpoint): a target of the person's with the same value is updated instead."""
    with db.session() as s, s.begin():
        p = s.get(PersonRow, person_id)
        if p is None or p.deleted_at is not None:
            raise RecordNotFound(msg("no person %(person)s", person=person_id))
        mine = list(s.scalars(sa.select(NotifyTargetRow).where(NotifyTargetRow.person_id == person_id)))
        if same is not None:
            for r in mine:
                if r.kind == kind and dict(r.config).get(same) == config.get(same):
                    r.config, r.label = config, label
                    return r.id
        if len(mine) >= MAX_TARGETS:
            raise GameError(
                msg(
                    "you have %(count)s push subscriptions and webhooks already, the most one person may keep; remove "
                    "one first",
                    count=len(mine),
                )
            )
        row = NotifyTargetRow(
            person_id=person_id, channel=channel, kind=kind, label=label, config=config, created_at=as_utc(now)
        )
        s.add(row)
        s.flush()
        return row.id


def targets(db: Database, person_id: int) -> list[Target]:
    with db.session() as s:
        q = sa.select(NotifyTargetRow).where(NotifyTargetRow.person_id == person_id).order_by(NotifyTargetRow.id)
        return [_target(r) for r in s.scalars(q)]


def remove_target(db: Database, person_id: int, target_id: int) -> None:
    """Remove one of the person's targets. Another person's target is refused with the same words as a
    missing one (nobody learns which ids exist). Deliveries still waiting for it fail, recorded."""
    with db.session() as s, s.begin():
        r = s.get(NotifyTargetRow, target_id)
        if r is None or r.person_id != person_id:
            raise GameError(msg("you have no push subscription or webhook #%(id)s", id=target_id))
        s.execute(
            sa.update(NotifyDeliveryRow)
            .where(NotifyDeliveryRow.target_id == target_id, NotifyDeliveryRow.status == "pending")
            .values(status="failed", last_error="the target was removed by its owner")
        )
        s.delete(r)


# -- the queue ---------------------------------------------------------------------------------------------


def queue_deliveries(
    db: Database,
    items: Iterable[Mapping[str, Any]],
    *,
    now: datetime,
    mark: str | None = None,
    unless: Iterable[str] = (),
) -> int:
    """Queue deliveries in one transaction; returns how many are new (a key queued before is skipped).

    ``mark``: the event's key; recorded with the deliveries, and if it was recorded already (by this or
    another process) nothing is queued. ``unless``: other marks that mean the same occurrence was queued
    already (the whole-event marks of the scan the dispatcher replaced), which queue nothing either. Each
    item: key, person_id, event, channel, target_id, game_id, title, body, url."""
    now = as_utc(now)
    count = 0
    with db.session() as s, s.begin():
        before = [k for k in unless if k]
        if before and s.scalar(sa.select(NotifyMarkRow.key).where(NotifyMarkRow.key.in_(before)).limit(1)):
            return 0
        if mark is not None:
            if s.get(NotifyMarkRow, mark) is not None:
                return 0
            try:
                with s.begin_nested():
                    s.add(NotifyMarkRow(key=mark, at=now))
                    s.flush()
            except IntegrityError:
                return 0
        for item in items:
            if s.scalars(sa.select(NotifyDeliveryRow.id).where(NotifyDeliveryRow.key == item["key"])).first():
                continue
            row = NotifyDeliveryRow(
                key=item["key"],
                person_id=item["person_id"],
                event=item["event"],
                channel=item["channel"],
                target_id=item.get("target_id"),
                game_id=item.get("game_id"),
                title=item["title"],
                body=item["body"],
                url=item.get("url", ""),
                status="pending",
                attempts=0,
                created_at=now,
                next_attempt_at=now,
            )
            try:
                with s.begin_nested():
                    s.add(row)
                    s.flush()
            except IntegrityError:
                continue  # another process queued it first
            count += 1
    return count


def marked(db: Database, key: str) -> bool:
    with db.session() as s:
        return s.get(NotifyMarkRow, key) is not None


def mark_time(db: Database, key: str) -> datetime | None:
    """When ``key`` was marked, or None."""
    with db.session() as s:
        row = s.get(NotifyMarkRow, key)
        return row.at if row is not None else None


def marked_keys(db: Database, keys: Iterable[str]) -> set[str]:
    """Those of ``keys`` recorded already (one query, for a whole event's readers)."""
    wanted = sorted(set(keys))
    if not wanted:
        return set()
    with db.session() as s:
        return set(s.scalars(sa.select(NotifyMarkRow.key).where(NotifyMarkRow.key.in_(wanted))))


def first_mark(db: Database, key: str, now: datetime) -> datetime:
    """When ``key`` was first marked (marking it now if never): the moment notifications started here, so a
    new installation does not notify the whole history of its games."""
    with db.session() as s, s.begin():
        row = s.get(NotifyMarkRow, key)
        if row is not None:
            return row.at
        try:
            with s.begin_nested():
                s.add(NotifyMarkRow(key=key, at=as_utc(now)))
                s.flush()
        except IntegrityError:
            pass
    with db.session() as s:
        got = s.get(NotifyMarkRow, key)
        return got.at if got is not None else as_utc(now)


def _delivery(s: Any, r: NotifyDeliveryRow) -> Delivery:
    target = s.get(NotifyTargetRow, r.target_id) if r.target_id is not None else None
    person = s.get(PersonRow, r.person_id)
    email = person.email if person is not None and person.deleted_at is None else None
    return Delivery(
        r.id,
        r.key,
        r.person_id,
        r.event,
        r.channel,
        r.title,
        r.body,
        r.url,
        r.attempts,
        r.status,
        _target(target) if target is not None else None,
        email,
        r.created_at,
        r.sent_at,
        r.last_error,
        r.game_id,
    )


def claim_deliveries(db: Database, now: datetime, worker: str, lease: timedelta, count: int = 1) -> list[Delivery]:
    """Claim up to ``count`` deliveries due, in one transaction (one commit for the batch: on SQLite a commit
    is most of a delivery's cost). No other worker takes them until the lease runs out, so the caller must
    send them well within it. PostgreSQL skips rows another worker holds."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        q = (
            sa.select(NotifyDeliveryRow)
            .where(
                NotifyDeliveryRow.status == "pending",
                NotifyDeliveryRow.next_attempt_at <= now,
                sa.or_(NotifyDeliveryRow.claimed_until.is_(None), NotifyDeliveryRow.claimed_until < now),
            )
            .order_by(NotifyDeliveryRow.next_attempt_at, NotifyDeliveryRow.id)
            .limit(count)
        )
        if s.get_bind().dialect.name == "postgresql":
            q = q.with_for_update(skip_locked=True)
        rows = list(s.scalars(q))
        for row in rows:
            row.claimed_by = worker
            row.claimed_until = now + lease
            row.attempts += 1
        s.flush()
        return [_delivery(s, row) for row in rows]


def release_deliveries(db: Database, ids: list[int], worker: str) -> None:
    """Give back claimed deliveries that were not tried (the claim's attempt is not counted)."""
    with db.session() as s, s.begin():
        s.execute(
            sa.update(NotifyDeliveryRow)
            .where(NotifyDeliveryRow.id.in_(ids), NotifyDeliveryRow.claimed_by == worker)
            .values(claimed_by=None, claimed_until=None, attempts=NotifyDeliveryRow.attempts - 1)
        )


def finish_delivery(db: Database, delivery_id: int, worker: str, **values: object) -> bool:
    """Record what became of a claimed delivery (only by the worker that holds the claim); False if the claim
    was lost meanwhile (it ran out and another worker took the row)."""
    with db.session() as s, s.begin():
        done = s.execute(
            sa.update(NotifyDeliveryRow)
            .where(NotifyDeliveryRow.id == delivery_id, NotifyDeliveryRow.claimed_by == worker)
            .values(claimed_by=None, claimed_until=None, **values)
        )
        return bool(getattr(done, "rowcount", 0))


def deliveries(db: Database, *, person_id: int | None = None, status: str | None = None) -> list[Delivery]:
    """The queue, oldest first (for ``dippouch notify --list``, the tests and a person's own data)."""
    with db.session() as s:
        q = sa.select(NotifyDeliveryRow).order_by(NotifyDeliveryRow.id)
        if person_id is not None:
            q = q.where(NotifyDeliveryRow.person_id == person_id)
        if status is not None:
            q = q.where(NotifyDeliveryRow.status == status)
        return [_delivery(s, r) for r in s.scalars(q)]


def notify_queue_depth(db: Database) -> int:
    """Deliveries still to be made (due now or waiting for a retry), for the worker's metrics."""
    with db.session() as s:
        return int(s.scalar(sa.select(sa.func.count()).where(NotifyDeliveryRow.status == "pending")) or 0)


# -- what the scan reads -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PhaseFact:
    phase_id: int
    game_id: int
    game: str
    phase: str
    deadline: datetime | None
    at: datetime | None
    seq: int | None = None
    """The phase's place in its game (0: the first), where the query reads it."""


def starting_games(db: Database, since: datetime) -> list[PhaseFact]:
    """Games whose first phase is open and whose clock started since ``since`` (a game starting): when the
    phase opened, or, for a game whose opening held its clock until its seats were filled, when it filled
    (which may be days after the phase opened). A game not running (waiting for players) is not starting."""
    since = as_utc(since)
    filled = sa.select(OpeningRow.closed_at).where(OpeningRow.game_id == GameRow.id).scalar_subquery()
    q = (
        sa.select(PhaseRow.id, GameRow.id, GameRow.name, PhaseRow.name, PhaseRow.deadline, PhaseRow.opened_at)
        .join(GameRow, GameRow.id == PhaseRow.game_id)
        .where(
            PhaseRow.status == "open",
            PhaseRow.seq == 0,
            GameRow.status == "active",
            sa.or_(PhaseRow.opened_at >= since, filled >= since),
        )
        .order_by(PhaseRow.id)
    )
    with db.session() as s:
        return [PhaseFact(*r) for r in s.execute(q)]


def phases_due_within(db: Database, now: datetime, horizon: timedelta) -> list[PhaseFact]:
    """Open phases of active games whose deadline is ahead of ``now`` by at most ``horizon`` (with when each
    opened and its place in the game: a reminder is scaled to its phase's length, and waits for the start in
    the first)."""
    now = as_utc(now)
    q = (
        sa.select(
            PhaseRow.id, GameRow.id, GameRow.name, PhaseRow.name, PhaseRow.deadline, PhaseRow.opened_at, PhaseRow.seq
        )
        .join(GameRow, GameRow.id == PhaseRow.game_id)
        .where(
            PhaseRow.status == "open",
            GameRow.status == "active",
            PhaseRow.deadline.is_not(None),
            PhaseRow.deadline > now,
            PhaseRow.deadline <= now + horizon,
        )
        .order_by(PhaseRow.deadline)
    )
    with db.session() as s:
        return [PhaseFact(*r) for r in s.execute(q)]


def seated_people(db: Database, game_id: int) -> list[tuple[int, str]]:
    """(person id, power) of every seat of the game played now by a person (not one who deleted their data)."""
    q = (
        sa.select(PlayerRow.person_id, PlayerRow.power)
        .join(PersonRow, PersonRow.id == PlayerRow.person_id)
        .where(PlayerRow.game_id == game_id, PlayerRow.replaced_at.is_(None), PersonRow.deleted_at.is_(None))
        .order_by(PlayerRow.id)
    )
    with db.read_session() as s:
        return [(int(pid or 0), str(power)) for pid, power in s.execute(q)]


def seated_people_of(db: Database, game_ids: Iterable[int]) -> dict[int, list[tuple[int, str]]]:
    """:func:`seated_people` of several games in one query (a page of the event log, the phases near their
    deadline): game id -> its seats, every game asked for present (an empty list for a game nobody is in)."""
    ids = sorted(set(game_ids))
    out: dict[int, list[tuple[int, str]]] = {gid: [] for gid in ids}
    if not ids:
        return out
    q = (
        sa.select(PlayerRow.game_id, PlayerRow.person_id, PlayerRow.power)
        .join(PersonRow, PersonRow.id == PlayerRow.person_id)
        .where(PlayerRow.game_id.in_(ids), PlayerRow.replaced_at.is_(None), PersonRow.deleted_at.is_(None))
        .order_by(PlayerRow.id)
    )
    with db.read_session() as s:
        for gid, pid, power in s.execute(q):
            out[int(gid)].append((int(pid or 0), str(power)))
    return out


def game_settings_of(db: Database, names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Game name -> its stored settings, for the games of ``names`` that exist (one query, the settings column
    alone: a notice says a deadline in its game's time zone and language, and needs nothing else of it)."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    with db.read_session() as s:
        q = sa.select(GameRow.name, GameRow.settings).where(GameRow.name.in_(wanted))
        return {str(name): dict(settings or {}) for name, settings in s.execute(q)}


def stored_preferences_of(
    db: Database, person_ids: Iterable[int]
) -> dict[int, tuple[dict[tuple[str, str], bool], int | None]]:
    """:func:`stored_preferences` of several people in two queries, every person asked for present."""
    ids = sorted(set(person_ids))
    out: dict[int, tuple[dict[tuple[str, str], bool], int | None]] = {pid: ({}, None) for pid in ids}
    if not ids:
        return out
    with db.read_session() as s:
        q = sa.select(NotifyPrefRow.person_id, NotifyPrefRow.event, NotifyPrefRow.channel, NotifyPrefRow.enabled)
        for pid, event, channel, on in s.execute(q.where(NotifyPrefRow.person_id.in_(ids))):
            out[int(pid)][0][(str(event), str(channel))] = bool(on)
        hq = sa.select(NotifySettingsRow.person_id, NotifySettingsRow.deadline_hours)
        for pid, hours in s.execute(hq.where(NotifySettingsRow.person_id.in_(ids))):
            out[int(pid)] = (out[int(pid)][0], hours)
    return out


def targets_of(db: Database, person_ids: Iterable[int]) -> dict[int, list[Target]]:
    """:func:`targets` of several people in one query, every person asked for present."""
    ids = sorted(set(person_ids))
    out: dict[int, list[Target]] = {pid: [] for pid in ids}
    if not ids:
        return out
    with db.read_session() as s:
        q = sa.select(NotifyTargetRow).where(NotifyTargetRow.person_id.in_(ids)).order_by(NotifyTargetRow.id)
        for r in s.scalars(q):
            out[r.person_id].append(_target(r))
    return out


@dataclass(frozen=True)
class EndedGame:
    game_id: int
    game: str
    ending: dict[str, Any]
    """The game's ending as stored (``text``: what the players read)."""
    ended_at: datetime


def ended_games(db: Database, since: datetime) -> list[EndedGame]:
    """Games finished since ``since`` (the end is the last phase closed: processed, or closed by a draw)."""
    ends = (
        sa.select(PhaseRow.game_id, sa.func.max(PhaseRow.processed_at).label("ended"))
        .where(PhaseRow.status == "processed", PhaseRow.processed_at.is_not(None))
        .group_by(PhaseRow.game_id)
        .subquery()
    )
    q = (
        sa.select(GameRow.id, GameRow.name, GameRow.ending, ends.c.ended)
        .join(ends, ends.c.game_id == GameRow.id)
        .where(GameRow.status == "finished", ends.c.ended >= as_utc(since))
        .order_by(ends.c.ended, GameRow.id)
    )
    with db.read_session() as s:
        return [
            EndedGame(int(gid), str(name), dict(ending or {}), as_utc(at)) for gid, name, ending, at in s.execute(q)
        ]


def rated_people(db: Database, game_id: int) -> set[int] | None:
    """The people a finished game rated, or None while the ratings have not taken it in."""
    with db.session() as s:
        if s.get(RatedGameRow, game_id) is None:
            return None
        return set(s.scalars(sa.select(RatingLineRow.person_id).where(RatingLineRow.game_id == game_id)))


def longest_lead(db: Database, default: int) -> int:
    """The longest deadline lead anyone chose (or ``default``): how far ahead the deadline scan looks."""
    with db.session() as s:
        got = s.scalar(sa.select(sa.func.max(NotifySettingsRow.deadline_hours)))
        return max(default, int(got or 0))


def emails_of(db: Database, person_ids: Iterable[int]) -> dict[int, str]:
    """Person id -> their address, for those of ``person_ids`` who have one (and kept their data)."""
    ids = sorted(set(person_ids))
    if not ids:
        return {}
    q = sa.select(PersonRow.id, PersonRow.email).where(
        PersonRow.id.in_(ids), PersonRow.email.is_not(None), PersonRow.deleted_at.is_(None)
    )
    with db.session() as s:
        return {int(pid): str(email) for pid, email in s.execute(q) if email}


def game_name(db: Database, game_id: int) -> str:
    with db.session() as s:
        g = s.get(GameRow, game_id)
        if g is None:
            raise RecordNotFound(msg("no game %(game)s", game=game_id))
        return g.name


def live_person(db: Database, person_id: int) -> bool:
    with db.session() as s:
        p = s.get(PersonRow, person_id)
        return p is not None and p.deleted_at is None


# -- the installation's VAPID key --------------------------------------------------------------------------


def vapid_key(db: Database, make: Callable[[], tuple[str, str]], *, now: datetime) -> tuple[str, str]:
    """(private key PEM, public key) of the installation, made by ``make`` the first time it is needed. Two
    processes making it at once keep the first one stored, so every push is signed by one key."""
    with db.session() as s:
        row = s.get(NotifyKeyRow, "vapid")
        if row is not None:
            return row.private_pem, row.public_key
    pem, public = make()
    with db.session() as s, s.begin():
        try:
            with s.begin_nested():
                s.add(NotifyKeyRow(name="vapid", private_pem=pem, public_key=public, created_at=as_utc(now)))
                s.flush()
        except IntegrityError:
            pass
    with db.session() as s:
        got = s.get(NotifyKeyRow, "vapid")
        assert got is not None
        return got.private_pem, got.public_key


# -- a person's own data -----------------------------------------------------------------------------------


def _mask(t: Target) -> str:
    """A target as its owner's page shows it: its kind and where it goes, without the secret part."""
    from urllib.parse import urlsplit

    where = str(t.config.get("endpoint") or t.config.get("url") or t.config.get("homeserver") or "")
    host = urlsplit(where).hostname or ""
    return f"{t.kind} at {host}" if host else t.kind


def masked(t: Target) -> str:
    return _mask(t)


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """Everything stored about the person's notifications, for "download my data": their choices, their
    push subscriptions and webhooks (whole: it is their own data, secrets included) and their deliveries."""
    choices, hours = stored_preferences(db, person_id)
    return {
        "preferences": [{"event": e, "channel": c, "enabled": on} for (e, c), on in sorted(choices.items())],
        "deadline_hours": hours,
        "targets": [
            {
                "id": t.id,
                "channel": t.channel,
                "kind": t.kind,
                "label": t.label,
                "config": t.config,
                "created_at": t.created_at.isoformat(),
            }
            for t in targets(db, person_id)
        ],
        "deliveries": [
            {
                "event": d.event,
                "channel": d.channel,
                "title": d.title,
                "body": d.body,
                "url": d.url,
                "status": d.status,
                "attempts": d.attempts,
                "created_at": d.created_at.isoformat(),
                "sent_at": d.sent_at.isoformat() if d.sent_at else None,
                "last_error": d.last_error,
            }
            for d in deliveries(db, person_id=person_id)
        ],
    }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """Delete everything stored about the person's notifications, for "delete my data": choices, targets
    (secrets with them) and deliveries, sent or not (nothing more is sent to them).

    Notification e-mails already handed to the mail outbox are the outbox's rows, addressed to the person's
    address: those not sent yet are removed (a retry would otherwise send them after the deletion), and
    those sent keep only that a message went (address and words gone), as the accounts do with sign-in mail.
    Runs before the accounts forget, while the person's row still has the address."""
    del now  # nothing is kept to say when: the rows are gone
    with db.session() as s, s.begin():
        for model in (NotifyDeliveryRow, NotifyTargetRow, NotifyPrefRow, NotifySettingsRow):
            s.execute(sa.delete(model).where(model.person_id == person_id))
        p = s.get(PersonRow, person_id)
        if p is not None and p.email:
            # Each event's mail is its own kind (``notify:EVENT``, so its one-click link stops that kind alone).
            kinds = s.scalars(
                sa.select(OutboxRow.kind)
                .where(OutboxRow.to_addr == p.email, OutboxRow.kind.like("notify:%"))
                .distinct()
            )
            for kind in ["notify", *kinds]:
                forget_mail_to(s, p.email, kind)
