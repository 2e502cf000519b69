"""W3K through ``dippouch adjudicate`` (the JSON adjudication contract): variant state survives the round trip."""

from __future__ import annotations

import json

from dippouch.contract import handle_line


def ask(request: dict) -> dict:  # type: ignore[type-arg]
    answer = handle_line(json.dumps(request))
    assert "error" not in answer, answer
    return answer


def test_proxy_and_conversion_through_the_contract() -> None:
    first = ask(
        {
            "variant": "w3k",
            "orders": {
                "Protectorate": ["Army Deptford is under the orders of Manchester"],
                "Manchester": ["Army Deptford to London"],
                "Crown": ["Fleet Bristol converts"],
            },
        }
    )
    by_input = {r["input"]: r for r in first["results"] if not r["automatic"]}
    assert by_input["Army Deptford to London"]["result"] == "succeeds"
    assert by_input["Army Deptford is under the orders of Manchester"]["order"] == "A dep under orders of Manchester"
    assert by_input["Fleet Bristol converts"]["result"] == "succeeds"
    nxt = first["next"]
    assert nxt["phase"] == "Autumn 1642 Movement"
    assert nxt["state"] == {"w3k_converting": {"bri": "F"}}
    second = ask({**nxt, "variant": "w3k", "orders": {"Crown": ["F bri convert"]}})
    units = {u["unit"] for u in second["next"]["units"] if u["power"] == "Crown"}
    assert "A bri" in units and "F bri" not in units
    assert "state" not in second["next"] or "w3k_converting" not in second["next"]["state"]
