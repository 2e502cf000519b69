"""docs/architecture.md and docs/web.md name only files that exist (issue 54): a newcomer who reads "the line
check is in ``web/checks.py``" and finds no such file stops trusting the page. Every file name the two pages
give (``name.py``, ``.html``, ``.js``, ``.css``, ``.toml``, ``.md``, with or without its folders) must be found
in the repository: as written from the root, under ``src/dippouch/`` or its ``web/`` (where the pages speak
from), or, for a bare name or a partial path, as the end of some file's path."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/architecture.md", "docs/web.md")
PLACES = ("src", "tests", "benchmarks", "docs", "scripts", ".ci")
NAMED = re.compile(r"(?<![\w./}-])([\w./-]*[\w-]+\.(?:py|html|js|css|toml|md))\b")
"""A name just after an address's placeholder (``/variants/{name}/powers.css``, in the route map) is an address,
not a file."""
BASES = ("", "src/dippouch/", "src/dippouch/web/", "src/dippouch/web/templates/", "src/dippouch/web/static/")


def repository_files(root: Path = ROOT) -> set[str]:
    found = {p.name for p in root.iterdir() if p.is_file()}
    for place in PLACES:
        found.update(str(p.relative_to(root)) for p in (root / place).rglob("*") if p.is_file())
    return found


def unknown_names(text: str, files: set[str]) -> list[tuple[int, str]]:
    """(line, name) for each file name in ``text`` no file of ``files`` answers to."""
    names = {Path(f).name for f in files}
    out: list[tuple[int, str]] = []
    for m in NAMED.finditer(text):
        if m.group(1).startswith("../"):
            continue  # outside the repository (the shared reference material), not the repository's to keep
        name = m.group(1).strip("./")
        if any(base + name in files for base in BASES):
            continue
        if "/" not in name and name in names:
            continue
        if "/" in name and any(f.endswith("/" + name) for f in files):
            continue
        out.append((text[: m.start()].count("\n") + 1, name))
    return out


def test_the_architecture_and_web_pages_name_only_files_that_exist() -> None:
    files = repository_files()
    missing = [
        f"{doc}:{line}: {name}"
        for doc in DOCS
        for line, name in unknown_names((ROOT / doc).read_text(encoding="utf-8"), files)
    ]
    assert not missing, "files named in the docs that do not exist:\n" + "\n".join(missing)


def test_the_check_finds_a_gone_file_and_takes_each_way_of_naming_one() -> None:
    files = {
        "src/dippouch/web/views/player_page.py",
        "src/dippouch/web/templates/game.html",
        "tests/web/test_x.py",
        "README.md",
    }
    text = "See `web/views/player_page.py`, `game.html`, `test_x.py`, README.md and ../shared/rules/x.md;\nnot `web/checks.py`."
    assert unknown_names(text, files) == [(2, "web/checks.py")]
    assert unknown_names("`/variants/{name}/powers.css` and `/x/gone.css`", files) == [(1, "x/gone.css")]
