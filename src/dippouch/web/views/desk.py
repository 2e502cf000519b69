"""The coordinator's desk: a game's players, keys and submissions (sealed until the deadline), seating players
and handing out their links, the clock (extend, pause, resume, process now, roll back), deadlines and
visibility, and the page that asks before an action that cannot be taken back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from dippouch.bots.seats import Think, bot_level, play_seats, set_disorder_bot, think_here
from dippouch.core.messages import N_, Arg, Msg, msg, nmsg
from dippouch.i18n import phase_words
from dippouch.mail.notices import mail_unavailable, queue_player_link
from dippouch.play import clock, games, seats
from dippouch.play.clock import MAX_EXTENSION
from dippouch.play.fairness import Actor, TableMustVote, player_run
from dippouch.play.processing import TooSoon
from dippouch.saying import say as said_in
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store.access import VISIBILITIES
from dippouch.store.people import absences as absence_store
from dippouch.store.people.persons import seat_people
from dippouch.web.http.inputs import duration, duration_text, names, number_or_none, phase_deadlines
from dippouch.web.http.security import BadInput, Forbidden, TooMany, Viewer, WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views.fog import fog_powers
from dippouch.web.views.games import game_view
from dippouch.web.views.mail_desk import desk_summary

__all__ = [
    "actor",
    "assign",
    "away_now",
    "clock_action",
    "confirm_view",
    "coordinator_view",
    "new_coordinator_key",
    "new_player_link",
    "revoke",
    "seat_bot",
    "seat_many",
    "set_bot_policy",
    "set_deadlines",
    "set_email",
]

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

Say = Callable[[str], str]
"""A catalogue's gettext (``str``: the English as written)."""


def coordinator_view(web: Web, name: str, viewer: Viewer) -> dict[str, Any]:
    web.require_coordinator(name, viewer)
    now = web.now()
    game = game_view(web, name, viewer)
    players = store_games.players(web.read, name)
    people = seat_people(web.read, name)
    emails = store_games.emails(web.read, name)
    keys = web.access.keys(name)
    subs: list[dict[str, Any]] = []
    sealed = False
    if game["phase_id"] is not None:
        rec = store_history.phase_record(web.read, name, phase_id=game["phase_id"])
        deadline = rec["deadline"]
        # Sealed until the deadline (the W3K rulebook): who and when, never what.
        sealed = deadline is None or now < datetime.fromisoformat(deadline)
        # A coordinator who plays in a fog-of-war game reads no other power's orders (they would show its units),
        # nor whether it sent any or how many lines (who has orders to give tells who builds or retreats), as
        # the game's table of powers tells them nothing of it (views/fog.py).
        sight = fog_powers(web, name, viewer)
        for sub in rec["submissions"]:
            if sight is not None and sub["power"] not in sight:
                continue
            entry = {k: sub[k] for k in ("power", "version", "submitted_at", "ready", "late", "source")}
            entry["count"] = len(sub["lines"])
            if not sealed and (sight is None or sub["power"] in sight):
                entry["text"] = sub["text"]
                entry["lines"] = sub["lines"]
            subs.append(entry)
    return {
        "game": game,
        "players": [
            {
                "power": p,
                "player": cur,
                "person_id": people.get(p) if cur else None,
                "email": emails.get(p, (None, None))[1],
                "history": [(n, a.isoformat(), r.isoformat() if r else None) for n, a, r in hist],
            }
            for p, cur, hist in players
        ],
        "keys": [
            {
                "id": k.id,
                "role": k.role,
                "power": k.power,
                "label": k.label,
                "created_at": k.created_at.isoformat(),
                "revoked": k.revoked_at is not None,
            }
            for k in keys
        ],
        "submissions": subs,
        "sealed": sealed,
        "visibilities": list(VISIBILITIES),
        "unseated": [p for p, cur, _ in players if not cur],
        # Seats a person plays: with one left, the bot policy would hand the game to bots alone, so a
        # takeover of that seat pauses the game instead (bots.seats.people_besides); the desk says so.
        "people_seats": sum(1 for _, cur, _ in players if cur and bot_level(cur) is None),
        "mail_unavailable": mail_unavailable(),
        "mail": desk_summary(web.store, name, now),
        "away": away_now(web, name, now),
        "table_decides": not viewer.coordinates(None) and player_run(web.store, name),
    }


