"""What adjudication returns: a result for every order, in DATC v3.2's words, and the next position."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from dippouch.core.messages import Msg, as_msg
from dippouch.core.orders import Order
from dippouch.core.position import Position

__all__ = ["OrderResult", "Outcome", "Reason", "Resolution", "why_of"]


class Outcome(StrEnum):
    """DATC v3.2 resolution terminology (issue 4.E.2), plus the results of builds and disbands.

    Moves: illegal/invalid/fails/succeeds. Supports: illegal/invalid/cut/given. Convoys:
    illegal/invalid/disrupted/available. Holds: stands (or dislodged, reported by the flag).
    """

    ILLEGAL = "illegal"
    INVALID = "invalid"
    FAILS = "fails"
    SUCCEEDS = "succeeds"
    CUT = "cut"
    GIVEN = "given"
    DISRUPTED = "disrupted"
    AVAILABLE = "available"
    STANDS = "stands"
    DISLODGED = "dislodged"


class Reason:
    """A reason worked out only when somebody reads it.

    Most results of a phase are never displayed with their reasons (a game loop, a benchmark, a test of
    the outcome words), and a failed move's reason (strengths, the unit it bounced off) costs more to make
    than to judge the move. The adjudicator therefore stores the function and its arguments; the message is
    made on the first read and kept. A ``Reason`` equals and hashes like its English text (so results compare
    the same whichever way their reason was stored) and pickles as its message.
    """

    __slots__ = ("_args", "_fn", "_msg")

    def __init__(self, fn: Callable[..., Msg], *args: object) -> None:
        self._fn: Callable[..., Msg] | None = fn
        self._args: tuple[object, ...] = args
        self._msg: Msg | None = None

    def msg(self) -> Msg:
        """The message, made on the first call."""
        m = self._msg
        if m is None:
            fn = self._fn
            assert fn is not None
            m = self._msg = fn(*self._args)
            # The arguments (often the whole phase's resolver) are no longer needed.
            self._fn = None
            self._args = ()
        return m

    def __str__(self) -> str:
        return str(self.msg())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Reason):
            return self.msg() == other.msg()
        if isinstance(other, Msg):
            return self.msg() == other
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return repr(str(self))

    def __reduce__(self) -> tuple[Callable[[Msg], Msg], tuple[Msg]]:
        return _itself, (self.msg(),)


def _itself(m: Msg) -> Msg:
    return m


def why_of(reason: str | Msg | Reason) -> Msg:
    """A stored reason as a message: a text (a result read back from an old record, a variant's own words)
    is its own id."""
    if type(reason) is Msg:
        return reason
    if isinstance(reason, Reason):
        return reason.msg()
    return as_msg(reason)


class _OrderResultFields(NamedTuple):
    power: str
    order: Order
    result: Outcome
    dislodged: bool = False
    destroyed: bool = False
    """Dislodged with nowhere to retreat."""
    automatic: bool = False
    """Added by the adjudicator itself (civil-disorder removal, hold for an unordered unit)."""
    reason: str | Msg | Reason = ""
    """Why, for anything but plain success: read it as ``OrderResult.why`` (the message) or ``OrderResult.reason``
    (its English)."""
    index: int | None = None  # type: ignore[assignment]  # (shadows tuple.index on purpose)
    """Index of the order in the power's submitted list; ``None`` for automatic orders."""


_stored_reason: Any = _OrderResultFields.__dict__["reason"]
"""The field's own getter, which the property below wraps."""


class OrderResult(_OrderResultFields):
    """The result of one order. A named tuple rather than a frozen dataclass: the adjudicator makes one
    per order on its hot path, and a tuple is built three times faster; it is just as immutable.

    The adjudicator stores a message, or a :class:`Reason` to be made on demand; ``why`` gives the message
    (said in the reader's language where it is shown), ``reason`` its English (the logs, the DATC tests, the
    adjudication contract).
    """

    __slots__ = ()

    @property
    def reason(self) -> str:
        why = _stored_reason.__get__(self)
        return why if type(why) is str else str(why)

    @property
    def why(self) -> Msg:
        """Why, as a message (an empty one for a plain success)."""
        return why_of(_stored_reason.__get__(self))

    def _asdict(self) -> dict[str, Any]:
        out = super()._asdict()
        out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class Resolution:
    results: tuple[OrderResult, ...]
    next: Position
