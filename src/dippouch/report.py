"""The Judge-style plain-text results of one phase, as a coordinator mails them to the players.

Plain text on purpose: it goes into e-mail, gets printed, photographed and posted (the W3K way), and must
read the same everywhere. Layout follows the old Diplomacy Judge: each power's orders with the result of
anything that did not simply succeed, then dislodgements with retreat options, centre ownership and its
changes, adjustments, and the next deadline.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from dippouch.core.calendar import Calendar, PhaseKind
from dippouch.core.errors import PhaseError
from dippouch.core.messages import Msg
from dippouch.core.position import Position
from dippouch.core.results import OrderResult, Outcome
from dippouch.core.variant import Variant
from dippouch.game import Ending, GameSettings, adjustment_delta, as_utc, position_from_data, stored_msg
from dippouch.i18n import translations
from dippouch.names import joined, phase_words, place_list, unit_text, unit_words
from dippouch.saying import say

__all__ = ["I18N_DOMAIN", "ReportBasis", "phase_report", "refused_lines", "report_basis"]

I18N_DOMAIN = "mail"
"""The report's fixed words are the game mail's catalogue (it is the body of the results mail); province,
power and order notation stay as the variant gives them. The adjudicator's reasons and the arrival check's
refusals are stored as message values and said in the report's language (:func:`dippouch.saying.say`)."""

_SILENT = {"succeeds", "given", "available", "stands"}
_WIDTH = 100
"""Lines of a report are wrapped to this width: it is mailed, printed and posted."""


def _outcome_words(lang: str) -> dict[str, str]:
    """The adjudicator's result words (:class:`~dippouch.core.results.Outcome`) as the report writes them."""
    _ = translations(lang).gettext
    return {
        "illegal": _("illegal"),
        "invalid": _("invalid"),
        "fails": _("fails"),
        "cut": _("cut"),
        "disrupted": _("disrupted"),
        "dislodged": _("dislodged"),
    }


def _result_note(r: Mapping[str, Any], refused: bool = False, lang: str = "en") -> str:
    """``refused``: the power sent orders this phase and some were refused, so a unit left to hold may have
    had an order sent for it ("not accepted") rather than none at all ("no order received")."""
    _ = translations(lang).gettext
    outcomes = _outcome_words(lang)
    notes = []
    if r["result"] not in _SILENT:
        notes.append(outcomes.get(str(r["result"]), str(r["result"])))
    if r.get("destroyed"):
        notes.append(_("destroyed"))
    elif r.get("dislodged") and r["result"] != "dislodged":
        notes.append(_("dislodged"))
    automatic_hold = bool(r.get("automatic")) and r["result"] in ("stands", "succeeds")
    if r.get("automatic"):
        plain_hold = automatic_hold and r.get("reason") in ("", "no order: holds")
        notes.append((_("no order accepted") if refused else _("no order received")) if plain_hold else _("automatic"))
    text = f"  ({', '.join(notes)})" if notes else ""
    why = stored_msg(r.get("why"), r.get("reason"))
    # Every reason is shown, successes' too (a conversion begun, a hand-over, a removal drawn by lots), except
    # the plain "no order: holds" the note above already says.
    if why is not None and why.id != "no order: holds":
        text += f"  -- {say(why, lang)}"
    return text


def refused_lines(rec: Mapping[str, Any]) -> dict[str, list[tuple[str, Msg]]]:
    """Per power, the lines of its last version received in time that were not accepted, with why (the
    arrival check's own words): what the report names as "sent but not accepted". Empty when the record
    carries no submissions."""
    last: dict[str, Mapping[str, Any]] = {}
    for sub in rec.get("submissions") or []:
        if sub.get("late") or sub.get("reinstates") is not None:
            continue
        prev = last.get(str(sub["power"]))
        if prev is None or int(sub["version"]) > int(prev["version"]):
            last[str(sub["power"])] = sub
    out: dict[str, list[tuple[str, Msg]]] = {}
    for power, sub in last.items():
        bad = []
        for ln in sub.get("lines") or []:
            error = stored_msg(ln.get("error_msg"), ln.get("error"))
            if error is not None:
                bad.append((str(ln.get("text", "")), error))
        if bad:
            out[power] = bad
    return out


