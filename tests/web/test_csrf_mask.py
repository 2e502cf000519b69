"""The masked form token: every page carries the reader's CSRF token under a fresh random pad (BREACH), and a
form sent back with it is read as the token itself, whatever bytes the pad or the token hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from dippouch.web.http.security import _b64, _unmask, _xor, csrf_field

TOKENS = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", min_size=30, max_size=100)


def _request(token: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "headers": [], "state": {"csrf": token}})


@given(TOKENS)
def test_a_masked_field_reads_back_as_its_token(token: str) -> None:
    field = csrf_field(_request(token))
    assert field.startswith("m.")
    assert token not in field
    assert _unmask(field) == token


@given(st.binary(min_size=1, max_size=64), st.data())
def test_pads_with_zero_bytes_at_either_end_keep_their_length(pad: bytes, data: st.DataObject) -> None:
    token = data.draw(st.binary(min_size=len(pad), max_size=len(pad)))
    masked = _xor(pad, token)
    assert len(masked) == len(pad)
    assert bytes(a ^ b for a, b in zip(pad, token, strict=True)) == masked
    assert _unmask("m." + _b64(pad + masked)) == token.decode("latin-1")


def test_two_fields_of_one_token_differ() -> None:
    request = _request("t" * 43)
    assert csrf_field(request) != csrf_field(request)
