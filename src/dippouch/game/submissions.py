"""Submissions checked line by line: each line's verdict (:class:`LineCheck`), the version lines a player writes ("v2", "stands", "ready", "vote yes"), the bounds on a submission's size, and what a submission leaves without an order."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import Msg, as_msg, msg, nmsg, quantity
from dippouch.core.orders import Disband, Order
from dippouch.core.position import Position
from dippouch.core.rules.base import hooks_for
from dippouch.core.variant import Variant
from dippouch.game.errors import GameError
from dippouch.game.turns import adjustment_delta, legal_table

I18N_DOMAIN = "rules"
"""The catalogue of the rules of procedure's messages (refusals, endings), as the core's."""


@dataclass(frozen=True)
class LineCheck:
    """One line of a submission and what will happen to it: the order as it will be carried out, or why it
    was refused; and, for an order the other powers' orders decide (W3K hand-overs and supply), a note."""

    line: int
    text: str
    order: str | None = None
    error: Msg | None = None
    """Why the line was refused, said in the reader's language where it is shown (``str()``: its English)."""
    note: Msg | None = None

    @property
    def accepted(self) -> bool:
        return self.error is None

    @property
    def said_no_orders(self) -> bool:
        """The line "no orders": no order, but the player's word that the submission stands with none."""
        return self.error is None and self.order is None

    def to_data(self) -> dict[str, Any]:
        """The line as stored: the refusal and the note as message values (``error_msg``, ``note_msg``: id and
        values, said in any language later), and their English beside them (``error``, ``note``) for the
        programs, the JSON answers and the game files that read a line's text."""
        data: dict[str, Any] = {"line": self.line, "text": self.text, "order": self.order, "error": None}
        if self.error is not None:
            data["error"] = str(self.error)
            data["error_msg"] = self.error.to_data()
        if self.note is not None:
            data["note"] = str(self.note)
            data["note_msg"] = self.note.to_data()
        return data

    @classmethod
    def from_data(cls, d: Mapping[str, Any]) -> LineCheck:
        """A stored line, written as :meth:`to_data` writes it or before messages were values (the English
        text alone: a message whose id is that text, said as it is)."""
        return cls(
            int(d["line"]),
            str(d["text"]),
            d.get("order"),
            stored_msg(d.get("error_msg"), d.get("error")),
            stored_msg(d.get("note_msg"), d.get("note")),
        )


def stored_msg(data: Any, text: Any = None) -> Msg | None:
    """A message kept in a record: its data (:meth:`Msg.to_data`), or a text kept before messages were values
    (or that no template read), which is said as it is; ``None`` when there is neither."""
    if isinstance(data, Mapping) and "id" in data:
        return Msg.from_data(data)
    if isinstance(text, Mapping) and "id" in text:
        return Msg.from_data(text)
    if text is None or text == "":
        return None
    return as_msg(str(text))


_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10,
}  # fmt: skip


_VERSION_NUMBER = (
    r"(?:version|vers\.?|ver\.?|v\.?|revision|rev\.?|draft)\s*(?:no\.?|number|#)?\s*[:#]?\s*(\d{1,3}|"
    + "|".join(_NUMBER_WORDS)
    + r")\b"
)


_LABEL_RE = re.compile(r"^\W*(?:this\s+is\s+)?(?:my\s+)?" + _VERSION_NUMBER + r"\W*$", re.IGNORECASE)


_ORDINAL_LABEL_RE = re.compile(
    r"^\W*(?:this\s+is\s+)?(?:my\s+|the\s+)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d{1,3}(?:st|nd|rd|th))\s+(?:version|revision|draft)\W*$",
    re.IGNORECASE,
)


_STANDS_RE = re.compile(
    r"^\W*(?:please\s+)?(?:use|keep|revert\s+to|go\s+back\s+to|reinstate|restore|apply)?\s*(?:my\s+|the\s+)?"
    + _VERSION_NUMBER
    + r"\s*(?:\(.*?\)\s*)?(?:stands|standing|counts|is\s+(?:my\s+)?(?:final|valid|the\s+one)|should\s+stand|applies|is\s+to\s+be\s+used)?\W*(?:\s*[,;.]?\s*(?:ignore|disregard|cancel)\b.*)?$",
    re.IGNORECASE,
)


_STANDS_VERB_RE = re.compile(
    r"\b(?:stands|standing|counts|final|valid|should\s+stand|applies|use|keep|revert|go\s+back|reinstate|restore|apply|the\s+one)\b",
    re.IGNORECASE,
)


