"""What a game must be before it is stored: one set of checks for a game created here and a game read from a
file, so an imported game can never be one that creation would have refused.

:func:`check_new_game` is what creation checks (its name, its variant's name, its settings), and the import
runs it on the file's game first; :func:`check_game_file` adds what only a file can get wrong: players,
phases, submissions, votes and events that the rest of dippouch relies on (one open phase, positions that
read, versions numbered once, line verdicts that match their text, times that are times). Every refusal
says where in the file and what is wrong. Pure: no database here (the store calls these before writing).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from dippouch.characters import hidden_character
from dippouch.core.errors import DippouchError
from dippouch.core.messages import Arg, PhaseName, hint, msg, quantity
from dippouch.core.variant import Variant
from dippouch.game import (
    GameError,
    GameSettings,
    LineCheck,
    as_utc,
    check_orders,
    position_from_data,
    read_version_lines,
)

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

NAME_LIMIT = 100
PLAYER_NAME_LIMIT = 200
TEXT_LIMIT = 1_000_000
"""Characters of one submission's text (what mail intake accepts in all)."""
MAX_PAUSED_SECONDS = 10 * 366 * 86400
"""Time left on a paused game's clock: a year at a time, extended at most a year at a time (ten is plenty)."""
GAME_STATES = ("active", "paused", "finished")
PHASE_STATES = ("open", "processed", "abandoned")
SOURCES = ("cli", "post", "mail", "photo", "web", "bot")
"""Where a submission came from: typed by the coordinator, a letter, an e-mail, a confirmed transcription of
a photograph, the web app."""
_SLASHES = re.compile(r"[/\\]+")
_SHOWN = 80
"""Characters of a refused value shown in a refusal: the value is cut, never the sentence around it (a page
shows the whole sentence in its language, whatever the value's length)."""
_VARIANT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_+-]*(?:\.[A-Za-z0-9_+-]+)*$")


def shown(value: Any) -> str:
    """A refused value as a refusal shows it: its ``repr``, cut to :data:`_SHOWN` characters."""
    text = repr(value)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 3]}..."


def _reason(e: Exception) -> Arg:
    """Why ``e`` refused a part of the file, to be said inside the file's refusal: a project error's message
    (said in its turn), else Python's own words (a value the engine's reading of the data could not take)."""
    return e.msg if isinstance(e, DippouchError) else str(e)


def clean_address(text: str | None) -> str:
    """An e-mail address as stored (``Name <a@b>`` -> ``a@b``, lower-cased domain), or a clear error."""
    from email.utils import parseaddr

    _, addr = parseaddr(str(text or "").strip())
    local, at, domain = addr.rpartition("@")
    # A domain's trailing dot names the same mailbox ("example.org." is "example.org"): one stored form, so
    # limits and accounts keyed on the address cannot be doubled by spelling it twice.
    domain = domain.lower().removesuffix(".")
    empty_label = ".." in domain or domain.startswith(".") or domain.endswith(".")
    if not at or not local or "." not in domain or empty_label or " " in addr:
        raise GameError(
            msg("%(address)s is not an e-mail address; write it like montrose@example.org", address=repr(text))
        )
    if len(addr) > 320:
        raise GameError(
            msg("%(address)s... is not an e-mail address (at most 320 characters)", address=repr(str(text)[:40]))
        )
    return f"{local}@{domain}"


