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
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import Msg, msg, nmsg
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import (
    GameError,
    GameSettings,
    as_utc,
    parse_duration,
    position_from_data,
    unordered,
)
from dippouch.i18n import translations
from dippouch.letters import compose
from dippouch.mail.outbox import OutFile
from dippouch.names import joined, phase_words, unit_text
from dippouch.notify.dispatch import Event, Look, dispatch, register
from dippouch.notify.reminders import DEFAULT_REMINDERS, left
from dippouch.notify.texts import ending_of, why
from dippouch.play import mail_out
from dippouch.play.reports import phase_map_file, stored_report
from dippouch.saying import number, say
from dippouch.settings import site
from dippouch.store import GameStore
from dippouch.store import status as store_status
from dippouch.store.mail.games import (
    MailGame,
    civil_disorder,
    mail_games,
    open_phase,
)
from dippouch.store.mail.games import game_id as find_game
from dippouch.store.mail.outbox import Notice, notice_claimed
from dippouch.store.mail.review import left_unreviewed

__all__ = [
    "DEFAULT_REMINDERS",
    "GAME_END_MAIL",
    "GAME_MAIL",
    "I18N_DOMAIN",
    "GameEndMail",
    "GameMail",
    "MapAttacher",
    "queue_notices",
    "queue_reminders",
    "queue_results",
]

if TYPE_CHECKING:
    from dippouch.play.ratings import PersonRating
    from dippouch.play.records import Scored

log = logging.getLogger("dippouch.mail.notices")

I18N_DOMAIN = "mail"
"""The game's mail to everyone (results, civil disorder, notices, reminders) is in the game's language
(:attr:`dippouch.game.GameSettings.language`); a subject to send orders with keeps the calendar's own phase
name, which intake reads."""

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


def _lang(g: MailGame) -> str:
    """The game's language, or English when its settings cannot say."""
    try:
        return GameSettings.from_data(g.settings).language
    except GameError:
        return "en"


def _without_orders(v: Variant, pos: Position, power: str, settings: GameSettings) -> str:
    """What happens without orders, as the adjudicator will do it (:func:`dippouch.game.unordered`):
    units hold in movement, dislodged units are disbanded in retreats, builds are waived and removals made
    by the rules in adjustments; and, for movement, what missing phases leads to. What each unit does is
    the rules' own words (:func:`dippouch.game.unordered`)."""
    words = translations(settings.language)
    _ = words.gettext
    what = [
        f"{joined([unit_text(v, u) for u in units])}: {say(happens, settings.language)}"
        if units
        else say(happens, settings.language)
        for units, happens in unordered(v, pos, power, [])
    ]
    text = (
        _("Without orders: %(what)s.") % {"what": "; ".join(what)}
        if what
        else _("Without orders nothing of yours changes.")
    )
    if v.calendar.kind(pos.phase) == PhaseKind.MOVEMENT and settings.missed_limit > 0:
        text += "\n" + words.ngettext(
            "Missing %(limit)d movement phase in a row puts a power in civil disorder.",
            "Missing %(limit)d movement phases in a row puts a power in civil disorder.",
            settings.missed_limit,
        ) % {"limit": settings.missed_limit}
    return text


NOTICE_KINDS = ("pause", "resume", "extend", "rollback")


def _event_text(kind: str, lang: str) -> str:
    _ = translations(lang).gettext
    return {
        "pause": _("The game is paused: no deadline is running."),
        "resume": _("The game has resumed."),
        "extend": _("The deadline has been extended."),
        "rollback": _("The game has been rolled back by the coordinator."),
    }[kind]


