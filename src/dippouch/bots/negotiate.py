"""Bots that negotiate: a small proposal language, a parser for players' plain requests, decisions by a stated
personality and the board, replies from templates, and the orders that honour what a bot accepted.

Only where the game's press rules let the message through (:func:`dippouch.press.rules.refusal` decides, as
for anyone's press): this module decides what a bot would say and order, never whether it may say it.

The proposals (:class:`Deal`):

- ``peace``: neither side moves into the other's units or centres;
- ``ally``: an alliance against a named power (peace between the allies, and their supports against it);
- ``dmz``: a demilitarised province: neither side moves into it;
- ``support``: a support for a named move (or to hold) in the phase it is asked in.

The structured form other programs read and write is one line per proposal or answer, starting ``[dippouch]``
(:data:`TAG`), in the game's own notation (province abbreviations, power names as the variant gives them)::

    [dippouch] PEACE
    [dippouch] ALLY AGAINST Russia
    [dippouch] DMZ bur
    [dippouch] SUP A bur - mun          (a support to hold: [dippouch] SUP A bur)
    [dippouch] YES SUP A bur - mun      (an answer; NO for a refusal)
    [dippouch] YES PEACE WITH France    (peace, alliances and DMZs name the other side: they outlast the phase)

A player writes plain English instead ("support my A Burgundy to Munich", "will you support F North Sea to
Norway?", "peace?", "alliance against Russia", "DMZ Burgundy"; a few German and French words are read too):
:func:`parse_request`. The bot answers with a sentence from a template in the game's language and the
structured line of its answer (:func:`reply_text`), so what it accepted is read back from the stored press
(:func:`accepted`) and nothing else is stored.

Personalities (:data:`PERSONALITIES`): ``honest`` says yes only to what makes sense for it and keeps every
promise it made while the other side keeps the peace; ``opportunist`` says yes more readily and keeps a promise
only when keeping it costs nothing it wants (a centre it could take) or hurts a power at war with it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from dippouch.bots.engine import (
    DippouchError,
    Hold,
    Move,
    Order,
    PhaseKind,
    Position,
    Support,
    Variant,
    legal_orders,
    parse_order,
)
from dippouch.core.notation import format_place, format_unit, parse_unit
from dippouch.i18n import translations

__all__ = [
    "HONEST",
    "OPPORTUNIST",
    "PERSONALITIES",
    "TAG",
    "Commitment",
    "Deal",
    "Decision",
    "accepted",
    "at_war",
    "decide",
    "honour",
    "parse_request",
    "parse_structured",
    "planning_view",
    "promised_units",
    "recent_orders",
    "reply_text",
    "structured",
]

I18N_DOMAIN = "bots"

TAG = "[dippouch]"
"""The first word of every structured line (a proposal or an answer)."""
HONEST, OPPORTUNIST = "honest", "opportunist"
PERSONALITIES = (HONEST, OPPORTUNIST)
LEADER_MARGIN = 3
"""An honest bot does not help a power that would then hold this many centres more than it does."""


@dataclass(frozen=True)
class Deal:
    """One thing proposed. ``power``: whom an alliance is against; ``place``: a DMZ's province; ``unit``,
    ``unit_kind`` and ``dest``: the supported unit's location, kind (if named) and the province it moves to
    (``None``: a support to hold)."""

    kind: str
    power: str | None = None
    place: int | None = None
    unit: int | None = None
    unit_kind: str | None = None
    dest: int | None = None


@dataclass(frozen=True)
class Decision:
    """A bot's decision on one proposal: ``why`` names the reason (a stable word, ``ok`` for a yes)."""

    proposal: Deal
    yes: bool
    why: str = "ok"


@dataclass(frozen=True)
class Commitment:
    """Something a bot accepted: with ``partner`` (``None`` when the press hid who asked), in ``phase``."""

    proposal: Deal
    partner: str | None
    phase: str


# --------------------------------------------------------------------------------------------------
# The structured form


