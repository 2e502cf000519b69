"""The texts dippouch mails: receipts, replies to messages it cannot use, results, reminders, notices.

Every message is plain text and complete without its attachments (a map PDF repeats what the text says).
Each reply says what happened, why, and what to send instead, with the exact subject that would work.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from dippouch.core.calendar import PhaseKind
from dippouch.core.variant import Variant
from dippouch.game import GameSettings, LineCheck
from dippouch.i18n import translations
from dippouch.names import order_text
from dippouch.saying import say

__all__ = ["FORM", "I18N_DOMAIN", "SIGN", "form", "receipt_text", "refusal_text", "sign"]

I18N_DOMAIN = "mail"
"""Every text here is in the reader's language: ``lang`` is the game's (:attr:`GameSettings.language`), English
when the game is not known. The subjects a text tells the player to use stay as intake reads them."""


def form(lang: str = "en") -> str:
    """The subject's form, as a refusal explains it (the example keeps the calendar's own words: intake
    reads them)."""
    return translations(lang).gettext(
        "Game Name - Power Name - Season Year Type - Version (e.g. Powick Bridge - Montrose - Autumn 1644 Retreats - v1)"
    )


def sign(lang: str = "en") -> str:
    """The signature under every message dippouch writes."""
    return translations(lang).gettext(
        "-- \ndippouch, for the game's coordinator. This message was written by a program; a reply reaches the "
        "orders address."
    )


FORM = form()
SIGN = sign()


def _when(settings: GameSettings, dt: datetime | None, lang: str = "en") -> str:
    if dt is not None:
        return settings.describe(dt)
    return translations(lang).gettext("none while the game is paused")


def lines_text(
    lines: Sequence[LineCheck],
    variant: Variant | None = None,
    kind: PhaseKind | str | None = None,
    lang: str = "en",
) -> list[str]:
    """Each line's verdict; accepted orders in the map's full names when the variant is given (a player
    reads "A Teviotdale & Liddesdale - Northumberland", not the program's "A tev - nhb"). A rejected line's
    reason is the order check's own message, said in ``lang``."""
    _ = translations(lang).gettext
    out = []
    for ln in lines:
        if ln.accepted:
            shown = order_text(variant, ln.order, kind) if variant is not None and ln.order else ln.order
            out.append(_("  line %(line)2d  accepted  %(order)s") % {"line": ln.line, "order": shown})
        else:
            out.append(_("  line %(line)2d  REJECTED  %(text)s") % {"line": ln.line, "text": ln.text.strip()})
            out.append(f"            {say(ln.error, lang) if ln.error is not None else ''}")
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
    lang: str = "en",
) -> str:
    """The receipt of a version. ``source`` is what came ("e-mail"; a caller in another language passes its
    word for it), ``notes`` the intake's own remarks, as they are."""
    words = translations(lang)
    _ = words.gettext
    if source == "e-mail":
        source = _("e-mail")
    yours = _(" (your v%(label)s)") % {"label": label} if label and label != str(version) else ""
    out = [
        _(
            "Your %(source)s for %(power)s in %(game)s, %(phase)s, was received %(received)s and recorded as version %(version)d%(yours)s."
        )
        % {
            "source": source,
            "power": power,
            "game": game_title,
            "phase": phase,
            "received": received,
            "version": version,
            "yours": yours,
        },
        "",
    ]
    if reinstates is not None:
        out += [_("It is a version instruction: version %(version)d stands.") % {"version": reinstates}, ""]
    elif lines:
        accepted = sum(1 for ln in lines if ln.accepted)
        out += [_("Line by line:"), *lines_text(lines, variant, kind, lang), ""]
        # The form follows the orders accepted, the counted noun; the rejected count is said as a number.
        out.append(
            words.ngettext(
                "%(accepted)d order accepted, %(rejected)d rejected.",
                "%(accepted)d orders accepted, %(rejected)d rejected.",
                accepted,
            )
            % {"accepted": accepted, "rejected": len(lines) - accepted}
        )
        if accepted < len(lines):
            out.append(_("A rejected line is not carried out. Send a new version with it corrected."))
        out.append("")
    else:
        out += [_("It has no order lines."), ""]
    if attachments:
        out += [_("Kept with it, sealed until the deadline:"), *[f"  {a}" for a in attachments], ""]
    if late:
        out += [
            _(
                "It arrived AFTER THE DEADLINE: it is recorded as late and is not used "
                "(unless the coordinator extends the deadline)."
            ),
            "",
        ]
    elif standing is not None:
        out += [
            _(
                "Version %(version)d now stands for %(power)s (the one received last counts, unless an instruction "
                "says otherwise)."
            )
            % {"version": standing, "power": power},
            "",
        ]
    else:
        out += [_("No version with orders stands for %(power)s yet.") % {"power": power}, ""]
    if notes:
        out += [_("Notes:"), *[f"  {n}" for n in notes], ""]
    out += [
        _("Deadline: %(deadline)s.") % {"deadline": deadline},
        "",
        _("To send a new version, use the subject:"),
        f"  {next_subject}",
        "",
        sign(lang),
    ]
    return "\n".join(out) + "\n"


def refusal_text(*, subject: str, why: str, suggestion: str | None, registered: bool, lang: str = "en") -> str:
    """A refusal; ``why`` is the intake's reason as it is recorded."""
    _ = translations(lang).gettext
    out = [
        _("Your message was not used for any orders."),
        "",
        _("Subject: %(subject)s") % {"subject": subject or _("(empty)")},
        _("Why: %(why)s.") % {"why": why},
        "",
    ]
    if suggestion:
        out += [_("A subject that would work:"), f"  {suggestion}", ""]
    out += [_("The form is: %(form)s.") % {"form": form(lang)}, ""]
    if registered:
        out += [_("Your message is kept; nothing in it has been applied."), ""]
    out.append(sign(lang))
    return "\n".join(out) + "\n"
