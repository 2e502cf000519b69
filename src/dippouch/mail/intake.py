"""Taking a message in: which game, power and phase it is for, whether its sender may speak for that power,
its orders made into a submission through the store (checked there, line by line, as ``submit`` checks
them), its attachments kept sealed, and a receipt or a reply queued.

Outcomes (``mail_messages.status``):

- ``accepted``: a new version of the power's submission; receipt queued.
- ``photo``: no text orders but photographs: kept sealed for the coordinator (transcription after the
  deadline, applied only when the coordinator confirms it); receipt queued.
- ``late``: for a phase already processed, or received after the deadline: recorded, not used; reply.
- ``held``: from an address that is not the one registered for the power: kept for the coordinator,
  nothing applied; the sender and the registered address are told.
- ``refused``: fits no game, power or phase (or the store refused it): a reply says exactly why and what
  subject would work.
- ``ignored``: an automatic message (bounce, auto-reply, list): never answered, so mail never loops.
- ``duplicate``: the same message was taken in before (not stored twice), or another process finished it
  while this one worked on it.

Each message is taken in exactly once, whatever process is killed when: it is claimed (``received``), and
what becomes of it (a submission, press passed on, a hold, a refusal, with its receipt or reply) is recorded in
the one transaction that does it (:mod:`dippouch.store.inbox`). A message a killed process left ``received`` has
had nothing applied, and the next fetch takes it in again (:func:`resume_unfinished`, and the same message
fetched again).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, NamedTuple

from dippouch.core.errors import DippouchError
from dippouch.core.messages import N_, Arg, Msg, PhaseName, msg
from dippouch.game import (
    GameError,
    Settings,
    as_utc,
    check_orders,
    position_from_data,
    read_version_lines,
    submission_stands,
)
from dippouch.i18n import translations
from dippouch.mail import compose
from dippouch.mail.message import Inbound, clean_body, parse_message, received_time, strip_sheet
from dippouch.mail.press import press_token, take_reply
from dippouch.mail.proof import Proof, confirmation_code, find_confirmation, proof_of_sender, strip_token
from dippouch.mail.settings import ServerSettings
from dippouch.mail.subject import GameNames, Reading, power_names, read_subject, suggest_subject
from dippouch.names import phase_words
from dippouch.play import held_mail, mail_intake
from dippouch.play.orders import Submitted, send_orders
from dippouch.play.votes import mail_votes
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store.inbox import (
    Finish,
    MessageTaken,
    held_by_confirmation,
    message_record,
    next_version,
    unfinished,
)
from dippouch.store.mail_games import MailGame, MailPhase, games_for_mail, mail_config
from dippouch.store.mail_games import game_id as find_game
from dippouch.store.review import next_version_past_photos, processed_phase, review_state
from dippouch.store.submissions import SubmitResult

__all__ = [
    "I18N_DOMAIN",
    "IntakeOutcome",
    "apply_held",
    "fetch_mailbox",
    "game_config",
    "game_names",
    "resume_unfinished",
    "strip_letter_heading",
    "take_in",
]

log = logging.getLogger("dippouch.mail.intake")

I18N_DOMAIN = "mail"
"""The replies' words are in the game's language once the game is known (English before: a stranger's
message names none). The reasons recorded in the mail log are message values, said in each reader's language
where they are shown (the review page, the command line); the log keeps their English too."""


def _both(msgid: str, lang: str, /, **values: Arg) -> tuple[Msg, str]:
    """A refusal as the mail log keeps it (a message) and as the reply says it in ``lang``: one message, so
    the two never drift apart."""
    why = Msg(msgid, values)
    return why, say(why, lang, "mail")


def _lang(g: MailGame) -> str:
    """The game's language, or English when its settings cannot say."""
    try:
        return Settings.from_data(g.settings).language
    except GameError:
        return "en"


@dataclass
class IntakeOutcome:
    status: str
    reason: Msg
    mail_id: int | None = None
    game: str | None = None
    power: str | None = None
    phase: str | None = None
    version: int | None = None
    sender: str = ""
    received: datetime | None = None
    replies: int = 0
    notes: list[str] = field(default_factory=list)

    def line(self, lang: str = "en") -> str:
        """The outcome as the command line prints it, its reason in ``lang``."""
        who = " ".join(x for x in (self.game, self.power, self.phase) if x)
        v = f" version {self.version}" if self.version else ""
        at = f" received {self.received:%Y-%m-%d %H:%M} UTC" if self.received else ""
        return f"#{self.mail_id or '-'} {self.status:<9} {self.sender} {who}{v}{at}: {say(self.reason, lang)}"


def game_config(store: GameStore, game_id: int) -> dict[str, Any]:
    return mail_config(store, game_id)


def strip_letter_heading(store: GameStore, game: str, power: str, text: str) -> tuple[str, list[str]]:
    """A letter or photographed sheet typed in (``submit --source post``) without the heading the rulebook's
    Annexe 3 suggests (real name, position, game, "Autumn 1642 Movement Orders") and its greetings: those
    lines are not orders, and would otherwise be kept as rejected lines. Returns the text and the lines
    taken off (version lines stay: they are instructions)."""
    v = store.variant(game)
    try:
        cfg = game_config(store, find_game(store, game))
    except GameError:
        cfg = {}
    names = GameNames(
        game,
        v,
        None,
        titles=tuple(str(t) for t in cfg.get("titles", [])),
        power_aliases={str(k): list(vs) for k, vs in dict(cfg.get("aliases", {})).items()},
    )
    wanted = power.strip().lower()
    players = [name for p, _current, history in store.players(game) if p.lower() == wanted for name, *_ in history]
    return strip_sheet(text, [game, *names.titles, *power_names(names).keys(), *players])


def game_names(store: GameStore) -> list[tuple[GameNames, MailGame, MailPhase | None, dict[str, Any]]]:
    """Every game mail can reach, with what a subject may call it and its current phase."""
    out = []
    for g in games_for_mail(store):
        v = g.variant
        ph = g.phase
        cfg = g.config
        phase = position_from_data(v, ph.position).phase if ph is not None else None
        names = GameNames(
            g.name,
            v,
            phase,
            titles=tuple(str(t) for t in cfg.get("titles", [])),
            power_aliases={str(k): list(vs) for k, vs in dict(cfg.get("aliases", {})).items()},
        )
        out.append((names, g, ph, cfg))
    return out