def _wrapped(head: str, items: Sequence[str], tail: str = "") -> list[str]:
    """``head`` then the items (:func:`dippouch.names.joined`), wrapped under the first item."""
    body = joined(items) + tail
    return textwrap.wrap(body, width=_WIDTH, initial_indent=head, subsequent_indent=" " * len(head)) or [head]


@dataclass(frozen=True)
class ReportBasis:
    """What a phase's report reads of its record in any language, read once: the positions before and after
    it, each result's order read back and written with full names, and the variant's notes. A page made in
    two languages (or a fog-free page after the mail) parses the phase's orders and positions once, not once
    per language: parsing was most of a report's cost."""

    pos: Position
    nxt: Position | None
    full_orders: Mapping[str, str]
    """Each stored order that reads back, as written with full names (:func:`dippouch.names.order_text`)."""
    notes: tuple[Msg, ...]


def report_basis(
    variant: Variant, rec: Mapping[str, Any], *, positions: tuple[Position, Position | None] | None = None
) -> ReportBasis:
    """The :class:`ReportBasis` of a phase record; ``positions``: the record's position and next position
    parsed already (a caller that keeps positions parsed per phase), else parsed here."""
    from dippouch.core.notation import OrderParseError, format_order, parse_order
    from dippouch.core.rules.base import hooks_for

    if positions is not None:
        pos, nxt = positions
    else:
        pos = position_from_data(variant, rec["position"])
        nxt = position_from_data(variant, rec["next_position"]) if rec.get("next_position") is not None else None
    kind = variant.calendar.kind(pos.phase)
    full: dict[str, str] = {}
    results = []
    for r in rec.get("results") or []:
        text = str(r["order"])
        try:
            order = parse_order(variant, text, phase_kind=kind)
        except OrderParseError:
            continue
        full[text] = format_order(variant, order, phase_kind=kind, full=True)
        results.append(
            OrderResult(
                str(r["power"]),
                order,
                Outcome(r["result"]),
                bool(r.get("dislodged")),
                bool(r.get("destroyed")),
                bool(r.get("automatic")),
                stored_msg(r.get("why"), r.get("reason")) or "",
                r.get("index"),
            )
        )
    notes = tuple(hooks_for(variant).phase_notes(pos, nxt, results)) if nxt is not None else ()
    return ReportBasis(pos, nxt, full, notes)