_NOTE_RE = re.compile(
    r"^\W*(?:this\s+)?(?:replaces|supersedes|cancels|overrides|amends|revises)\s+(?:all\s+)?(?:my\s+|the\s+)?(?:earlier|previous|prior|former)?\s*(?:"
    + _VERSION_NUMBER
    + r"|versions?|orders|submissions?)?.*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class VersionLines:
    """What a submission's version lines said, and the text left for the order check."""

    text: str
    """The submission with its version lines blanked (line numbers stay those the player wrote)."""
    label: str | None = None
    """The player's own number for this version ("Version 2" -> ``"2"``)."""
    reinstates: int | None = None
    """"Version 2 stands": the player's number of the version that is to count instead of this one."""
    notes: tuple[str, ...] = ()
    """Lines read as version instructions, for the receipt."""
    ready: bool = False
    """A line "Ready" (or "I am ready", "Ready to process"): the web's ready box, for mail, post and files."""
    votes: tuple[tuple[str, int | None], ...] = ()
    """Lines "Vote draw", "Vote yes 3", "Vote no 3", "Vote withdraw 3": the table's proposals voted on from a
    mail (:func:`dippouch.play.votes.from_lines`), each as (what, the proposal's number or None)."""


def _number(text: str) -> int:
    t = text.lower()
    if t in _NUMBER_WORDS:
        return _NUMBER_WORDS[t]
    return int(re.sub(r"\D", "", t))


_VOTE_RE = re.compile(r"^\W*vote\s+(draw|yes|no|withdraw)(?:\s+(?:on\s+)?(?:proposal\s+)?#?(\d+))?\W*$", re.I)


_READY_RE = re.compile(r"^\W*(?:i\s+am\s+|i'm\s+|we\s+are\s+)?ready(?:\s+to\s+(?:process|go|adjudicate))?\W*$", re.I)


def read_version_lines(text: str) -> VersionLines:
    """Find the version lines of a submission: "Version 2" names it, "Version 2 stands" names the one that
    counts, "This replaces version 1" is a note (the newest counts anyway), "Ready" marks the power ready as the
    web's box does (every door takes it, so a letter or a mail can say it too). Other lines are left as they
    are."""
    out: list[str] = []
    label: str | None = None
    reinstates: int | None = None
    notes: list[str] = []
    ready = False
    votes: list[tuple[str, int | None]] = []
    for raw in str(text).splitlines():
        line = raw.strip()
        if _READY_RE.match(line):
            ready = True
            notes.append(line)
            out.append("")
            continue
        m = _VOTE_RE.match(line)
        if m:
            votes.append((m.group(1).lower(), int(m.group(2)) if m.group(2) else None))
            notes.append(line)
            out.append("")
            continue
        m = _LABEL_RE.match(line)
        if m:
            label = str(_number(m.group(1)))
            notes.append(line)
            out.append("")
            continue
        m = _ORDINAL_LABEL_RE.match(line)
        if m:
            label = str(_number(m.group(1)))
            notes.append(line)
            out.append("")
            continue
        m = _STANDS_RE.match(line)
        if m and _STANDS_VERB_RE.search(line):
            reinstates = _number(m.group(1))
            notes.append(line)
            out.append("")
            continue
        if line and _NOTE_RE.match(line):
            notes.append(line)
            out.append("")
            continue
        out.append(raw)
    return VersionLines("\n".join(out), label, reinstates, tuple(notes), ready, tuple(votes))


MAX_TEXT = 1_000_000
"""Characters a submission may have in all, quoted e-mail history included."""


MAX_ORDER_TEXT = 64_000
"""Characters of order lines (not blank, not quoted with ``>``) one submission may have; the contract's limit."""


MAX_ORDER_LINES = 1_000
"""Order lines one submission may have: ten times the largest army of any variant."""


@dataclass(frozen=True)
class OrderBounds:
    """How much order text a door takes in one submission, checked before a line is read: each misspelt line
    costs a search for the closest names (40,000 of them took half a minute), so every door bounds the text,
    each as tightly as what people send through it allows.

    ``total``: characters in all (quoted mail history included); ``chars`` and ``lines``: characters and lines
    of orders (not blank, not quoted with ``>``); ``line``: characters in one line, where a door takes one
    order a line (None: no bound of its own)."""

    total: int = MAX_TEXT
    chars: int = MAX_ORDER_TEXT
    lines: int = MAX_ORDER_LINES
    line: int | None = None


SUBMISSION = OrderBounds()
"""A mail, a letter or a command line: quoted history is read past, not checked."""


TYPED = OrderBounds(total=20_000, chars=20_000, lines=100, line=300)
"""Text typed into a page or sent to the JSON API: a W3K power's every order is a few dozen lines of under
150 characters, and each check of this text answers while the player types."""


def check_size(text: str, bounds: OrderBounds = SUBMISSION) -> None:
    """Refuse order text beyond ``bounds``, or text that is not text (NUL, a lone surrogate: no database keeps
    it), with a message naming the limit; the one size check of every door."""
    if len(text) > bounds.total:
        raise GameError(
            msg(
                "the order text is %(length)s characters long; at most %(most)s are accepted",
                length=quantity(len(text)),
                most=quantity(bounds.total),
            )
        )
    if "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise GameError(msg("the order text contains characters that are not text (NUL or lone surrogates)"))
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(">")]
    if len(lines) > bounds.lines:
        raise GameError(
            msg(
                "%(count)s lines of orders; at most %(most)s lines are sent or checked at once",
                count=quantity(len(lines)),
                most=quantity(bounds.lines),
            )
        )
    size = sum(len(ln) for ln in lines)
    if size > bounds.chars:
        raise GameError(
            msg(
                "%(count)s characters of orders besides quoted lines; at most %(most)s characters are accepted",
                count=quantity(size),
                most=quantity(bounds.chars),
            )
        )
    if bounds.line is not None:
        for n, line in enumerate(text.splitlines(), 1):
            if len(line) > bounds.line:
                raise GameError(
                    msg(
                        "line %(line)s is %(length)s characters long; an order line has at most %(most)s "
                        "(one order a line)",
                        line=n,
                        length=quantity(len(line)),
                        most=bounds.line,
                    )
                )