def _event_word(kind: str, lang: str) -> str:
    """The event's name in a notice's subject."""
    _ = translations(lang).gettext
    return {"pause": _("pause"), "resume": _("resume"), "extend": _("extend"), "rollback": _("rollback")}[kind]


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
        keys, n = mail_out.queue_once(look.store, notices, look.now)
        self.keys += keys
        self.messages += n
        return n

    def _results(self, look: Look, event: Event, g: MailGame) -> list[Notice]:
        ph = event.phase
        assert ph is not None
        store, cfg = look.store, g.config
        if notice_claimed(store, f"results:{ph.phase_id}"):
            return []
        lang = _lang(g)
        _ = translations(lang).gettext
        fog = bool(GameSettings.from_data(g.settings).fog) and ph.next_name is not None
        report = stored_report(store, g.name, phase_id=ph.phase_id)
        left = left_unreviewed(store, ph.phase_id)
        extra = ""
        if left:
            extra = (
                "\n"
                + _(
                    "Photographs and mail processed without the coordinator's review (the phase was released, or "
                    "its review wait ran out):"
                )
                + "\n"
                + "".join(f"  {say(x, lang, 'mail')}\n" for x in left)
            )
        mode = str(cfg.get("maps", "winter"))
        files: Sequence[OutFile] = []
        # A fog-of-war game still running tells each player what their power saw (an observer, nothing of the
        # board), and attaches no map: the one map drawn for everyone would show the whole board.
        if not fog and (mode == "every" or (mode == "winter" and ph.kind == PhaseKind.ADJUSTMENTS.value)):
            files = self.maps(store, g.name, ph.phase_id, "pdf")
        told: dict[str | None, str] = {}

        def report_for(power: str | None) -> str:
            if not fog:
                return report + extra
            if power not in told:
                sight = () if power is None else (power,)
                told[power] = stored_report(store, g.name, phase_id=ph.phase_id, sight=sight) + extra
            return told[power]

        title = _title(g, cfg)
        note = (
            "\n"
            + _("The map is attached (%(files)s); this text has everything it shows.")
            % {"files": ", ".join(f.filename for f in files)}
            + "\n"
            if files
            else ""
        )
        messages = [
            {
                "key": f"results:{ph.phase_id}:{addr.lower()}",
                "to": addr,
                "subject": _("%(game)s: %(phase)s results") % {"game": title, "phase": phase_words(ph.name, lang)},
                "body": report_for(power) + note + "\n" + compose.sign(lang) + "\n",
                "kind": "results",
                "sender_domain": _domain(),
                "game_id": g.id,
                "phase_id": ph.phase_id,
                "files": files,
            }
            for addr, power in _recipients(g, cfg)
        ]
        return [Notice(f"results:{ph.phase_id}", g.id, messages)]

    def _disorder(self, look: Look, g: MailGame) -> list[Notice]:
        """The powers in civil disorder now (processing is what puts a power there), each told once a tenure."""
        cfg = g.config
        title = _title(g, cfg)
        settings = GameSettings.from_data(g.settings)
        lang = settings.language
        _ = translations(lang).gettext
        notices = []
        for power in civil_disorder(look.store, g.id):
            player = next((r for r in g.players if r.power == power and r.replaced_at is None), None)
            tenure = player.assigned_at.isoformat() if player is not None else "none"
            key = f"cd:{g.id}:{power}:{tenure}"
            body = (
                translations(lang).ngettext(
                    "%(game)s: %(power)s is now in civil disorder (no orders for %(limit)d movement phases in a "
                    "row). Its units hold and its removals are made for it until a player takes it over.",
                    "%(game)s: %(power)s is now in civil disorder (no orders for %(limit)d movement phases in a "
                    "row). Its units hold and its removals are made for it until a player takes it over.",
                    settings.missed_limit,
                )
                % {"game": title, "power": power, "limit": settings.missed_limit}
                + f"\n\n{compose.sign(lang)}\n"
            )
            messages = [
                {
                    "key": f"{key}:{addr.lower()}",
                    "to": addr,
                    "subject": _("%(game)s: %(power)s in civil disorder") % {"game": title, "power": power},
                    "body": body,
                    "kind": "notice",
                    "sender_domain": _domain(),
                    "game_id": g.id,
                }
                for addr, _power in _recipients(g, cfg)
            ]
            notices.append(Notice(key, g.id, messages))
        return notices

    def _notice(self, event: Event, g: MailGame) -> list[Notice]:
        assert event.row is not None
        cfg = g.config
        title = _title(g, cfg)
        settings = GameSettings.from_data(g.settings)
        lang = settings.language
        _ = translations(lang).gettext
        ph = g.phase
        key = f"event:{event.row.id}"
        text = _event_text(event.kind, lang)
        phase = event.detail.get("phase", "")
        extra = ""
        if ph is not None:
            name = phase_words(ph.name, lang)
            extra = " " + (
                _("%(phase)s: orders are due by %(deadline)s.")
                % {"phase": name, "deadline": settings.describe(ph.deadline)}
                if ph.deadline is not None
                else _("%(phase)s: no deadline while the game is paused.") % {"phase": name}
            )
        if event.kind == "rollback":
            text = _("The coordinator has rolled the game back to %(phase)s; the phases after it are set aside.") % {
                "phase": phase_words(str(phase), lang)
            }
        body = f"{title}: {text}{extra}\n\n{compose.sign(lang)}\n"
        messages = [
            {
                "key": f"{key}:{addr.lower()}",
                "to": addr,
                "subject": f"{title}: {_event_word(event.kind, lang)} ({phase_words(str(phase), lang)})",
                "body": body,
                "kind": "notice",
                "sender_domain": _domain(),
                "game_id": g.id,
            }
            for addr, _power in _recipients(g, cfg)
        ]
        return [Notice(key, g.id, messages)]

    def _reminders(self, look: Look, event: Event, g: MailGame) -> list[Notice]:
        """Each missing power's player, at the game mail's lead the policy found reached."""
        lead = event.detail.get("mail_lead")
        ph = open_phase(look.store, g.id)
        if lead is None or ph is None or ph.id != event.detail.get("phase_id") or ph.deadline is None:
            return []
        v = g.variant
        settings = GameSettings.from_data(g.settings)
        lang = settings.language
        _ = translations(lang).gettext
        pos = position_from_data(v, ph.position)
        title = _title(g, g.config)
        notices = []
        for power in event.detail.get("missing", ()):
            addr = next((r.email for r in g.players if r.power == power and r.replaced_at is None), None)
            if not addr:
                continue
            key = f"reminder:{ph.id}:{power}:{int(lead.total_seconds())}"
            due_in = left(ph.deadline - look.now, lang)
            name = phase_words(ph.name, lang)
            body = (
                _("%(game)s: %(phase)s. The deadline is %(deadline)s, %(left)s from now.")
                % {"game": title, "phase": name, "deadline": settings.describe(ph.deadline), "left": due_in}
                + "\n\n"
                + _("No orders have been received for %(power)s yet (or none of the lines sent could be carried out).")
                % {"power": power}
                + f"\n{_without_orders(v, pos, power, settings)}\n\n"
                + _("Send your orders with the subject:")
                + f"\n  {title} - {power} - {ph.name}\n\n{compose.sign(lang)}\n"
            )
            message = {
                "key": key,
                "to": addr,
                "subject": _("%(game)s: reminder, %(power)s orders for %(phase)s due in %(left)s")
                % {"game": title, "power": power, "phase": name, "left": due_in},
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

RATINGS_WAIT = timedelta(minutes=5)
"""How long a game's end mail waits for the ratings to take the game in (the worker's ratings task runs after
the mail's), so it can say the player's rating; past this it goes without."""


class GameEndMail:
    """The end of a game, mailed once to every person seated at the end who has an address and wants it
    (``game_ended`` by e-mail, on by default): the result, the scores under the game's scoring system with
    their own line marked, their rating where the ratings have taken the game in, and the links to the
    replay, its animated map and the game book. The notification channels tell the end by push and chat; the
    e-mail is this one, since the scores and ratings are computed above the notification package."""

    name = "game_end_mail"
    kinds = frozenset({"game_ended"})

    def handle(self, event: Event, look: Look) -> int:
        from dippouch.notify.channels.people import language
        from dippouch.store.notify import stored

        if event.game_id is None or not event.readers:
            return 0
        key = f"end:{event.game_id}"
        if notice_claimed(look.store, key):
            return 0
        rated = stored.rated_people(look.store, event.game_id)
        if rated is None and look.now - event.at < RATINGS_WAIT:
            return 0  # the ratings task takes the game in at this look's end: the next look can say the rating
        emails = stored.emails_of(look.store, [r.person_id for r in event.readers])
        scored = _scores(look.store, event.game)
        messages = []
        for r in event.readers:
            addr = emails.get(r.person_id)
            if not addr or r.prefs is None or not r.prefs.wants("game_ended", "email"):
                continue
            lang = language(look, event, r.person_id)
            facts = {**r.facts, "lang": lang}
            rating = _rating(look.store, r.person_id) if rated and r.person_id in rated else None
            messages.append(
                {
                    "key": f"{key}:{r.person_id}",
                    "to": addr,
                    "subject": say(msg("%(game)s has ended", game=event.game), lang),
                    "body": _end_text(event.game, r.power, ending_of(facts), scored, rating, lang)
                    + "\n\n"
                    + why("game_ended", facts)
                    + "\n",
                    "kind": "notify:game_ended",
                    "sender_domain": _domain(),
                    "game_id": event.game_id,
                }
            )
        return self._queue(look, [Notice(key, event.game_id, messages)])

    def _queue(self, look: Look, notices: list[Notice]) -> int:
        _keys, n = mail_out.queue_once(look.store, notices, look.now)
        return n


def _scores(store: GameStore, game: str) -> Scored | None:
    """The finished game scored under its own system, or None where it cannot be (the mail says the result)."""
    from dippouch.play.records import score_game

    try:
        return score_game(store, game)
    except Exception as e:  # a record the scoring cannot read: the end is still mailed, without the table
        log.warning("the end of %s is mailed without scores: %s: %s", game, type(e).__name__, e)
        return None


def _rating(store: GameStore, person_id: int) -> PersonRating | None:
    from dippouch.play.ratings import person_rating

    return person_rating(store, person_id).get(None)


def _end_text(
    game: str, power: str, ending: Msg | str, scored: Scored | None, rating: PersonRating | None, lang: str
) -> str:
    """The end mail's text in ``lang``: the result, the scores, the rating, the links."""
    lines = [say(msg("%(game)s is over: %(ending)s", game=game, ending=ending), lang), ""]
    if scored is not None and scored.rows:
        lines.append(say(msg("Scores under %(system)s:", system=scored.system.title), lang))
        width = max(len(row.power) for row in scored.rows) + 2
        for row in scored.rows:
            mark = "*" if row.power == power else " "
            counts = say(
                nmsg(
                    "%(num)d centre, score %(score)s",
                    "%(num)d centres, score %(score)s",
                    row.centres,
                    score=number(row.score, lang, 2),
                ),
                lang,
            )
            lines.append(f" {mark}{row.power + ':':<{width}}{counts}")
        lines.append(say(msg("(* your power, %(power)s)", power=power), lang))
        lines.append("")
    if rating is not None:
        lines.append(
            say(
                msg(
                    "Your rating is now %(rating)s, place %(rank)s of %(rated)s rated players.",
                    rating=number(rating.rating, lang, 1),
                    rank=rating.rank,
                    rated=rating.rated,
                ),
                lang,
            )
        )
        lines.append("")
    page = "/games/" + quote(game, safe="")
    lines += [
        say(msg("Replay, phase by phase: %(link)s", link=site().link(page + "/replay")), lang),
        say(msg("The whole game as an animated map (GIF): %(link)s", link=site().link(page + "/replay.gif")), lang),
        say(msg("The game book to print (PDF): %(link)s", link=site().link(page + "/book.pdf")), lang),
    ]
    return "\n".join(lines)


GAME_END_MAIL = register(GameEndMail())
"""Registered with the game mail: a worker that loads the mail side mails every game's end."""


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
            raise GameError(msg("maps %(maps)s: choose winter, every or none", maps=repr(cfg["maps"])))

    return mail_out.set_up_game(store, game, now=now, changes=changes, check=check)


def _game_language(store: GameStore, game: str, now: datetime) -> str:
    """The game's language for a message about one of its seats (English when its settings cannot say)."""
    try:
        return store_status.status(store, game, now=now, drift=False, due=False).settings.language
    except Exception:  # a game whose state cannot be read still gets its link, in English
        return "en"


def mail_unavailable() -> Msg | None:
    """Why the outbox cannot send now (no SMTP server or no From address configured), or None: said by the
    page that shows it, in its reader's language."""
    from dippouch.core.errors import DippouchError
    from dippouch.mail.settings import load_settings

    try:
        s = load_settings("smtp")
    except DippouchError as e:
        return e.msg
    if not s.host:
        return msg("no SMTP server is configured (DIPPOUCH_SMTP_HOST or [smtp] host in the mail config)")
    if not s.sender:
        return msg("no From address is configured (DIPPOUCH_MAIL_FROM or [smtp] from in the mail config)")
    return None


def queue_player_link(
    store: GameStore, game: str, power: str, player: str, address: str, link: str, key_id: int, now: datetime
) -> bool:
    """Queue a new player's link to their address (the outbox sends it: a mail server that is down delays it,
    never loses it). One message per key: seating again makes a new key and a new message."""
    try:
        gid = find_game(store, game)
    except GameError:
        raise GameError(msg("no game %(game)s", game=repr(game))) from None
    lang = _game_language(store, game, now)
    _ = translations(lang).gettext
    body = (
        _(
            "Dear %(player)s,\n\nyou play %(power)s in the game %(game)s. This link signs you in to your orders "
            "page (keep it to yourself: anyone with it can act for %(power)s):\n\n  %(link)s\n\n"
            "Open it, type or pick your orders and send them before the deadline the page shows."
        )
        % {"player": player, "power": power, "game": game, "link": link}
        + "\n\n"
        + compose.sign(lang)
        + "\n"
    )
    return mail_out.queue(
        store,
        key=f"link:{key_id}",
        to=address,
        subject=_("%(game)s: your link to play %(power)s") % {"game": game, "power": power},
        body=body,
        kind="link",
        now=now,
        sender_domain=_domain(),
        game_id=gid,
    )
