"""The installation's settings: read in one module, once per process, each in docs/settings.md's table, and a
wrong value refused with the variable's name, the value and a good example.

The environment read wherever a setting is used hid which process needs what (the architecture review's
"Configuration" row); these tests keep it in one place."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dippouch import settings
from dippouch.core.errors import DippouchError
from dippouch.game import GameError
from dippouch.settings import MailServer, Settings, TestHooks, networks
from sourcesupport import tree as parsed

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "dippouch"
TABLE = ROOT / "docs" / "settings.md"

READERS_ALLOWED: dict[str, set[str] | None] = {
    "settings.py": None,  # the one place (any variable)
    # ``alembic`` run by hand: Alembic loads this file on its own, outside any dippouch process.
    "store/migrations/env.py": {"DIPPOUCH_DATABASE_URL"},
}
"""Modules that may read the environment besides settings.py, and the variables each may read. The crash and
race tests' hooks (store/faults.py) are read by settings.py too: no exemption."""

_OS_READERS = {"environ", "environb", "getenv", "getenvb"}


def _environment_reads(tree: ast.AST) -> list[tuple[int, str | None]]:
    """Each place the code reaches the environment: (line, the variable it reads there, when that is a
    constant: ``os.environ.get("X")``, ``os.environ["X"]``, ``os.getenv("X")``)."""
    os_names = {"os"}
    parent: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[child] = node
        if isinstance(node, ast.Import):
            os_names |= {a.asname or a.name for a in node.names if a.name == "os"}
    found: list[tuple[int, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [(node.lineno, None) for a in node.names if a.name in _OS_READERS]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in _OS_READERS
            and isinstance(node.value, ast.Name)
            and node.value.id in os_names
        ):
            found.append((node.lineno, _variable(node, parent)))
    return found


def _variable(read: ast.Attribute, parent: dict[ast.AST, ast.AST]) -> str | None:
    up = parent.get(read)
    key: ast.expr | None = None
    if isinstance(up, ast.Subscript) and up.value is read:
        key = up.slice
    elif isinstance(up, ast.Call) and up.func is read and up.args:  # os.getenv("X")
        key = up.args[0]
    elif isinstance(up, ast.Attribute) and up.attr == "get":  # os.environ.get("X")
        call = parent.get(up)
        if isinstance(call, ast.Call) and call.func is up and call.args:
            key = call.args[0]
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def test_the_check_sees_every_way_of_reading_the_environment() -> None:
    """The walk below is only as good as what it recognises: each of these reads the environment."""
    for source in (
        "import os\nos.environ.get('A')",
        "import os\nx = os.environ['A']",
        "import os as system\nsystem.getenv('A')",
        "from os import environ",
        "from os import getenv as g",
        "import os\nv = os.environb",
    ):
        assert _environment_reads(ast.parse(source)), source
    for source in ("os.environ.get('DIPPOUCH_A')", "os.environ['DIPPOUCH_A']", "os.getenv('DIPPOUCH_A', 'x')"):
        assert _environment_reads(ast.parse(f"import os\nf('B', {source})")) == [(2, "DIPPOUCH_A")], source
    assert _environment_reads(ast.parse("import os\nos.path.join('a')\nenviron = {}")) == []


def test_only_the_settings_module_reads_the_environment() -> None:
    """Every other module asks :mod:`dippouch.settings`; a read elsewhere is a setting the table and the
    "read once" promise do not know about."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        allowed = READERS_ALLOWED.get(where, set())
        for line, name in _environment_reads(parsed(path)):
            if allowed is None or (name is not None and name in allowed):
                continue
            wrong.append(f"src/dippouch/{where}:{line} reads the environment ({name or 'which variable?'})")
    assert wrong == [], "read settings through dippouch.settings (docs/settings.md):\n" + "\n".join(wrong)


_NAME = re.compile(r"\bDIPPOUCH_[A-Z0-9]+(?:_[A-Z0-9]+)*\b")


def _names_in_package() -> dict[str, str]:
    """Every ``DIPPOUCH_*`` name in the package's text (code, docstrings, templates) -> a file it is in."""
    out: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*")):
        if not path.is_file() or path.suffix in (".pyc", ".png", ".pickle", ".woff2", ".ico"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for name in _NAME.findall(text):
            out.setdefault(name, path.relative_to(ROOT).as_posix())
    return out


def _table_rows() -> dict[str, list[str]]:
    """docs/settings.md's rows: the variable -> its cells after the name."""
    rows: dict[str, list[str]] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(DIPPOUCH_[A-Z0-9_]+)` \|(.*)\|$", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} has two rows in docs/settings.md"
            rows[m.group(1)] = [cell.strip() for cell in m.group(2).split(" | ")]
    return rows


def test_every_setting_the_package_names_is_in_the_table_and_no_other() -> None:
    in_code = _names_in_package()
    rows = _table_rows()
    missing = {name: where for name, where in in_code.items() if name not in rows}
    assert missing == {}, "named in the package but without a row in docs/settings.md"
    stale = sorted(set(rows) - set(in_code))
    assert stale == [], "rows of docs/settings.md for variables the package never names"
    words = set(re.findall(r"DIPPOUCH_[A-Z0-9_]+", TABLE.read_text(encoding="utf-8")))
    assert words <= set(rows), "docs/settings.md names variables it has no row for"


def test_each_row_says_type_default_purpose_and_processes() -> None:
    empty = {name: cells for name, cells in _table_rows().items() if len(cells) != 4 or not all(cells)}
    assert empty == {}, "each row: name | type | default | what it does | processes"


def test_the_command_lines_options_are_listed_as_options() -> None:
    """A typer option's ``envvar`` is read by typer, not by settings.py: the table says which command's option."""
    text = TABLE.read_text(encoding="utf-8")
    options = text[text.index("## Options of the command line") :].split("\n## ")[0]
    envvars = set()
    for path in (PACKAGE / "cli").glob("*.py"):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.keyword) and node.arg == "envvar" and isinstance(node.value, ast.Constant):
                envvars.add(str(node.value.value))
    assert envvars and envvars == set(re.findall(r"`(DIPPOUCH_[A-Z0-9_]+)`", options))


# --------------------------------------------------------------------------------------------------
# Read once, defaults


def test_a_setting_is_read_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The database URL (as every other setting) is what it was the first time it was asked for, until the
    settings are read again."""
    from dippouch.store.db import database_url

    monkeypatch.setenv("DIPPOUCH_DATABASE_URL", "sqlite:///first.db")
    assert database_url() == "sqlite:///first.db"
    monkeypatch.setenv("DIPPOUCH_DATABASE_URL", "sqlite:///second.db")
    assert database_url() == "sqlite:///first.db"
    settings.reread()
    assert database_url() == "sqlite:///second.db"


def test_nothing_set_means_the_documented_defaults() -> None:
    given = Settings({"HOME": "/home/ann"})
    assert given.public_url is None and given.allowed_hosts is None
    assert given.metrics_from == networks("127.0.0.0/8,::1", "")
    assert given.workers is False and given.notify_allow_private is False
    assert given.database_url is None and given.db_pool is None and given.db_pooler == "session"
    assert given.variant_path == ()
    assert given.settings_file == Path("/home/ann/.config/dippouch/settings.toml")
    assert given.cache_dir == Path.home() / ".cache" / "dippouch"  # as before: the user's home, not $HOME
    assert given.mail_config is None and given.mail_proof is None and given.ocr_engine is None
    assert given.smtp == MailServer() and given.imap == MailServer()
    assert given.vapid_subject is None
    assert (given.work_seconds, given.work_site_seconds, given.work_job_seconds) == (10.0, 40.0, 120.0)
    assert given.test_hooks == TestHooks()


def test_values_are_read_as_before() -> None:
    given = Settings(
        {
            "DIPPOUCH_CACHE_DIR": "",  # set but empty: no cache, as "off"
            "DIPPOUCH_DB_POOL": " 30, 0 ",
            "DIPPOUCH_WORKERS": " Yes ",
            "DIPPOUCH_SMTP_PORT": "2525",
            "DIPPOUCH_SMTP_PASSWORD": "",  # an empty password is one
            "DIPPOUCH_IMAP_MAILBOX": "Orders",
            "DIPPOUCH_MAIL_FROM": "judge@example.org",
            "DIPPOUCH_MAIL_PROOF": " From-Address ",
            "DIPPOUCH_OCR_ENGINE": " Tesseract",
            "DIPPOUCH_VARIANT_PATH": "/a::/b",
            "XDG_CONFIG_HOME": "/cfg",
        }
    )
    assert given.cache_dir is None
    assert given.db_pool == settings.PoolSize(30, 0)
    assert given.workers is True
    assert given.smtp == MailServer(port=2525, password="", sender="judge@example.org")
    assert given.imap == MailServer(mailbox="Orders")
    assert given.mail_proof == "from-address" and given.ocr_engine == "tesseract"
    assert given.variant_path == (Path("/a"), Path("/b"))
    assert given.settings_file == Path("/cfg/dippouch/settings.toml")
    work = Settings(
        {"DIPPOUCH_WORK_SECONDS": " 2.5 ", "DIPPOUCH_WORK_SITE_SECONDS": "90", "DIPPOUCH_WORK_JOB_SECONDS": "60"}
    )
    assert (work.work_seconds, work.work_site_seconds, work.work_job_seconds) == (2.5, 90.0, 60.0)
    assert (Settings({}).notify_scan_seconds, Settings({"DIPPOUCH_NOTIFY_SCAN_SECONDS": "2"}).notify_scan_seconds) == (
        60.0,
        2.0,
    )


def test_the_passwords_are_not_in_what_the_settings_print() -> None:
    given = Settings({"DIPPOUCH_SMTP_PASSWORD": "hunter2", "DIPPOUCH_IMAP_PASSWORD": "hunter3"})
    assert "hunter" not in repr(given) + repr(given.smtp) + repr(given.imap)
    assert given.smtp.password == "hunter2"


# --------------------------------------------------------------------------------------------------
# A wrong value: the variable, the value, an example


@pytest.mark.parametrize(
    ("name", "value", "attribute"),
    [
        ("DIPPOUCH_DB_POOL", "many", "db_pool"),
        ("DIPPOUCH_DB_POOLER", "statement", "db_pooler"),
        ("DIPPOUCH_SMTP_PORT", "abc", "smtp"),
        ("DIPPOUCH_IMAP_PORT", "70000", "imap"),
        ("DIPPOUCH_SMTP_SECURITY", "ssl", "smtp"),
        ("DIPPOUCH_IMAP_SECURITY", "TLS", "imap"),
        ("DIPPOUCH_WORKERS", "maybe", "workers"),
        ("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "sure", "notify_allow_private"),
        ("DIPPOUCH_MAIL_PROOF", "from_address", "mail_proof"),
        ("DIPPOUCH_VAPID_SUBJECT", "admin@example.org", "vapid_subject"),
        ("DIPPOUCH_METRICS_FROM", "10.0.0.300", "metrics_from"),
        ("DIPPOUCH_CRASH_CHANCE", "often", "test_hooks"),
        ("DIPPOUCH_CRASH_SIGKILL", "please", "test_hooks"),
        ("DIPPOUCH_WORK_SECONDS", "ten", "work_seconds"),
        ("DIPPOUCH_WORK_SECONDS", "0", "work_seconds"),
        ("DIPPOUCH_WORK_SITE_SECONDS", "nan", "work_site_seconds"),
        ("DIPPOUCH_WORK_JOB_SECONDS", "inf", "work_job_seconds"),
        ("DIPPOUCH_NOTIFY_SCAN_SECONDS", "0", "notify_scan_seconds"),
    ],
)
def test_a_wrong_value_names_the_variable_the_value_and_a_good_one(name: str, value: str, attribute: str) -> None:
    with pytest.raises(DippouchError) as e:
        getattr(Settings({name: value}), attribute)
    message = str(e.value)
    assert name in message and repr(value) in message and "e.g." in message, message


def test_a_wrong_value_stops_only_what_needs_it() -> None:
    """``dippouch variants`` must not fail on a mistyped mail setting it never uses."""
    given = Settings({"DIPPOUCH_SMTP_PORT": "abc", "DIPPOUCH_VARIANT_PATH": "/v"})
    assert given.variant_path == (Path("/v"),)
    assert given.imap == MailServer()
    with pytest.raises(DippouchError):
        print(given.smtp)


def test_a_wrong_public_address_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_PUBLIC_URL", "diplomacy.example.org")
    with pytest.raises(
        DippouchError, match=r"DIPPOUCH_PUBLIC_URL 'diplomacy\.example\.org' is not a web address.*e\.g\."
    ):
        settings.site()


def test_a_mail_server_setting_that_is_wrong_is_a_game_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the mail's callers catch (a GameError); before, a wrong port said "invalid literal for int()" and a
    wrong security passed until the first connection."""
    from dippouch.mail.settings import load_settings

    monkeypatch.setenv("DIPPOUCH_SMTP_PORT", "abc")
    monkeypatch.setenv("DIPPOUCH_IMAP_SECURITY", "ssl")
    with pytest.raises(
        GameError, match=r"DIPPOUCH_SMTP_PORT='abc' is not a port number .*e\.g\. DIPPOUCH_SMTP_PORT=587"
    ):
        load_settings("smtp")
    with pytest.raises(GameError, match=r"DIPPOUCH_IMAP_SECURITY='ssl' is not one of tls, starttls, none"):
        load_settings("imap")


def test_a_proof_mode_that_is_not_one_is_refused_not_taken_as_required(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, any other word was silently ``required``: an operator who wrote ``from_address`` never learnt
    why every mail was held. A game's own choice still comes first."""
    from dippouch.play.mail_intake import proof_mode

    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from_address")
    with pytest.raises(DippouchError, match=r"DIPPOUCH_MAIL_PROOF='from_address' is not one of required, from-address"):
        proof_mode({})
    assert proof_mode({"proof": "required"}) == "required"


def test_notification_settings_that_are_wrong_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from dippouch.notify.safety import allow_private, vapid_subject

    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "sure")  # before: quietly off
    monkeypatch.setenv("DIPPOUCH_VAPID_SUBJECT", "admin@example.org")  # before: handed to the push service
    with pytest.raises(DippouchError, match="DIPPOUCH_NOTIFY_ALLOW_PRIVATE='sure'"):
        allow_private()
    with pytest.raises(DippouchError, match=r"DIPPOUCH_VAPID_SUBJECT='admin@example\.org' is not a mailto: or https:"):
        vapid_subject()


def test_the_test_hooks_refuse_what_they_cannot_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, a wrong chance was a ValueError only at the crash point itself, and a pause point without its
    folder a KeyError."""
    from dippouch.store.faults import crash_point, pause_point

    monkeypatch.setenv("DIPPOUCH_CRASH_AT", "elsewhere")
    monkeypatch.setenv("DIPPOUCH_CRASH_CHANCE", "often")
    with pytest.raises(DippouchError, match=r"DIPPOUCH_CRASH_CHANCE='often' is not a chance from 0 to 1"):
        crash_point("here")
    monkeypatch.delenv("DIPPOUCH_CRASH_AT")
    monkeypatch.delenv("DIPPOUCH_CRASH_CHANCE")
    monkeypatch.setenv("DIPPOUCH_PAUSE_AT", "here")
    settings.reread()
    with pytest.raises(DippouchError, match="DIPPOUCH_PAUSE_AT='here' needs DIPPOUCH_PAUSE_DIR"):
        pause_point("here")
