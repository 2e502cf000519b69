"""The English of a line check or a result written before messages were values, read back into its message.

Until migration 0023 a submission's line checks kept a refusal or a note only as English text, and a phase's
results their reasons likewise. The migration reads each such text back, once, against the templates the core
and :mod:`dippouch.game` wrote then (:data:`TEMPLATES`), into the message (:class:`Msg`) today's code makes
for the same line or result, so it is said in the reader's language like a new one.

The templates are a frozen copy, not the catalogue's or the core's current ones: a migration must do the same
thing on every database whenever it runs, and the core's wording will change after it shipped. They are
marked for the ``rules`` catalogue, so the rows converted with them keep their translations when the core
words a message another way; but for those the core has since given a singular and a plural form ("%(count)d
build(s)": :data:`dippouch.core.messages.FORMER_IDS`), which are not marked: :meth:`Msg.from_data` reads a row
of one as today's message, said with today's forms, so the catalogues keep no translation of the old id.

Each template says what kind of value each placeholder held, as the core built it then: a name or a word
(``s``, the default for ``%s``), a number (``%d``; ``i`` for one written with ``%s``), a nested message (``m``; ``M`` where a nested message is
itself a chain read from the left, as the core joins notes), a list of choices said ``a, b or c`` (``c``), or
the coasts offered ``a or b or c`` (``o``: choices of two, folded from the left, a lone one plain). A text no
template reads whole (with every nested message read too) is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import N_, Arg, Choices, Msg

__all__ = [
    "BATCH",
    "ENDINGS",
    "I18N_DOMAIN",
    "TEMPLATES",
    "Counts",
    "add_ending_messages",
    "add_messages",
    "ending_read_back",
    "read_back",
    "remove_ending_messages",
    "remove_messages",
]

I18N_DOMAIN = "rules"
"""The catalogue the frozen templates are translated in (the core's)."""

TEMPLATES: tuple[tuple[str, str], ...] = (
    # dippouch.game: the check of a submission's lines and what a submission leaves out.
    (N_("this line is headed %(power)s, but these are %(own)s's orders"), ""),
    (N_("%(unit)s already has an order"), ""),
    (N_("%(reason)s on line %(line)d (the first order counts)"), "reason=m"),
    (N_("%(reason)s; closest legal: %(orders)s"), "reason=m"),
    (N_("no orders: this submission replaces the earlier orders with none"), ""),
    (N_("no order, they hold"), ""),
    (N_("no order, it holds"), ""),
    (N_("no order, they are disbanded"), ""),
    (N_("no order, it is disbanded"), ""),
    ("%(count)d build(s) not ordered: waived", ""),  # FORMER_IDS: not marked
    ("%(count)d removal(s) not ordered: made for %(power)s by the rules", ""),  # FORMER_IDS: not marked
    (
        N_(
            "not marked ready: %(reason)s, so this submission replaces nothing; send orders, or a line 'no orders' "
            "to be ready with none"
        ),
        "reason=m",
    ),
    ("all %(count)d line(s) were refused", ""),  # FORMER_IDS: not marked
    (N_("it has no order line"), ""),
    # dippouch.core.notation: a line that cannot be read.
    (N_("no province %(token)s"), ""),
    (N_("no coast %(token)s"), ""),
    (N_("expected a province but found %(token)s"), ""),
    (N_("expected a coast but found %(token)s"), ""),
    (N_("expected a province after %(text)s"), ""),
    (N_("expected a coast after %(text)s"), ""),
    (N_("expected an order verb (%(verbs)s) but found %(token)s"), ""),
    (N_("%(reason)s; did you mean %(options)s?"), "reason=m options=c"),
    (N_("%(place)s has no coast %(token)s; its coasts are %(coasts)s"), ""),
    (N_("%(place)s has no separate coasts, so no coast %(token)s"), ""),
    (N_("expected ')' after the coast of %(place)s"), ""),
    (N_("empty order"), ""),
    (N_("empty unit"), ""),
    (
        N_(
            "an order starts with its unit, without the owner: write %(order)s; the order counts for the unit's "
            "owner or for the power it is handed to, whoever sends it"
        ),
        "",
    ),
    (N_("what should %(unit)s do? Add a verb: H (hold), - (move), S (support), C (convoy)"), ""),
    (N_("unexpected %(token)s after a complete order"), ""),
    (N_("unexpected %(token)s after the unit %(unit)s"), ""),
    (N_("a build needs a unit type: Build A %(place)s or Build F %(place)s"), ""),
    (N_("a build needs a unit type: A par B or Build A par"), ""),
    (N_("a convoy names where the army goes: F nth C A lon - bel"), ""),
    (N_("a retreat cannot go by convoy"), ""),
    (N_("cannot read %(text)s (%(error)s)"), ""),
    # dippouch.core.order_checks: an order the adjudicator would not carry out, and the notes on a line.
    (N_("the order illegal"), ""),
    (N_("the order fails"), ""),
    (N_("the order %(word)s"), ""),
    (N_("not an order of a movement phase"), ""),
    (N_("not an order of a retreat phase"), ""),
    (N_("not an order of an adjustment phase"), ""),
    (N_("no unit in %(place)s"), ""),
    (N_("%(unit)s belongs to %(owner)s; %(power)s cannot order it"), ""),
    (N_("%(unit)s belongs to %(owner)s"), ""),
    (
        N_("%(unit)s belongs to %(owner)s, not to %(named)s as the order says; name %(owner)s or no owner"),
        "",
    ),
    (N_("%(unit)s belongs to %(owner)s, not to %(named)s as the order says"), ""),
    (N_("%(unit)s is under another power's orders this season"), ""),
    (N_("this order is not allowed here"), ""),
    (N_("a unit cannot move to the province it is in"), ""),
    (N_("%(unit)s may not enter %(place)s"), ""),
    (N_("only armies can be convoyed"), ""),
    (N_("%(reason)s (the order names %(place)s, but naming a coast does not move the fleet)"), "reason=m"),
    (N_("a unit of kind %(kind)s cannot move"), ""),
    (N_("an army cannot move to %(place)s, a sea province"), ""),
    (N_("an army cannot move to %(place)s, a impassable province"), ""),
    (N_("an army cannot move to %(place)s, a %(kind)s province"), ""),
    (N_("no fleets stand where they could convoy %(unit)s to %(place)s"), ""),
    (N_("%(place)s is not next to %(here)s and no fleets could convoy there"), ""),
    (N_("a unit cannot support itself"), ""),
    (N_("no unit in %(place)s to support"), ""),
    (N_("%(unit)s cannot reach %(place)s"), ""),
    (N_("%(unit)s may not support there"), ""),
    (N_("a unit cannot support a move into its own province"), ""),
    (N_("%(unit)s cannot move to %(place)s"), ""),
    (N_("%(unit)s cannot reach %(place)s, not even by a convoy the supporter is not in"), ""),
    (N_("only a fleet at sea can convoy"), ""),
    (N_("no unit in %(place)s to convoy"), ""),
    (N_("this fleet is not on any convoy route from %(start)s to %(place)s"), ""),
    (N_("name the coast: %(options)s"), "options=o"),
    (N_("only retreats and disbands are ordered in a retreat phase"), ""),
    (N_("no dislodged unit in %(place)s"), ""),
    (N_("cannot retreat to %(place)s (legal retreats: none: it can only disband)"), ""),
    (N_("cannot retreat to %(place)s (legal retreats: %(places)s)"), ""),
    (N_("%(power)s has no builds left"), ""),
    (N_("%(power)s may not build"), ""),
    (N_("a unit was already built in %(place)s"), ""),
    (N_("%(place)s is occupied by %(unit)s"), ""),
    (N_("a %(kind)s needs %(cost)d centres; %(power)s has %(count)d to build with"), ""),
    (N_("%(power)s already has %(count)d %(kind)s; at most %(limit)s at a time"), "limit=i"),
    (N_("name the coast to build a fleet in %(place)s: %(options)s"), "options=o"),
    (N_("an army cannot be built in %(place)s"), ""),
    (N_("a fleet cannot be built in %(place)s"), ""),
    (N_("a unit %(kind)s cannot be built in %(place)s"), ""),
    (N_("%(power)s has no build to decline"), ""),
    (N_("%(power)s owes no removals"), ""),
    (N_("%(power)s may build, not remove"), ""),
    (N_("%(power)s has no unit in %(place)s"), ""),
    (N_("%(power)s may build in %(places)s"), ""),
    (N_("%(power)s has no vacant site to build on"), ""),
    (N_("%(place)s is not a supply centre; %(reason)s"), "reason=m"),
    (N_("%(power)s does not own %(place)s; %(reason)s"), "reason=m"),
    (N_("%(place)s is not a home centre of %(power)s; %(reason)s"), "reason=m"),
    (N_("%(place)s is not one of %(power)s's build sites this phase; %(reason)s"), "reason=m"),
    (N_("not judged"), ""),
    (N_("two retreats to %(place)s both fail and both units are disbanded"), ""),
    (N_("%(unit)s already has an order; the first one counts"), ""),
    (N_("the unit in %(place)s is an army, not a fleet: the order is read for it as written here"), ""),
    (N_("the unit in %(place)s is a fleet, not an army: the order is read for it as written here"), ""),
    (N_("the unit in %(place)s is %(what)s, not %(said)s: the order is read for it as written here"), ""),
    (N_("%(first)s; %(then)s"), "first=M then=m"),
    # dippouch.core.movement and retreats: why an order failed.
    (N_("no order: holds"), ""),
    (N_("destroyed: no retreat possible"), ""),
    (N_("convoy paradox: the convoy fails (Szykman rule)"), ""),
    (N_("no convoy was ordered for this move"), ""),
    (N_("the ordered convoys form no route"), ""),
    (N_("support cut"), ""),
    (N_("convoy disrupted: no route of fleets left"), ""),
    (N_("failed"), ""),
    (N_("dislodged by %(unit)s"), ""),
    (N_("fleet dislodged by %(unit)s"), ""),
    (N_("%(unit)s was not ordered to %(place)s"), ""),
    (N_("%(unit)s was ordered to move, not to hold"), ""),
    (N_("supporter dislodged by %(unit)s"), ""),
    (N_("support cut by %(units)s"), ""),
    (N_("support reduced to %(value)d by %(units)s"), ""),
    (N_("cannot dislodge its own %(unit)s"), ""),
    (N_("lost head-to-head with %(unit)s (%(attack)d vs %(defence)d)"), ""),
    (N_("bounced off %(unit)s (%(attack)d vs %(defence)d)"), ""),
    (N_("bounced with %(unit)s (%(attack)d vs %(defence)d)"), ""),
    (N_("no retreat ordered"), ""),
    (N_("bounced with %(units)s; the unit is disbanded"), ""),
    (N_("civil disorder: farthest from an owned supply centre"), ""),
    # dippouch.core.rules.ad1000: a power in civil disorder.
    (N_("%(power)s: in civil disorder, no orders are taken"), ""),
    (N_("the units hold"), ""),
    (N_("the dislodged units are disbanded"), ""),
    (N_("nothing is built and removals are made by the civil-disorder rule"), ""),
    # dippouch.core.rules.w3k: hand-overs, supply and conversions.
    (N_("name the power, e.g. 'to Manchester'"), ""),
    (N_("%(place)s is not a coastal supply centre"), ""),
    (N_("%(power)s does not own %(place)s"), ""),
    (N_("name the coast the fleet will use: %(options)s"), "options=o"),
    (N_("write 'Command of Army London is offered to Manchester'"), ""),
    (N_("say how many units' supply to send: 'Send 2 units' supply to Manchester'"), ""),
    (N_("say who receives the supply: 'Send 2 units' supply to Manchester'"), ""),
    (N_("supply is sent in Winter adjustments only"), ""),
    (N_("units are handed over in movement seasons only"), ""),
    (N_("cannot send supply to %(power)s"), ""),
    (N_("send at least one unit's supply"), ""),
    ("%(power)s has %(count)d unit(s) of excess supply, not %(asked)d", ""),  # FORMER_IDS: not marked
    ("%(count)d unit(s) of supply to %(power)s for this Winter", ""),  # FORMER_IDS: not marked
    (N_("cannot hand a unit to %(power)s"), ""),
    (N_("the unit in %(place)s is already under the orders of %(power)s; the first hand-over counts"), ""),
    (N_("%(power)s orders the unit in %(place)s this season"), ""),
    (N_("only %(owner)s, its owner, can hand over the unit in %(place)s"), ""),
    (
        N_(
            "%(unit)s is %(owner)s's: this order counts only if %(owner)s hands the unit over to %(power)s this "
            "season (its order '%(unit)s under orders of %(power)s'); otherwise it is judged illegal and the unit "
            "follows %(owner)s's orders"
        ),
        "",
    ),
    (
        N_(
            "beyond %(power)s's own supply: this build counts only if another power sends %(power)s supply this "
            "Winter (Send N supply to ...); otherwise it is judged illegal"
        ),
        "",
    ),
    (N_("a player may not list both builds and removals; any removals owed are drawn by lots"), ""),
    (N_("no removal needed: supply received this Winter covers %(power)s's units"), ""),
    (N_("drawn by lots (the game's random draw) among %(units)s: %(drawn)s"), ""),
    (N_("drawn by lots (a draw seeded with %(seed)s) among %(units)s: %(drawn)s"), ""),
    (N_("conversion disrupted by the attack from %(places)s"), ""),
    (N_("conversion complete"), ""),
    (N_("conversion begun; order it again next movement season"), ""),
)
"""The core's templates of refusals, notes and reasons as they were when messages became values (ids, and
what each placeholder held: see the module's text)."""

_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")
_DEPTH = 6
"""How deep a text is read for nested messages: the core nests a few (a reason in a closest-legal hint)."""


@dataclass(frozen=True, slots=True)
class _Part:
    """A placeholder of a template: its name and what kind of value it held."""

    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class _Template:
    id: str
    parts: tuple[str | _Part, ...]
    """The template's fixed text and placeholders in turn (``%%`` written ``%``)."""
    fixed: int
    head: str
    """The fixed text it opens with ("" when it opens with a placeholder): most templates are passed over by it."""
    tail: str


def _template(template: str, spec: str) -> _Template:
    kinds = dict(item.split("=", 1) for item in spec.split())
    parts: list[str | _Part] = []
    at = 0
    for m in _PLACEHOLDER.finditer(template):
        if m.start() > at:
            parts.append(template[at : m.start()].replace("%%", "%"))
        name, conv = m.groups()
        parts.append(_Part(name, "d" if conv == "d" else kinds.get(name, "s")))
        at = m.end()
    if at < len(template):
        parts.append(template[at:].replace("%%", "%"))
    fixed = sum(len(p) for p in parts if isinstance(p, str))
    head = parts[0] if parts and isinstance(parts[0], str) else ""
    tail = parts[-1] if parts and isinstance(parts[-1], str) else ""
    return _Template(template, tuple(parts), fixed, head, tail)


@cache
def _templates() -> tuple[_Template, ...]:
    """The templates, the one with the most fixed text first: a text is read by its own template before a
    general one (``%(first)s; %(then)s`` last of all)."""
    made = [_template(t, spec) for t, spec in TEMPLATES]
    return tuple(sorted(made, key=lambda t: -t.fixed))


def read_back(text: str) -> Msg | None:
    """The message today's code makes for the English ``text`` of a line check or a result, or ``None`` when
    no template reads it whole."""
    if not text:
        return None
    return _read(text, 0)


def _read(text: str, depth: int) -> Msg | None:
    for t in _templates():
        if not text.startswith(t.head) or not text.endswith(t.tail) or len(text) < t.fixed:
            continue
        for args in _match(t.parts, 0, text, 0, {}, depth):
            return Msg(t.id, args)
    return None


def _match(
    parts: tuple[str | _Part, ...], i: int, text: str, at: int, args: dict[str, Arg], depth: int
) -> Iterator[dict[str, Arg]]:
    """Every reading of ``text[at:]`` by ``parts[i:]`` (with the values read so far), the one the core made
    first: a placeholder takes the shortest text that lets the rest be read, but a chain read from the left
    (``M``) the longest."""
    if i == len(parts):
        if at == len(text):
            yield dict(args)
        return
    part = parts[i]
    if isinstance(part, str):
        if text.startswith(part, at):
            yield from _match(parts, i + 1, text, at + len(part), args, depth)
        return
    ends = _ends(parts, i, text, at)
    if part.kind == "M":
        ends = ends[::-1]
    for end in ends:
        raw = text[at:end]
        if part.name in args:  # a placeholder written twice says the same both times
            if args[part.name] == _value(part, raw, depth):
                yield from _match(parts, i + 1, text, end, args, depth)
            continue
        value = _value(part, raw, depth)
        if value is None:
            continue
        args[part.name] = value
        yield from _match(parts, i + 1, text, end, args, depth)
        del args[part.name]


def _ends(parts: tuple[str | _Part, ...], i: int, text: str, at: int) -> list[int]:
    """Where the placeholder ``parts[i]`` may end: before each place the next fixed text stands (or at the
    end of the text, when it is the last part); never empty."""
    if i + 1 == len(parts):
        return [len(text)] if len(text) > at else []
    nxt = parts[i + 1]
    assert isinstance(nxt, str), "two placeholders in a row cannot be told apart"
    out: list[int] = []
    start = text.find(nxt, at + 1)
    while start != -1:
        out.append(start)
        start = text.find(nxt, start + 1)
    return out


_NUMBER = re.compile(r"-?\d+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
"""The player's own words as the core quoted them (``repr``): they may hold anything."""
_FREE = frozenset({"error"})
"""Placeholders that held a program's own text (a reading error), which may hold anything."""


def _value(part: _Part, raw: str, depth: int) -> Arg | None:
    kind = part.kind
    if kind == "d":
        return int(raw) if _NUMBER.fullmatch(raw) else None
    if kind == "i":
        return int(raw) if _NUMBER.fullmatch(raw) else raw
    if kind in ("m", "M"):
        return _read(raw, depth + 1) if depth < _DEPTH else None
    if kind == "c":
        return Choices(tuple(_items(raw)))
    if kind == "o":
        items = raw.split(" or ")
        out: Arg = items[0]
        for item in items[1:]:
            out = Choices((out, item))
        return out
    if ";" in raw and not _QUOTED.fullmatch(raw) and part.name not in _FREE:
        # A name or a word has no ";" (the player's own words quoted aside): it joins messages, so such a
        # reading is the wrong one.
        return None
    return raw


def _items(raw: str) -> list[str]:
    """``a``, ``a or b``, ``a, b or c``: the choices as the English lists them."""
    some, sep, last = raw.rpartition(" or ")
    if not sep:
        return [raw]
    return [*some.split(", "), last]


# --------------------------------------------------------------------------------------------------
# The rows: a submission's lines ("error" and "note" beside "error_msg" and "note_msg") and a phase's results
# ("reason" beside "why"), as migration 0023 found them.

BATCH = 500
"""Rows read at a time: a large database is walked by id, never loaded whole."""

_LINE_KEYS = (("error", "error_msg"), ("note", "note_msg"))
_RESULT_KEYS = (("reason", "why"),)

_SUBMISSIONS = sa.table("submissions", sa.column("id", sa.Integer()), sa.column("lines", sa.JSON()))
_PHASES = sa.table("phases", sa.column("id", sa.Integer()), sa.column("results", sa.JSON()))


@dataclass
class Counts:
    """What a walk over the rows did: texts given their message, texts no template reads (left as text, said as
    they are) and rows written."""

    converted: int = 0
    unreadable: int = 0
    rows: int = 0


def add_messages(conn: sa.Connection, batch: int = BATCH) -> Counts:
    """Give every stored text of a line check or a result that has no message data its message, beside the
    text (which stays as it is); a text no template reads is left alone and counted. A second walk finds
    nothing left to do."""
    counts = Counts()

    def add(item: dict[str, Any], keys: tuple[tuple[str, str], ...]) -> bool:
        changed = False
        for text_key, data_key in keys:
            text = item.get(text_key)
            if not isinstance(text, str) or not text or data_key in item:
                continue
            m = read_back(text)
            if m is None:
                counts.unreadable += 1
                continue
            item[data_key] = m.to_data()
            counts.converted += 1
            changed = True
        return changed

    counts.rows += _walk(conn, _SUBMISSIONS, _SUBMISSIONS.c.lines, lambda d: add(d, _LINE_KEYS), batch)
    counts.rows += _walk(conn, _PHASES, _PHASES.c.results, lambda d: add(d, _RESULT_KEYS), batch)
    return counts


def remove_messages(conn: sa.Connection, batch: int = BATCH) -> Counts:
    """Take back what :func:`add_messages` added: each message data its text reads back to (data written by
    the code with the message, which no template reads, is kept)."""
    counts = Counts()

    def remove(item: dict[str, Any], keys: tuple[tuple[str, str], ...]) -> bool:
        changed = False
        for text_key, data_key in keys:
            text, data = item.get(text_key), item.get(data_key)
            if not isinstance(text, str) or data is None:
                continue
            m = read_back(text)
            if m is not None and m.to_data() == data:
                del item[data_key]
                counts.converted += 1
                changed = True
        return changed

    counts.rows += _walk(conn, _SUBMISSIONS, _SUBMISSIONS.c.lines, lambda d: remove(d, _LINE_KEYS), batch)
    counts.rows += _walk(conn, _PHASES, _PHASES.c.results, lambda d: remove(d, _RESULT_KEYS), batch)
    return counts


def _walk(
    conn: sa.Connection,
    table: sa.TableClause,
    column: sa.ColumnClause[Any],
    change: Callable[[dict[str, Any]], bool],
    batch: int,
) -> int:
    """Apply ``change`` to each item of ``column``'s list in every row of ``table``, ``batch`` rows at a time by
    id; write back the rows it changed. The number of rows written."""
    ident = table.c.id
    written = 0
    last = 0
    while True:
        rows = conn.execute(sa.select(ident, column).where(ident > last).order_by(ident).limit(batch)).all()
        if not rows:
            return written
        for row_id, items in rows:
            if not isinstance(items, list):
                continue
            changed = False
            for item in items:
                if isinstance(item, dict) and change(item):
                    changed = True
            if changed:
                conn.execute(table.update().where(ident == row_id).values({column.name: items}))
                written += 1
        last = rows[-1][0]


# --------------------------------------------------------------------------------------------------
# A game's ending ("text" beside "why" in games.ending), as migration 0031 found it: until endings became
# message values :mod:`dippouch.game` wrote these five sentences, by the ending's kind (frozen here, as the
# templates above are; each read into the message that says the same English).

ENDINGS: dict[str, tuple[re.Pattern[str], Callable[[re.Match[str]], Msg]]] = {
    "victory": (
        re.compile(r"(?P<power>.+) wins with (?P<num>\d+) supply centres?\."),
        lambda m: Msg(
            N_("%(power)s wins with %(num)d supply centre."),
            {"num": int(m["num"]), "power": m["power"]},
            plural="%(power)s wins with %(num)d supply centres.",
        ),
    ),
    "ranked": (
        re.compile(r"Only (?P<count>\d+) powers remain; they rank by size: (?P<listing>.+)\."),
        lambda m: Msg(
            N_("Only %(count)s powers remain; they rank by size: %(listing)s."),
            {"count": int(m["count"]), "listing": m["listing"]},
        ),
    ),
    "no_powers": (
        re.compile(re.escape(N_("No power has a unit or a supply centre left: the game ends with no winner."))),
        lambda m: Msg(m[0]),
    ),
    "last_year": (
        re.compile(r"The game ends after (?P<year>\d+), its last year; surviving: (?P<powers>.*)\."),
        lambda m: Msg(
            N_("The game ends after %(year)s, its last year; surviving: %(powers)s."),
            {"year": int(m["year"]), "powers": m["powers"]},
        ),
    ),
    "draw": (
        re.compile(r"Draw agreed by (?P<voters>.+); shared by (?P<powers>.+)\."),
        lambda m: Msg(
            N_("Draw agreed by %(voters)s; shared by %(powers)s."), {"voters": m["voters"], "powers": m["powers"]}
        ),
    ),
}
"""Per kind of ending, the sentence it was written as and the message that says it."""


def ending_read_back(kind: str, text: str) -> Msg | None:
    """The message of an ending of ``kind`` stored as the English ``text`` alone, or ``None`` when the sentence
    of its kind does not read it whole (an ending imported from another program's file)."""
    found = ENDINGS.get(kind)
    if found is None:
        return None
    pattern, made = found
    m = pattern.fullmatch(text)
    if m is None:
        return None
    said = made(m)
    # What it says must be the text itself: a reading that would change a single character is no reading.
    return said if str(said) == text else None


_GAMES = sa.table("games", sa.column("id", sa.Integer()), sa.column("ending", sa.JSON()))


def add_ending_messages(conn: sa.Connection, batch: int = BATCH) -> Counts:
    """Give every game's ending stored as text alone its message (``why``), beside the text; an ending no
    sentence of its kind reads is left as it is and counted."""
    counts = Counts()

    def add(ending: dict[str, Any]) -> bool:
        text = ending.get("text")
        if "why" in ending or not isinstance(text, str) or not text:
            return False
        m = ending_read_back(str(ending.get("kind", "")), text)
        if m is None:
            counts.unreadable += 1
            return False
        ending["why"] = m.to_data()
        counts.converted += 1
        return True

    counts.rows = _walk_endings(conn, add, batch)
    return counts


def remove_ending_messages(conn: sa.Connection, batch: int = BATCH) -> Counts:
    """Take back what :func:`add_ending_messages` added (an ending whose message its text reads back to)."""
    counts = Counts()

    def remove(ending: dict[str, Any]) -> bool:
        text, data = ending.get("text"), ending.get("why")
        if not isinstance(text, str) or data is None:
            return False
        m = ending_read_back(str(ending.get("kind", "")), text)
        if m is None or m.to_data() != data:
            return False
        del ending["why"]
        counts.converted += 1
        return True

    counts.rows = _walk_endings(conn, remove, batch)
    return counts


def _walk_endings(conn: sa.Connection, change: Callable[[dict[str, Any]], bool], batch: int) -> int:
    """Apply ``change`` to every finished game's ending, ``batch`` games at a time by id; write back those it
    changed. The number of games written."""
    ident, column = _GAMES.c.id, _GAMES.c.ending
    written = 0
    last = 0
    while True:
        rows = conn.execute(
            sa.select(ident, column).where(ident > last, column.is_not(None)).order_by(ident).limit(batch)
        ).all()
        if not rows:
            return written
        for row_id, ending in rows:
            if isinstance(ending, dict) and change(ending):
                conn.execute(_GAMES.update().where(ident == row_id).values(ending=ending))
                written += 1
        last = rows[-1][0]
