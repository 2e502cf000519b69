"""A cookie of the site's own is written as Starlette's ``set_cookie`` writes it: the plain values by hand (the
form token's cookie goes with every first-time visitor's page), anything ``http.cookies`` would quote by it."""

from __future__ import annotations

import string
from typing import Literal

from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request
from starlette.responses import Response

from dippouch.web.http.deps import set_private_cookie

LEGAL = string.ascii_letters + string.digits + "!#$%&'*+-.^_`|~:"


def _cookies(resp: Response) -> list[bytes]:
    return [v for k, v in resp.raw_headers if k == b"set-cookie"]


@given(
    st.text(alphabet=LEGAL, min_size=1, max_size=20),
    st.text(alphabet=st.characters(codec="latin-1"), max_size=60),
    st.integers(min_value=0, max_value=10**9),
    st.sampled_from(["lax", "strict"]),
    st.sampled_from(["http", "https"]),
)
def test_as_starlette_writes_it(
    name: str, value: str, max_age: int, samesite: Literal["lax", "strict"], scheme: str
) -> None:
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], "scheme": scheme})
    ours, theirs = Response(), Response()
    set_private_cookie(request, ours, name, value, max_age, samesite)
    theirs.set_cookie(
        name, value, httponly=True, samesite=samesite, secure=scheme == "https", path="/", max_age=max_age
    )
    assert _cookies(ours) == _cookies(theirs)


def test_a_value_needing_quotes_is_quoted() -> None:
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], "scheme": "http"})
    resp = Response()
    set_private_cookie(request, resp, "dp_next", 'a b;"c', 60)
    assert _cookies(resp) == [b'dp_next="a b\\073\\"c"; HttpOnly; Max-Age=60; Path=/; SameSite=lax']
