"""What keeps ``dippouch`` quick to start.

Speed itself is measured by benchmarks/bench_startup.py, not asserted here; these tests hold the mechanisms
that give it: a command imports only its own module, database-free commands never load SQLAlchemy, no
command loads pydantic (typer 0.29 made it a required import), a played variant is read back from the
disk cache instead of being built (and the schema is then not even imported), and the cache refuses what
it must not trust.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cache_in
from dbsupport import migrated_sqlite
from dippouch import compiled
from dippouch.catalog import load_variant

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ROOT / "src" / "dippouch" / "variants"


def _modules_after(args: list[str], env: dict[str, str], stdin: str = "") -> set[str]:
    """The modules a ``dippouch ARGS`` process has loaded when it ends (it must succeed)."""
    code = (
        "import sys, json, atexit\n"
        "atexit.register(lambda: sys.__stderr__.write('\\nMODULES ' + json.dumps(sorted(sys.modules)) + '\\n'))\n"
        "from dippouch.cli import main\n"
        f"sys.argv = ['dippouch', *{args!r}]\n"
        "main()\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    line = next(x for x in p.stderr.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = dict(os.environ)
    e[compiled.CACHE_ENV] = str(tmp_path / "cache")
    e["DIPPOUCH_DATABASE_URL"] = f"sqlite:///{tmp_path / 'games.db'}"
    return e


def test_command_table_matches_what_the_modules_register() -> None:
    from dippouch.cli import _COMMAND_HOME, app, register_commands

    register_commands()
    found: dict[str, str] = {}
    for c in app.registered_commands:
        assert c.callback is not None
        name = c.name or c.callback.__name__.replace("_", "-")
        found[name] = c.callback.__module__.removeprefix("dippouch.cli.")
    for g in app.registered_groups:
        owners = [
            m.removeprefix("dippouch.cli.")
            for m, mod in sys.modules.items()
            if m.startswith("dippouch.cli.") and any(v is g.typer_instance for v in vars(mod).values())
        ]
        assert len(owners) == 1, (g.name, owners)
        assert g.name is not None
        found[g.name] = owners[0]
    assert found == _COMMAND_HOME


def test_a_command_loads_only_its_own_module_and_never_pydantic(env: dict[str, str]) -> None:
    loaded = _modules_after(["submit", "--help"], env)
    cli_modules = {m for m in loaded if m.startswith("dippouch.cli.")}
    assert cli_modules <= {"dippouch.cli.game", "dippouch.cli.errors", "dippouch.cli.words"}, cli_modules
    assert "dippouch.cli.game" in cli_modules
    assert not {m for m in loaded if m.split(".")[0] == "pydantic"}


@pytest.mark.parametrize("args", [["variants"], ["variants", "w3k"], ["adjudicate", "--help"], ["--help"]])
def test_database_free_commands_load_no_database_layer(args: list[str], env: dict[str, str]) -> None:
    loaded = _modules_after(args, env)
    heavy = {m.split(".")[0] for m in loaded} & {
        "sqlalchemy",
        "alembic",
        "pydantic",
        "fastapi",
        "cairosvg",
        "markdown_it",  # typer's boxed help: dippouch's help is plain
        "pygments",
    }
    assert heavy == set(), (args, heavy)


def test_a_misspelt_command_still_gets_the_suggestion(env: dict[str, str]) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "dippouch.cli", "sumbit"], capture_output=True, text=True, env=env, check=False
    )
    if "No module named dippouch.cli.__main__" in p.stderr:
        p = subprocess.run(
            [sys.executable, "-c", "import sys; sys.argv=['dippouch','sumbit']; from dippouch.cli import main; main()"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    assert p.returncode == 2
    assert "Did you mean 'submit'?" in p.stderr


def test_a_played_variant_is_read_back_without_building_it(env: dict[str, str], tmp_path: Path) -> None:
    """The second process finds W3K in the cache: the schema, which only a build uses, is never imported."""
    first = _modules_after(["variants", "w3k"], env)
    assert "dippouch.core.schema" in first  # nothing cached yet: built and checked
    assert list((tmp_path / "cache").glob("variant-*.pickle"))
    second = _modules_after(["variants", "w3k"], env)
    assert "dippouch.core.schema" not in second


def test_a_game_submission_uses_the_cache_and_maps_no_mail_or_web_tables(env: dict[str, str]) -> None:
    _modules_after(["new", "g", "--variant", "w3k"], env)
    _modules_after(["submit", "g", "Crown"], env, stdin="A Wiltshire - Berkshire\n")
    loaded = _modules_after(["submit", "g", "Crown"], env, stdin="A Wiltshire - Berkshire\n")
    assert "dippouch.core.schema" not in loaded
    assert not loaded & {"dippouch.store.mail.models", "dippouch.store.models_web", "alembic"}


def test_an_edited_variant_file_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache_in(monkeypatch, str(tmp_path / "cache"))
    folder = tmp_path / "variants"
    folder.mkdir()
    mine = folder / "mine.toml"
    mine.write_text('[variant]\nname = "mine"\ntitle = "Mine"\nextends = "standard"\n', encoding="utf-8")
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    assert load_variant("mine").title == "Mine"
    # A fresh process would find the entry: drop this one's memory so the disk is what is asked.
    from dippouch import catalog as variant_module

    variant_module._CACHE.clear()
    assert load_variant("mine").title == "Mine"
    mine.write_text('[variant]\nname = "mine"\ntitle = "Mine, edited"\nextends = "standard"\n', encoding="utf-8")
    variant_module._CACHE.clear()
    assert load_variant("mine").title == "Mine, edited"


class _Bomb:
    """Unpickling this writes a file: the proof that a pickle was read."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (Path.write_text, (Path(self.target), "pwned"))  # type: ignore[return-value]


