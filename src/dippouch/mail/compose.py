"""The texts dippouch mails: receipts, replies to messages it cannot use, results, reminders, notices.

Every message is plain text and complete without its attachments (a map PDF repeats what the text says).
Each reply says what happened, why, and what to send instead, with the exact subject that would work.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from dippouch.core.calendar import PhaseKind
from dippouch.core.variant import Variant
from dippouch.game import LineCheck, Settings
from dippouch.names import order_text

__all__ = ["FORM", "receipt_text", "refusal_text"]

FORM = "Game Name - Power Name - Season Year Type - Version (e.g. Powick Bridge - Montrose - Autumn 1644 Retreats - v1)"
SIGN = "-- \ndippouch, for the game's coordinator. This message was written by a program; a reply reaches the orders address."


def _when(settings: Settings, dt: datetime | None) -> str:
    return settings.describe(dt) if dt is not None else "none while the game is paused"


def lines_text(
    lines: Sequence[LineCheck], variant: Variant | None = None, kind: PhaseKind | str | None = None
) -> list[str]:
    """Each line's verdict; accepted orders in the map's full names when the variant is given (a player
    reads "A Teviotdale & Liddesdale - Northumberland", not the program's "A tev - nhb")."""
    out = []
    for ln in lines:
        if ln.accepted:
            shown = order_text(variant, ln.order, kind) if variant is not None and ln.order else ln.order
            out.append(f"  line {ln.line:>2}  accepted  {shown}")
        else:
            out.append(f"  line {ln.line:>2}  REJECTED  {ln.text.strip()}")
            out.append(f"            {ln.error}")
    return out


def receipt_text(
    *,
    game_title: str,
    power: str,
    phase: str,
    version: int,
    label: str | None,
    received: str,
    lines: Sequence[LineCheck],
    late: bool,
    standing: int | None,
    reinstates: int | None,
    deadline: str,
    next_subject: str,
    notes: Sequence[str] = (),
    attachments: Sequence[str] = (),
    source: str = "e-mail",
    variant: Variant | None = None,
    kind: PhaseKind | str | None = None,
) -> str:
    yours = f" (your v{label})" if label and label != str(version) else ""
    out = [
        f"Your {source} for {power} in {game_title}, {phase}, was received {received} and recorded as "
        f"version {version}{yours}.",
        "",
    ]
    if reinstates is not None:
        out += [f"It is a version instruction: version {reinstates} stands.", ""]
    elif lines:
        accepted = sum(1 for ln in lines if ln.accepted)
        out += ["Line by line:", *lines_text(lines, variant, kind), ""]
        out.append(f"{accepted} order(s) accepted, {len(lines) - accepted} rejected.")
        if accepted < len(lines):
            out.append("A rejected line is not carried out. Send a new version with it corrected.")
        out.append("")
    else:
        out += ["It has no order lines.", ""]
    if attachments:
        out += ["Kept with it, sealed until the deadline:", *[f"  {a}" for a in attachments], ""]
    if late:
        out += [
            "It arrived AFTER THE DEADLINE: it is recorded as late and is not used "
            "(unless the coordinator extends the deadline).",
            "",
        ]
    elif standing is not None:
        out += [
            f"Version {standing} now stands for {power} (the one received last counts, unless an instruction says otherwise).",
            "",
        ]
    else:
        out += [f"No version with orders stands for {power} yet.", ""]
    if notes:
        out += ["Notes:", *[f"  {n}" for n in notes], ""]
    out += [f"Deadline: {deadline}.", "", "To send a new version, use the subject:", f"  {next_subject}", "", SIGN]
    return "\n".join(out) + "\n"


def refusal_text(*, subject: str, why: str, suggestion: str | None, registered: bool) -> str:
    out = [
        "Your message was not used for any orders.",
        "",
        f"Subject: {subject or '(empty)'}",
        f"Why: {why}.",
        "",
    ]
    if suggestion:
        out += ["A subject that would work:", f"  {suggestion}", ""]
    out += [f"The form is: {FORM}.", ""]
    if registered:
        out += ["Your message is kept; nothing in it has been applied.", ""]
    out.append(SIGN)
    return "\n".join(out) + "\n"
