"""Mail the game sends on its own: results after each processed phase, reminders before deadlines, and
notices (civil disorder, pause, resume, extension, rollback).

Each notice is recorded under a key (``mail_notices``) in the same transaction as the messages it queues,
so whichever process runs these functions, and however often, each notice goes out once. They only
concern games whose mail has been set up (``dippouch mail setup GAME``), and only what happened after
that: setting up mail in the middle of a game does not mail its whole history.

The deadline workers call :func:`queue_notices` and :func:`queue_reminders` on a timer, then
:func:`dippouch.mail.outbox.send_due`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import (
    GameError,
    Settings,
    as_utc,
    parse_duration,
    position_from_data,
    powers_to_act,
    unordered,
)
from dippouch.mail import compose
from dippouch.mail.outbox import OutFile
from dippouch.names import joined, unit_text
from dippouch.play.reports import phase_map_file, stored_report
from dippouch.store import GameStore
from dippouch.store.mail_games import (
    MailGame,
    civil_disorder,
    events_since,
    mail_games,
    open_phase,
    processed_since,
    update_mail_config,
)
from dippouch.store.mail_games import game_id as find_game
from dippouch.store.outbox import Notice, notice_claimed, queue_mail, queue_notices_once
from dippouch.store.review import left_unreviewed

__all__ = ["DEFAULT_REMINDERS", "MapAttacher", "queue_notices", "queue_reminders", "queue_results"]

log = logging.getLogger("dippouch.mail.notices")

DEFAULT_REMINDERS = ("48h", "12h")

MapAttacher = Callable[[GameStore, str, int, str], Sequence[OutFile]]
"""(store, game, phase id, format) -> files: the map of a processed phase (the maps issue's renderer)."""


@dataclass
class Queued:
    notices: list[str]
    messages: int


def _domain() -> str:
    from dippouch.core.errors import DippouchError
    from dippouch.mail.settings import load_settings

    try:
        return (load_settings("smtp").sender or "").rpartition("@")[2] or "dippouch.invalid"
    except DippouchError:
        return "dippouch.invalid"


def _recipients(g: MailGame, cfg: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(address, power) of every current player with an address, then the observers (power None)."""
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for r in g.players:
        if r.replaced_at is None and r.email and r.email.lower() not in seen:
            out.append((r.email, r.power))
            seen.add(r.email.lower())
    for o in cfg.get("observers", []):
        if str(o).lower() not in seen:
            out.append((str(o), None))
            seen.add(str(o).lower())
    return out


def _since(cfg: dict[str, Any]) -> datetime:
    return as_utc(datetime.fromisoformat(str(cfg["since"])))


def _title(g: MailGame, cfg: dict[str, Any]) -> str:
    titles = cfg.get("titles") or []
    return str(titles[0]) if titles else g.name


def default_maps(store: GameStore, game: str, phase_id: int, fmt: str) -> Sequence[OutFile]:
    """The map of a processed phase, drawn by :func:`dippouch.play.reports.phase_map_file`; none where it cannot
    be drawn (no geometry built for a user variant, a stale geometry file, no Cairo library), since the
    results text is complete without it."""
    try:
        filename, content_type, data = phase_map_file(store, game, phase_id, fmt)
    except (FileNotFoundError, ImportError, ValueError) as e:
        log.warning("results of %s go without the map: %s", game, e)
        return []
    return [OutFile(filename, content_type, data)]


def queue_results(store: GameStore, now: datetime, *, maps: MapAttacher | None = None) -> Queued:
    """Queue the results report of every phase processed since mail was set up, to every player with an
    address and every observer, with the map of Winter phases (or of every phase, ``maps = "every"``)."""
    now = as_utc(now)
    attach = maps or default_maps
    done: list[str] = []
    count = 0
    todo = []
    games = {g.id: g for g in mail_games(store)}
    for g in games.values():
        for phase_id, phase_name, kind in processed_since(store, g.id, _since(g.config)):
            todo.append((g.id, g.name, phase_id, phase_name, kind, g.config))
    for game_id, name, phase_id, phase_name, kind, cfg in todo:
        if notice_claimed(store, f"results:{phase_id}"):
            continue
        report = stored_report(store, name, phase_id=phase_id)
        left = left_unreviewed(store, phase_id)
        if left:
            report += (
                "\nPhotographs and mail processed without the coordinator's review (the phase was released, or "
                "its review wait ran out):\n" + "".join(f"  {x}\n" for x in left)
            )
        mode = str(cfg.get("maps", "winter"))
        files: Sequence[OutFile] = []
        if mode == "every" or (mode == "winter" and kind == PhaseKind.ADJUSTMENTS.value):
            files = attach(store, name, phase_id, "pdf")
        game = games[game_id]
        title = _title(game, cfg)
        note = (
            f"\nThe map is attached ({', '.join(f.filename for f in files)}); this text has everything it shows.\n"
            if files
            else ""
        )
        messages = [
            {
                "key": f"results:{phase_id}:{addr.lower()}",
                "to": addr,
                "subject": f"{title}: {phase_name} results",
                "body": report + note + "\n" + compose.SIGN + "\n",
                "kind": "results",
                "sender_domain": _domain(),
                "game_id": game_id,
                "phase_id": phase_id,
                "files": files,
            }
            for addr, _power in _recipients(game, cfg)
        ]
        keys, n = queue_notices_once(store, [Notice(f"results:{phase_id}", game_id, messages)], now)
        done += keys
        count += n
    return Queued(done, count)


def queue_reminders(store: GameStore, now: datetime) -> Queued:
    """Remind each power with no valid orders yet, at each lead time before the deadline (default 48 h and
    12 h; ``mail setup --reminders``). Only the nearest lead time that has been reached is sent: a game set
    up 10 hours before its deadline gets the 12-hour reminder, not both."""
    now = as_utc(now)
    done: list[str] = []
    count = 0
    notices: list[Notice] = []
    for g in mail_games(store):
        cfg = g.config
        if g.status != "active":
            continue
        ph = open_phase(store, g.id)
        if ph is None or ph.deadline is None or now >= ph.deadline:
            continue
        try:
            leads = sorted((parse_duration(x) for x in cfg.get("reminders", DEFAULT_REMINDERS)), reverse=True)
        except GameError:
            continue
        reached = [lead for lead in leads if ph.deadline - lead <= now]
        if not reached:
            continue
        lead = reached[-1]
        v = g.variant
        settings = Settings.from_data(g.settings)
        pos = position_from_data(v, ph.position)
        title = _title(g, cfg)
        for power in powers_to_act(v, pos):
            if power in ph.with_orders or power in ph.photographed:
                continue  # a photograph waits for the coordinator's review: it is not "no orders"
            addr = next((r.email for r in g.players if r.power == power and r.replaced_at is None), None)
            if not addr:
                continue
            key = f"reminder:{ph.id}:{power}:{int(lead.total_seconds())}"
            left = ph.deadline - now
            body = (
                f"{title}: {ph.name}. The deadline is {settings.describe(ph.deadline)}, "
                f"{_left(left)} from now.\n\n"
                f"No orders have been received for {power} yet (or none of the lines sent could be carried out).\n"
                f"{_without_orders(v, pos, power, settings)}\n\n"
                f"Send your orders with the subject:\n  {title} - {power} - {ph.name}\n\n{compose.SIGN}\n"
            )
            message = {
                "key": key,
                "to": addr,
                "subject": f"{title}: reminder, {power} orders for {ph.name} due in {_left(left)}",
                "body": body,
                "kind": "reminder",
                "sender_domain": _domain(),
                "game_id": g.id,
                "phase_id": ph.id,
            }
            notices.append(Notice(key, g.id, [message]))
    done, count = queue_notices_once(store, notices, now)
    return Queued(done, count)


def _without_orders(v: Variant, pos: Position, power: str, settings: Settings) -> str:
    """What happens without orders, as the adjudicator will do it (:func:`dippouch.game.unordered`):
    units hold in movement, dislodged units are disbanded in retreats, builds are waived and removals made
    by the rules in adjustments; and, for movement, what missing phases leads to."""
    what = [
        f"{joined([unit_text(v, u) for u in units])}: {happens}" if units else happens
        for units, happens in unordered(v, pos, power, [])
    ]
    text = "Without orders: " + "; ".join(what) + "." if what else "Without orders nothing of yours changes."
    if v.calendar.kind(pos.phase) == PhaseKind.MOVEMENT and settings.missed_limit > 0:
        text += f"\nMissing {settings.missed_limit} movement phase(s) in a row puts a power in civil disorder."
    return text


def _left(td: timedelta) -> str:
    """The time left, as a reminder says it: rounded down (a reminder never promises more time than there is;
    under a minute still says "1 minute"), in the singular for one."""
    hours = int(td.total_seconds() // 3600)
    if hours >= 48:
        return f"{hours // 24} days"
    if hours >= 1:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    minutes = max(1, int(td.total_seconds() // 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


_EVENT_TEXT = {
    "pause": "The game is paused: no deadline is running.",
    "resume": "The game has resumed.",
    "extend": "The deadline has been extended.",
    "rollback": "The game has been rolled back by the coordinator.",
}


def queue_notices(store: GameStore, now: datetime, *, maps: MapAttacher | None = None) -> Queued:
    """Results of processed phases, civil disorder, pauses, resumptions, extensions and rollbacks since
    mail was set up: each queued once to every player with an address and every observer."""
    now = as_utc(now)
    results = queue_results(store, now, maps=maps)
    done = list(results.notices)
    count = results.messages
    notices: list[Notice] = []
    for g in mail_games(store):
        cfg = g.config
        since = _since(cfg)
        title = _title(g, cfg)
        settings = Settings.from_data(g.settings)
        ph = g.phase
        for ev_id, ev_kind, detail in events_since(store, g.id, since, list(_EVENT_TEXT)):
            key = f"event:{ev_id}"
            text = _EVENT_TEXT[ev_kind]
            phase = detail.get("phase", "")
            extra = ""
            if ph is not None:
                extra = (
                    f" {ph.name}: orders are due by {settings.describe(ph.deadline)}."
                    if ph.deadline is not None
                    else f" {ph.name}: no deadline while the game is paused."
                )
            if ev_kind == "rollback":
                text = f"The coordinator has rolled the game back to {phase}; the phases after it are set aside."
            body = f"{title}: {text}{extra}\n\n{compose.SIGN}\n"
            messages = [
                {
                    "key": f"{key}:{addr.lower()}",
                    "to": addr,
                    "subject": f"{title}: {ev_kind} ({phase})",
                    "body": body,
                    "kind": "notice",
                    "sender_domain": _domain(),
                    "game_id": g.id,
                }
                for addr, _ in _recipients(g, cfg)
            ]
            notices.append(Notice(key, g.id, messages))
        for power in civil_disorder(store, g.id):
            player = next((r for r in g.players if r.power == power and r.replaced_at is None), None)
            tenure = player.assigned_at.isoformat() if player is not None else "none"
            key = f"cd:{g.id}:{power}:{tenure}"
            body = (
                f"{title}: {power} is now in civil disorder (no orders for {settings.missed_limit} movement "
                f"phases in a row). Its units hold and its removals are made for it until a player takes it over.\n\n"
                f"{compose.SIGN}\n"
            )
            messages = [
                {
                    "key": f"{key}:{addr.lower()}",
                    "to": addr,
                    "subject": f"{title}: {power} in civil disorder",
                    "body": body,
                    "kind": "notice",
                    "sender_domain": _domain(),
                    "game_id": g.id,
                }
                for addr, _ in _recipients(g, cfg)
            ]
            notices.append(Notice(key, g.id, messages))
    keys, n = queue_notices_once(store, notices, now)
    done += keys
    count += n
    return Queued(done, count)


def setup(store: GameStore, game: str, *, now: datetime, changes: dict[str, Any]) -> dict[str, Any]:
    """Create or change a game's mail settings; the first call marks the moment mail starts."""

    def check(cfg: dict[str, Any]) -> None:
        for x in list(cfg.get("reminders") or []):
            parse_duration(str(x))
        if cfg.get("maps", "winter") not in ("winter", "every", "none"):
            raise GameError(f"maps {cfg['maps']!r}: choose winter, every or none")

    return update_mail_config(store, game, now, changes, check)


def mail_unavailable() -> str | None:
    """Why the outbox cannot send now (no SMTP server or no From address configured), or None."""
    from dippouch.core.errors import DippouchError
    from dippouch.mail.settings import load_settings

    try:
        s = load_settings("smtp")
    except DippouchError as e:
        return str(e)
    if not s.host:
        return "no SMTP server is configured (DIPPOUCH_SMTP_HOST or [smtp] host in the mail config)"
    if not s.sender:
        return "no From address is configured (DIPPOUCH_MAIL_FROM or [smtp] from in the mail config)"
    return None


def queue_player_link(
    store: GameStore, game: str, power: str, player: str, address: str, link: str, key_id: int, now: datetime
) -> bool:
    """Queue a new player's link to their address (the outbox sends it: a mail server that is down delays it,
    never loses it). One message per key: seating again makes a new key and a new message."""
    try:
        gid = find_game(store, game)
    except GameError:
        raise GameError(f"no game {game!r}") from None
    body = (
        f"Dear {player},\n\nyou play {power} in the game {game}. This link signs you in to your orders page "
        f"(keep it to yourself: anyone with it can act for {power}):\n\n  {link}\n\n"
        "Open it, type or pick your orders and send them before the deadline the page shows.\n\n" + compose.SIGN + "\n"
    )
    return queue_mail(
        store,
        key=f"link:{key_id}",
        to=address,
        subject=f"{game}: your link to play {power}",
        body=body,
        kind="link",
        now=now,
        sender_domain=_domain(),
        game_id=gid,
    )
