"""The practice form's power list follows the variant chosen (the players' trial: it offered 376 powers, every
variant's at once): in Debian's Chromium, choosing a variant shows only its powers, and a power of another
variant chosen before is set back to "any"; the other variants' powers are out of the list, so a France is
the standard game's France."""

from __future__ import annotations

from browsersupport import PHONE, LiveSite, watch_errors


def _shown(page: object) -> list[str]:
    return page.locator("#practice select[name=power]").evaluate(  # type: ignore[attr-defined,no-any-return]
        "s => [...s.options].map(o => o.value)"
    )


def test_the_power_list_follows_the_variant(live_site: LiveSite) -> None:
    ctx = live_site.context(PHONE)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/")
    form = page.locator("#practice")
    assert _shown(page) == ["any", "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
    form.locator("select[name=power]").select_option("France")  # as a person picks it, or another test
    form.locator("select[name=variant]").select_option("w3k")
    shown = _shown(page)
    assert "France" not in shown and "Crown" in shown and len(shown) == 11, shown
    assert form.locator("select[name=power]").input_value() == "any"  # France is no power of W3K
    form.locator("select[name=power]").select_option("Crown")
    form.locator("select[name=variant]").select_option("w3k")
    assert form.locator("select[name=power]").input_value() == "Crown"  # still a power of the variant
    assert errors == []
    ctx.close()
