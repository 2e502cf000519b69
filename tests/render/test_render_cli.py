"""Maps through the command line and the mail: `dippouch map`, `report --pdf`, and the PDF map attached to
a Winter's results. Drawn on the variants' committed geometry."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail
import dippouch.cli.map  # noqa: F401
from dippouch.cli import app

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
NS = "{http://www.w3.org/2000/svg}"

needs_poppler = pytest.mark.skipif(
    shutil.which("pdfinfo") is None, reason="poppler-utils not installed (scripts/setup)"
)


def run(db: str, *args: str, code: int = 0, now: datetime | None = None) -> str:
    argv = [*args]
    if args[0] not in ("map",) or "--game" in args:
        argv += ["--db", db]
    if now is not None:
        argv += ["--now", now.isoformat()]
    r = CliRunner().invoke(app, argv)
    assert "Traceback" not in r.output, r.output
    assert r.exit_code == code, f"dippouch {' '.join(args)} exited {r.exit_code}:\n{r.output}"
    return r.output


@pytest.fixture
def played(tmp_path: Path) -> str:
    """A standard game with a processed Spring 1901: England and France ordered, one move bouncing."""
    db = f"sqlite:///{tmp_path / 'g.db'}"
    run(db, "new", "g", "--variant", "standard", now=T0)
    (tmp_path / "eng.txt").write_text("F lon - eng\nF edi - nth\nA lvp - yor\n")
    (tmp_path / "fra.txt").write_text("F bre - eng\nA par - bur\nA mar S A par - bur\n")
    run(db, "submit", "g", "England", str(tmp_path / "eng.txt"), now=T0)
    run(db, "submit", "g", "France", str(tmp_path / "fra.txt"), now=T0)
    run(db, "process", "g", "--force", now=T0 + timedelta(hours=1))
    return db


def _orders(svg: str) -> list[ET.Element]:
    return [e for e in ET.fromstring(svg).iter(f"{NS}g") if "order" in (e.get("class") or "").split()]


def test_map_of_a_variant_and_of_a_game_phase(played: str, tmp_path: Path) -> None:
    out = tmp_path / "open.svg"
    assert "wrote" in run(played, "map", "standard", "--out", str(out))
    root = ET.fromstring(out.read_text())
    assert sum(1 for e in root.iter() if (e.get("id") or "").startswith("unit-")) == 22
    assert _orders(out.read_text()) == []

    phase = tmp_path / "spring.svg"
    run(played, "map", "--game", "g", "--phase", "Spring 1901 Movement", "--out", str(phase))
    drawn = _orders(phase.read_text())
    assert len(drawn) == 6
    assert {e.get("data-order") for e in drawn if "failed" in (e.get("class") or "")} == {"F lon - eng", "F bre - eng"}
    bare = tmp_path / "bare.svg"
    run(played, "map", "--game", "g", "--phase", "Spring 1901 Movement", "--no-orders", "--out", str(bare))
    assert _orders(bare.read_text()) == []
    # The open phase (Fall 1901) is drawn without orders: they stay sealed.
    now = tmp_path / "now.svg"
    run(played, "map", "--game", "g", "--out", str(now))
    assert _orders(now.read_text()) == [] and "Fall 1901 Movement" in now.read_text()


def test_map_as_png(played: str, tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "m.png"
    run(played, "map", "standard", "--out", str(out), "--scale", "0.5")
    img = Image.open(io.BytesIO(out.read_bytes()))
    assert img.format == "PNG" and 400 < img.size[0] < 1000


@needs_poppler
def test_map_as_pdf_and_report_pdf(played: str, tmp_path: Path) -> None:
    out = tmp_path / "m.pdf"
    run(played, "map", "--game", "g", "--phase", "Spring 1901 Movement", "--out", str(out))
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Pages:\s+1$", info, re.M)
    assert "841.89 x 595.276 pts (A4)" in info  # the standard board is wider than tall: A4 landscape

    w3k = tmp_path / "w3k.pdf"
    said = run(played, "map", "w3k", "--paper", "a3", "--out", str(w3k))
    info = subprocess.run(["pdfinfo", str(w3k)], capture_output=True, text=True, check=True).stdout
    assert "841.89 x 1190.55 pts (A3)" in info  # W3K's board is taller than wide: A3 portrait
    # One page of A3 prints W3K's smallest names at 3.4 pt: the command says so, and what reads.
    assert re.search(r"note: on one page of A3 the smallest names print at 3\.\d pt; --atlas prints", said), said
    said = run(played, "map", "w3k", "--atlas", "--out", str(w3k))
    assert "note:" not in said
    info = subprocess.run(["pdfinfo", str(w3k)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Pages:\s+11$", info, re.M)  # the overview and the ten sheets of [drawing.sheets]

    rep = tmp_path / "r.pdf"
    assert "wrote" in run(played, "report", "g", "Spring 1901 Movement", "--pdf", str(rep), "--paper", "letter")
    info = subprocess.run(["pdfinfo", str(rep)], capture_output=True, text=True, check=True).stdout
    assert int(re.search(r"^Pages:\s+(\d+)$", info, re.M).group(1)) >= 2  # type: ignore[union-attr]
    assert "792 x 612 pts" in info
    text = subprocess.run(["pdftotext", str(rep), "-"], capture_output=True, text=True, check=True).stdout
    report = run(played, "report", "g", "Spring 1901 Movement")
    for line in report.splitlines():
        if "Burgundy" in line:
            assert line.strip().split()[0] in text
    assert "Burgundy" in text and "g: Spring 1901 Movement" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("map", "standard", "--out", "x.gif"), "name the file .svg, .png or .pdf"),
        (("map", "--out", "x.svg"), "give a variant name or --game GAME"),
        (("map", "standard", "--game", "g", "--out", "x.svg"), "give a variant name or --game GAME"),
        (("map", "atlantis", "--out", "x.svg"), "atlantis"),
        (("map", "--game", "nosuch", "--out", "x.svg"), "no game 'nosuch'"),
        (("map", "--game", "g", "--phase", "Spring 1999 Movement", "--out", "x.svg"), "Spring 1999"),
        (("map", "standard", "--names", "long", "--out", "x.svg"), "--names must be auto, abbr or full"),
        (("report", "g", "--pdf", "x.pdf", "--paper", "a5"), "a5"),
        (("map", "standard", "--paper", "a5", "--out", "x.pdf"), "--paper must be a4, a3 or letter, not 'a5'"),
        (("map", "standard", "--paper", "a3", "--out", "x.svg"), "--paper and --atlas are for a PDF"),
    ],
)
def test_bad_input_is_one_line(
    played: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, [*args, "--db", played] if "--game" in args or args[0] == "report" else list(args))
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and message in r.output, r.output
    assert not (tmp_path / "x.svg").exists()


def test_winter_results_mail_carries_the_map_as_pdf(tmp_path: Path) -> None:
    """Results of a Winter phase are queued with the map attached as a PDF; a Spring's go without."""
    from dippouch.mail.notices import queue_results
    from dippouch.store import GameStore
    from dippouch.store.mail.models import OutboxFileRow, OutboxRow

    db = f"sqlite:///{tmp_path / 'm.db'}"
    run(db, "new", "w", "--variant", "standard", now=T0)
    run(db, "players", "assign", "w", "England", "Ann", "--email", "ann@example.org", now=T0)
    run(db, "mail", "setup", "w", now=T0)
    (tmp_path / "eng.txt").write_text("F lon - nth\nA lvp - yor\nF edi - nwg\n")
    (tmp_path / "eng2.txt").write_text("F nth - nwy\nA yor H\nF nwg H\n")
    run(db, "submit", "w", "England", str(tmp_path / "eng.txt"), now=T0)
    run(db, "process", "w", "--force", now=T0 + timedelta(hours=1))
    run(db, "submit", "w", "England", str(tmp_path / "eng2.txt"), now=T0 + timedelta(hours=2))
    run(db, "process", "w", "--force", now=T0 + timedelta(hours=3))
    (tmp_path / "build.txt").write_text("Build F lon\n")
    run(db, "submit", "w", "England", str(tmp_path / "build.txt"), now=T0 + timedelta(hours=4))
    run(db, "process", "w", "--force", now=T0 + timedelta(hours=5))

    store = GameStore(db)
    queued = queue_results(store, T0 + timedelta(hours=6))
    assert queued.messages == 3
    with store.session() as s:
        rows = {r.subject: r for r in s.scalars(sa.select(OutboxRow).where(OutboxRow.kind == "results"))}
        files = {r.subject: [(f.filename, f.content_type, f.data) for f in r.files] for r in rows.values()}
        bodies = {k: r.body for k, r in rows.items()}
        assert s.scalars(sa.select(OutboxFileRow)).first() is not None
    winter = [k for k in files if "Winter 1901" in k]
    assert len(winter) == 1
    ((name, ctype, data),) = files[winter[0]]
    assert ctype == "application/pdf" and name.endswith(".pdf") and "winter-1901" in name
    assert data.startswith(b"%PDF")
    assert "The map is attached" in bodies[winter[0]]
    assert all(files[k] == [] for k in files if k not in winter)
    if shutil.which("pdftotext"):
        path = tmp_path / name
        path.write_bytes(data)
        text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
        assert "Winter 1901 Adjustments" in text and "England" in text