def _plain(text: str, where: str | None, limit: int) -> str:
    """A one-line name: 1 to ``limit`` characters, no line breaks, and each character shown as itself (no
    zero-width or bidirectional character: :func:`dippouch.characters.hidden_character`). ``where`` is its
    place in the file (a JSON path, kept as written), or None for the game's own name, which the refusals name
    in words (a sentence of their own each, for the reader's language)."""
    if not text or len(text) > limit:
        cut = f"{text[:40]!r}..." if len(text) > 40 else repr(text)
        values: dict[str, Arg] = {"most": limit, "length": quantity(len(text)), "name": cut}
        raise GameError(
            msg("a game's name must be 1 to %(most)s characters (it is %(length)s: %(name)s)", **values)
            if where is None
            else msg("%(where)s must be 1 to %(most)s characters (it is %(length)s: %(name)s)", where=where, **values)
        )
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF), None)
    if bad is not None:
        values = {"name": repr(text[:60]), "char": repr(bad)}
        raise GameError(
            msg("a game's name %(name)s contains a control character (%(char)s); write it on one line", **values)
            if where is None
            else msg(
                "%(where)s %(name)s contains a control character (%(char)s); write it on one line",
                where=where,
                **values,
            )
        )
    hidden = hidden_character(text)
    if hidden is not None:
        position, character = hidden
        values = {"name": repr(text[:60]), "character": character, "position": position}
        raise GameError(
            msg(
                "a game's name %(name)s contains %(character)s at position %(position)s: invisible and control "
                "characters are not allowed (they make one name look like another)",
                **values,
            )
            if where is None
            else msg(
                "%(where)s %(name)s contains %(character)s at position %(position)s: invisible and control characters "
                "are not allowed (they make one name look like another)",
                where=where,
                **values,
            )
        )
    return text


def check_game_name(name: Any) -> str:
    """A game's name as stored: it is part of every address of the game (``/games/NAME``) and of commands."""
    if not isinstance(name, str):
        raise GameError(msg("a game's name is text, not %(type)s", type=type(name).__name__))
    text = _plain(name.strip(), None, NAME_LIMIT)
    if "/" in text or "\\" in text:
        other = _SLASHES.sub("-", text)
        raise GameError(
            msg(
                "a game's name cannot contain '/' or a backslash (%(name)s); try %(other)s",
                name=repr(text),
                other=repr(other),
            )
        )
    if text.startswith("."):
        raise GameError(
            msg(
                "a game's name cannot start with '.' (%(name)s); try %(other)s",
                name=repr(text),
                other=repr(text.lstrip(".") or "game"),
            )
        )
    return text


def check_variant_name(name: Any) -> str:
    """A variant's name as a game stores it: a plain name (it names the variant's files, so never a path)."""
    if not isinstance(name, str) or not name or len(name) > NAME_LIMIT or not _VARIANT_NAME.match(name):
        cut = repr(name)[:80]
        raise GameError(
            msg(
                "%(name)s is not a variant name; a variant is named by letters, digits, '-', '_' and single dots (like "
                "standard, 1000ad or w3k), never a path",
                name=cut,
            )
        )
    return name


