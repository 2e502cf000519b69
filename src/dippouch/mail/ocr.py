"""Proposed transcriptions of photographed orders, decided against what the power can order.

The rulebook lets the Coordinator interpret only lexically, and orders stay sealed until the deadline, so a
photograph is read only after the deadline, and what is read is a *proposal*: each line read by an OCR
engine (:mod:`.ocr_engines`: RapidOCR or tesseract, after adaptive binarisation and deskew) is decided
against the legal orders of the power's units (:mod:`.ocr_match`), with a confidence; a line read with too
little confidence is flagged for the coordinator, never applied; the sheet's heading lines are dropped as
headings; the units left without an order are listed. Confirming applies exactly the lines proposed (as
a version received when the message arrived), or the coordinator's corrected text. OCR is optional:
without an engine the photographs are kept and the coordinator types them in.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime

from dippouch.core.messages import Msg, msg
from dippouch.core.position import Position
from dippouch.core.sight import sight, veil
from dippouch.core.variant import Variant
from dippouch.game import GameError, LineCheck, as_utc, check_orders, position_from_data, unordered
from dippouch.letters.subject import GameNames, power_names
from dippouch.mail.ocr_engines import available_engines, read_lines, unavailable
from dippouch.mail.ocr_match import LineReading, match_lines
from dippouch.play import held_mail
from dippouch.play.photos import confirm_photo
from dippouch.store import GameStore
from dippouch.store.mail.photos import confirm_target, open_phase_photos, photo_bytes

I18N_DOMAIN = "rules"
"""The catalogue of the photographs' reading refusals, said in the reader's language where they are shown
(dippouch.saying)."""

__all__ = [
    "LineReading",
    "SheetProposal",
    "SheetReading",
    "confirm",
    "ocr_missing",
    "proposals",
    "read_image",
    "read_sheet",
    "read_unsealed",
    "repair_line",
    "transcribe",
]


def ocr_missing() -> str | None:
    """Why no OCR engine can run here, or None."""
    if available_engines():
        return None
    return f"no OCR engine is installed: {unavailable('rapidocr')}; {unavailable('tesseract')}"


def read_image(data: bytes, *, timeout: float = 120, engine: str | None = None) -> str:
    """The text an OCR engine reads in an image, one line of the picture a line."""
    return "\n".join(read_lines(data, engine=engine, timeout=timeout))


_CONFUSED = (("I", "l"), ("l", "I"), ("1", "l"), ("0", "o"), ("rn", "m"), ("vv", "w"), ("5", "s"))


def _is_name(variant: Variant, word: str) -> bool:
    try:
        variant.map.loc(word)
    except KeyError:
        return False
    return True


def repair_line(variant: Variant, line: str) -> str:
    """Undo OCR's usual slips in an order line, where the result is a place the map knows and the slip is
    not: a unit letter run into its place ("Alon - ken" -> "A lon - ken") and look-alike letters ("Ivp" ->
    "lvp", "0" for "o"). Lexical only, as the rulebook allows; the proposal still goes to the coordinator."""
    words = []
    for w in line.split():
        # "Alon-ken": the spaces around a move's dash lost (unless the hyphenated word is a name).
        if "-" in w and w != "-" and not _is_name(variant, w):
            words += [x for x in re.split(r"(-)", w) if x]
        else:
            words.append(w)
    out: list[str] = []
    for i, w in enumerate(words):
        core = w.strip(".,;:'\"‘’")
        if len(core) >= 3 and not _is_name(variant, core) and not core.isdigit():
            if i == 0 and core[0] in "AF" and core[1:2].islower() and _is_name(variant, core[1:]):
                out += [core[0], core[1:]]
                continue
            fixed = None
            for bad, good in _CONFUSED:
                if bad in core and _is_name(variant, core.replace(bad, good)):
                    fixed = core.replace(bad, good)
                    break
            if fixed is not None:
                out.append(fixed)
                continue
        out.append(w)
    return " ".join(out)


def transcribe(variant: Variant, data: bytes) -> str:
    """What the OCR engine reads in a photograph, with OCR's usual slips in names repaired line by line (no
    order matching: :func:`read_sheet` decides the lines against the legal orders)."""
    return "\n".join(repair_line(variant, ln) for ln in read_lines(data))


@dataclass
class SheetReading:
    """A photographed sheet decided against the power's legal orders."""

    readings: list[LineReading]
    """Every line read, with its verdict and confidence."""
    text: str
    """The proposed transcription: the lines proposed (orders in full names, version instructions), each on
    the line it was read from; flagged lines, headings and noise left blank. Confirming applies this."""
    lines: list[LineCheck]
    """The line check of ``text``, and each flagged line as a refused line saying why."""
    unordered: list[tuple[list[str], Msg]]
    """What the proposed orders leave out: (units, what happens to them), as :func:`dippouch.game.unordered`."""