def test_results_go_without_the_map_when_none_can_be_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No geometry for the variant: the Winter results are still queued, as text alone."""
    from dippouch.mail.notices import queue_results
    from dippouch.store import GameStore
    from dippouch.store.mail.models import OutboxRow

    def missing(variant: object) -> None:
        raise FileNotFoundError("no map geometry for variant 'standard'")

    monkeypatch.setattr("dippouch.render.svg.load_geometry", missing)
    db = f"sqlite:///{tmp_path / 'n.db'}"
    run(db, "new", "w", "--variant", "standard", now=T0)
    run(db, "players", "assign", "w", "England", "Ann", "--email", "ann@example.org", now=T0)
    run(db, "mail", "setup", "w", now=T0)
    orders = ["F lon - nth\nA lvp - yor\nF edi - nwg\n", "F nth - nwy\nA yor H\nF nwg H\n", "Build F lon\n"]
    for hours, text in enumerate(orders, start=1):
        (tmp_path / "o.txt").write_text(text)
        run(db, "submit", "w", "England", str(tmp_path / "o.txt"), now=T0 + timedelta(hours=hours))
        run(db, "process", "w", "--force", now=T0 + timedelta(hours=hours, minutes=30))
    store = GameStore(db)
    assert queue_results(store, T0 + timedelta(hours=4)).messages == 3
    with store.session() as s:
        rows = list(s.scalars(sa.select(OutboxRow).where(OutboxRow.kind == "results")))
        assert len(rows) == 3 and all(r.files == [] for r in rows)
        assert any("Winter 1901" in r.subject for r in rows)
        assert not any("The map is attached" in r.body for r in rows)
