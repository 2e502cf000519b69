"""A game's mail record in its game file: the ``mail setup`` settings, every message taken in for the game,
the phases released from review and the notices already queued, written out with the game and read back in
the import's transaction (:mod:`dippouch.store.transfer` calls it only where a file is made or read)."""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.messages import Msg, hint, msg, quantity
from dippouch.game import GameError, as_utc
from dippouch.store.mail.models import GameMailRow, MailAttachmentRow, MailMessageRow, MailNoticeRow, MailReviewRow

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["MAIL_RECORD_LIMIT", "export_mail_record", "import_mail_record", "seal_mail_record"]


MAIL_RECORD_LIMIT = 200 * 1024 * 1024
"""Bytes of messages and attachments one game file may carry in (a season's photographs fit many times)."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any, where: str) -> bytes:
    if not isinstance(text, str):
        raise GameError(msg("%(where)s: expected base64 text", where=where))
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise GameError(msg("%(where)s: not base64", where=where)) from None


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def _time(value: Any, where: str, *, optional: bool = False) -> datetime | None:
    if value is None and optional:
        return None
    try:
        return as_utc(datetime.fromisoformat(str(value)))
    except (TypeError, ValueError):
        raise GameError(
            msg("%(where)s: %(value)s is not a time (ISO 8601)", where=where, value=repr(str(value)[:40]))
        ) from None


def _reason_msg(value: Any, where: str) -> dict[str, Any] | None:
    """A reason's message as a game file keeps it (so another installation says it in its reader's language),
    checked by reading and saying it; absent in a file written before reasons were messages, whose text is then
    shown as it is."""
    if value is None:
        return None
    try:
        if not isinstance(value, dict):
            raise TypeError(value)
        said = Msg.from_data(value)
        str(said)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise GameError(msg("%(where)s: not a message (an object with its id and values)", where=where)) from None
    return said.to_data()


def export_mail_record(s: Session, game_id: int, phase_ids: list[int], event_ids: list[int]) -> dict[str, Any]:
    """A game's mail record for its game file: the ``mail setup`` settings (with the players' tokens), every
    message taken in for it (kept whole, with its attachments, OCR readings and review decisions), phases
    released from review, and the notices already queued (so a moved game does not mail its results twice).
    Phases and events are named by their place in the file, since ids change on import.

    Only the coordinator's export carries it (addresses, tokens, orders in photographs); the public view
    drops it, and the coordinator's sealed view seals the content of mail for open phases
    (:func:`seal_mail_record`)."""
    cfg_row = s.get(GameMailRow, game_id)
    phase_at = {pid: i for i, pid in enumerate(phase_ids)}
    event_at = {eid: i for i, eid in enumerate(event_ids)}
    messages = []
    for m in s.scalars(sa.select(MailMessageRow).where(MailMessageRow.game_id == game_id).order_by(MailMessageRow.id)):
        messages.append(
            {
                "digest": m.digest,
                "message_id": m.message_id,
                "origin": m.origin,
                "sender": m.sender,
                "subject": m.subject,
                "received_at": m.received_at.isoformat(),
                "fetched_at": m.fetched_at.isoformat(),
                "phase": phase_at.get(m.phase_id) if m.phase_id is not None else None,
                "power": m.power,
                "submission": m.submission_id,
                "status": m.status,
                "reason": m.reason,
                "reason_msg": m.reason_msg,
                "reading": m.reading,
                "raw": _b64(m.raw),
                "attachments": [
                    {
                        "filename": a.filename,
                        "content_type": a.content_type,
                        "data": _b64(a.data),
                        "ocr_text": a.ocr_text,
                        "ocr_at": _iso(a.ocr_at),
                        "submission": a.submission_id,
                        "set_aside_at": _iso(a.set_aside_at),
                        "set_aside_why": a.set_aside_why,
                    }
                    for a in m.attachments
                ],
            }
        )
    reviews = [
        {"phase": phase_at[r.phase_id], "released_at": r.released_at.isoformat(), "note": r.note}
        for r in s.scalars(sa.select(MailReviewRow).where(MailReviewRow.phase_id.in_(phase_ids or [-1])))
    ]
    notices = []
    for n in s.scalars(sa.select(MailNoticeRow).where(MailNoticeRow.game_id == game_id).order_by(MailNoticeRow.key)):
        kind, _, rest = n.key.partition(":")
        head, _, tail = rest.partition(":")
        if kind in ("results", "reminder") and head.isdigit() and int(head) in phase_at:
            ref = {"kind": kind, "phase": phase_at[int(head)], "rest": tail}
        elif kind == "event" and head.isdigit() and int(head) in event_at:
            ref = {"kind": kind, "event": event_at[int(head)], "rest": tail}
        elif kind == "cd":
            ref = {"kind": kind, "rest": tail}
        else:
            continue
        notices.append({**ref, "at": n.at.isoformat()})
    return {
        "settings": dict(cfg_row.config) if cfg_row is not None else None,
        "messages": messages,
        "reviews": reviews,
        "notices": notices,
    }


def seal_mail_record(data: dict[str, Any], sealed_phases: set[int]) -> int:
    """Seal, in a coordinator's export, the content of mail that may hold orders still sealed: messages
    for the phases at ``sealed_phases`` (places in the file) and messages for no phase. Who sent what
    when and what became of it stay; returns how many were sealed."""
    record = data.get("mail")
    if not isinstance(record, dict) or not sealed_phases:
        return 0
    n = 0
    for m in record.get("messages", []):
        if m.get("phase") is None or m.get("phase") in sealed_phases:
            m["raw"] = None
            m["sealed"] = True
            for a in m.get("attachments", []):
                a["data"], a["ocr_text"] = None, None
            n += 1
    return n


def import_mail_record(
    s: Session,
    game_id: int,
    record: Any,
    phase_ids: list[int],
    event_ids: list[int],
    submission_ids: dict[int, int],
) -> None:
    """Store a game file's mail record (:func:`export_mail_record`) for the imported game, in the import's
    transaction: every refusal names the place in the file, and nothing is stored if one is refused.

    A message already in this database (a copy of the game imported beside its original) is stored under a
    digest of its own: a later fetch of the same message still goes to the original game."""
    if record is None:
        return
    if not isinstance(record, dict):
        raise GameError(msg("mail: expected an object (settings, messages, reviews, notices)"))

    def phase(value: Any, where: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(phase_ids):
            raise GameError(
                msg(
                    "%(where)s: %(value)s is not the place of a phase in this file (0 to %(last)s)",
                    where=where,
                    value=repr(value),
                    last=len(phase_ids) - 1,
                )
            )
        return phase_ids[value]

    def submission(value: Any, where: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value not in submission_ids:
            raise GameError(
                msg("%(where)s: %(value)s is not the id of a submission in this file", where=where, value=repr(value))
            )
        return submission_ids[value]

    def text(value: Any, where: str, limit: int, *, optional: bool = True) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or len(value) > limit:
            raise GameError(
                msg("%(where)s: expected text of at most %(most)s characters", where=where, most=quantity(limit))
            )
        return value

    settings = record.get("settings")
    if settings is not None:
        if not isinstance(settings, dict):
            raise GameError(msg("mail.settings: expected an object (the game's `mail setup` settings)"))
        _time(settings.get("since"), "mail.settings.since")
        s.add(GameMailRow(game_id=game_id, config=settings))
    total = 0
    for i, m in enumerate(record.get("messages") or []):
        where = f"mail.messages[{i}]"
        if not isinstance(m, dict):
            raise GameError(msg("%(where)s: expected an object", where=where))
        if m.get("sealed") or m.get("raw") is None:
            raise GameError(
                msg(
                    "%(where)s: its content was sealed in this export; %(hint)s to move a running game",
                    where=where,
                    hint=hint("export-unsealed", "export the game again with `dippouch export --unsealed`"),
                )
            )
        raw = _unb64(m["raw"], f"{where}.raw")
        total += len(raw)
        digest = hashlib.sha256(raw).hexdigest()
        if s.scalars(sa.select(MailMessageRow.id).where(MailMessageRow.digest == digest)).first() is not None:
            digest = hashlib.sha256(f"copy for game {game_id}:".encode() + raw).hexdigest()
        reading = m.get("reading") or {}
        if not isinstance(reading, dict):
            raise GameError(msg("%(where)s: expected an object", where=f"{where}.reading"))
        row = MailMessageRow(
            digest=digest,
            message_id=text(m.get("message_id"), f"{where}.message_id", 998),
            origin=text(m.get("origin", "file"), f"{where}.origin", 500, optional=False),
            sender=text(m.get("sender"), f"{where}.sender", 320, optional=False),
            subject=text(m.get("subject", ""), f"{where}.subject", 100_000, optional=False),
            received_at=_time(m.get("received_at"), f"{where}.received_at"),
            fetched_at=_time(m.get("fetched_at"), f"{where}.fetched_at"),
            game_id=game_id,
            phase_id=phase(m.get("phase"), f"{where}.phase"),
            power=text(m.get("power"), f"{where}.power", 100),
            submission_id=submission(m.get("submission"), f"{where}.submission"),
            status=text(m.get("status"), f"{where}.status", 20, optional=False),
            reason=text(m.get("reason", ""), f"{where}.reason", 100_000, optional=False),
            reason_msg=_reason_msg(m.get("reason_msg"), f"{where}.reason_msg"),
            reading=reading,
            raw=raw,
        )
        s.add(row)
        s.flush()
        for j, a in enumerate(m.get("attachments") or []):
            aw = f"{where}.attachments[{j}]"
            if not isinstance(a, dict):
                raise GameError(msg("%(where)s: expected an object", where=aw))
            data = _unb64(a.get("data"), f"{aw}.data")
            total += len(data)
            s.add(
                MailAttachmentRow(
                    mail_id=row.id,
                    filename=text(a.get("filename", ""), f"{aw}.filename", 500, optional=False),
                    content_type=text(a.get("content_type"), f"{aw}.content_type", 200, optional=False),
                    data=data,
                    ocr_text=text(a.get("ocr_text"), f"{aw}.ocr_text", 1_000_000),
                    ocr_at=_time(a.get("ocr_at"), f"{aw}.ocr_at", optional=True),
                    submission_id=submission(a.get("submission"), f"{aw}.submission"),
                    set_aside_at=_time(a.get("set_aside_at"), f"{aw}.set_aside_at", optional=True),
                    set_aside_why=text(a.get("set_aside_why"), f"{aw}.set_aside_why", 100_000),
                )
            )
        if total > MAIL_RECORD_LIMIT:
            raise GameError(
                msg("mail: the messages hold more than %(most)s MiB; not imported", most=MAIL_RECORD_LIMIT // 2**20)
            )
    for i, r in enumerate(record.get("reviews") or []):
        where = f"mail.reviews[{i}]"
        pid = phase(r.get("phase") if isinstance(r, dict) else None, f"{where}.phase")
        if pid is None:
            raise GameError(msg("%(where)s: names no phase", where=where))
        s.add(
            MailReviewRow(
                phase_id=pid,
                released_at=_time(r.get("released_at"), f"{where}.released_at"),
                note=text(r.get("note", ""), f"{where}.note", 100_000, optional=False),
            )
        )
    for i, n in enumerate(record.get("notices") or []):
        where = f"mail.notices[{i}]"
        if not isinstance(n, dict):
            raise GameError(msg("%(where)s: expected an object", where=where))
        kind, rest = n.get("kind"), str(n.get("rest") or "")
        if kind in ("results", "reminder"):
            key = f"{kind}:{phase(n.get('phase'), f'{where}.phase')}"
        elif kind == "event":
            at = n.get("event")
            if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at < len(event_ids):
                raise GameError(
                    msg(
                        "%(where)s: %(value)s is not the place of an event in this file",
                        where=f"{where}.event",
                        value=repr(at),
                    )
                )
            key = f"event:{event_ids[at]}"
        elif kind == "cd":
            key = f"cd:{game_id}"
        else:
            raise GameError(
                msg(
                    "%(where)s: %(kind)s; expected results, reminder, event or cd",
                    where=f"{where}.kind",
                    kind=repr(kind),
                )
            )
        key = f"{key}:{rest}" if rest else key
        if len(key) > 300:
            raise GameError(msg("%(where)s: too long", where=where))
        s.add(MailNoticeRow(key=key, game_id=game_id, at=_time(n.get("at"), f"{where}.at")))