def check_orders(
    variant: Variant, position: Position, power: str, text: str, bounds: OrderBounds = SUBMISSION
) -> list[LineCheck]:
    """Check a submission line by line, as it arrives, so the player sees at once what will be executed.

    Every order line is judged by :func:`dippouch.core.order_checks.check_submission`, the adjudicator's own
    rules applied to this power's orders in the order given: a line is refused when it cannot be read, is
    headed for another power, or the adjudicator would not carry it out (illegal, a second order for a unit,
    a build beyond the count, a failure certain from the board). An accepted line is echoed as it will be
    carried out (unit type and coasts from the board). A refused movement order gets the closest legal
    orders as a hint.
    """
    from dippouch.core.notation import format_order, parse_orders
    from dippouch.core.order_checks import check_submission

    check_size(text, bounds)
    kind = variant.calendar.kind(position.phase)
    power = variant.power(power).name
    out: list[LineCheck | None] = []
    pending: list[tuple[int, int, str, Order]] = []  # (index in out, line, text, order)
    said: list[LineCheck] = []
    rows = text.splitlines()
    for number, row in enumerate(rows, start=1):
        if _NO_ORDERS.match(row):
            said.append(LineCheck(number, row.strip(), note=NO_ORDERS_NOTE))
            rows[number - 1] = ""
    if said:
        text = "\n".join(rows)
    for pl in parse_orders(variant, text, phase_kind=kind):
        if pl.error is not None:
            out.append(LineCheck(pl.line, pl.text, error=pl.error.msg))
        elif pl.power is not None and pl.power != power:
            headed = msg("this line is headed %(power)s, but these are %(own)s's orders", power=pl.power, own=power)
            out.append(LineCheck(pl.line, pl.text, error=headed))
        else:
            assert pl.order is not None
            pending.append((len(out), pl.line, pl.text, pl.order))
            out.append(None)
    verdicts = check_submission(variant, position, power, [o for _, _, _, o in pending])
    legal: Mapping[int, Sequence[Order]] | None = None
    for (slot, line, text_, _), v in zip(pending, verdicts, strict=True):
        canonical = format_order(variant, v.order, phase_kind=kind)
        error = v.problem
        if error is not None:
            if v.first is not None:
                again = msg("%(unit)s already has an order", unit=error.args.get("unit", ""))
                error = msg(
                    "%(reason)s on line %(line)d (the first order counts)", reason=again, line=pending[v.first][1]
                )
            elif kind == PhaseKind.MOVEMENT and v.order.unit_loc is not None:
                if legal is None:
                    legal = legal_table(variant, position, power)
                close = _closest(variant, kind, v.order, legal)
                if close:
                    error = msg("%(reason)s; closest legal: %(orders)s", reason=error, orders=close)
        out[slot] = LineCheck(line, text_, canonical, error, v.note)
    return sorted([*(c for c in out if c is not None), *said], key=lambda c: c.line)


_NO_ORDERS = re.compile(r"^\s*no\s+orders?(\s+(for\s+)?this\s+(season|phase|turn))?\s*[.!]*\s*$", re.IGNORECASE)


NO_ORDERS_NOTE = msg("no orders: this submission replaces the earlier orders with none")
"""The note on a line that says "no orders": the player's word that an empty submission replaces the earlier one."""