def structured(variant: Variant, p: Deal) -> str:
    """``p`` in the structured form, without the tag (``SUP A bur - mun``)."""
    if p.kind == "peace":
        return "PEACE"
    if p.kind == "ally":
        return f"ALLY AGAINST {p.power}"
    if p.kind == "dmz":
        assert p.place is not None
        return f"DMZ {format_place(variant, p.place)}"
    assert p.unit is not None
    head = f"SUP {format_unit(variant, p.unit_kind, p.unit)}"
    return head if p.dest is None else f"{head} - {format_place(variant, p.dest)}"


def parse_structured(variant: Variant, line: str) -> Deal | None:
    """A proposal from its structured form (with or without the tag); ``None`` when it is not one."""
    text = line.strip()
    if text.lower().startswith(TAG):
        text = text[len(TAG) :].strip()
    words = text.split()
    if not words:
        return None
    head = words[0].upper()
    try:
        if head == "PEACE" and len(words) == 1:
            return Deal("peace")
        if head == "ALLY" and len(words) == 3 and words[1].upper() == "AGAINST":
            return Deal("ally", power=variant.power(words[2]).name)
        if head == "DMZ" and len(words) >= 2:
            return Deal("dmz", place=variant.map.province_of(parse_unit(variant, " ".join(words[1:]))[1]))
        if head == "SUP" and len(words) >= 2:
            unit_text, _, dest_text = " ".join(words[1:]).partition(" - ")
            kind, loc = parse_unit(variant, unit_text)
            dest = variant.map.province_of(parse_unit(variant, dest_text)[1]) if dest_text.strip() else None
            return Deal("support", unit=loc, unit_kind=kind, dest=dest)
    except (DippouchError, KeyError, ValueError):
        return None
    return None


def _answer_line(variant: Variant, a: Decision, partner: str | None) -> str:
    body = structured(variant, a.proposal)
    with_whom = f" WITH {partner}" if partner and a.proposal.kind != "support" else ""
    return f"{TAG} {'YES' if a.yes else 'NO'} {body}{with_whom}"


def _read_answer(variant: Variant, line: str) -> tuple[bool, Deal, str | None] | None:
    """(yes, proposal, partner) from a structured answer line, or ``None``."""
    text = line.strip()
    if not text.lower().startswith(TAG):
        return None
    words = text[len(TAG) :].split()
    if len(words) < 2 or words[0].upper() not in ("YES", "NO"):
        return None
    partner = None
    if len(words) >= 4 and words[-2].upper() == "WITH":
        partner, words = words[-1], words[:-2]
    p = parse_structured(variant, " ".join(words[1:]))
    if p is None:
        return None
    return words[0].upper() == "YES", p, partner


# --------------------------------------------------------------------------------------------------
# Plain requests

_SUPPORT = re.compile(r"\b(?:supports?|supporting|unterstütz\w*|soutien\w*|soutenir|soutiens|soutenez)\b", re.I)
_ALLY = re.compile(r"\b(?:ally|allies|alliance|allied|bündnis|allianz|verbünde\w*|allié\w*|allier)\b", re.I)
_AGAINST = re.compile(r"\b(?:against|vs\.?|versus|gegen|contre)\s+([^\W\d_]+)", re.I)
_DMZ = re.compile(r"\b(?:dmz|demilitari[sz]\w*|entmilitarisier\w*|démilitaris\w*)\b", re.I)
_PEACE = re.compile(r"\b(?:peace|truce|ceasefire|non[- ]aggression|nap|frieden|waffenstillstand|paix|trêve)\b", re.I)
_END = re.compile(r"[?!;\n]|\.(?:\s|$)")
_HOLD = re.compile(r"\s+(?:to\s+hold|hold|holding|in\s+place|halten|zu\s+halten|tenir|en\s+place)\s*$", re.I)
_ARROW = re.compile(r"\s*(?:->|→|–|—)\s*")
_DASH = re.compile(r"(?<=\w)-(?=\w)")
_INTO = re.compile(r"\s+(?:-|to|into|towards|nach|vers|sur|en|à)\s+", re.I)
_FILLER = frozenset(
    [
        "my",
        "mine",
        "your",
        "the",
        "a",
        "an",
        "please",
        "pls",
        "can",
        "could",
        "would",
        "will",
        "you",
        "me",
        "us",
        "his",
        "her",
        "their",
        "our",
        "in",
        "at",
        "from",
        "of",
        "meine",
        "meinen",
        "meiner",
        "mein",
        "die",
        "der",
        "das",
        "bitte",
        "ma",
        "mon",
        "mes",
        "la",
        "le",
        "l'",
        "s'il",
        "svp",
        "stp",
    ]
)
_KIND_WORDS = {"army": "A", "armee": "A", "armée": "A", "fleet": "F", "flotte": "F"}
_COURTESY = frozenset(
    [
        "please",
        "thanks",
        "thank",
        "you",
        "bitte",
        "danke",
        "svp",
        "stp",
        "merci",
        "this",
        "turn",
        "phase",
        "season",
        "now",
    ]
)


