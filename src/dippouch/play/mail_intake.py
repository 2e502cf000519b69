"""Taking mail in, once for every way it arrives (``dippouch mail fetch``, the workers' fetch, a file piped to
``dippouch mail take-in``). The mail door reads a message once (:mod:`dippouch.letters`: its sender, subject,
body and attachments) and hands it here with what the mail log keeps of it (:class:`Arrival`); the use case
decides what becomes of it and writes that once.

Each message is written twice at most, and each write is one transaction: its claim (:func:`claim`: the same
message fetched twice, or by two processes, is taken in once) and what became of it with the replies it gets
(:func:`dippouch.play.mail_record.finish`). Orders and held mail are recorded by the use case that sends them
(:func:`dippouch.play.orders.send_orders`, :mod:`dippouch.play.held_mail`), the message's record made in the
orders' own transaction; press replies by :mod:`dippouch.play.press_replies`. What the mailbox was read up to
(:func:`fetched`) and a player's token (:func:`token`) are the intake's other writes.

The decision (:func:`_decide`) goes step by step, each step a function that either answers the message or
hands it on: automatic mail and mail with no address are ignored; a press reply goes to its channel; a reply
with a held message's code confirms it (:func:`_confirm_held`); a subject that names no game, power and phase
is refused (:func:`_unreadable`); mail from another address than the power's (:func:`_from_another_address`)
or without proof of its sender (:func:`_hold_unproven`) is held; mail for another phase is refused
(:func:`_not_this_phase`); the rest are orders or photographs (:mod:`dippouch.play.mail_orders`).

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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from dippouch.core.messages import N_, Arg, Msg, PhaseName, msg
from dippouch.game import (
    GameError,
    GameSettings,
    as_utc,
    position_from_data,
)
from dippouch.i18n import translations
from dippouch.letters import compose
from dippouch.letters.message import Inbound, strip_sheet
from dippouch.letters.proof import Proof, confirmation_code, find_confirmation, proof_of_sender, strip_token
from dippouch.letters.subject import GameNames, Reading, power_names, read_subject, suggest_subject
from dippouch.play import mail_orders
from dippouch.play.held_mail import apply_held
from dippouch.play.mail_record import (
    ForPower,
    HeldNotice,
    IntakeOutcome,
    MailDecision,
    answering_as,
    finish,
    from_address,
    game_language,
    record_of,
    refuse,
    reply,
    said_both,
)
from dippouch.play.press_replies import press_token, take_reply
from dippouch.saying import say
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import variant_copy as variant_copy
from dippouch.store.mail.games import MailGame, MailPhase, games_for_mail, mail_config
from dippouch.store.mail.games import game_id as find_game
from dippouch.store.mail.inbox import Finish, MessageTaken, held_by_confirmation, message_record, next_version
from dippouch.store.mail.review import next_version_past_photos, processed_phase
from dippouch.store.repository import GameStore

if TYPE_CHECKING:
    from dippouch.store.mail.inbox import Claim

__all__ = [
    "I18N_DOMAIN",
    "Arrival",
    "claim",
    "fetched",
    "game_names",
    "proof_mode",
    "strip_letter_heading",
    "take_in",
    "token",
]

I18N_DOMAIN = "mail"
"""The receipts and replies are in the mail's words, in the game's language once the game is known."""


@dataclass(frozen=True)
class Arrival:
    """A message as it came, read once by the door: what the mail log keeps of it before anything is decided."""

    raw: bytes
    message_id: str | None
    sender: str
    subject: str
    origin: str
    received_at: datetime
    fetched_at: datetime
    reading: Mapping[str, Any]
    attachments: Sequence[Any]
    """Each with ``filename``, ``content_type`` and ``data``: kept sealed with the message."""


def claim(store: GameStore, arrival: Arrival, *, is_copy: Callable[[bytes], bool]) -> Claim | Msg:
    """Claim ``arrival`` for intake, or say why it is a duplicate (``is_copy(raw)``: the door's word that a
    stored message with the same Message-ID and sender is this one, re-encoded by another server)."""
    from dippouch.store.mail.inbox import store_message

    return store_message(
        store,
        raw=arrival.raw,
        message_id=arrival.message_id,
        sender=arrival.sender,
        subject=arrival.subject,
        origin=arrival.origin,
        received_at=arrival.received_at,
        fetched_at=arrival.fetched_at,
        reading=dict(arrival.reading),
        attachments=arrival.attachments,
        is_copy=is_copy,
    )


def fetched(store: GameStore, origin: str, validity: int, uid: int) -> None:
    """The mailbox ``origin`` has been read up to message ``uid`` (of its ``validity``): the next fetch starts
    after it. Written after the message was claimed, so a fetch killed between the two reads it again and the
    claim answers it as a duplicate."""
    from dippouch.store.mail.inbox import record_fetched

    record_fetched(store, origin, validity, uid)


def token(store: GameStore, game_id: int, power: str, address: str, *, now: datetime) -> str:
    """The power's token for its registered address, made the first time a receipt or the coordinator's list
    teaches it (and anew for a new address: a new player does not inherit the last one's secret)."""
    from dippouch.store.mail.tokens import player_token

    return player_token(store, game_id, power, address, now=now)


def take_in(
    store: GameStore,
    letter: Inbound,
    arrival: Arrival,
    *,
    is_copy: Callable[[bytes], bool],
    now: datetime,
    sender: str,
) -> IntakeOutcome:
    """Take in one message the door has read (``letter``; ``arrival``: what the log keeps of it), its replies
    from ``sender`` (the installation's From address, read by the door before any transaction). Claimed first:
    the same message fetched twice, or by two processes, is taken once; then decided, and what was decided
    written once. Never raises for a bad message."""
    claimed = claim(store, arrival, is_copy=is_copy)
    if isinstance(claimed, Msg):
        return IntakeOutcome("duplicate", claimed, sender=letter.sender, received=arrival.received_at)
    mail_id, when = claimed.id, as_utc(claimed.received_at)  # a resumed claim keeps the time first recorded
    store.crash_point("mail-in:claimed")
    try:
        with answering_as(sender):
            decided = _decide(store, letter, mail_id, when, now)
            out = decided.outcome
            if decided.record is not None:  # else the use case it called (orders, press, held mail) wrote it
                queued = finish(store, decided.record)
                if decided.record.replies:
                    out.replies = queued
    except MessageTaken as e:
        out = IntakeOutcome(
            "duplicate", Msg(N_("taken in by another process meanwhile (%(status)s)"), {"status": e.status})
        )
    if claimed.resumed:
        out.notes.append(Msg(N_("taken in again: the fetch that first claimed it stopped before it was done")))
    out.mail_id = mail_id
    out.sender = letter.sender
    out.received = when
    store.crash_point("mail-in:recorded")
    return out


def strip_letter_heading(store: GameStore, game: str, power: str, text: str) -> tuple[str, list[str]]:
    """A letter or photographed sheet typed in (``submit --source post``) without the heading the rulebook's
    Annexe 3 suggests (real name, position, game, "Autumn 1642 Movement Orders") and its greetings: those
    lines are not orders, and would otherwise be kept as rejected lines. Returns the text and the lines
    taken off (version lines stay: they are instructions)."""
    v = variant_copy.variant_of(store, game)
    try:
        cfg = mail_config(store, find_game(store, game))
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
    players = [
        name for p, _current, history in store_games.players(store, game) if p.lower() == wanted for name, *_ in history
    ]
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


def _next_version(store: GameStore, phase_id: int, power: str) -> int:
    return next_version(store, phase_id, power)


def _decide(store: GameStore, msg: Inbound, mail_id: int, when: datetime, now: datetime) -> MailDecision:
    """What becomes of a claimed message: its steps in order, the first that answers it decides."""
    return (
        _ignored(msg, mail_id)
        or _press_reply(store, msg, mail_id, now)
        or _confirmation(store, msg, mail_id, now)
        or _for_a_power(store, msg, mail_id, when, now)
    )


def _ignored(msg: Inbound, mail_id: int) -> MailDecision | None:
    """Automatic mail (bounces, auto-replies, lists) and mail with no address are never answered, so mail
    never loops."""
    if msg.automatic:
        why = Msg(N_("not answered: %(what)s"), {"what": msg.automatic})
        return MailDecision(IntakeOutcome("ignored", why), record_of(mail_id, status="ignored", reason=why))
    if "@" not in msg.sender:
        why = Msg(N_("no sender address to answer"))
        return MailDecision(IntakeOutcome("ignored", why), record_of(mail_id, status="ignored", reason=why))
    return None


def _press_reply(store: GameStore, msg: Inbound, mail_id: int, now: datetime) -> MailDecision | None:
    """A reply to a press message (its subject carries the press code), not orders: it goes to its channel
    (:func:`dippouch.play.press_replies.take_reply`, which writes its record)."""
    if press_token(msg) is None:
        return None
    got = take_reply(store, msg, mail_id, now)
    return MailDecision(IntakeOutcome(got.status, got.reason, game=got.game, power=got.power, replies=got.replies))


def _confirmation(store: GameStore, msg: Inbound, mail_id: int, now: datetime) -> MailDecision | None:
    """A reply that carries the code of a message held for its sender (:func:`_confirm_held`)."""
    code = find_confirmation(msg.subject, msg.body)
    held_id = held_by_confirmation(store, msg.sender, code) if code is not None else None
    return _confirm_held(store, msg, mail_id, held_id, now) if held_id is not None else None


def _for_a_power(store: GameStore, msg: Inbound, mail_id: int, when: datetime, now: datetime) -> MailDecision:
    """Mail for a power, as its subject says: refused when the subject names no game, power and phase; held
    when it is not from the power's registered address or nothing proves its sender; else for its phase."""
    games = game_names(store)
    reading = read_subject(strip_token(msg.subject), [n for n, *_ in games])
    if reading.problem or reading.game is None:
        return _unreadable(store, msg, mail_id, now, games, reading, _sender_powers(games, msg.sender))
    names, g, ph, cfg = next(t for t in games if t[0].name == reading.game)
    power = reading.power
    assert power is not None and reading.phase is not None
    lang = GameSettings.from_data(g.settings).language
    at = ForPower(store, msg, mail_id, now, names, g, ph, power, reading)
    registered = _registered(g, power)
    if registered is None or registered.lower() != msg.sender.lower():
        return _from_another_address(at, registered, {"subject": reading.to_data(names.variant)})
    # The sender: the From header is the sender's own word; a token or our server's DKIM/SPF proves it.
    proof = proof_of_sender(
        msg.raw,
        sender=msg.sender,
        subject=msg.subject,
        body=msg.body,
        token=_taught_token(g, power, registered),
        trusted=[str(x) for x in cfg.get("trust_auth", [])],
    )
    if proof is None and proof_mode(cfg) == "required":
        return _hold_unproven(at, registered)
    token_note = _token_note(store, g, power, registered, now)
    return _for_its_phase(at, proof, lang, when=when, token_note=token_note)


def _for_its_phase(at: ForPower, proof: Proof | None, lang: str, *, when: datetime, token_note: str) -> MailDecision:
    """Proven mail for a power: refused when the game is over or the subject names another phase than the
    open one (:func:`_not_this_phase`), else its orders (:func:`dippouch.play.mail_orders.send`)."""
    names, ph, power, store = at.names, at.ph, at.power, at.store
    if ph is None or names.phase is None:
        return refuse(
            at.msg,
            at.mail_id,
            at.now,
            Msg(N_("%(game)s is over"), {"game": names.title}),
            None,
            status="late",
            reading=at.reading,
            game_id=at.g.id,
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

    return _not_this_phase(at, when, next_subject) or mail_orders.send(
        at, proof, when=when, token_note=token_note, next_subject=next_subject
    )


_UNREAD = msg("the subject could not be read")


_NO_GAME = msg("the subject names no game this address takes orders for")


def _unreadable(
    store: GameStore,
    msg: Inbound,
    mail_id: int,
    now: datetime,
    games: Sequence[tuple[GameNames, MailGame, MailPhase | None, dict[str, Any]]],
    reading: Reading,
    mine: Sequence[tuple[GameNames, str]],
) -> MailDecision:
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
    lang = next((game_language(g) for n, g, *_ in games if n.name == named), "en")
    return refuse(msg, mail_id, now, why, suggestion, reading=reading, lang=lang)


def _from_another_address(held: ForPower, registered: str | None, base: dict[str, Any]) -> MailDecision:
    """From an address not registered for the power (or for a power with none): held for the coordinator,
    nothing applied; the sender is told, and so is the registered address."""
    msg, names, power = held.msg, held.names, held.power
    lang = game_language(held.g)
    _ = translations(lang).gettext
    who: dict[str, Arg] = {"sender": msg.sender, "power": power, "game": names.title}
    why, shown = (
        said_both(
            "%(sender)s is not the address registered for %(power)s in %(game)s; held for the coordinator, "
            "nothing applied",
            lang,
            **who,
        )
        if registered
        else said_both(
            "%(power)s in %(game)s has no registered e-mail address; held for the coordinator, nothing applied",
            lang,
            **{k: v for k, v in who.items() if k != "sender"},
        )
    )
    notices = [
        HeldNotice(
            msg.sender,
            "held",
            _("Held for the coordinator: %(subject)s") % {"subject": msg.subject},
            compose.refusal_text(subject=msg.subject, why=shown, suggestion=None, registered=True, lang=lang),
        )
    ]
    if registered:
        notices.append(
            HeldNotice(
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


def _not_this_phase(at: ForPower, when: datetime, next_subject: Callable[..., str]) -> MailDecision | None:
    """Orders for a phase already processed (late, or missed: on time but fetched after the processing) or
    not open yet: refused with the subject for the open phase; ``None`` for the open phase."""
    store, names, g = at.store, at.names, at.g
    power, reading = at.power, at.reading
    assert names.phase is not None and reading.phase is not None
    v = names.variant
    lang = game_language(g)
    _ = translations(lang).gettext
    phase_name = v.calendar.name(reading.phase)
    current_name = v.calendar.name(names.phase)
    if reading.phase < names.phase:
        done = processed_phase(store, g.id, phase_name)
        status = "late"
        why, shown = said_both(
            "%(phase)s has already been processed; the game is now in %(current)s",
            lang,
            phase=PhaseName(phase_name),
            current=PhaseName(current_name),
        )
        if done is not None and done.deadline is not None and when <= done.deadline:
            # It came in time; it was taken in only after the phase was processed (nobody fetched before).
            status = "missed"
            why, shown = (
                said_both(
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
                else said_both(
                    "it arrived on time but %(phase)s was processed before it was fetched, so it was not used",
                    lang,
                    phase=PhaseName(phase_name),
                )
            )
        return at.refused(why, shown, next_subject(), status=status).about(
            game=names.title, power=power, phase=phase_name
        )
    if reading.phase > names.phase:
        why, shown = said_both(
            "%(phase)s is not open yet; the game is in %(current)s",
            lang,
            phase=PhaseName(phase_name),
            current=PhaseName(current_name),
        )
        return at.refused(why, shown, next_subject()).about(game=names.title, power=power, phase=phase_name)
    return None


def proof_mode(cfg: dict[str, Any]) -> str:
    """``required`` (the default: mail proves its sender or is held) or ``from-address`` (the From header
    alone, for a closed mail system that enforces it): the game's ``mail setup --proof``, else the
    installation's ``DIPPOUCH_MAIL_PROOF``."""
    from dippouch.settings import PROOF_MODES, current

    mode = str(cfg.get("proof") or current().mail_proof or "required").strip().lower()
    return mode if mode in PROOF_MODES else "required"


def _orders_address(token: str) -> str | None:
    sender = from_address()
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
    secret = _taught_token(g, power, address) or token(store, g.id, power, address, now=now)
    own = _orders_address(secret)
    _ = translations(game_language(g)).gettext
    if own:
        return _(
            "your token for %(power)s is %(token)s: put it in the subject or the text of every message for "
            "%(power)s, or send your orders to %(address)s; mail without it is held until you confirm it (it "
            "proves the mail is yours: keep it to yourself)"
        ) % {"power": power, "token": secret, "address": own}
    return _(
        "your token for %(power)s is %(token)s: put it in the subject or the text of every message for "
        "%(power)s; mail without it is held until you confirm it (it proves the mail is yours: keep it to "
        "yourself)"
    ) % {"power": power, "token": secret}


def _hold_unproven(held: ForPower, registered: str) -> MailDecision:
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
    lang = game_language(held.g)
    _ = translations(lang).gettext
    # The code's words "confirm ..." stay as they are in every language: find_confirmation reads them.
    notice = HeldNotice(
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


def _hold(held: ForPower, why: Msg, reading_data: dict[str, Any], notices: list[HeldNotice]) -> MailDecision:
    """Hold a message for ``power`` with nothing applied, and send ``notices``.

    A message held for the open phase holds that phase for the coordinator's review (store/mail/review.py);
    one for another phase is kept for the record only."""
    mail_id, names, g, ph, reading = held.mail_id, held.names, held.g, held.ph, held.reading
    held_phase = ph.id if ph is not None and names.phase is not None and reading.phase == names.phase else None
    record = record_of(
        mail_id,
        replies=[
            reply(held.msg, mail_id, to=x.to, kind=x.kind, subject=x.subject, body=x.body, now=held.now, game_id=g.id)
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
    return MailDecision(IntakeOutcome("held", why, game=names.title, power=held.power, phase=phase), record)


def _confirm_held(store: GameStore, msg: Inbound, mail_id: int, held_id: int, now: datetime) -> MailDecision:
    """The player's reply with a held message's code (sent only to the registered address): the held
    message is applied as if proven, received when it arrived. The held message's orders, its record and this
    reply's record with its receipt are one transaction: a fetch killed before it commits leaves both messages
    as they were, and the reply is taken in again."""
    lang = _held_language(store, held_id, now)
    _ = translations(lang).gettext

    def confirmed(applied: IntakeOutcome) -> list[Finish]:
        why = Msg(N_("confirms held message #%(id)d: %(reason)s"), {"id": held_id, "reason": applied.reason})
        receipt = reply(
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
        why, shown = said_both(
            "it confirms held message #%(id)s, which cannot be applied: %(why)s", lang, id=held_id, why=e.msg
        )
        refusal = reply(
            msg,
            mail_id,
            to=msg.sender,
            kind="reply",
            subject=_("Not applied: %(subject)s") % {"subject": msg.subject},
            body=compose.refusal_text(subject=msg.subject, why=shown, suggestion=None, registered=True, lang=lang),
            now=now,
        )
        record = record_of(mail_id, replies=[refusal], status="refused", reason=why)
        return MailDecision(IntakeOutcome("refused", why), record)
    why = Msg(N_("confirms held message #%(id)d: %(reason)s"), {"id": held_id, "reason": applied.reason})
    return MailDecision(IntakeOutcome("confirmation", why, power=applied.power, version=applied.version, replies=1))


def _held_language(store: GameStore, held_id: int, now: datetime) -> str:
    """The language of the game a held message was for (English when it names none or cannot be read)."""
    try:
        game = message_record(store, held_id).game
        return store_status.status(store, game, now=now, drift=False, due=False).settings.language if game else "en"
    except Exception:  # the reply still goes, in English
        return "en"


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