_AT_PROCESS_NOW = {
    "none": N_("no absence policy: if they send nothing, their units hold, as at the deadline"),
    "extend": N_(
        "policy extend: at the deadline it would move to the day they are back, but processing now does not "
        "wait for them (your choice comes first; Extend the deadline instead to wait)"
    ),
    "standing": N_(
        "policy standing: if they have sent nothing, their last orders of this kind are carried, each checked "
        "against the position, as at the deadline"
    ),
    "stand_in": N_("policy stand-in: %(stand_in)s may order for them; what stands when it is processed counts"),
    "proxy": N_("policy proxy: if they send nothing, their units go under the orders of the ally they named"),
}
"""What processing now does for a player away today, by the game's absence policy (message templates)."""


def away_now(web: Web, name: str, now: datetime) -> list[Msg]:
    """Each player away today, with what the game's absence policy does if the phase is processed now
    (:func:`dippouch.store.people.absences.apply_locked` with ``forced``): shown on the desk and on the page that
    confirms "process now", before the coordinator presses it, in the coordinator's language."""
    aways = [a for a in absence_store.game_absences(web.store, name, now.date()) if a.now]
    if not aways:
        return []
    policy = absence_store.absence_policy(web.store, name)
    template = _AT_PROCESS_NOW.get(policy.policy)
    if template is None:
        effect = msg("policy %(policy)s", policy=policy.policy)
    elif policy.policy == "stand_in":
        stand_in: Arg = policy.stand_in_name or msg("the stand-in")
        effect = Msg(template, {"stand_in": stand_in})
    else:
        effect = Msg(template)
    return [
        msg(
            "%(power)s (%(player)s) is %(away)s; %(effect)s.",
            power=a.power,
            player=a.player,
            away=a.text,
            effect=effect,
        )
        for a in aways
    ]


def assign(
    web: Web,
    name: str,
    viewer: Viewer,
    power: str,
    player: str,
    replace: bool,
    email: str = "",
    *,
    say: Say = str,
) -> tuple[str, str]:
    """Seat a player and hand out their link (:func:`dippouch.play.seats.seat`: a replacement's old links are
    revoked and the person replaced is told, with the seat). ``email`` is the address their orders by mail must
    come from (optional). A refusal in ``say``'s language."""
    web.require_coordinator(name, viewer)
    power, _, secret = _assign(web, name, power, player, replace, email, say, by=actor(web, name, viewer))
    return power, secret


def _assign(
    web: Web, name: str, power: str, player: str, replace: bool, email: str, say: Say = str, *, by: Actor
) -> tuple[str, int, str]:
    _ = say
    player = names(player, msg("the player's name"), 200, say=say)
    address = names(email, msg("the e-mail address"), 320, say=say) if email.strip() else None
    power = web.power_named(name, power)
    try:
        got = seats.seat(
            web.store, name, power, player, now=web.now(), replace=replace, email=address, link=True, by=by
        )
    except TableMustVote as e:
        raise Forbidden(e.msg) from None
    finally:
        web.touched(name)
    assert got.key_id is not None and got.secret is not None, "a seat asked with its link has one"
    return got.power, got.key_id, got.secret


