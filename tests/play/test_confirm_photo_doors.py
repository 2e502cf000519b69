"""One use case, every door: a photographed submission confirmed on the coordinator's review page or with
``dippouch mail confirm`` (:func:`dippouch.play.photos.confirm_photo`) becomes the same version of the power's
orders, received when the photograph came, and the photograph is linked to it; an empty transcription is
refused at both doors in the same words, with nothing recorded (the command line used to record it: an empty
version standing over the power's earlier ones)."""

from __future__ import annotations

import email.utils
import hashlib
import json
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.mail.intake import take_in
from dippouch.mail.ocr import proposals
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from photosupport import need_tesseract, photo
from websupport import Site

LINES = ["A par - bur", "A mar - spa", "F bre - mao"]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    need_tesseract()  # the review page reads the photograph before it offers its lines
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    settings.reread()
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("g")
    store_games.assign(s.web.store, "g", "France", "Fran", now=s.clock(), email="fran@example.org")
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "fran@example.org", "orders@example.org", "g - France - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m.set_content("")
    m.add_attachment(photo(LINES), maintype="image", subtype="jpeg", filename="orders.jpg")
    assert take_in(s.web.store, m.as_bytes(), now=s.clock()).status == "photo"
    s.clock.advance(days=13)  # past the deadline: the seal is off, the coordinator reviews
    return s


def _attachment(store: GameStore, now: Any) -> int:
    (p,) = proposals(store, "g", now=now, run=False)
    return p.attachment_id


def _confirm(site: Site, door: str, lines: list[str], tmp_path: Path) -> str:
    """Confirm ``lines`` as the transcription through ``door``; what the door said."""
    aid = _attachment(site.web.store, site.clock())
    if door == "cli":
        path = tmp_path / "transcription.txt"
        path.write_text("\n".join(lines) + ("\n" if lines else ""))
        register_commands()
        db = f"sqlite:///{tmp_path / 'g.db'}"
        args = ["mail", "confirm", str(aid), "--file", str(path), "--db", db, "--now", site.clock().isoformat()]
        return str(CliRunner().invoke(app, args).output)
    # The form as the page posts it: each line with its box, and the digest of what was shown.
    rows = [(text, bool(text)) for text in lines] or [("", False)]
    form = {f"line:{i}": text for i, (text, _) in enumerate(rows)} | {
        f"take:{i}": "on" for i, (_, t) in enumerate(rows) if t
    }
    shown = hashlib.sha256(json.dumps([aid, rows], ensure_ascii=False).encode()).hexdigest()
    r = site.post_form(
        site.coordinator, f"/games/g/review/{aid}", {**form, "lines": str(len(rows)), "shown": shown, "do": "confirm"}
    )
    assert r.status_code == 303, r.text
    return unquote(r.headers.get("set-cookie", ""))


def _france(store: GameStore, now: Any) -> list[dict[str, Any]]:
    rec = store_history.phase_record(store, "g", "Spring 1901 Movement", open_ok=True)
    return [s for s in rec["submissions"] if s["power"] == "France"]


@pytest.mark.parametrize("door", ("web", "cli"))
def test_a_confirmed_photograph_is_the_same_version_whichever_door(site: Site, door: str, tmp_path: Path) -> None:
    said = _confirm(site, door, LINES, tmp_path)
    store: GameStore = site.web.store
    (sub,) = _france(store, site.clock())
    assert (sub["version"], sub["source"], sub["text"].strip()) == (1, "photo", "\n".join(LINES)), (door, sub)
    (p,) = proposals(store, "g", now=site.clock(), run=False)
    assert p.confirmed_as == 1, door
    assert "France version 1" in said, (door, said)


@pytest.mark.parametrize("door", ("web", "cli"))
def test_an_empty_transcription_is_refused_in_the_same_words_whichever_door(
    site: Site, door: str, tmp_path: Path
) -> None:
    aid = _attachment(site.web.store, site.clock())
    said = _confirm(site, door, [], tmp_path)
    assert f"the transcription of photograph #{aid} has no line" in said, (door, said)
    assert _france(site.web.store, site.clock()) == [], door