def read_sheet(
    variant: Variant, position: Position, power: str, read: str, names: list[str], *, fog: bool = False
) -> SheetReading:
    """Decide the lines of ``read`` (what the OCR engine read) against ``power``'s legal orders. ``fog``: a
    fog-of-war game's, whose legal orders are those of the power's sight, as its arrival check reads them
    (:func:`dippouch.game.seen_position`): a suggestion never names a unit the power cannot see, and a line
    supporting one is flagged as the check would refuse it."""
    from dippouch.game import read_version_lines

    if fog:
        position = veil(position, sight(variant, position, power))

    readings = match_lines(variant, position, power, read.split("\n"), names)
    rows = [""] * max((r.line for r in readings), default=0)
    for r in readings:
        if r.proposed:
            rows[r.line - 1] = r.text
    text = "\n".join(rows).rstrip("\n")
    checked = check_orders(variant, position, power, read_version_lines(text).text)
    flagged = [LineCheck(r.line, r.read, error=_flag_message(r)) for r in readings if r.verdict == "flagged"]
    lines = sorted([*checked, *flagged], key=lambda ln: ln.line)
    return SheetReading(readings, text, lines, unordered(variant, position, power, checked))


def _flag_message(r: LineReading) -> Msg:
    sure = round(r.confidence * 100)
    why = r.why if r.why is not None else msg("not read clearly enough")
    if r.text:
        return msg(
            "not read with confidence (%(sure)s%% sure: %(why)s); nearest legal order: %(order)s; not applied: type "
            "the line in (confirm with your corrected text) if it is an order",
            sure=sure,
            why=why,
            order=r.text,
        )
    return msg(
        "not read with confidence (%(sure)s%% sure: %(why)s); not applied: type the line in (confirm with your "
        "corrected text) if it is an order",
        sure=sure,
        why=why,
    )


@dataclass
class SheetProposal:
    attachment_id: int
    mail_id: int
    power: str
    filename: str
    received: datetime
    text: str | None
    """The proposed transcription, what confirming applies (``None``: not read yet): every line read that
    was decided to be an order of the power's (in full names) or a version instruction."""
    lines: list[LineCheck]
    """The verdict on every line: proposed orders as the line check echoes them, flagged lines refused
    with the reason and the nearest legal order."""
    confirmed_as: int | None
    problem: Msg | None = None
    """Why the photograph could not be read (a message value, said in the reader's language)."""
    set_aside: str | None = None
    """Why the coordinator set it aside (``mail set-aside``), if they did."""
    content_type: str = ""
    readings: list[LineReading] = field(default_factory=list)
    """Every line as the engine read it, with its verdict (order, flagged, heading, version, noise) and
    confidence."""
    unordered: list[tuple[list[str], Msg]] = field(default_factory=list)
    """The units the proposed orders leave without an order, and what happens to them."""
    read: str | None = None
    """What the OCR engine read, as it read it."""


def _names(game: str, v: Variant, player: str | None) -> list[str]:
    """The names a sheet's heading may carry: the game's, the power's names, the player's."""
    return [game, *power_names(GameNames(game, v, None)).keys(), player or ""]


