"""Finding 7: bad input gets one clear message, never a traceback, and the contract's stream goes on.

Each case was a traceback, an "internal error" answer or a stream that died before these fixes.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from dippouch.contract import MAX_REQUEST, handle_line

DIPPOUCH = [sys.executable, "-c", "from dippouch.cli import main; main()"]


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DIPPOUCH, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


def no_traceback(p: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout, p.stderr


# --------------------------------------------------------------------------------------------------
# Database URLs


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("games.db", "is not a database URL; for a SQLite file write sqlite:///games.db"),
        ("nosuchdb://", "unknown kind of database 'nosuchdb'"),
        ("mysql://user@localhost/games", "the mysql database driver (MySQLdb) is not installed"),
        ("sqlite:////no/such/folder/games.db", "the folder '/no/such/folder' does not exist"),
        ("postgresql://u:hunter2@", "cannot"),
    ],
)
def test_bad_database_url_is_one_clear_line(url: str, expected: str, tmp_path: Path) -> None:
    p = run("games", "--db", url, cwd=tmp_path)
    no_traceback(p)
    assert p.returncode == 2
    assert expected in p.stderr
    assert "hunter2" not in p.stderr  # a password in the URL is never printed


def test_new_sqlite_database_is_private(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    p = run("games", "--db", f"sqlite:///{db}")
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600


def test_existing_database_file_keeps_its_mode(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    run("games", "--db", f"sqlite:///{db}")
    db.chmod(0o640)  # the coordinator's own choice stands
    run("games", "--db", f"sqlite:///{db}")
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o640


def test_error_text_is_not_read_as_markup(tmp_path: Path) -> None:
    p = run("status", "[bold]x[/bold]", "--db", f"sqlite:///{tmp_path / 'g.db'}")
    no_traceback(p)
    assert p.returncode == 2
    assert "[bold]x[/bold]" in p.stderr


def test_version() -> None:
    from dippouch import __version__

    p = run("--version")
    assert p.returncode == 0
    assert p.stdout.strip() == f"dippouch {__version__}"


# --------------------------------------------------------------------------------------------------
# The contract: one answer per line, whatever the line


def stream(lines: list[str]) -> list[dict[str, object]]:
    p = run("adjudicate", stdin="".join(line + "\n" for line in lines))
    no_traceback(p)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


VALID = '{"variant": "standard", "orders": {"England": ["F lon - nth"]}}'

HOSTILE = [
    "[" * 100_000,  # RecursionError in the JSON reader
    '{"variant": "standard", "phase": ' + "7" * 5000 + "}",  # over Python's 4,300-digit limit
    '{"variant": "standard", "orders": {"England": ["F lon - \\ud800"]}}',  # a lone surrogate echoed back
    '{"variant": "\\ud800"}',
    '{"variant": "standard", "orders": {"\\udfff": ["A par H"]}}',
    '{"variant": "standard", "options": {"judge_calendar": [1]}}',
    '{"variant": "standard", "options": {"judge_calendar": {}}}',
    json.dumps({"variant": "x" * 10_000}),
    json.dumps({"variant": "1000ad", "state": {"anarchy": []}}),
    json.dumps({"variant": "1000ad", "state": {"anarchy": {"Moors": 3}}}),
    json.dumps({"variant": "w3k", "state": {"w3k_converting": {"lon": {"a": 1}}}}),
    json.dumps({"variant": "w3k", "state": {"w3k_supply": {"Crown": "many"}}}),
    json.dumps({"variant": "w3k", "state": {"w3k_proxies": {"nowhere": "Crown"}}}),
    json.dumps({"variant": "w3k", "state": "converting"}),
    json.dumps({"variant": "standard", "units": [{"power": "England", "unit": "A lon"}] * 300_000}),
    json.dumps({"variant": "standard", "orders": {"England": "A lon - wal\n" * 50_000}}),
    json.dumps({"variant": "standard", "orders": {"England": ["A lon H"] * 5_000}}),
]


def test_every_hostile_line_gets_one_answer_and_the_stream_goes_on() -> None:
    lines = [x for h in HOSTILE for x in (h, VALID)]
    answers = stream(lines)
    assert len(answers) == len(lines)
    for i, (line, answer) in enumerate(zip(lines, answers, strict=True)):
        if line is VALID:
            assert "results" in answer, (i, answer)
            continue
        assert "error" in answer or "results" in answer, answer
        assert "internal error" not in json.dumps(answer), (line[:80], answer)


def test_surrogates_are_echoed_as_json_escapes() -> None:
    (answer,) = stream(['{"variant": "standard", "orders": {"England": ["F lon - \\ud800"]}}'])
    first = answer["results"][0]  # type: ignore[index]
    assert first["input"] == "F lon - \ud800"


@pytest.mark.parametrize(
    ("state", "where"),
    [
        ({"anarchy": {"Moors": "sometimes"}}, "state.anarchy: 'Moors'"),
        ({"anarchy": {"Nobody": "grace"}}, "state.anarchy: 'Nobody': not a power"),
        ({"w3k_converting": {"lon": "Q"}}, "'lon': the unit type converting is"),
        ({"unheard_of": 1}, "state.unheard_of: no rule of"),
    ],
)
def test_damaged_state_is_refused_where_it_is(state: dict[str, object], where: str) -> None:
    variant = "w3k" if "w3k_converting" in state else "1000ad"
    answer = handle_line(json.dumps({"variant": variant, "state": state}))
    assert where in str(answer["error"])


def test_oversized_request_is_refused_unread() -> None:
    answer = handle_line("{" + " " * MAX_REQUEST + "}")
    assert "the limit is 1,000,000" in str(answer["error"])


# --------------------------------------------------------------------------------------------------
# Security: the variant field names a variant, never a file


def test_variant_paths_are_refused_alike_whether_or_not_the_file_exists(tmp_path: Path) -> None:
    real = tmp_path / "evil.toml"
    real.write_text((Path(__file__).parents[2] / "src/dippouch/variants/standard.toml").read_text(), "utf-8")
    probes = {
        "absolute, exists": str(real),
        "absolute, missing": str(tmp_path / "missing.toml"),
        "climbing, exists": os.path.relpath(real.with_suffix(""), Path(__file__).parents[2] / "src/dippouch/variants"),
        "climbing, missing": "../../../../tmp/nothing-here",
        "builtin by path": str(Path(__file__).parents[2] / "src/dippouch/variants/standard.toml"),
    }
    for label, name in probes.items():
        answer = handle_line(json.dumps({"variant": name, "orders": {}}))
        message = str(answer.get("error"))
        assert "results" not in answer, label
        assert message.startswith("no variant "), (label, message)
        assert "Known variants: 1000ad, 1897, 1898, " in message and ", standard, " in message, (label, message)
        assert message.endswith(", w3k, youngstown, zeus"), (label, message)
        assert str(tmp_path) not in message.replace(name[:40], ""), label
        assert "site-packages" not in message and "src/dippouch" not in message.replace(name[:40], "")


def test_help_does_not_load_the_database_layer() -> None:
    code = (
        "import sys\n"
        "from dippouch.cli import main\n"
        "sys.argv = ['dippouch', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED' if any(m.split('.')[0] in ('sqlalchemy', 'alembic') for m in sys.modules) else 'CLEAN')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert p.stdout.strip().endswith("CLEAN"), p.stdout[-300:]
