"""A new game's template found from its one variant (issue 52: every new game asked for, refused at its creator's
cap or not, listed the 41 variants to find its own: some 200 file checks a request), the same template the
list offers."""

from __future__ import annotations

from typing import Any

import pytest

import dippouch.play.openings as openings
from dippouch.catalog import load_variant as real
from dippouch.game import GameError


def test_every_template_listed_is_found_by_its_key_as_listed() -> None:
    listed = openings.templates()
    assert len(listed) > 40
    for t in listed:
        assert openings.template(t.key) == t
        assert openings.template(f"  {t.key} ") == t


def test_a_template_is_found_from_its_one_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str] = []

    def counting(name: str, *a: Any, **kw: Any) -> Any:
        loaded.append(name)
        return real(name, *a, **kw)

    monkeypatch.setattr(openings, "load_variant", counting)
    monkeypatch.setattr(openings, "variants_usable", lambda: pytest.fail("the whole list was made"))
    assert openings.template("standard-1h-live").variant == "standard"
    assert openings.template("variant-w3k").variant_title == real("w3k").title
    assert loaded == ["standard", "w3k"]


@pytest.mark.parametrize("key", ["variant-nosuch", "variant-../../etc/passwd", "variant-", "nosuch-preset", ""])
def test_a_key_that_names_no_template_is_refused_with_the_names_there_are(key: str) -> None:
    with pytest.raises(GameError, match="no template") as e:
        openings.template(key)
    assert "standard-1h-live" in str(e.value) and "variant-w3k" in str(e.value)
