"""The pages' compiled code is kept for the process and on disk (dippouch.web.app's bytecode cache), so a new
process reads every page's code rather than compiling it again; an edited page is compiled afresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

from conftest import cache_in
from dippouch.web import app as web_app


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    cache_in(monkeypatch, str(folder))
    return folder


def _environment(templates: Path, code: jinja2.BytecodeCache) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(templates), autoescape=True, bytecode_cache=code)


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the templates Jinja compiles from here on."""
    names: list[str] = []
    compile_ = jinja2.Environment.compile

    def counted(self: jinja2.Environment, *args: Any, **kw: Any) -> Any:
        names.append(str(args[1] if len(args) > 1 else kw.get("name")))
        return compile_(self, *args, **kw)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    return names


def test_a_new_process_reads_the_pages_code_from_disk(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "page.html").write_text("<p>{{ who }} plays {{ power }}</p>")
    compiles = _compiles(monkeypatch)
    first = _environment(templates, web_app._CompiledPages())
    assert first.get_template("page.html").render(who="Ann", power="France") == "<p>Ann plays France</p>"
    assert compiles == ["page.html"]
    assert list(cache.glob("*.pickle")), "the code was not kept on disk"

    # A new process: nothing in its memory, the code read back from the disk.
    again = _environment(templates, web_app._CompiledPages())
    assert again.get_template("page.html").render(who="Bo", power="Italy") == "<p>Bo plays Italy</p>"
    assert compiles == ["page.html"]

    # An edited page is compiled afresh, and says what it says now.
    (templates / "page.html").write_text("<p>{{ who }} is {{ power }}</p>")
    edited = _environment(templates, web_app._CompiledPages())
    assert edited.get_template("page.html").render(who="Cy", power="Russia") == "<p>Cy is Russia</p>"
    assert compiles == ["page.html", "page.html"]


def test_damaged_code_on_disk_is_compiled_afresh(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "page.html").write_text("<b>{{ n }}</b>")
    _environment(templates, web_app._CompiledPages()).get_template("page.html")
    for entry in cache.glob("*.pickle"):
        entry.write_bytes(b"\x80\x05not a pickle")
    compiles = _compiles(monkeypatch)
    assert _environment(templates, web_app._CompiledPages()).get_template("page.html").render(n=3) == "<b>3</b>"
    assert compiles == ["page.html"]


def test_with_the_cache_off_pages_still_compile_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache_in(monkeypatch, "off")
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "page.html").write_text("{{ 1 + 1 }}")
    assert _environment(templates, web_app._CompiledPages()).get_template("page.html").render() == "2"
    assert not list(tmp_path.rglob("*.pickle"))