def phase_report(
    variant: Variant,
    rec: Mapping[str, Any],
    *,
    full: bool = True,
    lang: str | None = None,
    basis: ReportBasis | None = None,
) -> str:
    """The report for one phase record (see :func:`dippouch.store.history.phase_record`).

    Places are written by their full names unless ``full`` is false (the map's abbreviations, shorter but
    known only to those who know the map); explanations always use full names. The fixed words are in
    ``lang``, by default the game's language (:attr:`dippouch.game.GameSettings.language`): the report is the
    results mail every player of the game gets. ``basis``: the record's :func:`report_basis`, when the caller
    keeps it for the report in several languages.
    """
    m = variant.map
    settings = GameSettings.from_data(rec.get("settings", {}))
    lang = lang or settings.language
    _ = translations(lang).gettext
    if basis is None and rec.get("processed_at") and rec.get("next_position") is not None:
        basis = report_basis(variant, rec)
    pos = basis.pos if basis is not None else position_from_data(variant, rec["position"])
    kind = variant.calendar.kind(pos.phase)
    lines: list[str] = []
    title = _("%(phase)s results, game %(game)s (%(variant)s)") % {
        "phase": phase_words(variant.calendar.name(pos.phase), lang),
        "game": rec["game"],
        "variant": variant.title,
    }
    lines += [title, "=" * len(title)]
    if rec.get("processed_at"):
        lines.append(
            _("Processed %(when)s.") % {"when": settings.describe(datetime.fromisoformat(rec["processed_at"]))}
        )
    if rec["status"] == "abandoned":
        lines.append(_("This phase was abandoned by a rollback: it is kept for the record, not part of the game."))
    if not rec.get("processed_at"):
        lines += ["", _("This phase has not been processed (it is %(status)s).") % {"status": rec["status"]}]
        return "\n".join(lines) + "\n"
    if rec.get("next_position") is None:
        lines += ["", _("The game ended before this phase was played.")]
        if rec.get("ending"):
            lines.append(say(Ending.from_data(rec["ending"]).message, lang))
        return "\n".join(lines) + "\n"
    lines.append("")
    assert basis is not None and basis.nxt is not None  # made above for a record processed with a next position
    nxt = basis.nxt

    by_power: dict[str, list[Mapping[str, Any]]] = {}
    for r in rec.get("results") or []:
        # The orders are what the players gave (and the holds the rules gave for their silence); the disband the
        # adjudicator adds for a unit with nowhere to retreat is told with the destroyed units below.
        if kind == PhaseKind.MOVEMENT and _disband_of_destroyed(r):
            continue
        by_power.setdefault(str(r["power"]), []).append(r)
    missed = set(rec.get("missed") or [])
    refused = refused_lines(rec)
    width = max((len(p) for p in variant.power_names), default=8) + 2
    for power in variant.power_names:
        rs = by_power.get(power, [])
        if not rs and power not in missed and power not in refused:
            continue
        if not rs and (power in missed or power in refused):
            lines.append(
                f"{power + ':':<{width}}"
                + (_("(no order accepted)") if power in refused else _("(no orders received)"))
            )
        for r in rs:
            order = basis.full_orders.get(str(r["order"]), str(r["order"])) if full else str(r["order"])
            lines.append(f"{power + ':':<{width}}{order}{_result_note(r, power in refused, lang)}")
        for text, why in refused.get(power, []):
            lines += textwrap.wrap(
                _("sent but not accepted: %(line)s -- %(why)s") % {"line": repr(text), "why": say(why, lang)},
                width=_WIDTH,
                initial_indent=" " * width,
                subsequent_indent=" " * (width + 2),
            )
        lines.append("")

    notes = basis.notes
    if notes:
        lines.append(_("Notes:"))
        for note in notes:
            lines += textwrap.wrap(say(note, lang), width=_WIDTH, initial_indent="  ", subsequent_indent="    ")
        lines.append("")
    destroyed = _destroyed_units(variant, rec.get("results") or []) if kind == PhaseKind.MOVEMENT else []
    if kind == PhaseKind.MOVEMENT and nxt.dislodged:
        # Units that must retreat, and beside them those destroyed for want of a retreat (the adjudicator has
        # disbanded them already, so the next position holds only the former).
        gone: list[tuple[str, str, int, frozenset[int]]] = [
            (d.unit.power, d.unit.kind, d.unit.loc, d.retreats) for d in nxt.dislodged.values()
        ]
        gone += [(u.power, u.kind, u.loc, frozenset()) for u in destroyed if u.kind is not None and u.loc is not None]
        destroyed = [u for u in destroyed if u.kind is None or u.loc is None]  # a unit its order does not name
        lines.append(_("The following units were dislodged:"))
        for power, unit_kind, loc, retreats in sorted(gone, key=lambda d: (d[0], m.locations[d[2]].name)):
            unit = unit_words(variant, power, unit_kind, loc, lang)
            unit = unit[0].upper() + unit[1:]
            if retreats:
                # The sentence is translated whole; the places are wrapped under the first of them.
                head, _sep, tail = (
                    _("%(unit)s can retreat to %(places)s.") % {"unit": unit, "places": "\0"}
                ).partition("\0")
                lines += _wrapped(f"  {head}", place_list(variant, retreats, full=full), tail)
            else:
                lines.append("  " + _("%(unit)s with no valid retreats was destroyed.") % {"unit": unit})
        lines.append("")
    if destroyed:
        head, _sep, tail = (_("Destroyed (no retreat possible): %(units)s") % {"units": "\0"}).partition("\0")
        lines += _wrapped(head, [f"{u.power} {u.text(variant, full)}" for u in destroyed], tail)
        lines.append("")

    # A fog-of-war reader's record (render/fog.py's fog_record) holds only the centres they saw: a centre seen on
    # one side of the phase only changed hands as far as they know, and one not seen after is not unowned.
    seen_before, seen_after, sight_powers = _fog_sight(m, rec)
    gained, lost = (
        _centre_changes(
            {c: p for c, p in pos.centres.items() if c in seen_before & seen_after},
            {c: p for c, p in nxt.centres.items() if c in seen_before & seen_after},
        )
        if sight_powers is not None
        else _centre_changes(pos.centres, nxt.centres)
    )
    if gained or lost:
        lines.append(_("Supply centre changes:"))
        for power in variant.power_names:
            g = place_list(variant, gained.get(power, []), full=full)
            lo = place_list(variant, lost.get(power, []), full=full)
            if g or lo:
                parts = ([_("gains %(places)s") % {"places": joined(g)}] if g else []) + (
                    [_("loses %(places)s") % {"places": joined(lo)}] if lo else []
                )
                lines += textwrap.wrap(
                    "; ".join(parts),
                    width=_WIDTH,
                    initial_indent=f"  {power + ':':<{width}}",
                    subsequent_indent=" " * (width + 2),
                )
        lines.append("")

    next_kind = variant.calendar.kind(nxt.phase)
    if pos.centres != nxt.centres or next_kind == PhaseKind.ADJUSTMENTS or kind == PhaseKind.ADJUSTMENTS:
        lines.append(_("Ownership of supply centres:"))
        for power in variant.power_names:
            cs = place_list(variant, nxt.centres_of(power), full=full)
            if cs:
                # In fog another power's count would read as all it owns; it is only what the reader saw.
                told = sight_powers is None or power in sight_powers
                lines += _wrapped(f"  {power + ':':<{width}}", cs, f"  ({len(cs)})" if told else "")
        unowned = place_list(
            variant,
            [c for c in m.supply_centres if c not in nxt.centres and (sight_powers is None or c in seen_after)],
            full=full,
        )
        if unowned:
            label = _("Unowned:")
            # A translated label longer than the column still keeps a space before the first centre.
            head = f"  {label:<{width}}" if len(label) < width or lang == "en" else f"  {label} "
            lines += _wrapped(head, unowned, f"  ({len(unowned)})")
        lines.append("")

    if next_kind == PhaseKind.ADJUSTMENTS and rec.get("next_phase"):
        lines.append(_("Adjustments for %(phase)s:") % {"phase": phase_words(variant.calendar.name(nxt.phase), lang)})
        for power in variant.power_names:
            c, u = len(nxt.centres_of(power)), len(nxt.units_of(power))
            if (not c and not u) or (sight_powers is not None and power not in sight_powers):
                continue  # in fog, others' counts are of what the reader saw, not what they have
            delta = adjustment_delta(variant, nxt, power)
            what = (
                _("builds %(count)d") % {"count": delta}
                if delta > 0
                else _("removes %(count)d") % {"count": -delta}
                if delta < 0
                else _("no change")
            )
            counts = _("supply centres %(centres)2d, units %(units)2d: %(what)s") % {
                "centres": c,
                "units": u,
                "what": what,
            }
            lines.append(f"  {power + ':':<{width}}{counts}")
        lines.append("")

    if rec.get("ending"):
        lines.append(_("THE GAME IS OVER. %(ending)s") % {"ending": say(Ending.from_data(rec["ending"]).message, lang)})
    elif rec.get("next_phase"):
        next_phase = phase_words(str(rec["next_phase"]), lang)
        if rec.get("next_deadline"):
            when = settings.describe(datetime.fromisoformat(rec["next_deadline"]))
            lines.append(
                _("The next phase is %(phase)s; orders are due by %(when)s.") % {"phase": next_phase, "when": when}
            )
        else:
            lines.append(
                _("The next phase is %(phase)s; the game is paused, no deadline is running.") % {"phase": next_phase}
            )
    return "\n".join(lines).rstrip() + "\n"