def submission_stands(lines: Sequence[LineCheck], replace_with_nothing: bool = False) -> bool:
    """Whether a submission replaces the power's earlier orders (the rule for partial submissions).

    A submission with at least one accepted order replaces the earlier version in full: its accepted orders
    are the power's orders, its refused lines are dropped (the earlier version's orders are not merged in).
    One with no accepted order (nothing but chat, an empty file, or only lines that were refused) is kept
    for the record but replaces nothing, unless the sender says so: a line "no orders", or
    ``replace_with_nothing`` (``submit --replace-with-nothing``).
    """
    if any(ln.accepted and ln.order is not None for ln in lines):
        return True
    return replace_with_nothing or any(ln.said_no_orders for ln in lines)


def ready_refusal(lines: Sequence[LineCheck], replace_with_nothing: bool = False) -> Msg | None:
    """Why a submission may not mark its power ready, or ``None``: ready needs an accepted order (or the
    player's word that there are none)."""
    if submission_stands(lines, replace_with_nothing):
        return None
    refused = sum(1 for ln in lines if not ln.accepted)
    what = (
        nmsg("its %(count)d line was refused", "all %(count)d lines were refused", refused, count=refused)
        if refused
        else msg("it has no order line")
    )
    return msg(
        "not marked ready: %(reason)s, so this submission replaces nothing; send orders, or a line 'no orders' to "
        "be ready with none",
        reason=what,
    )


def unordered(
    variant: Variant, position: Position, power: str, lines: Sequence[LineCheck]
) -> list[tuple[list[str], Msg]]:
    """What happens to what the standing orders ``lines`` leave out: ``(units, what happens)`` pairs, the
    units in canonical text (``A par``; none for builds and removals): units hold (movement), are disbanded
    (retreats), builds are waived and removals made by the rules (adjustments)."""
    from dippouch.core.notation import format_unit, parse_order

    kind = variant.calendar.kind(position.phase)
    m = variant.map
    ordered: set[int] = set()
    orders = []
    for ln in lines:
        if ln.accepted and ln.order is not None:
            o = parse_order(variant, ln.order, phase_kind=kind)
            orders.append(o)
            if o.unit_loc is not None:
                ordered.add(m.province_of(o.unit_loc))
    if kind == PhaseKind.MOVEMENT:
        left = sorted(
            format_unit(variant, u.kind, u.loc) for u in position.units_of(power) if m.province_of(u.loc) not in ordered
        )
        return [(left, msg("no order, they hold") if len(left) > 1 else msg("no order, it holds"))] if left else []
    if kind == PhaseKind.RETREATS:
        left = sorted(
            format_unit(variant, d.unit.kind, d.unit.loc)
            for p, d in position.dislodged.items()
            if d.unit.power == power and p not in ordered
        )
        gone = msg("no order, they are disbanded") if len(left) > 1 else msg("no order, it is disbanded")
        return [(left, gone)] if left else []
    delta = adjustment_delta(variant, position, power)
    hooks = hooks_for(variant)
    if delta > 0:
        used = sum(hooks.builds_used(o) for o in orders)
        if used < delta:
            waived = delta - used
            gone = nmsg(
                "%(count)d build not ordered: waived", "%(count)d builds not ordered: waived", waived, count=waived
            )
            return [([], gone)]
    elif delta < 0:
        owed = -delta - sum(1 for o in orders if isinstance(o, Disband))
        if owed > 0:
            made = nmsg(
                "%(count)d removal not ordered: made for %(power)s by the rules",
                "%(count)d removals not ordered: made for %(power)s by the rules",
                owed,
                count=owed,
                power=power,
            )
            return [([], made)]
    return []


def _closest(variant: Variant, kind: PhaseKind, order: Order, legal: Mapping[int, Sequence[Order]]) -> str:
    """The closest legal orders of the unit (``A Paris - Burgundy, A Paris H``), when some are close to the
    refused one; ``""`` when none is."""
    from dippouch.core.notation import format_order

    m = variant.map
    loc = order.unit_loc
    assert loc is not None
    options = next((os_ for lloc, os_ in legal.items() if m.province_of(lloc) == m.province_of(loc)), ())
    texts = {format_order(variant, o, phase_kind=kind): o for o in options}
    close = difflib.get_close_matches(format_order(variant, order, phase_kind=kind), list(texts), n=3, cutoff=0.5)
    # Matched on the short forms (closer in spelling), shown with full names like the rest of the message.
    shown = [format_order(variant, texts[c], phase_kind=kind, full=True) for c in close]
    return ", ".join(shown)