def _plant(key: str, target: Path) -> Path:
    entry = compiled._entry(key)
    assert entry is not None
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_bytes(pickle.dumps(_Bomb(str(target))))
    return entry


def test_the_cache_reads_nothing_from_a_folder_others_can_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_in(monkeypatch, str(tmp_path / "shared"))
    target = tmp_path / "pwned.txt"
    entry = _plant("some key", target)
    entry.parent.chmod(0o777)
    assert compiled.fetch("some key") is None
    assert not target.exists()
    entry.parent.chmod(0o755)
    entry.chmod(0o666)  # the entry itself writable by others
    assert compiled.fetch("some key") is None
    assert not target.exists()
    entry.chmod(0o600)  # the control: the same file, private, is read
    compiled.fetch("some key")
    assert target.exists()


def test_a_damaged_entry_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache_in(monkeypatch, str(tmp_path / "cache"))
    from dippouch import catalog as variant_module

    # Built here, not taken from this process's memory: an earlier test of the process may have loaded it.
    monkeypatch.setattr(variant_module, "_CACHE", {})
    load_variant("hundred")
    entries = list((tmp_path / "cache").glob("variant-*.pickle"))
    assert len(entries) == 1
    entries[0].write_bytes(b"\x80\x05not a pickle")
    variant_module._CACHE.clear()
    assert load_variant("hundred").name == "hundred"
    assert pickle.loads(entries[0].read_bytes())[2].name == "hundred"  # written again, whole


def test_the_cache_can_be_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    cache_in(monkeypatch, "off")
    compiled.keep("k", 1)
    assert compiled.fetch("k") is None
    assert not any(tmp_path.rglob("*.pickle"))


def test_the_commands_that_keep_running_collect_garbage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command runs with the cyclic collector off; `serve` and `worker`, which run for months, switch it on."""
    import gc

    from dippouch.cli import main
    from dippouch.web.http.server import StoppingServer
    from dippouch.worker.service import Worker

    seen: dict[str, bool] = {}

    def fake_serve(self: StoppingServer, *args: object, **kwargs: object) -> None:
        seen["serve"] = gc.isenabled()
        self.started = True  # as a server that started, then was stopped

    def fake_run(self: Worker, once: bool = False) -> int:
        seen["worker"] = gc.isenabled()
        return 0

    monkeypatch.setattr(StoppingServer, "run", fake_serve)
    monkeypatch.setattr(Worker, "run", fake_run)
    # No processes for expensive work: the server here never answers a request, and the pool's three fresh
    # interpreters (left running after the faked server returned) were most of this test's time.
    monkeypatch.setenv("DIPPOUCH_WORK_PROCESSES", "0")
    # A copy of the migrated template: what is checked is the collector, not the migrations (tested on their own).
    db = migrated_sqlite(tmp_path / "games.db")
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    was = gc.isenabled()
    try:
        for argv in (["serve", "--db", db, "--port", port], ["worker", "--once", "--db", db]):
            monkeypatch.setattr(sys, "argv", ["dippouch", *argv])
            with pytest.raises(SystemExit) as e:
                main()
            assert e.value.code in (0, None)
        monkeypatch.setattr(sys, "argv", ["dippouch", "variants"])
        with pytest.raises(SystemExit):
            main()
        assert not gc.isenabled()  # the control: an ordinary command leaves it off
    finally:
        if was:
            gc.enable()
    assert seen == {"serve": True, "worker": True}


def test_running_one_command_leaves_every_command_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """While `dippouch variants` runs the app holds that command alone; afterwards the others are back (for
    callers in the same process)."""
    import gc

    from dippouch.cli import app, main, register_commands

    register_commands()
    before = (len(app.registered_commands), len(app.registered_groups))
    monkeypatch.setattr(sys, "argv", ["dippouch", "variants"])
    was = gc.isenabled()
    try:
        with pytest.raises(SystemExit):
            main()
    finally:
        if was:
            gc.enable()
    assert (len(app.registered_commands), len(app.registered_groups)) == before
    assert before[0] > 20


def test_no_home_folder_means_no_cache_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(compiled.CACHE_ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert compiled.cache_dir() is None
    compiled.keep("k", 1)
    assert compiled.fetch("k") is None


def test_help_lists_every_command_with_its_whole_first_sentence(env: dict[str, str]) -> None:
    p = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv=['dippouch','--help']; from dippouch.cli import main; main()"],
        capture_output=True,
        text=True,
        env={**env, "COLUMNS": "80"},
        check=False,
    )
    assert p.returncode == 0
    listing = p.stdout.split("Commands:", 1)[1]
    assert "..." not in listing
    assert "(one request a line, one response a line; see docs)." in " ".join(listing.split())