def _registered(g: MailGame, power: str) -> str | None:
    for r in g.players:
        if r.power == power and r.replaced_at is None:
            return r.email
    return None


def _sender_powers(
    games: Sequence[tuple[GameNames, MailGame, MailPhase | None, dict[str, Any]]], sender: str
) -> list[tuple[GameNames, str]]:
    out = []
    for names, g, _, _ in games:
        for r in g.players:
            if r.replaced_at is None and r.email and r.email.lower() == sender.lower():
                out.append((names, r.power))
    return out


_smtp_from: ContextVar[str | None] = ContextVar("smtp_from", default=None)
"""The installation's From address while one message is taken in (:func:`take_in`): a receipt's sender domain
and a token's orders address both need it, and each read of the mail settings is a query of the database."""


def _smtp_sender() -> str:
    known = _smtp_from.get()
    if known is not None:
        return known
    from dippouch.mail.settings import load_settings

    try:
        sender = load_settings("smtp").sender or ""
    except DippouchError:
        sender = ""
    _smtp_from.set(sender)
    return sender


def _from_domain() -> str:
    return _smtp_sender().rpartition("@")[2] or "dippouch.invalid"


def _next_version(store: GameStore, phase_id: int, power: str) -> int:
    return next_version(store, phase_id, power)


def _content(msg: Inbound) -> tuple[object, ...]:
    """What makes two copies of a message the same message: its Message-ID, sender, subject, text and files.
    The raw bytes differ between copies (an mbox re-encodes headers, servers add Received lines)."""
    body = "\n".join(line.rstrip() for line in msg.body.replace("\r\n", "\n").strip().split("\n"))
    files = sorted((a.filename, hashlib.sha256(a.data).hexdigest()) for a in msg.attachments)
    return (msg.message_id, msg.sender.lower(), msg.subject.strip(), body, files)


def take_in(
    store: GameStore,
    raw: bytes,
    *,
    now: datetime,
    received: datetime | None = None,
    origin: str = "file",
) -> IntakeOutcome:
    """Take one raw message in (see the module's notes for the outcomes). Never raises for a bad message."""
    now = as_utc(now)
    msg = parse_message(raw)
    when, how = received_time(msg, received, now)
    mine = _content(msg)
    # Claim the message first: the same message fetched twice, or by two processes, is taken once.
    arrival = mail_intake.Arrival(
        raw=raw,
        message_id=msg.message_id,
        sender=msg.sender,
        subject=msg.subject,
        origin=origin,
        received_at=when,
        fetched_at=now,
        reading={"received_from": how},
        attachments=msg.attachments,
    )
    claimed = mail_intake.claim(store, arrival, is_copy=lambda stored: _content(parse_message(stored)) == mine)
    if isinstance(claimed, Msg):
        return IntakeOutcome("duplicate", claimed, sender=msg.sender, received=when)
    mail_id, when = claimed.id, as_utc(claimed.received_at)  # a resumed claim keeps the time first recorded
    store.crash_point("mail-in:claimed")
    scope = _smtp_from.set(None)
    try:
        _smtp_sender()  # read now, not inside the transaction that records the message
        decided = _decide(store, msg, mail_id, when, now)
        out = decided.outcome
        if decided.record is not None:  # else the use case it called (orders, press, held mail) wrote it
            queued = mail_intake.finish(store, decided.record)
            if decided.record.replies:
                out.replies = queued
    except MessageTaken as e:
        out = IntakeOutcome(
            "duplicate", Msg(N_("taken in by another process meanwhile (%(status)s)"), {"status": e.status})
        )
    finally:
        _smtp_from.reset(scope)
    if claimed.resumed:
        out.notes.append("taken in again: the fetch that first claimed it stopped before it was done")
    out.mail_id = mail_id
    out.sender = msg.sender
    out.received = when
    store.crash_point("mail-in:recorded")
    return out


def resume_unfinished(store: GameStore, *, now: datetime) -> list[IntakeOutcome]:
    """Take in again every message a fetch claimed and never finished (the process was killed): nothing of it
    was applied, so it is taken in as if fetched now, received when it was first recorded. Every fetch does
    this first (``dippouch mail fetch``, :func:`fetch_mailbox`).

    A message whose intake fails again (a fault of ours, not of the message: intake answers every bad message)
    is logged and left unfinished for the next fetch, so that it never stops the mail behind it."""
    out = []
    for m in unfinished(store):
        try:
            out.append(take_in(store, m.raw, now=now, received=m.received_at, origin=m.origin))
        except Exception as e:
            log.exception("mail #%s could not be taken in again; it is left for the next fetch", m.id)
            out.append(
                IntakeOutcome(
                    "received",
                    msg("not taken in (%(error)s); left for the next fetch", error=type(e).__name__),
                    mail_id=m.id,
                )
            )
    return out


def fetch_mailbox(store: GameStore, settings: ServerSettings, *, now: datetime) -> list[IntakeOutcome]:
    """Take in every new message of an IMAP mailbox (``dippouch mail fetch``, and the workers before they
    process a due phase, so that mail which came on time is never fetched after its phase was processed)."""
    from dippouch.mail.sources import imap_messages

    return resume_unfinished(store, now=now) + [
        take_in(store, raw, now=now, received=received, origin=origin)
        for raw, received, origin in imap_messages(store, settings)
    ]


@dataclass(frozen=True)
class _Decided:
    """What the intake decided of a message: its outcome, and the record to write of it with its replies
    (``None``: the use case the decision called, orders, press or held mail, wrote it in its own transaction).
    :func:`take_in` writes it, once."""

    outcome: IntakeOutcome
    record: Finish | None = None

    def about(self, **facts: Any) -> _Decided:
        """The same decision, its outcome naming the game, power and phase it was for."""
        return _Decided(replace(self.outcome, **facts), self.record)


def _finish(
    mail_id: int,
    *,
    replies: Sequence[dict[str, Any]] = (),
    was: str | None = "received",
    **values: Any,
) -> Finish:
    """What became of the message, with its replies, to be queued in the same transaction; only from ``was``
    (a message taken in is finished from ``received``, once: :class:`MessageTaken` otherwise)."""
    return Finish(mail_id, values, replies, was)