def seat_many(
    web: Web, name: str, viewer: Viewer, rows: list[tuple[str, str, str]], base: str, *, say: Say = str
) -> dict[str, Any]:
    """Seat several powers at once from (power, player, e-mail) rows (rows without a player are skipped).
    Every row is checked before anyone is seated, so a mistake seats nobody. Each new link is shown once;
    where an address is given it is also queued to it through the mail outbox (when mail is configured;
    otherwise the answer says so and the coordinator sends the links). A refusal in ``say``'s language."""
    _ = say
    web.require_coordinator(name, viewer)
    seated = {p for p, cur, _ in store_games.players(web.read, name) if cur}
    todo: list[tuple[str, str, str]] = []
    for power, player, email in rows:
        if not player.strip():
            continue
        power = web.power_named(name, power)
        names(player, msg("%(power)s's player's name", power=power), 200, say=say)
        if email.strip():
            address = names(email, msg("%(power)s's e-mail address", power=power), 320, say=say)
            if "@" not in address.strip("@") or any(c.isspace() for c in address):
                raise BadInput(
                    msg(
                        "%(power)s's e-mail address %(address)s is not an address (name@example.org)",
                        power=power,
                        address=repr(address),
                    )
                )
        if power in seated:
            raise BadInput(
                msg(
                    "%(power)s is already played; use Replace in its row to hand it over. Nobody was seated.",
                    power=power,
                )
            )
        todo.append((power, player, email.strip()))
    if not todo:
        raise BadInput(_("give a player's name for at least one power"))
    no_mail = mail_unavailable() if any(e for _, _, e in todo) else None
    out = []
    for power, player, email in todo:
        power, key_id, secret = _assign(web, name, power, player, False, email, say, by=actor(web, name, viewer))
        link = f"{base}/k/{secret}"
        mailed = False
        if email and no_mail is None:
            mailed = queue_player_link(web.store, name, power, player, email, link, key_id, web.now())
        out.append(
            {
                "power": power,
                "player": player,
                "email": email or None,
                "link": link,
                "key": secret,
                "mailed": mailed,
            }
        )
    return {"seated": out, "mail_unavailable": no_mail}


def set_email(web: Web, name: str, viewer: Viewer, power: str, email: str, *, say: Say = str) -> str:
    """Change (or, empty, remove) the address a seated player's orders by mail must come from (said in
    ``say``'s language: a page passes its reader's gettext, the JSON API answers in English)."""
    _ = say
    web.require_coordinator(name, viewer)
    address = names(email, msg("the e-mail address"), 320, say=say) if email.strip() else None
    power = games.set_email(web.store, name, power, address, now=web.now())
    web.touched(name)
    if address:
        return _("%(power)s's orders by mail now come from %(address)s.") % {"power": power, "address": address}
    return _("%(power)s has no address now.") % {"power": power}


def new_player_link(web: Web, name: str, viewer: Viewer, power: str, reason: str = "") -> tuple[str, str]:
    """A new key for a power's player. For a seated power while the phase is sealed, the key reads the
    player's orders before the deadline: it needs a reason, recorded and shown to the players."""
    web.require_coordinator(name, viewer)
    power = web.power_named(name, power)
    try:
        _, secret = games.player_key(web.store, name, power, by=actor(web, name, viewer), now=web.now(), reason=reason)
    except TableMustVote as e:
        raise Forbidden(e.msg) from None
    finally:
        web.touched(name)
    return power, secret


def new_coordinator_key(web: Web, name: str, viewer: Viewer, label: str) -> str:
    web.require_coordinator(name, viewer)
    _, secret = games.coordinator_key(web.store, name, label=label, now=web.now())
    return secret


def revoke(web: Web, name: str, viewer: Viewer, key_id: int) -> None:
    web.require_coordinator(name, viewer)
    games.revoke_key(web.store, name, key_id, now=web.now())


def clock_action(
    web: Web,
    name: str,
    viewer: Viewer,
    action: str,
    arg: str = "",
    *,
    say: Say = str,
    lang: str = "en",
    think: Think | None = None,
) -> str:
    """extend / pause / resume / process / rollback / visibility: one line saying what happened, in ``say``'s
    language (``lang``, for the phases' names); ``think``: where the bots of a "process now" think (here by
    default)."""
    web.require_coordinator(name, viewer)
    try:
        return _clock_action(web, name, action, arg, say, lang, think, by=actor(web, name, viewer))
    finally:
        web.touched(name)


def actor(web: Web, name: str, viewer: Viewer) -> Actor:
    """Who asks a coordinator's action of ``name``, as the use cases' fairness rule reads them: the
    installation's coordinator is never refused; a game's coordinator who plays in it may be
    (:func:`dippouch.play.fairness.require_alone`)."""
    return Actor(web.who(name, viewer), installation=viewer.coordinates(None), person_id=viewer.person_id)