def _disband_of_destroyed(r: Mapping[str, Any]) -> bool:
    """Whether a movement phase's result is the disband the adjudicator adds for a unit dislodged with nowhere
    to retreat (the unit's own order, or its automatic hold, carries the same flag but is no disband)."""
    return bool(r.get("automatic")) and bool(r.get("destroyed")) and r.get("result") == "succeeds"


@dataclass(frozen=True)
class _Destroyed:
    """A unit a movement phase destroyed: its power and the unit as the stored order names it (``A rum``), read
    back where it reads (``kind`` and ``loc`` None where it does not)."""

    power: str
    unit: str
    kind: str | None
    loc: int | None

    def text(self, variant: Variant, full: bool) -> str:
        return unit_text(variant, self.unit, full=full)


def _destroyed_units(variant: Variant, results: Iterable[Mapping[str, Any]]) -> list[_Destroyed]:
    """Each unit the phase destroyed, once, in the results' order. The adjudicator flags two results of such a
    unit ``destroyed``, its own order (or automatic hold) and the disband it adds; the unit is named as the
    disband names it (an illegal order standing in for the unit may name it otherwise: ``F rum`` for an army)."""
    from dippouch.core.notation import OrderParseError, parse_unit

    found: dict[tuple[str, object], _Destroyed] = {}
    for r in results:
        if not r.get("destroyed"):
            continue
        power, unit = str(r["power"]), " ".join(str(r["order"]).split(" ")[:2])
        try:
            kind, loc = parse_unit(variant, unit)
        except OrderParseError:
            kind, loc = None, None
        key: tuple[str, object] = (power, unit if loc is None else variant.map.locations[loc].province)
        if key not in found or _disband_of_destroyed(r):
            found[key] = _Destroyed(power, unit, kind, loc)
    return list(found.values())