def _unit(variant: Variant, text: str) -> tuple[str | None, int] | None:
    """The unit a request names: the longest readable tail of ``text`` ("can you help my A Burgundy")."""
    words = [_KIND_WORDS.get(w.lower(), w) for w in text.split()]
    for start in range(len(words)):
        if start and words[start - 1].lower() not in _FILLER and words[start - 1] not in ("A", "F"):
            continue
        try:
            return parse_unit(variant, " ".join(words[start:]))
        except (DippouchError, KeyError, ValueError):
            continue
    return None


def _place(variant: Variant, text: str) -> int | None:
    """The province a request names: the longest readable head of ``text`` ("Munich please" -> Munich)."""
    words = [w for w in text.split() if w.lower() not in _FILLER or w.lower() == "a"]
    while words and words[0].lower() in _FILLER:
        words = words[1:]
    for end in range(len(words), 0, -1):
        if words[end - 1].lower() in _COURTESY:
            continue
        try:
            _, loc = parse_unit(variant, " ".join(words[:end]))
        except (DippouchError, KeyError, ValueError):
            continue
        return variant.map.province_of(loc)
    return None


def _support(variant: Variant, rest: str) -> Deal | None:
    clause = _END.split(rest, maxsplit=1)[0].replace(",", " ").strip()
    clause = _ARROW.sub(" - ", clause)
    found = _support_clause(variant, clause)
    if found is None and _DASH.search(clause):  # "A bur-mun": a dash without spaces, unless a name has one
        found = _support_clause(variant, _DASH.sub(" - ", clause))
    return found


def _support_clause(variant: Variant, clause: str) -> Deal | None:
    hold = _HOLD.search(clause)
    if hold:
        clause = clause[: hold.start()]
    parts = _INTO.split(clause, maxsplit=1)
    unit = _unit(variant, parts[0])
    if unit is None:
        return None
    dest = None
    if len(parts) > 1 and not hold:
        dest = _place(variant, parts[1])
        if dest is None:
            return None
    return Deal("support", unit=unit[1], unit_kind=unit[0], dest=dest)


def parse_request(variant: Variant, text: str) -> list[Deal]:
    """What a message proposes: its structured lines if it has any, else what its plain words ask (at most
    one proposal of each kind). An answer line (``[dippouch] YES ...``) proposes nothing."""
    found: list[Deal] = []
    lines = [line for line in text.splitlines() if line.strip().lower().startswith(TAG)]
    if lines:
        for line in lines:
            if _read_answer(variant, line) is None:
                p = parse_structured(variant, line)
                if p is not None:
                    found.append(p)
        return found
    m = _SUPPORT.search(text)
    if m:
        p = _support(variant, text[m.end() :])
        if p is not None:
            found.append(p)
    if _ALLY.search(text):
        against = _AGAINST.search(text)
        if against:
            with contextlib.suppress(DippouchError, KeyError):
                found.append(Deal("ally", power=variant.power(against.group(1)).name))
    d = _DMZ.search(text)
    if d:
        after = _END.split(text[d.end() :], maxsplit=1)[0]
        place = _place(variant, after)
        if place is None:
            before = _END.split(text[: d.start()])[-1].split()
            for start in range(len(before)):
                place = _place(variant, " ".join(before[start:]))
                if place is not None:
                    break
        if place is not None:
            found.append(Deal("dmz", place=place))
    if _PEACE.search(text) and not any(p.kind == "ally" for p in found):
        found.append(Deal("peace"))
    return found