def proposals(store: GameStore, game: str, *, now: datetime, run: bool = True) -> list[SheetProposal]:
    """Photographs sent for the game's open phase, read (``run``) once its deadline has passed, each with
    the parser's verdict on every line. Before the deadline they are sealed: refused with the reason."""
    now = as_utc(now)
    phase = open_phase_photos(store, game, now=now)
    v = phase.variant
    pos = position_from_data(v, phase.position)
    names = {power: _names(phase.game, v, phase.players.get(power)) for power in v.power_names}
    out = []
    for it in phase.items:
        if not it.content_type.startswith("image/") or it.power is None:
            continue
        problem = None
        text = it.ocr_text
        if text is None and run and it.set_aside is None:
            try:
                text = read_image(photo_bytes(store, it.attachment))
            except GameError as e:
                problem = e.msg
            if text is not None:
                held_mail.keep_reading(store, it.attachment, text, now=now)
        common = (it.attachment, it.message, it.power, it.filename, it.received)
        if text is None:
            out.append(SheetProposal(*common, None, [], it.submission, problem, it.set_aside, it.content_type))
            continue
        r = read_sheet(v, pos, it.power, text, names[it.power], fog=phase.fog)
        out.append(
            SheetProposal(
                *common, r.text, r.lines, it.submission, problem, it.set_aside, it.content_type,
                r.readings, r.unordered, text,
            )
        )  # fmt: skip
    return out


def read_unsealed(
    store: GameStore, *, now: datetime, skip: Collection[int] = (), limit: int = 10
) -> list[tuple[int, Msg | None]]:
    """Read the photographs the deadline has unsealed and nobody has read yet (the worker's
    :class:`dippouch.worker.service.PhotoReading`), so the review page finds them read instead of reading each
    in the coordinator's request (about 10 s a photograph on a busy machine). At most ``limit`` a call, none
    of ``skip`` (those whose reading failed a moment ago); each attachment read, with why it could not be
    (``None``: its text is kept). A sealed photograph is never read: the rulebook reads nothing before the
    deadline. Nothing is read where no OCR engine is installed (the page says so)."""
    from dippouch.store.mail.games import games_for_mail

    now = as_utc(now)
    out: list[tuple[int, Msg | None]] = []
    for g in games_for_mail(store):
        if g.phase is None or g.phase.deadline is None or as_utc(g.phase.deadline) > now:
            continue
        try:
            phase = open_phase_photos(store, g.name, now=now)
        except GameError:  # sealed (paused) or no open phase: nothing to read yet
            continue
        for it in phase.items:
            if len(out) >= limit:
                return out
            if (
                not it.content_type.startswith("image/")
                or it.power is None
                or it.ocr_text is not None
                or it.set_aside is not None
                or it.attachment in skip
            ):
                continue
            if ocr_missing() is not None:  # asked only here: an engine's import is heavy, and most looks read none
                return out
            try:
                text = read_image(photo_bytes(store, it.attachment))
            except GameError as e:
                out.append((it.attachment, e.msg))
                continue
            held_mail.keep_reading(store, it.attachment, text, now=now)
            out.append((it.attachment, None))
    return out


def confirm(store: GameStore, attachment_id: int, *, now: datetime, text: str | None = None) -> tuple[str, int]:
    """The coordinator's confirmation: the transcription (as read, or ``text`` as corrected) becomes a
    version of the power's submission, received when the message arrived (:func:`dippouch.play.photos.confirm_photo`).
    Returns (power, version)."""
    now = as_utc(now)
    if text is None:
        target = confirm_target(store, attachment_id, now=now)
        if target.ocr_text is None:
            raise GameError(
                msg(
                    "attachment #%(id)s has not been read; run `dippouch mail ocr %(game)s` or give the text",
                    id=attachment_id,
                    game=target.game,
                )
            )
        # Exactly what `proposals` showed: the same reading decided against the same phase's orders.
        v = target.variant
        pos = position_from_data(v, target.position)
        names = _names(target.game, v, target.player)
        text = read_sheet(v, pos, target.power, target.ocr_text, names, fog=target.fog).text
        if not text.strip():
            raise GameError(
                msg(
                    "attachment #%(id)s: no line was read with confidence; give the text (--file) "
                    "as you read the photograph",
                    id=attachment_id,
                )
            )
    done = confirm_photo(store, attachment_id, text=text, now=now)
    return done.power, done.version
