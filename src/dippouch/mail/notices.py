"""Mail the game sends on its own: results after each processed phase, reminders before deadlines, and
notices (civil disorder, pause, resume, extension, rollback).

The game's mail is one channel of the notification dispatcher (:class:`GameMail`, registered when this
module is loaded): it is handed the events the game's log records and the deadlines the one reminder policy
finds, read once for every channel. Each notice is recorded under a key (``mail_notices``) in the same
transaction as the messages it queues, so whichever process hands it an event, and however often, each
notice goes out once. Only games whose mail has been set up (``dippouch mail setup GAME``) are concerned,
and only what happened after that: setting up mail in the middle of a game does not mail its history.

The worker's notification task runs the dispatcher, then its mail task sends the outbox
(:func:`dippouch.mail.outbox.send_due`); :func:`queue_notices` and :func:`queue_reminders` run the game mail
alone, for ``dippouch mail send``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
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
    unordered,
)
from dippouch.mail import compose
from dippouch.mail.outbox import OutFile
from dippouch.names import joined, unit_text
from dippouch.notify.dispatch import Event, Look, dispatch, register
from dippouch.notify.reminders import DEFAULT_REMINDERS, left
from dippouch.play.reports import phase_map_file, stored_report
from dippouch.store import GameStore
from dippouch.store.mail_games import (
    MailGame,
    civil_disorder,
    mail_games,
    open_phase,
    update_mail_config,
)
from dippouch.store.mail_games import game_id as find_game
from dippouch.store.outbox import Notice, notice_claimed, queue_mail, queue_notices_once
from dippouch.store.review import left_unreviewed

__all__ = [
    "DEFAULT_REMINDERS",
    "GAME_MAIL",
    "GameMail",
    "MapAttacher",
    "queue_notices",
    "queue_reminders",
    "queue_results",
]

log = logging.getLogger("dippouch.mail.notices")

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


NOTICE_KINDS = ("pause", "resume", "extend", "rollback")
_EVENT_TEXT = {
    "pause": "The game is paused: no deadline is running.",
    "resume": "The game has resumed.",
    "extend": "The deadline has been extended.",
    "rollback": "The game has been rolled back by the coordinator.",
}


class GameMail:
    """The game's own mail as a channel of :mod:`dippouch.notify.dispatch`: the results report of each
    processed phase (with the map of Winter phases, or of every phase, ``maps = "every"``) and the powers it
    left in civil disorder, pauses, resumptions, extensions and rollbacks, to every player with an address
    and every observer; and reminders to each power whose orders are missing, by the one reminder policy
    (:mod:`dippouch.notify.reminders`). Only in games whose mail is set up, and only what happened since.

    Each message is queued under its key in the game's mail record (``results:<phase>``, ``event:<id>``,
    ``cd:<game>:<power>:<tenure>``, ``reminder:<phase>:<power>:<lead>``: the keys the mail's scans used), so
    it goes once however many workers hand the same event over, and nothing they queued goes again."""

    name = "game_mail"

    def __init__(
        self, maps: MapAttacher | None = None, kinds: Iterable[str] | None = None, *, disorder: bool = True
    ) -> None:
        """``disorder=False``: the results alone, without the civil disorder notices (:func:`queue_results`)."""
        self.maps = maps or default_maps
        self.kinds = frozenset(kinds if kinds is not None else ("phase_processed", "deadline", *NOTICE_KINDS))
        self.disorder = disorder
        self.keys: list[str] = []
        self.messages = 0

    def handle(self, event: Event, look: Look) -> int:
        games: dict[int, MailGame] = look.once("mail:games", lambda: {g.id: g for g in mail_games(look.store)})
        g = games.get(event.game_id) if event.game_id is not None else None
        if g is None:
            return 0
        if event.kind == "deadline":
            return self._queue(look, self._reminders(look, event, g))
        if event.at < _since(g.config):
            return 0  # before the game's mail was set up: its history is not mailed
        if event.kind == "phase_processed":
            results = self._queue(look, self._results(look, event, g))
            return results + (self._queue(look, self._disorder(look, g)) if self.disorder else 0)
        return self._queue(look, self._notice(event, g))

    def _queue(self, look: Look, notices: list[Notice]) -> int:
        if not notices:
            return 0
        keys, n = queue_notices_once(look.store, notices, look.now)
        self.keys += keys
        self.messages += n
        return n

    def _results(self, look: Look, event: Event, g: MailGame) -> list[Notice]:
        ph = event.phase
        assert ph is not None
        store, cfg = look.store, g.config
        if notice_claimed(store, f"results:{ph.phase_id}"):
            return []
        report = stored_report(store, g.name, phase_id=ph.phase_id)
        left = left_unreviewed(store, ph.phase_id)
        if left:
            report += (
                "\nPhotographs and mail processed without the coordinator's review (the phase was released, or "
                "its review wait ran out):\n" + "".join(f"  {x}\n" for x in left)
            )
        mode = str(cfg.get("maps", "winter"))
        files: Sequence[OutFile] = []
        if mode == "every" or (mode == "winter" and ph.kind == PhaseKind.ADJUSTMENTS.value):
            files = self.maps(store, g.name, ph.phase_id, "pdf")
        title = _title(g, cfg)
        note = (
            f"\nThe map is attached ({', '.join(f.filename for f in files)}); this text has everything it shows.\n"
            if files
            else ""
        )
        messages = [
            {
                "key": f"results:{ph.phase_id}:{addr.lower()}",
                "to": addr,
                "subject": f"{title}: {ph.name} results",
                "body": report + note + "\n" + compose.SIGN + "\n",
                "kind": "results",
                "sender_domain": _domain(),
                "game_id": g.id,
                "phase_id": ph.phase_id,
                "files": files,
            }
            for addr, _power in _recipients(g, cfg)
        ]
        return [Notice(f"results:{ph.phase_id}", g.id, messages)]

    def _disorder(self, look: Look, g: MailGame) -> list[Notice]:
        """The powers in civil disorder now (processing is what puts a power there), each told once a tenure."""
        cfg = g.config
        title = _title(g, cfg)
        settings = Settings.from_data(g.settings)
        notices = []
        for power in civil_disorder(look.store, g.id):
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
        return notices

    def _notice(self, event: Event, g: MailGame) -> list[Notice]:
        assert event.row is not None
        cfg = g.config
        title = _title(g, cfg)
        settings = Settings.from_data(g.settings)
        ph = g.phase
        key = f"event:{event.row.id}"
        text = _EVENT_TEXT[event.kind]
        phase = event.detail.get("phase", "")
        extra = ""
        if ph is not None:
            extra = (
                f" {ph.name}: orders are due by {settings.describe(ph.deadline)}."
                if ph.deadline is not None
                else f" {ph.name}: no deadline while the game is paused."
            )
        if event.kind == "rollback":
            text = f"The coordinator has rolled the game back to {phase}; the phases after it are set aside."
        body = f"{title}: {text}{extra}\n\n{compose.SIGN}\n"
        messages = [
            {
                "key": f"{key}:{addr.lower()}",
                "to": addr,
                "subject": f"{title}: {event.kind} ({phase})",
                "body": body,
                "kind": "notice",
                "sender_domain": _domain(),
                "game_id": g.id,
            }
            for addr, _ in _recipients(g, cfg)
        ]
        return [Notice(key, g.id, messages)]

    def _reminders(self, look: Look, event: Event, g: MailGame) -> list[Notice]:
        """Each missing power's player, at the game mail's lead the policy found reached."""
        lead = event.detail.get("mail_lead")
        ph = open_phase(look.store, g.id)
        if lead is None or ph is None or ph.id != event.detail.get("phase_id") or ph.deadline is None:
            return []
        v = g.variant
        settings = Settings.from_data(g.settings)
        pos = position_from_data(v, ph.position)
        title = _title(g, g.config)
        notices = []
        for power in event.detail.get("missing", ()):
            addr = next((r.email for r in g.players if r.power == power and r.replaced_at is None), None)
            if not addr:
                continue
            key = f"reminder:{ph.id}:{power}:{int(lead.total_seconds())}"
            due_in = left(ph.deadline - look.now)
            body = (
                f"{title}: {ph.name}. The deadline is {settings.describe(ph.deadline)}, {due_in} from now.\n\n"
                f"No orders have been received for {power} yet (or none of the lines sent could be carried out).\n"
                f"{_without_orders(v, pos, power, settings)}\n\n"
                f"Send your orders with the subject:\n  {title} - {power} - {ph.name}\n\n{compose.SIGN}\n"
            )
            message = {
                "key": key,
                "to": addr,
                "subject": f"{title}: reminder, {power} orders for {ph.name} due in {due_in}",
                "body": body,
                "kind": "reminder",
                "sender_domain": _domain(),
                "game_id": g.id,
                "phase_id": ph.id,
            }
            notices.append(Notice(key, g.id, [message]))
        return notices


GAME_MAIL = register(GameMail())
"""The registered channel: every dispatcher in a process that loads the mail side hands it its events."""


def queue_results(store: GameStore, now: datetime, *, maps: MapAttacher | None = None) -> Queued:
    """Queue the results report of every phase processed since mail was set up and not mailed yet: the
    dispatcher with the game mail alone (``dippouch mail send`` and the tests; the worker runs every channel)."""
    ch = GameMail(maps, kinds=("phase_processed",), disorder=False)
    dispatch(store, as_utc(now), slow=False, only=[ch])
    return Queued(ch.keys, ch.messages)


def queue_reminders(store: GameStore, now: datetime) -> Queued:
    """Remind each power with no orders yet at the nearest lead time reached before the deadline (default
    48 h and 12 h; ``mail setup --reminders``), as :mod:`dippouch.notify.reminders` decides for the game mail
    and the notifications alike."""
    ch = GameMail(kinds=("deadline",))
    dispatch(store, as_utc(now), slow=True, only=[ch])
    return Queued(ch.keys, ch.messages)


def queue_notices(store: GameStore, now: datetime, *, maps: MapAttacher | None = None) -> Queued:
    """Results of processed phases, civil disorder, pauses, resumptions, extensions and rollbacks since
    mail was set up: each queued once to every player with an address and every observer."""
    ch = GameMail(maps, kinds=("phase_processed", *NOTICE_KINDS))
    dispatch(store, as_utc(now), slow=False, only=[ch])
    return Queued(ch.keys, ch.messages)


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
