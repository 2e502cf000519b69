"""The practice form's power list follows the variant chosen (the players' trial: it offered 376 powers, every
variant's at once): in Debian's Chromium, choosing a variant shows only its powers, and a power of another
variant chosen before is set back to "any"."""

from __future__ import annotations

from browsersupport import PHONE, LiveSite, watch_errors


def _shown(page: object) -> list[str]:
    return page.locator("#practice select[name=power]").evaluate(  # type: ignore[attr-defined,no-any-return]
        "s => [...s.options].filter(o => !o.parentNode.disabled && !(o.parentNode.hidden)).map(o => o.value)"
    )


def _choose(page: object, power: str) -> None:
    """``power`` chosen among the powers shown, as a tap chooses it (other variants have a France or a Crown too,
    in groups not shown, which Playwright's select_option would pick first)."""
    page.locator("#practice select[name=power]").evaluate(  # type: ignore[attr-defined]
        "(s, p) => { [...s.options].find(o => o.value === p && !o.parentNode.disabled).selected = true; }", power
    )


def test_the_power_list_follows_the_variant(live_site: LiveSite) -> None:
    ctx = live_site.context(PHONE)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/")
    form = page.locator("#practice")
    assert _shown(page) == ["any", "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
    _choose(page, "France")
    form.locator("select[name=variant]").select_option("w3k")
    shown = _shown(page)
    assert "France" not in shown and "Crown" in shown and len(shown) == 11, shown
    assert form.locator("select[name=power]").input_value() == "any"  # France is no power of W3K
    _choose(page, "Crown")
    form.locator("select[name=variant]").select_option("w3k")
    assert form.locator("select[name=power]").input_value() == "Crown"  # still a power of the variant
    assert errors == []
    ctx.close()
