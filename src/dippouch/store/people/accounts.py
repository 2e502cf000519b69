"""People's accounts as stored: sign-in links mailed, passkeys and their challenges, the calendar feed's secret
address, what a person's seats wait for, and the person's own data (download and delete).

Secrets (a link's token, a calendar token) are 256-bit random tokens handed out once; only their SHA-256 is
kept, as access keys are (:mod:`dippouch.store.access`). A link is single-use: using it is one conditional
``UPDATE ... WHERE used_at IS NULL``, so two tabs (or two servers) opening it at once let one in. Nothing here
reads the clock: every call takes ``now``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from dippouch.core.messages import msg
from dippouch.game import GameError, RecordNotFound, as_utc, powers_to_act
from dippouch.store.access import hash_secret
from dippouch.store.db import Database
from dippouch.store.gamefile import clean_address
from dippouch.store.mail.models import OutboxRow
from dippouch.store.mail.outbox import forget_mail_to, queue_in
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow, SubmissionRow
from dippouch.store.models_web import WebSessionRow
from dippouch.store.people.models import CalendarFeedRow, PasskeyChallengeRow, PasskeyRow, SigninLinkRow
from dippouch.store.people.persons import clean_name, seat_person
from dippouch.store.rows import game_variant, phase_position

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "CHALLENGE_LIFETIME",
    "LINK_LIFETIME",
    "LINK_PREFIX",
    "LinkError",
    "LinkInfo",
    "NeedsName",
    "Passkey",
    "add_passkey",
    "calendar_person",
    "claim_seat",
    "create_signin_link",
    "export_person",
    "forget_person",
    "has_calendar",
    "links_read",
    "new_calendar_token",
    "new_challenge",
    "orders_due",
    "passkey",
    "passkeys_of",
    "peek_link",
    "remove_passkey",
    "revoke_calendar",
    "show_signin_mail",
    "take_challenge",
    "touch_passkey",
    "use_link",
]

LINK_LIFETIME = timedelta(minutes=20)
"""How long a mailed link works: long enough for a slow mail server, short enough that an old mail is no key."""
CHALLENGE_LIFETIME = timedelta(minutes=5)
LINK_PREFIX = "dl_"
"""Sign-in links' tokens start so (access keys start ``dp_``): a key pasted into the wrong box is told apart."""
CALENDAR_PREFIX = "dc_"


class LinkError(GameError):
    """A link that does not sign anyone in: unknown, used, expired (the message says which it may be)."""


class NeedsName(GameError):
    """A sign-up link used without a name: the person is created once a name is given."""


@dataclass(frozen=True)
class LinkInfo:
    email: str
    known: bool
    """A live person has this address (the link signs in); otherwise it signs up."""
    name: str | None
    """The name given when asking (sign-up), or the person's name."""


def _mail_key(row: SigninLinkRow) -> str:
    """The outbox key of a link's mail: by its hash, not its row id, which a database may hand out again
    after a person's links are deleted (the queue would take the new mail for one already queued)."""
    return f"signin:{row.token_hash[:40]}"


def _rows(result: Any) -> int:
    """Rows an UPDATE changed (a CursorResult's count; the generic Result type does not declare it)."""
    return int(result.rowcount)


def _token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def _address(email: str) -> str:
    return clean_address(email).lower()


def create_signin_link(
    db: Database,
    email: str,
    *,
    now: datetime,
    name: str | None = None,
    compose: Callable[[str, str | None, bool], tuple[str, str]],
    lifetime: timedelta = LINK_LIFETIME,
) -> None:
    """Make a link for ``email`` and queue its mail, in one transaction (nothing lost: both or neither).

    ``compose(token, name, known)`` writes (subject, body): the caller knows the site's address, the store
    does not. Known or not, the same work is done (one link, one message), so neither the answer nor its time
    tells an asker whether the address belongs to someone."""
    address = _address(email)
    now = as_utc(now)
    name = " ".join(name.split())[:200] if name and name.strip() else None
    token = _token(LINK_PREFIX)
    with db.session() as s, s.begin():
        person = s.scalars(
            sa.select(PersonRow).where(PersonRow.email == address, PersonRow.deleted_at.is_(None))
        ).first()
        known = person is not None
        row = SigninLinkRow(
            token_hash=hash_secret(token),
            email=address,
            name=None if known else name,
            created_at=now,
            expires_at=now + lifetime,
            used_at=None,
        )
        s.add(row)
        s.flush()
        subject, body = compose(token, person.name if person is not None else name, known)
        queue_in(s, key=_mail_key(row), to=address, subject=subject, body=body, kind="signin", now=now)