# --------------------------------------------------------------------------------------------------
# The board: who is at war with whom


def at_war(variant: Variant, position: Position, me: str, recent: Iterable[tuple[str, Order]]) -> set[str]:
    """The powers at war with ``me``, read from the board and the orders: a power holding one of my home
    centres, or one that in the recent movement phases (``recent``: power, order) moved or supported a move
    into a province where I stand or a centre I own or call home."""
    prov = variant.map.province_of
    mine = {prov(u.loc) for u in position.units.values() if u.power == me}
    mine |= set(position.centres_of(me)) | set(position.homes.get(me, frozenset()))
    war = {owner for c, owner in position.centres.items() if owner != me and c in position.homes.get(me, ())}
    for power, order in recent:
        if power == me:
            continue
        dest = order.dest if isinstance(order, Move | Support) else None
        if dest is not None and prov(dest) in mine:
            war.add(power)
    return war


def recent_orders(variant: Variant, results: Iterable[Mapping[str, object]]) -> list[tuple[str, Order]]:
    """(power, order) of stored results (the store's dicts: power, order text), those the variant reads."""
    out: list[tuple[str, Order]] = []
    for r in results:
        try:
            out.append((str(r["power"]), parse_order(variant, str(r["order"]), phase_kind=PhaseKind.MOVEMENT)))
        except (DippouchError, KeyError, ValueError):
            continue
    return out


# --------------------------------------------------------------------------------------------------
# Decisions


def _supports_for(variant: Variant, position: Position, me: str, p: Deal) -> list[Support]:
    """My legal orders that give the support ``p`` asks for."""
    assert p.unit is not None
    prov = variant.map.province_of
    target = prov(p.unit)
    out: list[Support] = []
    for options in legal_orders(variant, position, me).values():
        for o in options:
            if not isinstance(o, Support) or prov(o.target) != target:
                continue
            if (o.dest is None) != (p.dest is None):
                continue
            if o.dest is not None and prov(o.dest) != p.dest:
                continue
            out.append(o)
    return out


def _gains(variant: Variant, position: Position, me: str, o: Order | None) -> bool:
    """Whether ``o`` is a move into a supply centre ``me`` does not own (a centre to take)."""
    if not isinstance(o, Move):
        return False
    d = variant.map.province_of(o.dest)
    return d in _centres(variant) and position.centres.get(d) != me


def _centres(variant: Variant) -> frozenset[int]:
    """The map's supply centres as a set, made once per variant."""
    got = variant.derived.get("negotiate.centres")
    if not isinstance(got, frozenset):
        got = variant.derived["negotiate.centres"] = frozenset(variant.map.supply_centres)
    return got


def _neighbours(variant: Variant, province: int) -> set[int]:
    """The provinces next to ``province`` by land or by sea."""
    m = variant.map
    out = set(m.army_adj[province])
    for loc in m.fleet_locations(province):
        out |= m.fleet_reach[loc]
    return out


