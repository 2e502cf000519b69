"""The one reminder policy: which deadlines are near, for whom, and at which lead time, for the game's own mail
and the notifications alike.

The rule, one for both: a reminder goes at a lead time before the deadline once that lead is reached, and
only the nearest lead reached counts (a game set up 10 hours before its deadline gets the 12-hour reminder,
not the 48-hour one as well); each (phase, power, lead) is reminded once. The leads are the game mail's
(``mail setup --reminders``, default :data:`DEFAULT_REMINDERS`) and each person's own (their notification
settings, default 12 hours). Whose orders are missing is decided once per phase
(:func:`dippouch.store.notify.events.missing_orders`): a power that must act and has no accepted order standing, is
not ready, and sent no photograph waiting for the coordinator's review.

A lead is scaled to the phase (:func:`scaled`): a reminder earlier than :data:`SHARE` of the phase before its
deadline would arrive with the results of the phase before (a 12-hour lead in a 1-hour phase fired the moment
the phase opened, beside its results), so a person's lead, and the game mail's default leads, are cut to that
share; a phase shorter than :data:`SHORTEST` gets no reminder at all (its players are at the board). A
coordinator's own ``mail setup --reminders`` are kept as given. In a game's first phase nobody is reminded
before they were told the game started.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from dippouch.game import GameError, parse_duration
from dippouch.i18n import translations
from dippouch.notify.events import DEFAULT_DEADLINE_HOURS
from dippouch.notify.registry import LOOK_BACK, Event, Look, Reader
from dippouch.store.mail.games import mail_games
from dippouch.store.notify import events as logged
from dippouch.store.notify import stored

__all__ = [
    "DEFAULT_REMINDERS",
    "I18N_DOMAIN",
    "SHARE",
    "SHORTEST",
    "due",
    "game_leads",
    "lead_reached",
    "left",
    "scaled",
]

I18N_DOMAIN = "mail"
"""The time left, as a reminder says it, in the reader's language."""

DEFAULT_REMINDERS = ("48h", "12h")
"""The game mail's lead times when ``mail setup`` names none."""

SHARE = 0.25
"""The most of a phase a reminder may come before its deadline: three quarters of the phase are the player's
before anyone reminds them."""
SHORTEST = timedelta(hours=3)
"""A phase shorter than this gets no reminder: in a live game the players are at the board, and a reminder
would only add a mail to the results."""


def scaled(leads: Iterable[timedelta], length: timedelta | None) -> list[timedelta]:
    """``leads`` as a phase of ``length`` allows them (None: unknown length, kept as given): none for a phase
    shorter than :data:`SHORTEST`, each cut to :data:`SHARE` of the phase, the same lead once."""
    leads = list(leads)
    if length is None:
        return leads
    if length < SHORTEST:
        return []
    most = length * SHARE
    return sorted({min(lead, most) for lead in leads}, reverse=True)


def lead_reached(deadline: datetime, leads: Iterable[timedelta], now: datetime) -> timedelta | None:
    """The nearest lead time before ``deadline`` that ``now`` has reached, or None (none reached yet, or the
    deadline has passed)."""
    if now >= deadline:
        return None
    reached = [lead for lead in leads if deadline - lead <= now]
    return min(reached) if reached else None


def game_leads(config: Mapping[str, Any], length: timedelta | None = None) -> list[timedelta]:
    """The game mail's lead times (none when its settings cannot be read: no reminder beats a wrong one); the
    defaults scaled to a phase of ``length`` (:func:`scaled`), a coordinator's own choice as given."""
    try:
        given = [parse_duration(str(x)) for x in config.get("reminders", DEFAULT_REMINDERS)]
    except GameError:
        return []
    return given if "reminders" in config else scaled(given, length)