def _clock_action(
    web: Web, name: str, action: str, arg: str, say: Say, lang: str, think: Think | None = None, *, by: Actor
) -> str:
    _ = say
    now = web.now()
    s = web.store
    try:
        if action == "extend":
            length = duration(arg, msg("the extension"), say=say)
            if length <= timedelta(0) or length > MAX_EXTENSION:
                raise BadInput(_("an extension is between one second and a year"))
            got = clock.extend(s, name, length, by=by, now=now)
            if got.deadline is not None:
                return _("Deadline extended to %(time)s UTC.") % {"time": f"{got.deadline:%Y-%m-%d %H:%M}"}
            return _("Extended.")
        if action == "pause":
            paused = clock.pause(s, name, by=by, now=now)
            return _("Paused with %(left)s left on the clock.") % {"left": duration_text(paused.left)}
        if action == "resume":
            due = clock.resume(s, name, by=by, now=now)
            return _("Resumed; due %(time)s UTC.") % {"time": f"{due:%Y-%m-%d %H:%M}"}
        if action == "process":
            try:
                return said_in(clock.process(s, name, by=by, now=now, think=think).message, lang, "web")
            except TooSoon as e:  # a game bots alone play, asked again within the installation's pace
                raise TooMany(e.msg, e.retry_after) from None
        if action == "rollback":
            phase = names(arg, msg("the phase"), 100, say=say)
            rolled = clock.rollback(s, name, phase, by=by, now=now)
            said = _("Rolled back to %(phase)s; its orders are due again.") % {"phase": phase_words(rolled.phase, lang)}
            if rolled.carried:
                carried = nmsg(
                    "%(num)d submission carried forward.", "%(num)d submissions carried forward.", len(rolled.carried)
                )
                said += " " + said_in(carried, lang, "web")
            return said
    except TableMustVote as e:  # one person alone in a player-run game: forbidden, not a mistake of input
        raise Forbidden(e.msg) from None
    if action == "visibility":
        games.set_visibility(s, name, arg)
        return _("The game is now %(visibility)s.") % {"visibility": arg}
    raise WebNotFound(msg("no coordinator action %(action)s", action=repr(action)))


def confirm_view(
    web: Web, name: str, viewer: Viewer, action: str, arg: str, *, say: Say = str, lang: str = "en"
) -> dict[str, Any]:
    """What a coordinator's action that cannot be taken back (process now, roll back, revoke) will do, for
    the page that asks them to confirm it (in ``say``'s language, ``lang``). Checked as the action itself would be (a key
    of another game, a phase that does not exist are refused here already), but nothing is changed."""
    _ = say
    web.require_coordinator(name, viewer)
    if action in ("process", "rollback"):
        try:  # the creator who plays is told the table decides before, not after, they confirm
            clock.ask(web.store, name, action, by=actor(web, name, viewer), now=web.now())
        except TableMustVote as e:
            raise Forbidden(e.msg) from None
    game = game_view(web, name, viewer)
    if action == "process":
        if game["phase_id"] is None:
            raise BadInput(msg("game %(game)s has no open phase to process (it is over)", game=repr(name)))
        silent = [p["power"] for p in game["powers"] if p["must_act"] and not p["submitted"]]
        # A power whose only orders are photographs not yet confirmed is told apart: processing now carries
        # out nothing of them, and the coordinator can review them first.
        photographed = {p["power"] for p in desk_summary(web.store, name, web.now())["photos"]}
        photo_only = [p for p in silent if p in photographed]
        waiting = [p for p in silent if p not in photographed]
        lines: list[str | Msg] = [
            _("%(phase)s will be adjudicated now, before its deadline (%(deadline)s).")
            % {"phase": phase_words(game["phase"], lang), "deadline": game["deadline_text"] or _("none")}
        ]
        lines += away_now(web, name, web.now())
        if photo_only:
            lines.append(
                _(
                    "%(powers)s sent only photographs, not yet confirmed: processing now carries out none of them "
                    "(their units hold, retreats are disbanded, builds waived). Review mail first to confirm them."
                )
                % {"powers": ", ".join(photo_only)}
            )
        lines.append(
            _(
                "No orders yet from %(powers)s: their units hold, retreats are disbanded and builds waived, as at "
                "the deadline."
            )
            % {"powers": ", ".join(waiting)}
            if waiting
            else (
                _("Every other power that must act has sent orders.")
                if photo_only
                else _("Every power that must act has sent orders.")
            )
        )
        lines.append(_("This cannot be undone except by rolling the game back to this phase."))
        return {
            "title": _("Process %(phase)s now?") % {"phase": phase_words(game["phase"], lang)},
            "lines": lines,
            "button": _("Process now"),
            "fields": {},
        }
    if action == "rollback":
        phase = names(arg, msg("the phase"), 100, say=say)
        rec = store_history.phase_record(web.read, name, phase, submissions=False)
        lines = [
            _(
                "%(phase)s opens again with its position as it was; the phases played after it stay in the "
                "history, marked rolled back."
            )
            % {"phase": phase_words(rec["name"], lang)},
            _("Each power's orders for it are carried into it again (not ready); draw votes lapse."),
        ]
        return {
            "title": _("Roll back to %(phase)s?") % {"phase": phase_words(rec["name"], lang)},
            "lines": lines,
            "button": _("Roll back"),
            "fields": {"phase": rec["name"]},
        }
    if action == "revoke":
        key_id = number_or_none(arg)
        if key_id is None:
            raise BadInput(msg("which key? (its number, not %(given)s)", given=repr(arg[:20])))
        key = next((k for k in web.access.keys(name) if k.id == key_id), None)
        if key is None:
            raise BadInput(msg("no key %(key)s in this game", key=arg))
        holder = _("%(power)s's player") % {"power": key.power} if key.power else _("a coordinator")
        label = f" ({key.label})" if key.label else ""
        lines = [
            _("Key %(key)s, for %(holder)s: its links stop working at once, in every browser signed in with it.")
            % {"key": key.id, "holder": holder + label},
            _("A player who still needs a link gets a new one with New link."),
        ]
        if key.revoked_at is not None:
            lines = [_("Key %(key)s is revoked already.") % {"key": key.id}]
        return {
            "title": _("Revoke key %(key)s?") % {"key": key.id},
            "lines": lines,
            "button": _("Revoke"),
            "fields": {"key": str(key.id)},
        }
    raise WebNotFound(msg("no coordinator action %(action)s to confirm", action=repr(action)))