def decide(
    variant: Variant,
    position: Position,
    me: str,
    asker: str | None,
    p: Deal,
    *,
    personality: str = HONEST,
    hostile: Iterable[str] = (),
    promised: Iterable[int] = (),
    plan: Sequence[Order] = (),
) -> Decision:
    """Whether ``me`` accepts ``p`` from ``asker`` (``None``: the press hid who asked), by ``personality``
    and the board: ``hostile`` the powers at war with me (:func:`at_war`), ``promised`` the provinces of my
    units already promised to a support this phase, ``plan`` my own orders for the phase if known (the honest
    bot does not give up a centre its plan takes for someone else's move; the opportunist promises anyway,
    and keeps the centre: :func:`honour`)."""
    war = set(hostile)
    prov = variant.map.province_of
    homes = set(position.homes.get(me, frozenset()))
    my_centres = set(position.centres_of(me))
    my_units = {prov(u.loc) for u in position.units.values() if u.power == me}
    if p.kind == "support":
        assert p.unit is not None
        if variant.calendar.kind(position.phase) is not PhaseKind.MOVEMENT:
            return Decision(p, False, "phase")
        unit = position.units.get(prov(p.unit))
        if unit is None or unit.power == me:
            return Decision(p, False, "not yours")
        asker = unit.power if asker is None else asker
        if unit.power != asker:
            return Decision(p, False, "not yours")
        if asker in war:
            return Decision(p, False, "war")
        if p.dest is not None and (p.dest in my_units or p.dest in my_centres or p.dest in homes):
            return Decision(p, False, "attacks me")
        if personality == HONEST and p.dest is not None:
            theirs = len(position.centres_of(asker)) + (
                1 if p.dest in variant.map.supply_centres and position.centres.get(p.dest) != asker else 0
            )
            if theirs >= len(my_centres) + LEADER_MARGIN:
                return Decision(p, False, "leader")
        options = _supports_for(variant, position, me, p)
        if not options:
            return Decision(p, False, "cannot")
        free = [o for o in options if prov(o.loc) not in set(promised)]
        if not free:
            return Decision(p, False, "promised")
        if personality == HONEST and plan:
            busy = {prov(o.loc) for o in plan if isinstance(o, Move) and _gains(variant, position, me, o)}
            if all(prov(o.loc) in busy for o in free):
                return Decision(p, False, "busy")
        return Decision(p, True)
    if asker is None:
        return Decision(p, False, "anonymous")
    if any(c in homes for c in position.centres_of(asker)):
        return Decision(p, False, "homes")
    if p.kind == "peace":
        return Decision(p, True)
    if p.kind == "dmz":
        assert p.place is not None
        if p.place in my_units:
            return Decision(p, False, "my unit")
        if p.place in my_centres and personality == HONEST:
            return Decision(p, False, "my centre")
        return Decision(p, True)
    if p.kind == "ally":
        enemy = p.power
        if enemy in (None, me, asker) or not position.units_of(str(enemy)):
            return Decision(p, False, "no sense")
        if asker in war:
            return Decision(p, False, "war")
        if enemy in war or personality == OPPORTUNIST:
            return Decision(p, True)
        # A threat: one of its units within two moves of what I hold (its next move reaches my border).
        zone = my_units | my_centres
        border = zone | {n for z in zone for n in _neighbours(variant, z)}
        threat = any(
            prov(u.loc) in border or _neighbours(variant, prov(u.loc)) & border for u in position.units_of(str(enemy))
        )
        return Decision(p, True) if threat else Decision(p, False, "no threat")
    return Decision(p, False, "no sense")


# --------------------------------------------------------------------------------------------------
# Replies


def reply_text(variant: Variant, answers: Sequence[Decision], *, partner: str | None, lang: str = "en") -> str:
    """The bot's reply: a sentence per answer in ``lang`` (the game's language), then the structured lines.
    No answer (nothing understood): how to ask."""
    t = translations(lang)
    _ = t.gettext
    if not answers:
        return _(
            'I did not understand. Ask me for example: "support my A Burgundy to Munich", "peace?", '
            '"alliance against Russia" or "DMZ Burgundy".'
        )
    said: list[str] = []
    for a in answers:
        p = a.proposal
        if p.kind == "support":
            assert p.unit is not None
            unit = variant.map.unit_label(p.unit_kind, p.unit)
            if p.dest is None:
                sentence = (
                    _("Yes: I will support your %(unit)s to hold.")
                    if a.yes
                    else _("No: I will not support your %(unit)s to hold.")
                ) % {"unit": unit}
            else:
                sentence = (
                    _("Yes: I will support your %(unit)s to %(dest)s.")
                    if a.yes
                    else _("No: I will not support your %(unit)s to %(dest)s.")
                ) % {"unit": unit, "dest": variant.map.label(p.dest)}
        elif p.kind == "peace":
            sentence = _("Yes: peace between us.") if a.yes else _("No: no peace between us for now.")
        elif p.kind == "ally":
            sentence = (
                _("Yes: we are allies against %(power)s.") if a.yes else _("No: no alliance against %(power)s.")
            ) % {"power": p.power}
        else:
            assert p.place is not None
            sentence = (
                _("Yes: neither of us moves into %(place)s.") if a.yes else _("No: I will not keep out of %(place)s.")
            ) % {"place": variant.map.label(p.place)}
        if not a.yes:
            reason = _reason(_, a.why, p)
            if reason:
                sentence += " " + reason
        said.append(sentence)
    lines = [_answer_line(variant, a, partner) for a in answers]
    return " ".join(said) + "\n" + "\n".join(lines)