def _live_link(s: sa.orm.Session, token: str, now: datetime) -> SigninLinkRow:
    if not token.startswith(LINK_PREFIX) or not 20 <= len(token) <= 200:
        raise LinkError(msg("that is not a sign-in link of this site; ask for a new one on the sign-in page"))
    row = s.scalars(sa.select(SigninLinkRow).where(SigninLinkRow.token_hash == hash_secret(token))).first()
    if row is None:
        raise LinkError(msg("that sign-in link is unknown here (mistyped, or from another site); ask for a new one"))
    if row.used_at is not None:
        raise LinkError(msg("that sign-in link was used already (each works once); ask for a new one"))
    if row.expires_at <= as_utc(now):
        minutes = int((row.expires_at - row.created_at).total_seconds() // 60)
        raise LinkError(
            msg(
                "that sign-in link has expired (links work for %(minutes)s minutes); ask for a new one", minutes=minutes
            )
        )
    return row


def peek_link(db: Database, token: str, *, now: datetime) -> LinkInfo:
    """What a live link would do, without using it (the confirmation page), or :class:`LinkError`."""
    with db.session() as s:
        row = _live_link(s, token, now)
        p = s.scalars(sa.select(PersonRow).where(PersonRow.email == row.email, PersonRow.deleted_at.is_(None))).first()
        return LinkInfo(row.email, p is not None, p.name if p is not None else row.name)


def show_signin_mail(db: Database, mail_id: int, *, now: datetime) -> str | None:
    """The text of a sign-in link's mail, read by the installation's coordinator on the Outbox, and the reading
    recorded on the link in the same transaction (its owner sees it on their account page: :func:`links_read`).
    While the site cannot send mail this is the only way a returning person's link reaches them; and whoever
    reads it may sign in as them, so the reading is kept as an unsealing is. None when ``mail_id`` is not a
    sign-in link's mail."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        mail = s.get(OutboxRow, mail_id)
        if mail is None or mail.kind != "signin" or not mail.key.startswith("signin:"):
            return None
        prefix = mail.key.split(":", 1)[1]
        row = s.scalars(
            sa.select(SigninLinkRow).where(SigninLinkRow.token_hash.startswith(prefix, autoescape=True))
        ).first()
        if row is None:
            return None
        if row.shown_at is None:
            row.shown_at = now
        return mail.body


def links_read(db: Database, person_id: int, *, limit: int = 10) -> list[datetime]:
    """When the installation's coordinator read a sign-in link to this person's address on the Outbox, newest
    first (:func:`show_signin_mail`)."""
    with db.session() as s:
        email = s.scalar(sa.select(PersonRow.email).where(PersonRow.id == person_id))
        if not email:
            return []
        query = (
            sa.select(SigninLinkRow.shown_at)
            .where(SigninLinkRow.email == email.lower(), SigninLinkRow.shown_at.is_not(None))
            .order_by(SigninLinkRow.shown_at.desc())
            .limit(limit)
        )
        return [as_utc(t) for t in s.scalars(query) if t is not None]


def use_link(db: Database, token: str, *, now: datetime, name: str | None = None) -> int:
    """Use a link once: the person whose address it went to (created now, with ``name`` or the name given
    when asking, if nobody has it yet), in one transaction with spending the link, so a link is never spent
    without its person. :class:`LinkError` if it is not live, :class:`NeedsName` if a new person has no name
    yet (the link stays unused)."""
    now = as_utc(now)
    try:
        with db.session() as s, s.begin():
            row = _live_link(s, token, now)
            p = s.scalars(
                sa.select(PersonRow).where(PersonRow.email == row.email, PersonRow.deleted_at.is_(None))
            ).first()
            given = " ".join((name or "").split()) or row.name
            if p is None and not given:
                raise NeedsName(msg("give the name other players will see to finish signing up"))
            clean = None if p is not None else clean_name(given or "")  # refused before the link is spent
            taken = s.execute(
                sa.update(SigninLinkRow)
                .where(SigninLinkRow.id == row.id, SigninLinkRow.used_at.is_(None))
                .values(used_at=now)
            )
            if _rows(taken) != 1:
                raise LinkError(msg("that sign-in link was used already (each works once); ask for a new one"))
            # The queued mail held the token in clear until it was sent (nothing lost); spent, it goes.
            mail = s.scalars(sa.select(OutboxRow).where(OutboxRow.key == _mail_key(row))).first()
            if mail is not None:
                mail.body = mail.body.replace(token, "(used)")
                if mail.status != "sent":
                    # Used before it went (from the Outbox, before mail was set up): a spent link is no use to
                    # its reader, and "(used)" where a link should be reads as a fault, so it is not sent.
                    mail.status, mail.claimed_by, mail.claimed_until = "withdrawn", None, None
            # Unused links to the same address die with this one: the mailbox has been proven now, and an older
            # link lying in it (or in a forwarded copy) must not sign anyone in later.
            s.execute(
                sa.update(SigninLinkRow)
                .where(SigninLinkRow.email == row.email, SigninLinkRow.used_at.is_(None))
                .values(used_at=now)
            )
            if p is not None:
                return p.id
            person_row = PersonRow(name=clean, email=row.email, created_at=now, deleted_at=None)
            s.add(person_row)
            s.flush()
            return person_row.id
    except IntegrityError:
        # Another link to the same new address made its person at the same moment: nothing was spent here.
        raise LinkError(
            msg("an account for this address was made a moment ago by another link; ask for a new link to sign in")
        ) from None


def claim_seat(db: Database, game: str, power: str, person_id: int, *, now: datetime) -> str:
    """The seat ``power`` holds now becomes ``person_id``'s (their player link proved it is theirs), unless
    another person plays it: then nothing changes and the message says whom to ask."""
    with db.session() as s:
        taken = s.scalar(
            sa.select(PlayerRow.person_id)
            .join(GameRow, GameRow.id == PlayerRow.game_id)
            .where(GameRow.name == game, PlayerRow.power == power, PlayerRow.replaced_at.is_(None))
        )
    if taken is not None and taken != person_id:
        raise GameError(
            msg(
                "%(power)s in %(game)s is on another person's account; ask the game's coordinator if it should be "
                "yours",
                power=power,
                game=game,
            )
        )
    return seat_person(db, game, power, person_id, now=now)


# --------------------------------------------------------------------------------------------------
# The calendar feed's secret address


def new_calendar_token(db: Database, person_id: int, *, now: datetime) -> str:
    """A new secret address for the person's feed (shown once); the old one stops working."""
    token = _token(CALENDAR_PREFIX)
    with db.session() as s, s.begin():
        _revoke_calendars(s, person_id, as_utc(now))
        s.add(CalendarFeedRow(person_id=person_id, token_hash=hash_secret(token), created_at=as_utc(now)))
    return token


def _revoke_calendars(s: sa.orm.Session, person_id: int, now: datetime) -> None:
    s.execute(
        sa.update(CalendarFeedRow)
        .where(CalendarFeedRow.person_id == person_id, CalendarFeedRow.revoked_at.is_(None))
        .values(revoked_at=now)
    )


def revoke_calendar(db: Database, person_id: int, *, now: datetime) -> None:
    with db.session() as s, s.begin():
        _revoke_calendars(s, person_id, as_utc(now))


def has_calendar(db: Database, person_id: int) -> datetime | None:
    """When the person's live feed address was made, or None."""
    with db.session() as s:
        return s.scalar(
            sa.select(CalendarFeedRow.created_at).where(
                CalendarFeedRow.person_id == person_id, CalendarFeedRow.revoked_at.is_(None)
            )
        )


def calendar_person(db: Database, token: str) -> int | None:
    """The live person whose feed ``token`` opens, or None."""
    if not token.startswith(CALENDAR_PREFIX) or len(token) > 200:
        return None
    with db.session() as s:
        return s.scalar(
            sa.select(CalendarFeedRow.person_id)
            .join(PersonRow, PersonRow.id == CalendarFeedRow.person_id)
            .where(
                CalendarFeedRow.token_hash == hash_secret(token),
                CalendarFeedRow.revoked_at.is_(None),
                PersonRow.deleted_at.is_(None),
            )
        )


# --------------------------------------------------------------------------------------------------
# What the person's seats wait for


def orders_due(db: Database, person_id: int) -> dict[tuple[str, str], str]:
    """For each seat the person plays, whether their orders for the open phase are in, missing or not needed:
    one read of the open phases and one of their submissions; each phase's position is parsed once per
    process (:func:`phase_position` keeps it: a page's worth of parsing otherwise)."""
    with db.session() as s:
        seats = s.execute(
            sa.select(GameRow, PlayerRow.power, PhaseRow)
            .join(PlayerRow, PlayerRow.game_id == GameRow.id)
            .join(PhaseRow, sa.and_(PhaseRow.game_id == GameRow.id, PhaseRow.status == "open"))
            .where(PlayerRow.person_id == person_id, PlayerRow.replaced_at.is_(None))
            .options(sa.orm.defer(GameRow.variant_data))
        ).all()
        if not seats:
            return {}
        sent = set(
            s.execute(
                sa.select(SubmissionRow.phase_id, SubmissionRow.power).where(
                    SubmissionRow.phase_id.in_({ph.id for _, _, ph in seats}), SubmissionRow.stands.is_(True)
                )
            ).all()
        )
        out: dict[tuple[str, str], str] = {}
        acting: dict[int, list[str]] = {}
        for g, power, ph in seats:
            if ph.id not in acting:
                v = game_variant(g)
                acting[ph.id] = powers_to_act(v, phase_position(db, v, ph))
            if (ph.id, power) in sent:
                out[(g.name, power)] = "in"
            else:
                out[(g.name, power)] = "missing" if power in acting[ph.id] else "not needed"
        return out


# --------------------------------------------------------------------------------------------------
# Passkeys


@dataclass(frozen=True)
class Passkey:
    id: int
    person_id: int
    credential_id: str
    public_key: bytes
    sign_count: int
    label: str
    created_at: datetime
    last_used_at: datetime | None


def _passkey(r: PasskeyRow) -> Passkey:
    return Passkey(
        r.id, r.person_id, r.credential_id, bytes(r.public_key), r.sign_count, r.label, r.created_at, r.last_used_at
    )


def new_challenge(db: Database, purpose: str, *, now: datetime, person_id: int | None = None) -> bytes:
    """A fresh random challenge, kept for :data:`CHALLENGE_LIFETIME` and usable once."""
    import base64

    raw = secrets.token_bytes(32)
    text = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    now = as_utc(now)
    with db.session() as s, s.begin():
        s.execute(sa.delete(PasskeyChallengeRow).where(PasskeyChallengeRow.expires_at < now - timedelta(days=1)))
        s.add(
            PasskeyChallengeRow(
                challenge=text,
                purpose=purpose,
                person_id=person_id,
                created_at=now,
                expires_at=now + CHALLENGE_LIFETIME,
            )
        )
    return raw


def take_challenge(db: Database, challenge: str, purpose: str, *, now: datetime, person_id: int | None = None) -> None:
    """Use a challenge (base64url) once: it must be ours, live, unused, for ``purpose`` (and ``person_id``)."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        q = sa.update(PasskeyChallengeRow).where(
            PasskeyChallengeRow.challenge == challenge[:200],
            PasskeyChallengeRow.purpose == purpose,
            PasskeyChallengeRow.used_at.is_(None),
            PasskeyChallengeRow.expires_at > now,
        )
        if person_id is not None:
            q = q.where(PasskeyChallengeRow.person_id == person_id)
        if _rows(s.execute(q.values(used_at=now))) != 1:
            raise GameError(msg("the passkey's challenge is unknown, used already or expired; try again"))


def add_passkey(
    db: Database, person_id: int, credential_id: str, public_key: bytes, sign_count: int, *, label: str, now: datetime
) -> int:
    with db.session() as s, s.begin():
        if s.scalar(sa.select(PasskeyRow.id).where(PasskeyRow.credential_id == credential_id)) is not None:
            raise GameError(msg("this passkey is registered already"))
        row = PasskeyRow(
            person_id=person_id,
            credential_id=credential_id,
            public_key=public_key,
            sign_count=sign_count,
            label=" ".join(label.split())[:200],
            created_at=as_utc(now),
            last_used_at=None,
        )
        s.add(row)
        s.flush()
        return row.id


def passkey(db: Database, credential_id: str) -> Passkey | None:
    """The passkey of a live person with this credential id, or None."""
    with db.session() as s:
        r = s.scalars(
            sa.select(PasskeyRow)
            .join(PersonRow, PersonRow.id == PasskeyRow.person_id)
            .where(PasskeyRow.credential_id == credential_id[:1400], PersonRow.deleted_at.is_(None))
        ).first()
        return None if r is None else _passkey(r)


def passkeys_of(db: Database, person_id: int) -> list[Passkey]:
    with db.session() as s:
        rows = s.scalars(sa.select(PasskeyRow).where(PasskeyRow.person_id == person_id).order_by(PasskeyRow.id))
        return [_passkey(r) for r in rows]


def touch_passkey(db: Database, passkey_id: int, sign_count: int, *, now: datetime) -> None:
    with db.session() as s, s.begin():
        r = s.get(PasskeyRow, passkey_id)
        if r is not None:
            r.sign_count, r.last_used_at = sign_count, as_utc(now)


def remove_passkey(db: Database, person_id: int, passkey_id: int) -> None:
    with db.session() as s, s.begin():
        r = s.get(PasskeyRow, passkey_id)
        if r is None or r.person_id != person_id:
            raise GameError(msg("no passkey %(passkey)s of yours", passkey=passkey_id))
        s.delete(r)


# --------------------------------------------------------------------------------------------------
# The person's own data


def _iso(dt: datetime | None) -> str | None:
    return None if dt is None else as_utc(dt).isoformat()


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """Everything the accounts keep about a person: who they are, their seats (now and before), the browsers
    signed in as them, their passkeys (ids, never a secret), their calendar feed and the links mailed to them."""
    with db.session() as s:
        p = s.get(PersonRow, person_id)
        if p is None:
            raise RecordNotFound(msg("no person %(person)s", person=person_id))
        seats = s.execute(
            sa.select(GameRow.name, PlayerRow.power, PlayerRow.name, PlayerRow.assigned_at, PlayerRow.replaced_at)
            .join(GameRow, GameRow.id == PlayerRow.game_id)
            .where(PlayerRow.person_id == person_id)
            .order_by(GameRow.name, PlayerRow.id)
        ).all()
        sessions = s.scalars(
            sa.select(WebSessionRow).where(WebSessionRow.person_id == person_id).order_by(WebSessionRow.id)
        ).all()
        keys = s.scalars(sa.select(PasskeyRow).where(PasskeyRow.person_id == person_id).order_by(PasskeyRow.id)).all()
        feeds = s.scalars(
            sa.select(CalendarFeedRow).where(CalendarFeedRow.person_id == person_id).order_by(CalendarFeedRow.id)
        ).all()
        links = (
            s.scalars(sa.select(SigninLinkRow).where(SigninLinkRow.email == p.email).order_by(SigninLinkRow.id)).all()
            if p.email
            else []
        )
        return {
            "person": {
                "id": p.id,
                "name": p.name,
                "email": p.email,
                "created_at": _iso(p.created_at),
                "deleted_at": _iso(p.deleted_at),
                "language": p.language,
                "time_zone": p.time_zone,
            },
            "seats": [
                {"game": g, "power": pw, "player": n, "since": _iso(a), "until": _iso(r)} for g, pw, n, a, r in seats
            ],
            "sessions": [
                {"created_at": _iso(r.created_at), "expires_at": _iso(r.expires_at), "ended_at": _iso(r.revoked_at)}
                for r in sessions
            ],
            "passkeys": [
                {
                    "id": r.id,
                    "label": r.label,
                    "credential_id": r.credential_id,
                    "created_at": _iso(r.created_at),
                    "last_used_at": _iso(r.last_used_at),
                }
                for r in keys
            ],
            "calendar_feeds": [{"created_at": _iso(r.created_at), "revoked_at": _iso(r.revoked_at)} for r in feeds],
            "signin_links": [
                {"created_at": _iso(r.created_at), "expires_at": _iso(r.expires_at), "used_at": _iso(r.used_at)}
                for r in links
            ],
        }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """Delete what the accounts keep: the person row emptied (name and address gone, ``deleted_at`` set; the
    row stays so seats keep their history under the player's name), every session ended, passkeys, calendar
    feeds, challenges and mailed links removed."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        p = s.get(PersonRow, person_id)
        if p is None:
            raise RecordNotFound(msg("no person %(person)s", person=person_id))
        if p.email:
            s.execute(sa.delete(SigninLinkRow).where(SigninLinkRow.email == p.email))
            forget_mail_to(s, p.email, "signin")
        s.execute(
            sa.update(WebSessionRow)
            .where(WebSessionRow.person_id == person_id, WebSessionRow.revoked_at.is_(None))
            .values(revoked_at=now)
        )
        s.execute(sa.delete(PasskeyRow).where(PasskeyRow.person_id == person_id))
        s.execute(sa.delete(PasskeyChallengeRow).where(PasskeyChallengeRow.person_id == person_id))
        s.execute(sa.delete(CalendarFeedRow).where(CalendarFeedRow.person_id == person_id))
        p.name, p.email, p.language, p.time_zone = "", None, None, None
        if p.deleted_at is None:
            p.deleted_at = now
