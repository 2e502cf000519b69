"""Proposed transcriptions of photographed typed orders, with tesseract (Debian's ``tesseract-ocr``).

The rulebook lets the Coordinator interpret only lexically, and orders stay sealed until the deadline, so a
photograph is read only after the deadline, and what tesseract reads is a *proposal*: shown with the
parser's verdict on every line, and applied (as a version received when the message arrived) only when the
coordinator confirms it, as read or corrected. OCR is optional: without tesseract the photographs are kept
and the coordinator types them in.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa

from dippouch.core.variant import Variant
from dippouch.game import GameError, LineCheck, as_utc, check_orders, position_from_data, read_version_lines
from dippouch.mail.message import clean_body, sniff_image, strip_sheet
from dippouch.mail.subject import GameNames, power_names
from dippouch.store import GameStore
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.models_mail import MailAttachmentRow, MailMessageRow
from dippouch.store.repository import is_sealed

__all__ = ["Proposal", "confirm", "proposals", "read_image", "repair_line", "tesseract_missing", "transcribe"]


def tesseract_missing() -> str | None:
    """Why OCR cannot run here, or None."""
    if shutil.which("tesseract") is None:
        return "tesseract is not installed (Debian: apt-get install tesseract-ocr)"
    return None


_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"II*\x00", b"MM\x00*", b"BM")


def _not_an_image(why: str = "") -> GameError:
    return GameError(f"the attachment is not an image tesseract can read{f' ({why})' if why else ''}")


def _prepare(data: bytes) -> bytes:
    """Greyscale, specks filtered out, contrast stretched, black and white, small photographs enlarged: what
    tesseract reads best. Without Pillow the image goes to tesseract as it is.

    Only an image goes to tesseract: given a file that is not one, tesseract reads it as a list of image
    files to open, so an attachment holding a path would have it read any picture on this machine."""
    heic = sniff_image(data) == "image/heic"
    try:
        from PIL import Image, ImageFilter, ImageOps
    except ImportError:
        if heic:
            raise _not_an_image(f"a HEIC photograph; {_HEIC_NEEDS}") from None
        if not data.startswith(_IMAGE_MAGIC) and not (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
            raise _not_an_image() from None
        return data
    if heic and not _heif_opener():
        raise _not_an_image(f"a HEIC photograph; {_HEIC_NEEDS}")
    try:
        opened = Image.open(io.BytesIO(data))
        opened.load()
    except (OSError, ValueError, Image.DecompressionBombError) as e:
        raise _not_an_image(type(e).__name__) from None
    try:
        img: Image.Image = ImageOps.exif_transpose(opened).convert("L")
        if img.width < 1500:
            factor = 1500 / img.width
            img = img.resize((int(img.width * factor), int(img.height * factor)), Image.Resampling.LANCZOS)
        img = img.filter(ImageFilter.MedianFilter(3))  # specks from the camera or the scanner
        img = ImageOps.autocontrast(img, cutoff=1)
        img = img.point(lambda v: 255 if v > 150 else 0)
        out = io.BytesIO()
        img.save(out, format="PNG")
        return out.getvalue()
    except OSError:
        return data


_HEIC_NEEDS = "reading it needs pillow-heif (pip install 'dippouch[ocr]')"


def _heif_opener() -> bool:
    """Teach Pillow to open HEIC/HEIF, the format iPhones photograph in, if pillow-heif is installed."""
    try:
        import pillow_heif
    except ImportError:
        return False
    pillow_heif.register_heif_opener()
    return True


def read_image(data: bytes, *, timeout: float = 120) -> str:
    """The text tesseract reads in an image (a page of typed lines: page segmentation mode 6)."""
    why = tesseract_missing()
    if why:
        raise GameError(why)
    with tempfile.TemporaryDirectory(prefix="dippouch-ocr-") as d:
        path = Path(d) / "page.png"
        path.write_bytes(_prepare(data))
        try:
            done = subprocess.run(
                ["tesseract", str(path), "stdout", "--psm", "6", "-l", "eng", "-c", "preserve_interword_spaces=1"],
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise GameError(f"tesseract took longer than {timeout:.0f} s on this image") from None
        if done.returncode != 0:
            raise GameError(f"tesseract could not read the image: {done.stderr.decode('utf-8', 'replace').strip()}")
        return done.stdout.decode("utf-8", "replace").replace("\x0c", "").strip()


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
    """What tesseract reads in a photograph of typed orders, with OCR's usual slips repaired."""
    return "\n".join(repair_line(variant, ln) for ln in read_image(data).splitlines())


@dataclass
class Proposal:
    attachment_id: int
    mail_id: int
    power: str
    filename: str
    received: datetime
    text: str | None
    """What tesseract read, with the sheet's heading lines taken off (``None``: not read yet)."""
    lines: list[LineCheck]
    confirmed_as: int | None
    problem: str | None = None
    set_aside: str | None = None
    """Why the coordinator set it aside (``mail set-aside``), if they did."""
    content_type: str = ""


def _sheet_text(text: str, names: list[str]) -> str:
    body, _ = clean_body(text)
    body, _ = strip_sheet(body, names)
    return body.strip("\n")