def set_deadlines(web: Web, name: str, viewer: Viewer, form: Mapping[str, Any], *, say: Say = str) -> str:
    _ = say
    web.require_coordinator(name, viewer)
    deadlines = {k: str(form.get(k) or "").strip() for k in ("movement", "retreats", "adjustments")}
    deadlines = {k: t for k, t in deadlines.items() if t}
    phase_deadlines(deadlines, say=say)
    games.set_deadlines(web.store, name, deadlines, now=web.now())
    web.touched(name)
    return _("Deadlines for the phases to come: %(deadlines)s.") % {
        "deadlines": ", ".join(f"{k} {t}" for k, t in deadlines.items())
    }


def seat_bot(
    web: Web, name: str, viewer: Viewer, power: str, level: str, *, think: Think = think_here
) -> dict[str, Any]:
    """Seat a bot on a power (docs/bots.md, :func:`dippouch.play.seats.seat_bot`): the power's player links are
    revoked and the person replaced is told, and the bot sends its orders for the open phase at once (thought
    where ``think`` says)."""
    web.require_coordinator(name, viewer)
    power = web.power_named(name, power)
    now = web.now()
    try:
        got = seats.seat_bot(web.store, name, power, level, now=now, by=actor(web, name, viewer))
        moves = play_seats(web.store, now=now, games=[name], think=think)
    except TableMustVote as e:
        raise Forbidden(e.msg) from None
    finally:
        web.touched(name)
    sent = next((m for m in moves if m.power == power and m.version is not None), None)
    return {"power": power, "player": got.change.player, "version": sent.version if sent else None}


def set_bot_policy(web: Web, name: str, viewer: Viewer, level: str | None, *, say: Say = str) -> str:
    """Hand powers in civil disorder to a bot of ``level`` (``None``: no longer)."""
    _ = say
    web.require_coordinator(name, viewer)
    chosen = set_disorder_bot(web.store, name, level, now=web.now())
    web.touched(name)
    if chosen is None:
        return _("Powers in civil disorder are no longer handed to a bot.")
    return _("Powers in civil disorder are handed to a %(level)s bot until a person takes the seat.") % {
        "level": chosen
    }
