"""The wheel a user installs works on its own: built from this tree, installed into a fresh virtual environment,
``dippouch --version`` and ``dippouch variants`` run from it, and it carries the LICENSE and the variant data.

Slow (a wheel build and an install of the dependencies from the package index): marked ``slow``. Two things
a user's install does are left out because they check nothing of ours and took two thirds of the time: the fresh
environment gets no pip of its own (this checkout's pip installs into it with ``--python``, as ``uv pip`` would),
and the installed files are not compiled to bytecode ahead (``--no-compile``: the commands below compile what they
import when they run it). What is installed, and from where, is what ``pip install dippouch-*.whl`` installs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import dippouch

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_built_wheel_installs_and_runs_in_a_fresh_environment(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
        timeout=900,
    )
    (wheel,) = dist.glob("dippouch-*.whl")
    assert wheel.name.startswith(f"dippouch-{dippouch.__version__}-")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "the LICENSE is not in the wheel"
    shipped = {Path(n).stem for n in names if n.startswith("dippouch/variants/") and n.endswith(".toml")}
    assert shipped >= {"standard", "hundred3", "hundred", "1897", "1000ad", "w3k"}
    assert "dippouch/catalog.py" in names and "dippouch/compiled.py" in names

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-compile", "-q", str(wheel)],
        check=True,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DIPPOUCH_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"))
    command = env_dir / "bin" / "dippouch"

    def run(*args: str) -> str:
        done = subprocess.run([str(command), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    assert run("--version").strip() == f"dippouch {dippouch.__version__}"
    listed = run("variants")
    for name in ("standard", "hundred3", "hundred", "1897", "1000ad", "w3k"):
        assert name in listed
    # The installed copy is the one that ran, not this checkout.
    where = subprocess.run(
        [str(py), "-c", "import dippouch; print(dippouch.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert str(env_dir) in where.stdout