def proposals(store: GameStore, game: str, *, now: datetime, run: bool = True) -> list[Proposal]:
    """Photographs sent for the game's open phase, read (``run``) once its deadline has passed, each with
    the parser's verdict on every line. Before the deadline they are sealed: refused with the reason."""
    now = as_utc(now)
    with store.session() as s:
        g = store._game(s, game)
        v = store._variant(g)
        ph = store._current(s, g)
        if ph is None:
            raise GameError(f"game {game!r} has no open phase")
        if is_sealed(ph.status, ph.deadline, now):
            when = ph.deadline.isoformat() if ph.deadline else "the deadline (the game is paused)"
            raise GameError(f"the photographs of {ph.name} are sealed until {when}; transcriptions come after it")
        pos = position_from_data(v, ph.position)
        rows = s.execute(
            sa.select(MailAttachmentRow, MailMessageRow)
            .join(MailMessageRow, MailMessageRow.id == MailAttachmentRow.mail_id)
            .where(
                MailMessageRow.phase_id.in_(_same_phase(ph)),
                MailMessageRow.status.in_(["photo", "accepted"]),
            )
            .order_by(MailMessageRow.received_at, MailAttachmentRow.id)
        ).all()
        items = [
            (
                a.id,
                m.id,
                m.power,
                a.filename,
                a.content_type,
                m.received_at,
                a.ocr_text,
                a.submission_id,
                a.set_aside_why,
            )
            for a, m in rows
        ]
        gnames = GameNames(g.name, v, pos.phase)
        players = {r.power: r.name for r in g.players if r.replaced_at is None}
    out = []
    for aid, mid, power, filename, ctype, received, text, confirmed, aside in items:
        if not ctype.startswith("image/") or power is None:
            continue
        problem = None
        if text is None and run and aside is None:
            with store.session() as s:
                row = s.get(MailAttachmentRow, aid)
                assert row is not None
                data = row.data
            try:
                text = transcribe(v, data)
            except GameError as e:
                problem = str(e)
            if text is not None:
                with store.session() as s, s.begin():
                    row = s.get(MailAttachmentRow, aid)
                    assert row is not None
                    row.ocr_text, row.ocr_at = text, now
        lines: list[LineCheck] = []
        shown = None
        if text is not None:
            names = [g.name, *power_names(gnames).keys(), players.get(power, "")]
            shown = _sheet_text(text, names)
            lines = check_orders(v, pos, power, read_version_lines(shown).text)
        out.append(Proposal(aid, mid, power, filename, received, shown, lines, confirmed, problem, aside, ctype))
    return out


def _same_phase(ph: PhaseRow) -> sa.Select[int]:
    """The ids of ``ph`` and of the earlier openings of the same phase (a rollback onto a phase opens it again
    as a new row): a photograph sent before the rollback was sent for the phase that is open now."""
    return sa.select(PhaseRow.id).where(
        PhaseRow.game_id == ph.game_id, PhaseRow.seq == ph.seq, PhaseRow.name == ph.name
    )


def confirm(store: GameStore, attachment_id: int, *, now: datetime, text: str | None = None) -> tuple[str, int]:
    """The coordinator's confirmation: the transcription (as read, or ``text`` as corrected) becomes a
    version of the power's submission, received when the message arrived. Returns (power, version)."""
    now = as_utc(now)
    with store.session() as s:
        row = s.get(MailAttachmentRow, attachment_id)
        if row is None:
            raise GameError(f"no attachment #{attachment_id} (see `dippouch mail ocr GAME`)")
        msg = s.get(MailMessageRow, row.mail_id)
        assert msg is not None
        if row.submission_id is not None:
            raise GameError(f"attachment #{attachment_id} was confirmed already")
        ph = s.get(PhaseRow, msg.phase_id) if msg.phase_id is not None else None
        g = s.get(GameRow, msg.game_id) if msg.game_id is not None else None
        if ph is None or g is None or msg.power is None:
            raise GameError(f"attachment #{attachment_id} belongs to no power's submission")
        if ph.status == "abandoned":
            # Sent for a phase the coordinator has since reopened (rolled back onto): the same phase, open again.
            current = store._current(s, g)
            if current is not None and (current.seq, current.name) == (ph.seq, ph.name):
                ph = current
        if ph.status != "open":
            raise GameError(f"{ph.name} has been processed; a transcription can no longer be applied")
        if is_sealed(ph.status, ph.deadline, now):
            raise GameError(f"{ph.name} is sealed until its deadline; transcriptions are confirmed after it")
        if text is None:
            if row.ocr_text is None:
                raise GameError(
                    f"attachment #{attachment_id} has not been read; run `dippouch mail ocr {g.name}` or give the text"
                )
            v = store._variant(g)
            names = [g.name, *power_names(GameNames(g.name, v, None)).keys()]
            text = _sheet_text(row.ocr_text, names)
        game, power, received, phase_id = g.name, msg.power, msg.received_at, ph.id
    result = store.submit(game, power, text, now=received, source="photo", recorded_at=max(now, received))
    with store.session() as s, s.begin():
        from dippouch.store.models import SubmissionRow

        sub_id = s.scalars(
            sa.select(SubmissionRow.id).where(
                SubmissionRow.phase_id == phase_id,
                SubmissionRow.power == power,
                SubmissionRow.version == result.version,
            )
        ).first()
        row = s.get(MailAttachmentRow, attachment_id)
        assert row is not None
        row.submission_id = sub_id
    return power, result.version