def _fog_sight(m: Any, rec: Mapping[str, Any]) -> tuple[set[int], set[int], frozenset[str] | None]:
    """The provinces a fog-of-war reader saw before and after the phase and the powers they see with (None for
    a record of the whole board)."""
    powers = rec.get("sight_powers")
    if powers is None:
        return set(), set(), None
    by_abbr = {p.abbr: i for i, p in enumerate(m.provinces)}

    def ids(abbrs: Any) -> set[int]:
        return {by_abbr[a] for a in abbrs or () if a in by_abbr}

    return ids(rec.get("seen")), ids(rec.get("seen_after")), frozenset(powers)


def _centre_changes(
    before: Mapping[int, str], after: Mapping[int, str]
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    gained: dict[str, list[int]] = {}
    lost: dict[str, list[int]] = {}
    for c in set(before) | set(after):
        b, a = before.get(c), after.get(c)
        if b == a:
            continue
        if a is not None:
            gained.setdefault(a, []).append(c)
        if b is not None:
            lost.setdefault(b, []).append(c)
    return gained, lost


def calendar_rows(phases: Iterable[Any]) -> list[tuple[int, str, datetime, datetime | None]]:
    """What :func:`deadlines_ical` lists of a game's phases (stored phase rows, in any order of reading):
    those on the current line of play with a deadline, each with when it was processed, so the CLI's file
    and the web's feed say the same."""
    return [(r.id, r.name, r.deadline, r.processed_at) for r in phases if r.status != "abandoned" and r.deadline]


EVENT_LENGTH = timedelta(minutes=30)
"""How long a deadline's event lasts, from the deadline: RFC 5545 gives an event whose DTEND equals its DTSTART
no time at all, which some calendar programs hide or refuse to import."""

UPCOMING = 6
"""How many phases after the open one the feed forecasts."""


def upcoming_deadlines(
    calendar: Calendar, settings: GameSettings, phase: str, deadline: datetime, count: int = UPCOMING
) -> list[tuple[str, datetime]]:
    """The phases after the open one (``phase``, due at ``deadline``) with the deadlines they would get if each
    opened when the one before it is due: what the game's deadline settings promise, not a fixed schedule.

    Retreat phases are left out (they happen only when a unit is dislodged, and each that happens moves what
    follows by its own time); phases processed early move them too. The feed marks them tentative."""
    out: list[tuple[str, datetime]] = []
    try:
        at = calendar.parse(phase)
    except PhaseError:  # a phase name of another calendar: nothing to forecast
        return out
    due = as_utc(deadline)
    for _ in range(count):
        at = calendar.following(at, (PhaseKind.MOVEMENT, PhaseKind.ADJUSTMENTS))
        if calendar.last_year is not None and at.year > calendar.last_year:
            break
        due = settings.deadline(calendar.kind(at), due)
        out.append((calendar.name(at), due))
    return out


def deadlines_ical(
    game: str,
    settings: GameSettings,
    deadlines: Sequence[tuple[int, str, datetime] | tuple[int, str, datetime, datetime | None]],
    *,
    stamp: datetime | None = None,
    upcoming: Sequence[tuple[str, datetime]] = (),
) -> bytes:
    """An iCalendar feed of a game's deadlines, for players to subscribe to (the W3K "calendar feed").

    ``deadlines`` is (phase id, phase name, deadline[, processed at]) for each phase of the current line of
    play. A phase processed before its deadline (everyone ready, or the coordinator's call) is shown when it
    was processed: that is when its orders were due in the end. Each event keeps its UID across
    regenerations, so a calendar program updates a moved deadline instead of adding one; ``DTSTAMP`` is when
    the feed was made (``stamp``, default now), as RFC 5545 asks. Times are written in UTC, which every
    calendar program converts to its user's own zone; the game's zone is named in ``X-WR-TIMEZONE`` and in
    each description. Each event lasts :data:`EVENT_LENGTH` from its deadline (RFC 5545 gives an event whose
    end is its start no duration). ``upcoming`` (:func:`upcoming_deadlines`) adds the phases to come, each
    ``STATUS:TENTATIVE`` with a UID of its phase name, so a calendar program moves it as the game goes.
    """
    import icalendar

    made = as_utc(stamp or datetime.now(UTC))
    lang = settings.language
    _ = translations(lang).gettext
    cal = icalendar.Calendar()
    cal.add("prodid", "-//dippouch//game deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", _("%(game)s: deadlines") % {"game": game})
    cal.add("x-wr-timezone", settings.timezone)
    for row in deadlines:
        phase_id, name, deadline = row[0], row[1], as_utc(row[2])
        processed = row[3] if len(row) > 3 else None
        ev = icalendar.Event()
        ev.add("uid", f"{game}-{phase_id}@dippouch")
        shown = phase_words(name, lang)
        ev.add("summary", _("%(game)s: orders due, %(phase)s") % {"game": game, "phase": shown})
        if processed is not None and as_utc(processed) < deadline:
            at = as_utc(processed)
            text = _("%(phase)s in game %(game)s was processed early, %(at)s (deadline %(deadline)s).") % {
                "phase": shown,
                "game": game,
                "at": settings.describe(at),
                "deadline": settings.describe(deadline),
            }
        else:
            at = deadline
            text = _("Deadline for %(phase)s in game %(game)s: %(deadline)s.") % {
                "phase": shown,
                "game": game,
                "deadline": settings.describe(deadline),
            }
        ev.add("dtstart", at)
        ev.add("dtend", at + EVENT_LENGTH)
        ev.add("dtstamp", made)
        ev.add("description", text)
        cal.add_component(ev)
    for name, due in upcoming:
        due = as_utc(due)
        ev = icalendar.Event()
        ev.add("uid", f"{game}-next-{name.replace(' ', '-')}@dippouch")
        shown = phase_words(name, lang)
        ev.add("summary", _("%(game)s: orders due, %(phase)s (expected)") % {"game": game, "phase": shown})
        ev.add("status", "TENTATIVE")
        ev.add("dtstart", due)
        ev.add("dtend", due + EVENT_LENGTH)
        ev.add("dtstamp", made)
        ev.add(
            "description",
            _(
                "Expected deadline for %(phase)s in game %(game)s: %(deadline)s, if every phase before it runs "
                "its full time (a retreat phase, an early processing, a pause or an extension moves it)."
            )
            % {"phase": shown, "game": game, "deadline": settings.describe(due)},
        )
        cal.add_component(ev)
    return bytes(cal.to_ical())