def _reason(_: Callable[[str], str], why: str, p: Deal) -> str:
    if why == "war":
        return _("You are at war with me.")
    if why == "attacks me":
        return _("That move is against me.")
    if why == "leader":
        return _("You are strong enough already.")
    if why == "cannot":
        return _("None of my units can give that support.")
    if why == "promised":
        return _("The unit that could give it is promised to someone else.")
    if why == "not yours":
        return _("That unit is not yours.")
    if why == "phase":
        return _("Supports are given in movement phases.")
    if why == "anonymous":
        return _("I do not know who you are.")
    if why == "homes":
        return _("You hold one of my home centres.")
    if why == "busy":
        return _("My units have plans of their own this phase.")
    if why in ("my unit", "my centre"):
        return _("I stand there or own it.")
    if why == "no threat":
        return _("%(power)s is no threat to me.") % {"power": p.power}
    return _("That makes no sense for me.")


# --------------------------------------------------------------------------------------------------
# What was accepted, and honouring it


def accepted(variant: Variant, said: Iterable[tuple[str, str]], phase: str) -> list[Commitment]:
    """What a bot accepted, read back from its own messages (``said``: each message's phase and text): the
    supports of ``phase``, and the peace, alliances and DMZs of every phase (they stand until broken)."""
    out: list[Commitment] = []
    for written_in, text in said:
        for line in text.splitlines():
            got = _read_answer(variant, line)
            if got is None or not got[0]:
                continue
            _yes, p, partner = got
            if p.kind == "support" and written_in != phase:
                continue
            out.append(Commitment(p, partner, written_in))
    return out


def _partners(commitments: Iterable[Commitment], war: set[str]) -> set[str]:
    """The powers at peace with me (peace or an alliance), unless they attacked me since."""
    return {c.partner for c in commitments if c.proposal.kind in ("peace", "ally") and c.partner} - war