def _reply(
    msg: Inbound,
    mail_id: int,
    *,
    to: str,
    kind: str,
    subject: str,
    body: str,
    now: datetime,
    game_id: int | None = None,
    phase_id: int | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    """A reply to ``msg``, as the outbox queues it with the record of the message (:func:`_finish`)."""
    return {
        "key": key or f"{kind}:{mail_id}:{to}",
        "to": to,
        "subject": subject,
        "body": body,
        "kind": kind,
        "now": now,
        "sender_domain": _from_domain(),
        "game_id": game_id,
        "phase_id": phase_id,
        "in_reply_to": msg.message_id,
    }


def _refuse(
    msg: Inbound,
    mail_id: int,
    now: datetime,
    why: Msg,
    suggestion: str | None,
    *,
    status: str = "refused",
    reading: Reading | None = None,
    game_id: int | None = None,
    registered: bool = False,
    lang: str = "en",
    shown: str | None = None,
) -> _Decided:
    """Refuse the message: ``why`` is recorded as it is (a message, said by each reader's door), ``shown`` is
    how the reply says it in ``lang`` (by default ``why`` said in it)."""
    _ = translations(lang).gettext
    body = compose.refusal_text(
        subject=msg.subject,
        why=shown or say(why, lang, "mail"),
        suggestion=suggestion,
        registered=registered,
        lang=lang,
    )
    replies = (
        [
            _reply(
                msg,
                mail_id,
                to=msg.sender,
                kind="reply",
                subject=_("Not used: %(subject)s") % {"subject": msg.subject or _("(no subject)")},
                body=body,
                now=now,
                game_id=game_id,
            )
        ]
        if msg.sender and "@" in msg.sender
        else []
    )
    record = _finish(
        mail_id,
        replies=replies,
        status=status,
        reason=why,
        game_id=game_id,
        reading={"subject": reading.to_data() if reading else None, "suggestion": suggestion},
    )
    return _Decided(IntakeOutcome(status, why), record)


def _decide(store: GameStore, msg: Inbound, mail_id: int, when: datetime, now: datetime) -> _Decided:
    if msg.automatic:
        why = Msg(N_("not answered: %(what)s"), {"what": msg.automatic})
        return _Decided(IntakeOutcome("ignored", why), _finish(mail_id, status="ignored", reason=why))
    if "@" not in msg.sender:
        why = Msg(N_("no sender address to answer"))
        return _Decided(IntakeOutcome("ignored", why), _finish(mail_id, status="ignored", reason=why))
    if press_token(msg) is not None:  # a reply to a press message (mail/press.py), not orders
        got = take_reply(store, msg, mail_id, now)
        return _Decided(IntakeOutcome(got.status, got.reason, game=got.game, power=got.power, replies=got.replies))
    code = find_confirmation(msg.subject, msg.body)
    if code is not None:
        held_id = held_by_confirmation(store, msg.sender, code)
        if held_id is not None:
            return _confirm_held(store, msg, mail_id, held_id, now)
    games = game_names(store)
    reading = read_subject(strip_token(msg.subject), [n for n, *_ in games])
    mine = _sender_powers(games, msg.sender)
    if reading.problem or reading.game is None:
        return _unreadable(store, msg, mail_id, now, games, reading, mine)

    names, g, ph, _cfg = next(t for t in games if t[0].name == reading.game)
    v = names.variant
    power = reading.power
    assert power is not None and reading.phase is not None
    settings = Settings.from_data(g.settings)
    lang = settings.language
    _ = translations(lang).gettext
    registered = _registered(g, power)
    base = {"subject": reading.to_data(v)}
    held = _ForPower(store, msg, mail_id, now, names, g, ph, power, reading)
    if registered is None or registered.lower() != msg.sender.lower():
        return _from_another_address(held, registered, base)

    # The sender: the From header is the sender's own word; a token or our server's DKIM/SPF proves it.
    proof = proof_of_sender(
        msg.raw,
        sender=msg.sender,
        subject=msg.subject,
        body=msg.body,
        token=_taught_token(g, power, registered),
        trusted=[str(x) for x in _cfg.get("trust_auth", [])],
    )
    if proof is None and proof_mode(_cfg) == "required":
        return _hold_unproven(held, registered)
    token_note = _token_note(store, g, power, registered, now)

    # The phase: the game's current one, or a late or early message.
    if ph is None or names.phase is None:
        return _refuse(
            msg,
            mail_id,
            now,
            Msg(N_("%(game)s is over"), {"game": names.title}),
            None,
            status="late",
            reading=reading,
            game_id=g.id,
            registered=True,
            lang=lang,
        )
    phase_id = ph.id

    def next_subject(waiting: int = 0, *, photos: bool = False) -> str:
        """The subject for the power's next version (a query: only a reply that suggests one asks); with
        ``photos``, past this message's photographs and the power's others waiting for the coordinator too."""
        if photos:
            return suggest_subject(names, power, next_version_past_photos(store, phase_id, power) + 1)
        return suggest_subject(names, power, _next_version(store, phase_id, power) + waiting)

    wrong = _not_this_phase(held, when, next_subject)
    if wrong is not None:
        return wrong

    return _orders(held, proof, when=when, token_note=token_note, next_subject=next_subject)


_UNREAD = msg("the subject could not be read")
_BY_COORDINATOR = msg("the coordinator")
"""Whose word applied a held message, unless the player's confirmation did."""
_NO_GAME = msg("the subject names no game this address takes orders for")


def _unreadable(
    store: GameStore,
    msg: Inbound,
    mail_id: int,
    now: datetime,
    games: Sequence[tuple[GameNames, MailGame, MailPhase | None, dict[str, Any]]],
    reading: Reading,
    mine: Sequence[tuple[GameNames, str]],
) -> _Decided:
    """A subject that names no game, power and phase it can be used for: refused, with the subject that
    would work where the sender plays one power (game names are not told to strangers). The reply is in the
    language of the game the subject names, or of the one game the sender plays; English when neither is
    known."""
    why = reading.why or _UNREAD
    suggestion = None
    target = next(((n, p) for n, p in mine if n.name == reading.game), None) or (mine[0] if len(mine) == 1 else None)
    if target is not None:
        suggestion = suggest_subject(target[0], target[1], _suggest_version(store, games, target[0].name, target[1]))
    elif reading.game is not None:
        gname = next(n for n, *_ in games if n.name == reading.game)
        suggestion = suggest_subject(gname, reading.power)
    if not mine and reading.game is None:
        # Game names are not told to strangers.
        why = _NO_GAME
    named = reading.game if reading.game is not None else target[0].name if target is not None else None
    lang = next((_lang(g) for n, g, *_ in games if n.name == named), "en")
    return _refuse(msg, mail_id, now, why, suggestion, reading=reading, lang=lang)


def _from_another_address(held: _ForPower, registered: str | None, base: dict[str, Any]) -> _Decided:
    """From an address not registered for the power (or for a power with none): held for the coordinator,
    nothing applied; the sender is told, and so is the registered address."""
    msg, names, power = held.msg, held.names, held.power
    lang = _lang(held.g)
    _ = translations(lang).gettext
    who: dict[str, Arg] = {"sender": msg.sender, "power": power, "game": names.title}
    why, shown = (
        _both(
            "%(sender)s is not the address registered for %(power)s in %(game)s; held for the coordinator, "
            "nothing applied",
            lang,
            **who,
        )
        if registered
        else _both(
            "%(power)s in %(game)s has no registered e-mail address; held for the coordinator, nothing applied",
            lang,
            **{k: v for k, v in who.items() if k != "sender"},
        )
    )
    notices = [
        _Notice(
            msg.sender,
            "held",
            _("Held for the coordinator: %(subject)s") % {"subject": msg.subject},
            compose.refusal_text(subject=msg.subject, why=shown, suggestion=None, registered=True, lang=lang),
        )
    ]
    if registered:
        notices.append(
            _Notice(
                registered,
                "held-notice",
                _("%(game)s: a message for %(power)s came from another address")
                % {"game": names.title, "power": power},
                _(
                    "A message with the subject\n  %(subject)s\ncame from %(sender)s, not from this address, "
                    "which is the one registered for %(power)s in %(game)s.\nIt is held for the coordinator and "
                    "nothing in it has been applied. If it was you, send it again from this address."
                )
                % {"subject": msg.subject, "sender": msg.sender, "power": power, "game": names.title}
                + "\n\n"
                + compose.sign(lang)
                + "\n",
            )
        )
    return _hold(held, why, base, notices)


def _not_this_phase(at: _ForPower, when: datetime, next_subject: Callable[..., str]) -> _Decided | None:
    """Orders for a phase already processed (late, or missed: on time but fetched after the processing) or
    not open yet: refused with the subject for the open phase; ``None`` for the open phase."""
    store, msg, mail_id, now, names, g = at.store, at.msg, at.mail_id, at.now, at.names, at.g
    power, reading = at.power, at.reading
    assert names.phase is not None and reading.phase is not None
    v = names.variant
    lang = _lang(g)
    _ = translations(lang).gettext
    phase_name = v.calendar.name(reading.phase)
    current_name = v.calendar.name(names.phase)
    if reading.phase < names.phase:
        done = processed_phase(store, g.id, phase_name)
        status = "late"
        why, shown = _both(
            "%(phase)s has already been processed; the game is now in %(current)s",
            lang,
            phase=PhaseName(phase_name),
            current=PhaseName(current_name),
        )
        if done is not None and done.deadline is not None and when <= done.deadline:
            # It came in time; it was taken in only after the phase was processed (nobody fetched before).
            status = "missed"
            why, shown = (
                _both(
                    "it arrived on time (%(received)s UTC, before the deadline of %(phase)s, %(deadline)s UTC), but "
                    "%(phase)s was processed at %(processed)s UTC, before this message was fetched, so it was not "
                    "used; the coordinator has it and only a rollback of the game could use it now",
                    lang,
                    phase=PhaseName(phase_name),
                    received=f"{when:%Y-%m-%d %H:%M}",
                    deadline=f"{done.deadline:%Y-%m-%d %H:%M}",
                    processed=f"{done.processed_at:%Y-%m-%d %H:%M}",
                )
                if done.processed_at is not None
                else _both(
                    "it arrived on time but %(phase)s was processed before it was fetched, so it was not used",
                    lang,
                    phase=PhaseName(phase_name),
                )
            )
        out = _refuse(
            msg,
            mail_id,
            now,
            why,
            next_subject(),
            status=status,
            reading=reading,
            game_id=g.id,
            registered=True,
            lang=lang,
            shown=shown,
        )
        return out.about(game=names.title, power=power, phase=phase_name)
    if reading.phase > names.phase:
        why, shown = _both(
            "%(phase)s is not open yet; the game is in %(current)s",
            lang,
            phase=PhaseName(phase_name),
            current=PhaseName(current_name),
        )
        out = _refuse(
            msg,
            mail_id,
            now,
            why,
            next_subject(),
            reading=reading,
            game_id=g.id,
            registered=True,
            lang=lang,
            shown=shown,
        )
        return out.about(game=names.title, power=power, phase=phase_name)
    return None


def _orders(
    at: _ForPower,
    proof: Proof | None,
    *,
    when: datetime,
    token_note: str,
    next_subject: Callable[..., str],
) -> _Decided:
    """Orders for the open phase from the power's proven address: the votes its lines cast, then the orders
    sent through the use case every door sends them by, the message's record and receipt written in the
    submission's own transaction; photographs alone get their own receipt."""
    store, msg, mail_id, now, names, g, ph = at.store, at.msg, at.mail_id, at.now, at.names, at.g, at.ph
    power, reading = at.power, at.reading
    assert ph is not None and names.phase is not None
    v = names.variant
    settings = Settings.from_data(g.settings)
    lang = settings.language
    _ = translations(lang).gettext
    base = {"subject": reading.to_data(v)}
    current_name = v.calendar.name(names.phase)
    # The orders: the body (cleaned), else text attachments; photographs are kept for transcription.
    found = _orders_in(msg, names, g, ph, power, reading, proof)
    text, notes, kept = found.text, found.notes, found.kept
    deadline = compose._when(settings, ph.deadline, lang)
    late = ph.deadline is not None and when > ph.deadline
    if not text.strip():
        if msg.images():
            return _photo_receipt(at, found, when=when, late=late, token_note=token_note, next_subject=next_subject)
        why, shown = _both(
            "no orders found in the message (its text, after quoted lines and the signature, was empty) and no "
            "photograph",
            lang,
        )
        return _refuse(
            msg,
            mail_id,
            now,
            why,
            next_subject(),
            reading=reading,
            game_id=g.id,
            registered=True,
            lang=lang,
            shown=shown,
        )

    # The vote lines act first (each in its own transaction, under the game's lock), so the receipt made
    # inside the orders' transaction says what each did; the orders go on without them.
    voted, text = mail_votes(store, g.name, power, text, now=now)
    made: list[tuple[str, Msg, list[str]]] = []
    phase_kind = v.calendar.kind(names.phase)

    def receipt_of(result: SubmitResult) -> list[Finish]:
        """The message's record and receipt, made of the store's receipt inside the submission's transaction:
        the orders, their message's record and its receipt are committed together (no reads of the database
        here: it holds the power's lock)."""
        status = "late" if result.late else "accepted"
        counted = Submitted(result)
        why = (
            Msg(N_("version %(version)d recorded after the deadline: late, not used"), {"version": result.version})
            if result.late
            else Msg(
                N_("version %(version)d recorded (%(accepted)d accepted, %(rejected)d rejected)"),
                {"version": result.version, "accepted": counted.accepted, "rejected": counted.rejected},
            )
        )
        told = list(notes)
        recorded = {**base, "notes": list(notes)}  # the notes on how it was read, before the receipt's own
        shown_notes = list(found.shown)
        told.extend(str(m) for m in voted)
        shown_notes.extend(say(m, lang, "mail") for m in voted)
        if result.notes:
            lines = "; ".join(repr(n) for n in result.notes)
            told.append("version lines: " + lines)
            shown_notes.append(_("version lines: %(lines)s") % {"lines": lines})
        if msg.images() and not result.late:
            told.append(
                "the photograph(s) with it are reviewed by the coordinator after the deadline; orders confirmed "
                "from them count over this message's text (the phase waits for that review)"
            )
            shown_notes.append(
                _(
                    "the photograph(s) with it are reviewed by the coordinator after the deadline; orders confirmed from "
                    "them count over this message's text (the phase waits for that review)"
                )
            )
        body_text = compose.receipt_text(
            game_title=names.title,
            power=power,
            phase=phase_words(result.phase, lang),
            version=result.version,
            label=result.label,
            received=settings.describe(when),
            lines=result.lines,
            late=result.late,
            standing=result.standing,
            reinstates=result.reinstates,
            deadline=deadline,
            next_subject=suggest_subject(names, power, result.version + 1),
            notes=[*shown_notes, token_note],
            attachments=kept,
            variant=v,
            kind=phase_kind,
            lang=lang,
        )
        receipt = _reply(
            msg,
            mail_id,
            to=msg.sender,
            kind="receipt",
            subject=_("Receipt: %(subject)s - version %(version)d")
            % {"subject": suggest_subject(names, power), "version": result.version},
            body=body_text,
            now=now,
            game_id=g.id,
            phase_id=ph.id,
        )
        made.append((status, why, told))
        values = {
            "status": status,
            "reason": why,
            "game_id": g.id,
            "phase_id": ph.id,
            "power": power,
            "submission_id": result.submission_id,
            "reading": recorded,
        }
        return [Finish(mail_id, values, [receipt])]

    try:
        label = str(reading.version) if reading.version is not None else None
        # Named phase: if the phase is processed between reading the subject and recording the orders, they
        # are refused with the reason instead of landing in the next phase, which they were not written for.
        # A line "Ready" marks the power ready, as the web's box does: the game goes on now if every power is.
        sent = send_orders(
            store,
            g.name,
            power,
            text,
            now=now,
            received=when,
            source="mail",
            label=label,
            phase=ph.name,
            then=receipt_of,
        )
    except GameError as e:
        # The votes acted before (a last yes may have ended the game the orders were for): the reply says both.
        shown = "\n".join([say(e.msg, lang, "mail"), *(say(m, lang, "mail") for m in voted)])
        out = _refuse(
            msg,
            mail_id,
            now,
            e.msg,
            next_subject(),
            reading=reading,
            game_id=g.id,
            registered=True,
            lang=lang,
            shown=shown,
        )
        return out.about(game=names.title, power=power, phase=current_name)
    status, why, told = made[-1]
    after = None
    if sent.processed:
        # Told after the fact: the phases went on in their own transactions, once the orders were recorded.
        why = Msg(
            N_("%(reason)s; every power was ready: %(phases)s processed"),
            {"reason": why, "phases": ", ".join(sent.processed)},
        )
        after = _finish(mail_id, was=status, reason=why)
    outcome = IntakeOutcome(
        status,
        why,
        game=names.title,
        power=power,
        phase=current_name,
        version=sent.receipt.version,
        replies=1,
        notes=told,
    )
    return _Decided(outcome, after)


@dataclass(frozen=True)
class _Orders:
    """What a message for a power says, read without the database: the text taken as its orders (empty when
    there is none), the notes its receipt gives on how it was read, and the attachments kept besides."""

    text: str
    notes: list[str]
    kept: list[str]
    shown: list[str]
    """The notes as the receipt says them, in the game's language (``notes`` are recorded as they are)."""


def _orders_in(
    msg: Inbound, names: GameNames, g: MailGame, ph: MailPhase, power: str, reading: Reading, proof: Proof | None
) -> _Orders:
    """The body (cleaned of quotes, signature, token and the sheet's heading), else the first text attachment
    with orders; a text beside photographs that holds no order is no submission (the photographs are)."""
    v = names.variant
    body, dropped = clean_body(strip_token(msg.body))
    sheet_names = [
        names.name,
        *names.titles,
        *power_names(names).keys(),
        *(r.name for r in g.players if r.power == power),
    ]
    body, heading = strip_sheet(body, sheet_names)
    _ = translations(_lang(g)).gettext
    notes = list(reading.notes)
    shown = list(reading.notes)
    if reading.notes:
        notes = [f"subject: {n}" for n in reading.notes]
        shown = [_("subject: %(note)s") % {"note": n} for n in reading.notes]
    if dropped:
        notes.append("ignored " + "; ".join(dropped))
        shown.append(_("ignored %(what)s") % {"what": "; ".join(dropped)})
    if heading:
        lines = "; ".join(repr(h) for h in heading)
        notes.append("ignored heading lines: " + lines)
        shown.append(_("ignored heading lines: %(lines)s") % {"lines": lines})
    if proof is not None:
        notes.append(f"sender proven: {proof.detail}")
        shown.append(_("sender proven: %(how)s") % {"how": proof.detail})
    text = body
    used_attachment = None
    if not body.strip():
        for a in msg.text_attachments():
            t, _dropped = clean_body(a.data.decode("utf-8", "replace"))
            t, _head2 = strip_sheet(t, sheet_names)
            if t.strip():
                text, used_attachment = t, a.filename
                notes.append(f"orders read from the attachment {a.filename}")
                shown.append(_("orders read from the attachment %(file)s") % {"file": a.filename})
                break
    if text.strip() and msg.images():
        # Beside a photograph, a body with no order in it ("Dear Coordinator, my orders are attached") is
        # not a submission: the rulebook's Coordinator ignores the text of these e-mails.
        pos = position_from_data(v, ph.position)
        checked = check_orders(v, pos, power, read_version_lines(text).text)
        if not submission_stands(checked):
            said = [ln.strip() for ln in text.splitlines() if ln.strip()]
            quoted = "; ".join(repr(x) for x in said[:3]) + ("; ..." if len(said) > 3 else "")
            notes.append(
                "the text beside the photograph(s) has no order in it, so it is not a submission: ignored ("
                + quoted
                + ")"
            )
            shown.append(
                _("the text beside the photograph(s) has no order in it, so it is not a submission: ignored (%(text)s)")
                % {"text": quoted}
            )
            text = ""
    kept = [
        f"{a.filename} ({a.content_type}, {max(1, len(a.data) // 1024)} kB)"
        for a in msg.attachments
        if a.filename != used_attachment
    ]
    return _Orders(text, notes, kept, shown)


def _photo_receipt(
    at: _ForPower,
    found: _Orders,
    *,
    when: datetime,
    late: bool,
    token_note: str,
    next_subject: Callable[..., str],
) -> _Decided:
    """A message whose orders are photographs only: recorded (kept sealed for the coordinator's review, or late
    and not used) and a receipt queued that lists what was kept and the subject for the next version."""
    msg, mail_id, names, g, power = at.msg, at.mail_id, at.names, at.g, at.power
    ph = at.ph
    assert ph is not None and names.phase is not None, "a photograph's receipt is for the open phase"
    settings = Settings.from_data(g.settings)
    lang = settings.language
    _ = translations(lang).gettext
    current_name = names.variant.calendar.name(names.phase)
    status = "late" if late else "photo"
    why = (
        Msg(N_("photograph(s) received after the deadline: recorded as late, not used"))
        if late
        else Msg(N_("photograph(s) kept sealed; the coordinator reviews them after the deadline"))
    )
    base = {"subject": at.reading.to_data(names.variant)}
    # This photograph and any waiting before it each become a version when confirmed: the next version is past
    # them all (this one is not counted among the waiting until it is recorded, with its receipt, below).
    subject = next_subject(0) if late else next_subject(photos=True)
    body_text = (
        _("Your message for %(power)s in %(game)s, %(phase)s, was received %(received)s.")
        % {
            "power": power,
            "game": names.title,
            "phase": phase_words(current_name, lang),
            "received": settings.describe(when),
        }
        + "\n\n"
        + (
            _("It arrived AFTER THE DEADLINE: it is recorded as late and is not used.") + "\n\n"
            if late
            else photo_promise(g.config, lang)
        )
        + _("Kept:")
        + "\n"
        + "".join(f"  {k}\n" for k in found.kept)
        + ("\n" + _("Notes:") + "\n" + "".join(f"  {n}\n" for n in [*found.shown, token_note]))
        + "\n"
        + _("Deadline: %(deadline)s.") % {"deadline": compose._when(settings, ph.deadline, lang)}
        + "\n\n"
        + _("To send a new version, use the subject:")
        + f"\n  {subject}\n\n{compose.sign(lang)}\n"
    )
    receipt = _reply(
        msg,
        mail_id,
        to=msg.sender,
        kind="receipt",
        subject=_("Receipt: %(subject)s") % {"subject": suggest_subject(names, power)},
        body=body_text,
        now=at.now,
        game_id=g.id,
        phase_id=ph.id,
    )
    record = _finish(
        mail_id,
        replies=[receipt],
        status=status,
        reason=why,
        game_id=g.id,
        phase_id=ph.id,
        power=power,
        reading=base,
    )
    outcome = IntakeOutcome(status, why, game=names.title, power=power, phase=current_name, notes=found.notes)
    return _Decided(outcome, record)


def proof_mode(cfg: dict[str, Any]) -> str:
    """``required`` (the default: mail proves its sender or is held) or ``from-address`` (the From header
    alone, for a closed mail system that enforces it): the game's ``mail setup --proof``, else the
    installation's ``DIPPOUCH_MAIL_PROOF``."""
    from dippouch.settings import PROOF_MODES, current

    mode = str(cfg.get("proof") or current().mail_proof or "required").strip().lower()
    return mode if mode in PROOF_MODES else "required"


def _orders_address(token: str) -> str | None:
    sender = _smtp_sender()
    local, at, domain = sender.partition("@")
    return f"{local.partition('+')[0]}+{token}@{domain}" if at and local and domain else None


def _taught_token(g: MailGame, power: str, address: str) -> str | None:
    """The power's token if one was made for this address, as the game's mail settings read with the game
    hold it (``None``: none taught yet, so none to prove with)."""
    mine = dict(dict(g.config.get("tokens") or {}).get(power) or {})
    if mine.get("address") == address.strip().lower() and mine.get("token"):
        return str(mine["token"])
    return None


def _token_note(store: GameStore, g: MailGame, power: str, address: str, now: datetime) -> str:
    """What a receipt teaches the player: their token, and their own orders address where there is one."""
    # Made (a write) only the first time: the settings read with the game already hold a token taught before.
    token = _taught_token(g, power, address) or mail_intake.token(store, g.id, power, address, now=now)
    own = _orders_address(token)
    _ = translations(_lang(g)).gettext
    if own:
        return _(
            "your token for %(power)s is %(token)s: put it in the subject or the text of every message for "
            "%(power)s, or send your orders to %(address)s; mail without it is held until you confirm it (it "
            "proves the mail is yours: keep it to yourself)"
        ) % {"power": power, "token": token, "address": own}
    return _(
        "your token for %(power)s is %(token)s: put it in the subject or the text of every message for "
        "%(power)s; mail without it is held until you confirm it (it proves the mail is yours: keep it to "
        "yourself)"
    ) % {"power": power, "token": token}


@dataclass(frozen=True)
class _ForPower:
    """A message for ``power``: where it came from (the mail log's row), what its subject was read as, and the
    game as read for it. The outcomes that need all of it take it whole: held (each reason to hold one, another
    address or no proof of the sender, adds its own why and notices: :func:`_hold`), or a photograph's receipt
    (:func:`_photo_receipt`)."""

    store: GameStore
    msg: Inbound
    mail_id: int
    now: datetime
    names: GameNames
    g: MailGame
    ph: MailPhase | None
    power: str
    reading: Reading


def _hold_unproven(held: _ForPower, registered: str) -> _Decided:
    """From the registered address but without proof (no token, no passing DKIM/SPF from a trusted server):
    held, nothing applied. Only the registered address is told, with a code whose reply confirms it, so a
    forger learns nothing and gets nothing applied."""
    store, msg, names, power = held.store, held.msg, held.names, held.power
    code = confirmation_code()
    why = Msg(
        N_(
            "nothing proves that %(power)s's player sent it (no token, no DKIM/SPF pass from a trusted server); "
            "held until the player confirms it, nothing applied"
        ),
        {"power": power},
    )
    token_note = _token_note(store, held.g, power, registered, held.now)
    lang = _lang(held.g)
    _ = translations(lang).gettext
    # The code's words "confirm ..." stay as they are in every language: find_confirmation reads them.
    notice = _Notice(
        registered,
        "confirm",
        _("%(game)s: did you send this? [confirm %(code)s]") % {"game": names.title, "code": code},
        _(
            "A message with the subject\n  %(subject)s\nwas received for %(power)s in %(game)s from this "
            "address, but without your token, so nothing proves it is yours. It is held and nothing in it has "
            "been applied.\n\n"
            "If you sent it, reply to this message keeping 'confirm %(code)s' in the subject: it is then applied "
            "as received when it arrived. If you did not, do nothing (the coordinator sees it held).\n\n"
            "From now on: %(note)s."
        )
        % {"subject": msg.subject, "power": power, "game": names.title, "code": code, "note": token_note}
        + "\n\n"
        + compose.sign(lang)
        + "\n",
    )
    reading_data = {"subject": held.reading.to_data(names.variant), "unproven": True, "confirm": code}
    return _hold(held, why, reading_data, [notice])


class _Notice(NamedTuple):
    """A mail sent about a held message: to whom, its kind in the mail log, subject and text."""

    to: str
    kind: str
    subject: str
    body: str


def _hold(held: _ForPower, why: Msg, reading_data: dict[str, Any], notices: list[_Notice]) -> _Decided:
    """Hold a message for ``power`` with nothing applied, and send ``notices``.

    A message held for the open phase holds that phase for the coordinator's review (store/review.py);
    one for another phase is kept for the record only."""
    mail_id, names, g, ph, reading = held.mail_id, held.names, held.g, held.ph, held.reading
    held_phase = ph.id if ph is not None and names.phase is not None and reading.phase == names.phase else None
    record = _finish(
        mail_id,
        replies=[
            _reply(held.msg, mail_id, to=x.to, kind=x.kind, subject=x.subject, body=x.body, now=held.now, game_id=g.id)
            for x in notices
        ],
        status="held",
        reason=why,
        game_id=g.id,
        phase_id=held_phase,
        power=held.power,
        reading=reading_data,
    )
    phase = names.variant.calendar.name(reading.phase) if reading.phase is not None else None
    return _Decided(IntakeOutcome("held", why, game=names.title, power=held.power, phase=phase), record)


def _confirm_held(store: GameStore, msg: Inbound, mail_id: int, held_id: int, now: datetime) -> _Decided:
    """The player's reply with a held message's code (sent only to the registered address): the held
    message is applied as if proven, received when it arrived. The held message's orders, its record and this
    reply's record with its receipt are one transaction: a fetch killed before it commits leaves both messages
    as they were, and the reply is taken in again."""
    lang = _held_language(store, held_id, now)
    _ = translations(lang).gettext

    def confirmed(applied: IntakeOutcome) -> list[Finish]:
        why = Msg(N_("confirms held message #%(id)d: %(reason)s"), {"id": held_id, "reason": applied.reason})
        receipt = _reply(
            msg,
            mail_id,
            to=msg.sender,
            kind="receipt",
            subject=_("Confirmed: %(subject)s") % {"subject": msg.subject},
            body=(
                _("Thank you: held message #%(id)d is applied as %(what)s, received when it arrived.")
                % {"id": held_id, "what": say(applied.reason, lang, "mail")}
                + "\n\n"
                + compose.sign(lang)
                + "\n"
            ),
            now=now,
        )
        values = {"status": "confirmation", "reason": why, "power": applied.power}
        return [Finish(mail_id, values, [receipt])]

    try:
        applied = apply_held(store, held_id, now=now, by=Msg(N_("the player's confirmation")), also=confirmed)
    except GameError as e:
        why, shown = _both(
            "it confirms held message #%(id)s, which cannot be applied: %(why)s", lang, id=held_id, why=e.msg
        )
        refusal = _reply(
            msg,
            mail_id,
            to=msg.sender,
            kind="reply",
            subject=_("Not applied: %(subject)s") % {"subject": msg.subject},
            body=compose.refusal_text(subject=msg.subject, why=shown, suggestion=None, registered=True, lang=lang),
            now=now,
        )
        record = _finish(mail_id, replies=[refusal], status="refused", reason=why)
        return _Decided(IntakeOutcome("refused", why), record)
    why = Msg(N_("confirms held message #%(id)d: %(reason)s"), {"id": held_id, "reason": applied.reason})
    return _Decided(IntakeOutcome("confirmation", why, power=applied.power, version=applied.version, replies=1))


def _held_language(store: GameStore, held_id: int, now: datetime) -> str:
    """The language of the game a held message was for (English when it names none or cannot be read)."""
    try:
        game = message_record(store, held_id).game
        return store.status(game, now=now, drift=False, due=False).settings.language if game else "en"
    except Exception:  # the reply still goes, in English
        return "en"


def photo_promise(cfg: dict[str, Any], lang: str = "en") -> str:
    """What happens to photographed orders sent on time, as the player is told it (receipts, reminders):
    the phase waits for the coordinator's review (store/review.py), or for the game's review wait."""
    _ = translations(lang).gettext
    wait = cfg.get("review_wait")
    after = (
        _(
            "If the coordinator has not reviewed them %(wait)s after the deadline, the phase is processed without "
            "them and the results say so."
        )
        % {"wait": wait}
        if wait
        else _("The phase is not processed until the coordinator has reviewed them.")
    )
    return (
        _(
            "It has no orders in text, only photograph(s). They are kept sealed; after the deadline the coordinator "
            "reads them (a proposed transcription is checked line by line) and confirms your orders as a version "
            "received when this message arrived. %(after)s A version received later (in text or photographed) "
            "counts over this one."
        )
        % {"after": after}
        + "\n\n"
    )


def _suggest_version(
    store: GameStore,
    games: Sequence[tuple[GameNames, MailGame, MailPhase | None, dict[str, Any]]],
    game: str,
    power: str,
) -> int | None:
    for names, _, ph, _ in games:
        if names.name == game and ph is not None:
            return _next_version(store, ph.id, power)
    return None


def _apply_held_photo(
    store: GameStore,
    mail_id: int,
    game: str,
    power: str,
    *,
    now: datetime,
    by: Msg = _BY_COORDINATOR,
    also: Callable[[IntakeOutcome], Sequence[Finish]] | None = None,
) -> IntakeOutcome:
    """A held message whose orders are photographs: on the coordinator's word it becomes the power's
    photograph for the open phase (as if from the registered address), to be reviewed like any other."""
    st = review_state(store, game, now=now)
    if st.phase_id is None:
        raise GameError(
            msg("game %(game)s has no open phase for the photographs of message #%(id)s", game=repr(game), id=mail_id)
        )
    powers = store.variant(game).power_names
    match = next((p for p in powers if p.lower() == power.strip().lower()), None)
    if match is None:
        raise GameError(
            msg(
                "no power %(power)s in %(game)s; powers: %(powers)s",
                power=repr(power),
                game=game,
                powers=", ".join(powers),
            )
        )
    power = match
    row = message_record(store, mail_id)
    received = row.received_at
    if row.phase is not None and row.phase != st.phase:
        raise GameError(_processed(mail_id, row.phase))
    if st.deadline is not None and received > st.deadline:
        raise GameError(
            msg(
                "message #%(id)s arrived %(time)s UTC, after the deadline of %(phase)s; it is not used",
                id=mail_id,
                time=f"{received:%Y-%m-%d %H:%M}",
                phase=PhaseName(st.phase or ""),
            )
        )
    out = IntakeOutcome(
        "photo",
        msg(
            "%(power)s's photograph(s) for %(phase)s: review them with `dippouch mail review %(game)s`",
            power=power,
            phase=PhaseName(st.phase or ""),
            game=game,
        ),
        mail_id=mail_id,
        power=power,
    )
    values = {
        "status": "photo",
        "reason": msg(
            "applied on %(by)s's word as %(power)s's photograph(s); they wait for review "
            "(`dippouch mail review %(game)s`)",
            by=by,
            power=power,
            game=game,
        ),
        "phase_id": st.phase_id,
        "power": power,
    }
    mail_intake.finish_all(store, [Finish(mail_id, values, was="held"), *(also(out) if also is not None else ())])
    return out


def _processed(mail_id: int, phase: str) -> Msg:
    return msg(
        "message #%(id)s was for %(phase)s, which has been processed; it cannot be used now",
        id=mail_id,
        phase=PhaseName(phase),
    )


def _not_held(mail_id: int, status: str) -> Msg:
    return msg("message #%(id)s is %(status)s, not held; only held messages are applied", id=mail_id, status=status)


def apply_held(
    store: GameStore,
    mail_id: int,
    *,
    now: datetime,
    power: str | None = None,
    by: Msg = _BY_COORDINATOR,
    also: Callable[[IntakeOutcome], Sequence[Finish]] | None = None,
) -> IntakeOutcome:
    """The coordinator's word: apply a held message as if it came from the registered address (its orders
    become a version received when the message arrived). ``power`` overrides the subject's reading.

    The orders and the held message's record are one transaction (and so is ``also``: the record of the
    player's reply that confirmed it, made of what became of the held message), so the held message is applied
    once even if the process dies or another applies it at the same moment (refused then as no longer held)."""
    try:
        return _apply_held(store, mail_id, now=as_utc(now), power=power, by=by, also=also)
    except MessageTaken as e:
        if e.mail_id != mail_id:
            raise  # the confirming reply was taken in by another process: that one answers it
        raise GameError(_not_held(mail_id, e.status)) from None


def _apply_held(
    store: GameStore,
    mail_id: int,
    *,
    now: datetime,
    power: str | None,
    by: Msg,
    also: Callable[[IntakeOutcome], Sequence[Finish]] | None,
) -> IntakeOutcome:
    row = message_record(store, mail_id)
    if row.status != "held":
        raise GameError(_not_held(mail_id, row.status))
    raw, held_power, when = row.raw, row.power, row.received_at
    if row.game is None:
        raise GameError(msg("message #%(id)s is for no game", id=mail_id))
    gname = row.game
    if row.phase is not None:
        # Held for a phase: once that phase is processed, its orders would land in the next one.
        open_now = review_state(store, gname, now=now).phase
        if open_now != row.phase:
            raise GameError(_processed(mail_id, row.phase))
    parsed = parse_message(raw)
    who = power or held_power
    if who is None:
        raise GameError(msg("message #%(id)s names no power; say which with --power", id=mail_id))
    body, _ = clean_body(strip_token(parsed.body))
    body, _ = strip_sheet(body, [gname, who])
    if not body.strip():
        for a in parsed.text_attachments():
            t, _ = clean_body(a.data.decode("utf-8", "replace"))
            if t.strip():
                body = t
                break
    if not body.strip():
        if parsed.images():
            return _apply_held_photo(store, mail_id, gname, who, now=now, by=by, also=also)
        raise GameError(
            msg("message #%(id)s has no text orders and no photograph; nothing in it can be applied", id=mail_id)
        )

    def applied_as(result: SubmitResult) -> list[Finish]:
        out = _applied(mail_id, result)
        values = {
            "status": "applied",
            "reason": msg(
                "applied on %(by)s's word as %(power)s version %(version)d",
                by=by,
                power=result.power,
                version=result.version,
            ),
            "submission_id": result.submission_id,
            "power": result.power,
        }
        return [Finish(mail_id, values, was="held"), *(also(out) if also is not None else ())]

    # Through the use case every door sends orders by (the same size check as a mail taken in at once), as
    # received when the message arrived.
    sent = held_mail.apply_orders(store, gname, who, body, received=when, now=now, then=applied_as)
    return _applied(mail_id, sent.receipt)


def _applied(mail_id: int, result: SubmitResult) -> IntakeOutcome:
    return IntakeOutcome(
        "applied",
        msg("%(power)s version %(version)d", power=result.power, version=result.version),
        mail_id=mail_id,
        power=result.power,
        version=result.version,
    )
