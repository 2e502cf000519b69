"""What the three notification channels share: an event told to each of its readers by their choices, queued
once per occurrence and channel.

Each channel records its own mark (``<occurrence>:<channel>``) with its deliveries; the mark the scan it
replaced recorded for all three channels at once (``<occurrence>``) is honoured too, so a database the scan
worked on gets nothing twice when the dispatcher takes over.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from dippouch.i18n import DEFAULT, LANGUAGES
from dippouch.notify import summary
from dippouch.notify.queue import items_for
from dippouch.notify.registry import Event, Look, Reader
from dippouch.notify.reminders import left
from dippouch.store.mail.games import mail_games
from dippouch.store.notify import stored
from dippouch.store.people.persons import preferences_of
from dippouch.store.press import messages as press

__all__ = ["EMAIL_KINDS", "I18N_DOMAIN", "PERSON_KINDS", "language", "tell"]

I18N_DOMAIN = "mail"
"""A notification is a message to one person: in their language, else the game's (:mod:`dippouch.notify.texts`)."""

PERSON_KINDS = frozenset(
    {
        "phase_processed",
        "game_starting",
        "seat_offered",
        "message_received",
        "deadline",
        "seat_lost",
        "game_ended",
        "proposal",
    }
)
"""The events a person chooses to be told about (:data:`dippouch.notify.events.EVENTS`)."""
EMAIL_KINDS = PERSON_KINDS - {"game_ended"}
"""The events the e-mail channel tells: a game's end is mailed by the mail side, with the scores and the
player's rating (:mod:`dippouch.mail.notices`), which this package cannot reach."""


def _person_language(look: Look, event: Event, person_id: int) -> str | None:
    """The language the person chose (:func:`dippouch.store.people.persons.preferences_of`), read once a look per
    person, for all of an event's readers at once."""
    chosen: dict[int, str | None] = look.once("people-languages", dict)
    if person_id not in chosen:
        ids = sorted(({r.person_id for r in event.readers} | {person_id}) - set(chosen))
        found = preferences_of(look.store, ids)
        for pid in ids:
            lang = found[pid].language if pid in found else None
            chosen[pid] = lang if lang in LANGUAGES else None
    return chosen[person_id]


def _game_language(look: Look, game: str) -> str:
    """The game's language (:attr:`GameSettings.language`), with the settings read once a look per game (the
    key :meth:`Look.describe` reads them under)."""
    if not game:
        return DEFAULT
    try:
        return look.settings(game).language
    except Exception:  # a game whose settings cannot be read: English is always right
        return DEFAULT


def language(look: Look, event: Event, person_id: int) -> str:
    """A notification's language: the person's own choice, else the game's, else English."""
    return _person_language(look, event, person_id) or _game_language(look, event.game)


def _facts(look: Look, event: Event, r: Reader) -> dict[str, Any]:
    """The reader's facts with their language, and the time left said in it."""
    lang = language(look, event, r.person_id)
    facts = {**r.facts, "lang": lang}
    if event.kind == "phase_processed" and event.phase is not None:
        ph = event.phase
        found: summary.PhaseSummary | None = look.once(
            f"summary:{ph.phase_id}", lambda: summary.read(look.store, event.game, ph.phase_id)
        )
        if found is not None:
            facts["summary"] = found.text(r.power, lang)
    deadline = event.detail.get("deadline")
    if event.kind == "deadline" and isinstance(deadline, datetime) and lang != DEFAULT:
        facts["left"] = left(deadline - look.now, lang)
    return facts


def _items(look: Look, event: Event, r: Reader, channel: str) -> list[dict[str, Any]]:
    if channel == "email" and event.kind == "message_received" and press.copied(look.store, int(r.key), r.power):
        return []  # the press's copy with its reply code is this message's e-mail: never two for one message
    if channel == "email" and event.kind == "phase_processed":
        if r.person_id in _mailed_results(look, event):
            return []  # the game's own mail sends them its whole report: one mail a phase, not two
        if event.phase is not None and not event.phase.next_name:
            return []  # the game ended there: its end mail, with the scores, is the one mail
    return items_for(
        look.store,
        r.person_id,
        event.kind,
        key=r.key,
        facts=_facts(look, event, r),
        game_id=event.game_id,
        prefs=r.prefs,
        only=channel,
        targets=None if channel == "email" else look.targets(r.person_id),
    )


def _mailed_results(look: Look, event: Event) -> set[int]:
    """The readers whose address gets the game's own results mail (a game whose mail is set up mails its whole
    report to every player with an address), read once a look per game."""

    def find() -> set[int]:
        games = look.once("mail:games", lambda: {g.id: g for g in mail_games(look.store)})
        g = games.get(event.game_id)
        if g is None:
            return set()
        addresses = {r.email.lower() for r in g.players if r.replaced_at is None and r.email}
        emails = stored.emails_of(look.store, [r.person_id for r in event.readers])
        return {pid for pid, email in emails.items() if email.lower() in addresses}

    got: set[int] = look.once(f"mailed-results:{event.game_id}", find)
    return got


def tell(event: Event, look: Look, channel: str) -> int:
    """Queue ``event`` by ``channel`` for each of its readers who chose it; how many deliveries are new."""
    if not event.readers:
        return 0  # nobody to tell (a game whose seats no account holds): nothing to read, queue or mark
    if event.row is not None and event.at < look.notify_since():
        return 0  # from before notifications started here, or too old to be news
    if event.mark is not None:
        if stored.marked_keys(look.store, [event.mark, f"{event.mark}:{channel}"]):
            return 0
        items = [i for r in event.readers for i in _items(look, event, r, channel)]
        return stored.queue_deliveries(
            look.store, items, now=look.now, mark=f"{event.mark}:{channel}", unless=[event.mark]
        )
    mine = [(r, r.mark) for r in event.readers if r.mark is not None]
    seen = stored.marked_keys(look.store, [k for _, m in mine for k in (m, f"{m}:{channel}")])
    count = 0
    for r, m in mine:
        if m in seen or f"{m}:{channel}" in seen:
            continue
        count += stored.queue_deliveries(
            look.store, _items(look, event, r, channel), now=look.now, mark=f"{m}:{channel}", unless=[m]
        )
    return count