def honour(
    variant: Variant,
    position: Position,
    me: str,
    orders: Sequence[Order],
    commitments: Sequence[Commitment],
    *,
    personality: str = HONEST,
    hostile: Iterable[str] = (),
) -> list[Order]:
    """``orders`` (the bot's own plan) changed to keep what it accepted, as its personality keeps promises:
    the supports promised this phase are ordered (when legal), no unit moves (or supports a move) into a
    partner's unit or centre or a DMZ. The honest bot keeps them all while the other side is not at war with
    it; the opportunist keeps a support only when it hurts a power at war with it or its own plan for the unit
    gained no centre, and walks into a partner's centre or a DMZ when a centre is there to take."""
    if variant.calendar.kind(position.phase) is not PhaseKind.MOVEMENT or not commitments:
        return list(orders)
    war = set(hostile)
    prov = variant.map.province_of
    by_unit: dict[int, Order] = {}
    rest: list[Order] = []
    for o in orders:
        loc = o.unit_loc
        if loc is None:
            rest.append(o)
        else:
            by_unit[prov(loc)] = o

    def gains(o: Order | None) -> bool:
        return _gains(variant, position, me, o)

    kept: set[int] = set()  # provinces of the units given to a promised support
    for c in commitments:
        p = c.proposal
        if p.kind != "support" or p.unit is None:
            continue
        unit = position.units.get(prov(p.unit))
        if unit is None or unit.power in war or unit.power == me:
            continue
        options = [o for o in _supports_for(variant, position, me, p) if prov(o.loc) not in kept]
        if personality == OPPORTUNIST:
            victim = position.units.get(p.dest) if p.dest is not None else None
            hurts_enemy = victim is not None and victim.power in war
            options = [o for o in options if hurts_enemy or not gains(by_unit.get(prov(o.loc)))]
        if not options:
            continue
        # The unit whose own plan loses least: one that only held or supported, else the first that can.
        options.sort(key=lambda o: (isinstance(by_unit.get(prov(o.loc)), Move), o.loc))
        chosen = options[0]
        by_unit[prov(chosen.loc)] = chosen
        kept.add(prov(chosen.loc))

    friends = _partners(commitments, war)
    keep_out = {c.proposal.place for c in commitments if c.proposal.kind == "dmz" and c.partner not in war}
    for loc, o in list(by_unit.items()):
        dest = o.dest if isinstance(o, Move | Support) else None
        if dest is None or loc in kept:
            continue
        d = prov(dest)
        other = position.units.get(d)
        against_friend = (other is not None and other.power in friends) or position.centres.get(d) in friends
        if not (against_friend or d in keep_out):
            continue
        if personality == OPPORTUNIST and gains(o):
            continue
        by_unit[loc] = _instead(variant, position, me, loc, by_unit, friends, keep_out)
    return [*by_unit.values(), *rest]


def _instead(
    variant: Variant,
    position: Position,
    me: str,
    loc: int,
    by_unit: Mapping[int, Order],
    friends: set[str],
    keep_out: set[int | None],
) -> Order:
    """What the unit in ``loc`` does instead of a move the peace or a DMZ forbids: support one of my own moves
    that is not against a friend, else hold (a unit kept idle by a promise is a unit lost to the plan)."""
    prov = variant.map.province_of
    unit = position.units.get(loc)
    hold = Hold(unit.kind if unit is not None else None, unit.loc if unit is not None else loc)
    moving = {
        (prov(o.loc), prov(o.dest))
        for o in by_unit.values()
        if isinstance(o, Move) and prov(o.dest) not in keep_out and _owner(position, prov(o.dest)) not in friends
    }
    if not moving:
        return hold
    if unit is None:
        return hold
    for o in legal_orders(variant, position, me).get(unit.loc, []):
        if isinstance(o, Support) and o.dest is not None and (prov(o.target), prov(o.dest)) in moving:
            return o
    return hold


def _owner(position: Position, province: int) -> str | None:
    """Whose the province is to a peace: the power with a unit there, else the centre's owner."""
    unit = position.units.get(province)
    return unit.power if unit is not None else position.centres.get(province)


def planning_view(
    variant: Variant, position: Position, me: str, commitments: Sequence[Commitment], hostile: Iterable[str] = ()
) -> Position:
    """The position as ``me`` plans its moves while at peace: its partners' centres counted as its own, so its
    level's plan looks for centres elsewhere instead of drawing units to a border it has promised not to cross
    (a plan that :func:`honour` then stops is a phase lost). Movement phases only; the board is unchanged."""
    if variant.calendar.kind(position.phase) is not PhaseKind.MOVEMENT:
        return position
    friends = _partners(commitments, set(hostile))
    if not friends:
        return position
    centres = {c: (me if owner in friends else owner) for c, owner in position.centres.items()}
    return position.with_(centres=centres)


def promised_units(variant: Variant, position: Position, me: str, commitments: Sequence[Commitment]) -> set[int]:
    """The provinces of my units a support promised this phase takes (one unit per promise)."""
    orders = honour(variant, position, me, [], [c for c in commitments if c.proposal.kind == "support"])
    return {variant.map.province_of(o.loc) for o in orders if isinstance(o, Support)}