def check_settings(data: Any) -> GameSettings:
    """A game's settings, every field of the right type (deadlines, time zone, time of day, missed limit)."""
    if isinstance(data, GameSettings):
        return data
    if not isinstance(data, Mapping):
        raise GameError(msg("settings: expected an object with deadlines, timezone, time_of_day, missed_limit, draws"))
    deadlines = data.get("deadlines", {})
    if not isinstance(deadlines, Mapping) or not all(isinstance(t, str) for t in deadlines.values()):
        raise GameError(msg('settings.deadlines: expected {"movement": "12d", "retreats": "2d", "adjustments": "2d"}'))
    for key in ("timezone", "time_of_day"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise GameError(
                msg("settings.%(key)s: expected text, not %(type)s", key=key, type=type(data[key]).__name__)
            )
    missed = data.get("missed_limit", 2)
    if isinstance(missed, bool) or not isinstance(missed, int) or not 0 <= missed <= 1000:
        raise GameError(
            msg(
                "%(where)s: expected a whole number from %(least)s to %(most)s, not %(value)s",
                where="settings.missed_limit",
                least=0,
                most=1000,
                value=shown(missed),
            )
        )
    if not isinstance(data.get("draws", True), bool):
        raise GameError(msg("settings.draws: expected true or false"))
    try:
        return GameSettings.from_data(data)
    except (TypeError, ValueError, OverflowError) as e:
        raise GameError(msg("settings: %(reason)s", reason=_reason(e))) from None


def check_new_game(name: Any, variant: Variant, settings: Any) -> tuple[str, GameSettings]:
    """What every new game is checked for, created here or imported: its name, its variant's name (from the
    variant itself: a stored copy names its own variant) and its settings. Returns the name and settings
    as they are stored."""
    try:
        check_variant_name(variant.name)
    except GameError as e:
        raise GameError(msg("variant: %(reason)s", reason=_reason(e))) from None
    return check_game_name(name), check_settings(settings)


# --------------------------------------------------------------------------------------------------
# A game file


def _strings_ok(value: Any, where: str, depth: int = 0) -> None:
    """No NUL and no lone surrogate anywhere: neither database can store them (PostgreSQL refuses NUL)."""
    if depth > 60:
        raise GameError(msg("%(where)s: nested too deeply", where=where))
    if isinstance(value, str):
        if "\x00" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise GameError(msg("%(where)s: contains a NUL or a lone surrogate, which cannot be stored", where=where))
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _strings_ok(k, f"{where}.{str(k)[:40]}", depth + 1)
            _strings_ok(v, f"{where}.{str(k)[:40]}", depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _strings_ok(v, f"{where}[{i}]", depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        raise GameError(msg("%(where)s: %(value)s is not a number that can be stored", where=where, value=value))


def _obj(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise GameError(msg("%(where)s: expected an object, not %(type)s", where=where, type=type(value).__name__))
    return value


def _list(value: Any, where: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise GameError(msg("%(where)s: expected a list, not %(type)s", where=where, type=type(value).__name__))
    return value


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise GameError(
            msg(
                "%(where)s: expected a whole number from %(least)s to %(most)s, not %(value)s",
                where=where,
                least=lo,
                most=quantity(hi),
                value=shown(value),
            )
        )
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise GameError(msg("%(where)s: expected true or false, not %(value)s", where=where, value=shown(value)))
    return value


def _text(value: Any, where: str, limit: int, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise GameError(
            msg("%(where)s: expected text of at most %(most)s characters", where=where, most=quantity(limit))
        )
    return value


def _time(value: Any, where: str, *, optional: bool = False) -> datetime | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > 40:
        raise GameError(
            msg(
                "%(where)s: expected a time like 2026-12-01T09:00:00+00:00, not %(value)s",
                where=where,
                value=shown(value),
            )
        )
    try:
        return as_utc(datetime.fromisoformat(value))
    except (ValueError, OverflowError):
        raise GameError(
            msg(
                "%(where)s: cannot read the time %(value)s; write it like 2026-12-01T09:00:00+00:00",
                where=where,
                value=repr(value),
            )
        ) from None


def _power(v: Variant, value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise GameError(msg("%(where)s: expected a power's name, not %(type)s", where=where, type=type(value).__name__))
    try:
        return v.power(value).name
    except KeyError:
        powers = ", ".join(v.power_names)
        raise GameError(
            msg(
                "%(where)s: no power %(power)s in %(variant)s; its powers are %(powers)s",
                where=where,
                power=shown(value),
                variant=v.name,
                powers=powers,
            )
        ) from None


def check_game_file(data: Mapping[str, Any], v: Variant) -> None:
    """Everything of a game file beyond :func:`check_new_game`, read on the game's variant ``v``; raises a
    :class:`GameError` naming the first place that is wrong. After it, storing the file cannot fail and the
    stored game can be shown, played and processed."""
    _strings_ok(data, "game file")
    gd = _obj(data.get("game"), "game")
    state = gd.get("status")
    if state not in GAME_STATES:
        raise GameError(
            msg(
                "%(where)s: %(value)s is not one of %(choices)s",
                where="game.status",
                value=shown(state),
                choices=", ".join(GAME_STATES),
            )
        )
    branch = _int(gd.get("branch", 0), "game.branch", 0, 1_000_000)
    _time(gd.get("created_at"), "game.created_at")
    if gd.get("options") is not None:
        _obj(gd["options"], "game.options")
    paused = gd.get("paused_remaining")
    if state == "paused":
        if isinstance(paused, bool) or not isinstance(paused, (int, float)) or not 0 <= paused <= MAX_PAUSED_SECONDS:
            raise GameError(
                msg(
                    "game.paused_remaining: a paused game needs the seconds left on its clock, 0 to %(most)s, not "
                    "%(value)s",
                    most=quantity(MAX_PAUSED_SECONDS),
                    value=shown(paused),
                )
            )
    elif paused is not None:
        raise GameError(
            msg("game.paused_remaining: only a paused game has time left on a stopped clock (%(state)s)", state=state)
        )
    ending = gd.get("ending")
    if state == "finished":
        if not isinstance(ending, Mapping):
            raise GameError(
                msg(
                    "game.ending: a finished game says how it ended (an object), not %(type)s",
                    type=type(ending).__name__,
                )
            )
        e = ending
        _text(e.get("kind"), "game.ending.kind", 40)
        _text(e.get("text", ""), "game.ending.text", 2000)
        for i, p in enumerate(_list(e.get("powers", []), "game.ending.powers")):
            _power(v, p, f"game.ending.powers[{i}]")
    elif ending is not None:
        raise GameError(msg("game.ending: a game that is %(state)s has not ended", state=state))

    current: set[str] = set()
    for i, r in enumerate(_list(data.get("players", []), "players")):
        where = f"players[{i}]"
        r = _obj(r, where)
        power = _power(v, r.get("power"), f"{where}.power")
        if not isinstance(r.get("name"), str):
            raise GameError(msg("%(where)s: expected the player's name", where=f"{where}.name"))
        _plain(r["name"].strip(), f"{where}.name", PLAYER_NAME_LIMIT)
        _time(r.get("assigned_at"), f"{where}.assigned_at")
        if _time(r.get("replaced_at"), f"{where}.replaced_at", optional=True) is None:
            if power in current:
                raise GameError(
                    msg(
                        "%(where)s: %(power)s has two current players; only one plays a power at a time",
                        where=where,
                        power=power,
                    )
                )
            current.add(power)
        if r.get("email") is not None:
            try:
                if clean_address(_text(r["email"], f"{where}.email", 320)) != r["email"]:
                    raise GameError(
                        msg(
                            "%(address)s is not written as an address is stored (like a@example.org)",
                            address=repr(r["email"]),
                        )
                    )
            except GameError as e:
                raise GameError(msg("%(where)s.email: %(reason)s", where=where, reason=_reason(e))) from None

    phases = _list(data.get("phases"), "phases")
    if not phases:
        raise GameError(msg("phases: a game file has at least one phase (the one the game opened with)"))
    seen: set[tuple[int, int]] = set()
    open_at: list[int] = []
    ids: set[int] = set()
    for i, ph in enumerate(phases):
        _check_phase(v, _obj(ph, f"phases[{i}]"), f"phases[{i}]", branch, seen, ids)
        if ph["status"] == "open":
            open_at.append(i)
    if state == "finished" and open_at:
        raise GameError(msg("%(where)s: a finished game has no open phase", where=f"phases[{open_at[0]}]"))
    if state != "finished":
        if len(open_at) != 1:
            if open_at:
                raise GameError(
                    msg(
                        "phases: a game that is %(state)s has exactly one open phase; this file has %(count)s "
                        "(phases %(phases)s)",
                        state=state,
                        count=len(open_at),
                        phases=", ".join(map(str, open_at)),
                    )
                )
            raise GameError(
                msg(
                    "phases: a game that is %(state)s has exactly one open phase; this file has %(count)s",
                    state=state,
                    count=0,
                )
            )
        op = phases[open_at[0]]
        if op["branch"] != branch:
            raise GameError(
                msg(
                    "%(where)s: the open phase is on branch %(branch)s, the game on %(game_branch)s",
                    where=f"phases[{open_at[0]}]",
                    branch=op["branch"],
                    game_branch=branch,
                )
            )
        if (op.get("deadline") is None) != (state == "paused"):
            deadline_at = f"phases[{open_at[0]}].deadline"
            if state == "paused":
                raise GameError(msg("%(where)s: a paused game's open phase has no deadline", where=deadline_at))
            raise GameError(msg("%(where)s: the open phase needs one", where=deadline_at))

    for i, r in enumerate(_list(data.get("votes", []), "votes")):
        r = _obj(r, f"votes[{i}]")
        _power(v, r.get("power"), f"votes[{i}].power")
        _bool(r.get("draw"), f"votes[{i}].draw")
        _time(r.get("at"), f"votes[{i}].at")
    for i, r in enumerate(_list(data.get("events", []), "events")):
        r = _obj(r, f"events[{i}]")
        kind = _text(r.get("kind"), f"events[{i}].kind", 30)
        if not kind:
            raise GameError(msg("%(where)s: empty", where=f"events[{i}].kind"))
        _time(r.get("at"), f"events[{i}].at")
        _obj(r.get("detail", {}), f"events[{i}].detail")


def _check_phase(
    v: Variant, ph: Mapping[str, Any], where: str, branch: int, seen: set[tuple[int, int]], ids: set[int]
) -> None:
    key = (_int(ph.get("branch"), f"{where}.branch", 0, branch), _int(ph.get("seq"), f"{where}.seq", 0, 1_000_000))
    if key in seen:
        raise GameError(
            msg(
                "%(where)s: a second phase at branch %(branch)s, position %(seq)s in the game's line",
                where=where,
                branch=key[0],
                seq=key[1],
            )
        )
    seen.add(key)
    status = ph.get("status")
    if status not in PHASE_STATES:
        raise GameError(
            msg(
                "%(where)s: %(value)s is not one of %(choices)s",
                where=f"{where}.status",
                value=shown(status),
                choices=", ".join(PHASE_STATES),
            )
        )
    try:
        pos = position_from_data(v, _obj(ph.get("position"), f"{where}.position"))
    except (DippouchError, KeyError, TypeError, ValueError) as e:
        raise GameError(msg("%(where)s.position: %(reason)s", where=where, reason=_reason(e))) from None
    name, kind = v.calendar.name(pos.phase), v.calendar.kind(pos.phase).value
    if ph.get("name") != name or ph.get("kind") != kind:
        raise GameError(
            msg(
                "%(where)s: its name and kind (%(name)s, %(kind)s) are not those of its position (%(position_name)s, "
                "%(position_kind)s)",
                where=where,
                name=shown(ph.get("name")),
                kind=shown(ph.get("kind")),
                position_name=repr(name),
                position_kind=repr(kind),
            )
        )
    _time(ph.get("opened_at"), f"{where}.opened_at")
    _time(ph.get("deadline"), f"{where}.deadline", optional=True)
    _time(ph.get("processed_at"), f"{where}.processed_at", optional=True)
    if ph.get("next_position") is not None:
        try:
            position_from_data(v, ph["next_position"])
        except (DippouchError, KeyError, TypeError, ValueError) as e:
            raise GameError(msg("%(where)s.next_position: %(reason)s", where=where, reason=_reason(e))) from None
    if status == "processed" and ph.get("processed_at") is None:
        raise GameError(msg("%(where)s: a processed phase says when it was processed (processed_at)", where=where))
    orders = ph.get("orders")
    if orders is not None:
        for p, ts in _obj(orders, f"{where}.orders").items():
            _power(v, p, f"{where}.orders")
            if not all(isinstance(t, str) for t in _list(ts, f"{where}.orders.{p}")):
                raise GameError(msg("%(where)s: expected a list of orders", where=f"{where}.orders.{p}"))
    if ph.get("results") is not None and not all(
        isinstance(r, Mapping) for r in _list(ph["results"], f"{where}.results")
    ):
        raise GameError(msg("%(where)s: expected a list of objects", where=f"{where}.results"))
    for j, p in enumerate(_list(ph.get("missed") or [], f"{where}.missed")):
        _power(v, p, f"{where}.missed[{j}]")

    versions: dict[str, set[int]] = {}
    wanted: list[tuple[str, str, int]] = []
    for j, sub in enumerate(_list(ph.get("submissions", []), f"{where}.submissions")):
        at = f"{where}.submissions[{j}]"
        sub = _obj(sub, at)
        if sub.get("sealed"):
            raise GameError(
                msg(
                    "this game file was exported with the open phase's orders sealed; %(hint)s to move a running game",
                    hint=hint("export-unsealed", "export it again with `dippouch export --unsealed --reason TEXT`"),
                )
            )
        power = _power(v, sub.get("power"), f"{at}.power")
        version = _int(sub.get("version"), f"{at}.version", 1, 1_000_000)
        if version in versions.setdefault(power, set()):
            raise GameError(
                msg(
                    "%(where)s: %(power)s has two versions numbered %(version)s in %(phase)s",
                    where=at,
                    power=power,
                    version=version,
                    phase=PhaseName(name),
                )
            )
        versions[power].add(version)
        if sub.get("id") is not None:
            ids.add(_int(sub["id"], f"{at}.id", 1, 2**62))
        if sub.get("carried_from") is not None and _int(sub["carried_from"], f"{at}.carried_from", 1, 2**62) not in ids:
            raise GameError(msg("%(where)s: names no submission earlier in the file", where=f"{at}.carried_from"))
        _time(sub.get("submitted_at"), f"{at}.submitted_at")
        _time(sub.get("recorded_at"), f"{at}.recorded_at", optional=True)
        text = _text(sub.get("text"), f"{at}.text", TEXT_LIMIT) or ""
        for flag in ("ready", "stands"):
            if flag in sub:
                _bool(sub[flag], f"{at}.{flag}")
        if sub.get("source", "cli") not in SOURCES:
            raise GameError(
                msg(
                    "%(where)s: %(value)s is not one of %(choices)s",
                    where=f"{at}.source",
                    value=shown(sub.get("source")),
                    choices=", ".join(SOURCES),
                )
            )
        _text(sub.get("label"), f"{at}.label", 40, optional=True)
        if sub.get("reinstates") is not None:
            wanted.append((at, power, _int(sub["reinstates"], f"{at}.reinstates", 1, 1_000_000)))
        lines = []
        for k, d in enumerate(_list(sub.get("lines"), f"{at}.lines")):
            d = _obj(d, f"{at}.lines[{k}]")
            ok = (
                isinstance(d.get("line"), int)
                and not isinstance(d.get("line"), bool)
                and isinstance(d.get("text"), str)
            )
            ok = ok and all(d.get(f) is None or isinstance(d.get(f), str) for f in ("order", "error", "note"))
            if not ok:
                raise GameError(
                    msg(
                        '%(where)s: expected {"line": N, "text": "...", "order": ..., "error": ...}',
                        where=f"{at}.lines[{k}]",
                    )
                )
            lines.append(LineCheck.from_data(d))
        if status == "open":
            # The verdicts of the open phase's versions are what processing carries out: they must be the
            # ones the arrival check gives their text (the one legality decision), not whatever a file says.
            accepted = [ln.order for ln in lines if ln.accepted and ln.order is not None]
            again = [ln.order for ln in check_orders(v, pos, power, read_version_lines(text).text) if ln.accepted]
            if accepted != [o for o in again if o is not None]:
                extra = next((o for o in accepted if o not in again), None)
                if extra:
                    raise GameError(
                        msg(
                            "%(where)s (%(power)s version %(version)s): its line verdicts do not match its text "
                            "(%(order)s is not an order its text gives here); the file was edited or damaged",
                            where=at,
                            power=power,
                            version=version,
                            order=repr(extra),
                        )
                    )
                raise GameError(
                    msg(
                        "%(where)s (%(power)s version %(version)s): its line verdicts do not match its text; the file "
                        "was edited or damaged",
                        where=at,
                        power=power,
                        version=version,
                    )
                )
    for at, power, n in wanted:
        if n not in versions.get(power, set()):
            raise GameError(
                msg(
                    "%(where)s: %(power)s has no version %(version)s in %(phase)s",
                    where=f"{at}.reinstates",
                    power=power,
                    version=n,
                    phase=PhaseName(name),
                )
            )