def left(td: timedelta, lang: str = "en") -> str:
    """The time left, as a reminder says it: rounded down (a reminder never promises more time than there is;
    under a minute still says "1 minute"), in the singular for one, in ``lang``."""
    t = translations(lang)
    hours = int(td.total_seconds() // 3600)
    if hours >= 48:
        days = hours // 24
        return t.ngettext("%(num)d day", "%(num)d days", days) % {"num": days}
    if hours >= 1:
        return t.ngettext("%(num)d hour", "%(num)d hours", hours) % {"num": hours}
    minutes = max(1, int(td.total_seconds() // 60))
    return t.ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}


def due(look: Look) -> list[Event]:
    """A ``deadline`` event for each open phase with a lead reached by its game's mail or a seated person
    whose orders are missing. Its ``detail``: ``phase_id``, ``phase``, ``deadline`` (the moment), ``missing``
    (powers), ``mail_lead`` (the game mail's lead reached, or None); its readers: the seated people to
    notify, each at their own lead."""
    store, now = look.store, look.now
    mail = {g.id: g.config for g in mail_games(store) if g.status == "active"}
    longest = max(
        [
            timedelta(hours=stored.longest_lead(store, DEFAULT_DEADLINE_HOURS)),
            *(x for cfg in mail.values() for x in game_leads(cfg)),
        ]
    )
    out: list[Event] = []
    near = stored.phases_due_within(store, now, longest)
    # Every open phase within the longest lead is read every look: the seats of all in one query (few rows: the
    # seats people hold), the settings only of the games someone is reminded in (below).
    look.prefetch_seated(ph.game_id for ph in near)
    for ph in near:
        assert ph.deadline is not None
        length = ph.deadline - ph.at if ph.at is not None else None
        mail_lead = lead_reached(ph.deadline, game_leads(mail[ph.game_id], length), now) if ph.game_id in mail else None
        # A start recent enough to be told (older ones never are, :data:`LOOK_BACK`) is told first.
        told = _told_of_start(look, ph) if ph.seq == 0 and ph.at is not None and ph.at >= now - LOOK_BACK else None
        people = []
        for pid, power in look.seated(ph.game_id):
            if told is not None and pid not in told:
                continue  # "orders missing" never comes before "is starting"
            prefs = look.prefs(pid)
            hours = prefs.deadline_hours
            lead = scaled([timedelta(hours=hours)], length)
            if lead and lead_reached(ph.deadline, lead, now) is not None:
                people.append((pid, power, prefs, int(lead[0].total_seconds() // 60)))
        if mail_lead is None and not people:
            continue
        missing = logged.missing_orders(store, ph.phase_id)
        if not missing:
            continue
        facts = {
            "game": ph.game,
            "phase": ph.phase,
            "deadline": look.describe(ph.game, ph.deadline),
            "left": left(ph.deadline - now),
        }
        readers = tuple(
            Reader(
                pid,
                power,
                f"{ph.phase_id}:{power}:{_lead_name(minutes)}",
                {**facts, "power": power},
                prefs,
                mark=f"deadline:{ph.phase_id}:{pid}:{power}:{_lead_name(minutes)}",
            )
            for pid, power, prefs, minutes in people
            if power in missing
        )
        detail = {
            "phase_id": ph.phase_id,
            "phase": ph.phase,
            "deadline": ph.deadline,
            "missing": sorted(missing),
            "mail_lead": mail_lead,
        }
        out.append(Event("deadline", now, ph.game_id, ph.game, detail, readers))
    return out


def _lead_name(minutes: int) -> str:
    """A lead in a reminder's key: whole hours as the hours (the keys reminders had before leads were scaled),
    else the minutes."""
    return str(minutes // 60) if minutes % 60 == 0 else f"{minutes}m"


def _told_of_start(look: Look, ph: stored.PhaseFact) -> set[int]:
    """The seated people of a game in its first phase who were told it started (by any channel, or by none
    they chose: the start's mark is recorded either way)."""
    seated = look.seated(ph.game_id)
    marks = {
        f"game_starting:{ph.game_id}:{pid}{suffix}": pid
        for pid, _power in seated
        for suffix in ("", ":email", ":push", ":webhook")
    }
    return {marks[k] for k in stored.marked_keys(look.store, marks)}
