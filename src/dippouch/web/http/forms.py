"""The HTML forms' round trip: a posted form read under one policy, and the redirect that answers it.

One reader for every router, so a form's limits are stated where it is read and what is not text is refused the
same way everywhere: by the field's name, with a 400, unless the route declared that field a file. A field
dropped in silence would make a form do something other than what was sent; a file read as text would fail
later, further from its cause.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from typing import Annotated
from urllib.parse import quote, urlsplit

from fastapi import Depends
from fastapi.responses import RedirectResponse
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.web.http.deps import set_flash, set_private_cookie, typed_cookie
from dippouch.web.http.security import CSRF_FIELD, BadInput, WebError, check_csrf

__all__ = [
    "MAX_FIELDS",
    "MAX_PART_SIZE",
    "PAGE_FIELDS",
    "PAGE_PART_SIZE",
    "Form",
    "FormDep",
    "ImportForm",
    "PageForm",
    "posted",
    "read_form",
    "redirect",
    "refused_form",
]

I18N_DOMAIN = "site"

MAX_FIELDS = 100
"""Fields a form may post unless its route says otherwise."""
MAX_PART_SIZE = 100_000
"""Bytes one text field may hold unless its route says otherwise (the body as a whole is bounded by the
middleware, dippouch.web.http.middleware.MAX_BODY)."""


class Form(Mapping[str, str]):
    """A posted form's text fields: as a mapping, the first value of each (what a field posted once is);
    :meth:`all` for a field posted several times (ticked boxes of one name); :meth:`file` for the fields the
    route declared files."""

    def __init__(self, fields: list[tuple[str, str]], files: Mapping[str, UploadFile]) -> None:
        self._all: dict[str, list[str]] = {}
        for key, value in fields:
            self._all.setdefault(key, []).append(value)
        self._files = dict(files)

    def __getitem__(self, key: str) -> str:
        return self._all[key][0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)

    def all(self, key: str) -> list[str]:
        """Every value posted for ``key``, in the order sent (none: an empty list)."""
        return list(self._all.get(key, ()))

    def lists(self) -> Iterator[tuple[str, list[str]]]:
        """Each field's name with every value posted for it, in the order the fields came."""
        for key, values in self._all.items():
            yield key, list(values)

    def file(self, key: str) -> UploadFile | None:
        """The first file posted as ``key``, which the route declared a file field; ``None`` if none was."""
        return self._files.get(key)


async def read_form(
    request: Request,
    *,
    max_fields: int = MAX_FIELDS,
    max_part_size: int = MAX_PART_SIZE,
    files: Collection[str] = (),
    csrf: Callable[[Request, str | None], object] = check_csrf,
) -> Form:
    """The posted form, CSRF-checked (``csrf`` is handed the form's token, or ``None`` without one).

    A file posted in a field not named in ``files`` is refused naming the field. To name it, it is read like
    the others: as many file parts as ``max_fields`` are parsed, all inside the body's bound."""
    try:
        posted = await request.form(max_fields=max_fields, max_files=max_fields, max_part_size=max_part_size)
    except StarletteHTTPException:
        # The body too large (413) or too slow (408), counted as it arrives, or a multipart body Starlette
        # refused with its reason (400): each answered as it is, not as "could not be read".
        raise
    except Exception as e:  # a malformed multipart or urlencoded body
        raise BadInput(msg("the form could not be read (%(error)s)", error=type(e).__name__)) from None
    fields: list[tuple[str, str]] = []
    uploads: dict[str, UploadFile] = {}
    stray: str | None = None
    for key, value in posted.multi_items():
        if isinstance(value, str):
            fields.append((key, value))
        elif key in files:
            uploads.setdefault(key, value)
        elif stray is None:
            stray = key
    form = Form(fields, uploads)
    try:
        # The token first: a post from another site is refused as that, whatever else it sent.
        csrf(request, form.get(CSRF_FIELD))
        if stray is not None:
            raise BadInput(
                msg("field %(field)s must be text, not a file: this form takes no file there", field=repr(stray))
            )
    except WebError:
        await posted.close()
        raise
    # Kept where a refusal's answer can find it (request.state lives in the scope the handlers share): a form
    # refused after this point goes back to its page with what was typed (refused_form).
    request.state.form = form
    return form


def posted(
    *,
    max_fields: int = MAX_FIELDS,
    max_part_size: int = MAX_PART_SIZE,
    files: Collection[str] = (),
    csrf: Callable[[Request, str | None], object] = check_csrf,
) -> Callable[[Request], Awaitable[Form]]:
    """The posted form as a route's dependency, read under these limits (:func:`read_form`): declared as
    ``form: Annotated[Form, Depends(posted(max_fields=200))]``, or :data:`FormDep` for the usual limits."""

    async def form(request: Request) -> Form:
        return await read_form(request, max_fields=max_fields, max_part_size=max_part_size, files=files, csrf=csrf)

    return form


FormDep = Annotated[Form, Depends(posted())]
"""The posted form, CSRF-checked, under the usual limits (:data:`MAX_FIELDS`, :data:`MAX_PART_SIZE`)."""

PAGE_FIELDS = 200
"""Fields a game page's form may post (the coordinator's player table posts two a power; the orders form a pick
list a unit)."""
PAGE_PART_SIZE = 1_000_000
"""Bytes a game page's text field may hold: orders are measured and refused in words by the submission itself."""
PageForm = Annotated[Form, Depends(posted(max_fields=PAGE_FIELDS, max_part_size=PAGE_PART_SIZE))]
"""A game page's form (orders, the desk, sign-in, the unsealed export), under the pages' limits."""
ImportForm = Annotated[Form, Depends(posted(max_fields=PAGE_FIELDS, max_part_size=PAGE_PART_SIZE, files=("file",)))]
"""The desk's game import: the one form that takes a file."""


def redirect(url: str, flash: str | None = None, *, error: bool = False) -> RedirectResponse:
    """The answer to a form: to ``url`` (303, so a reload does not post again), which shows ``flash`` once;
    ``error`` announces it as a refusal."""
    resp = RedirectResponse(url, status_code=303)
    if flash:
        set_flash(resp, flash, error=error)
    return resp


MAX_TYPED = 3000
"""Bytes of typed fields carried back to a refused form's page (a cookie holds about 4 KB; the fields that do
not fit are left out, longest first, and the page still says what to change)."""
_UNSAID = ("password", "secret", "token", "key", CSRF_FIELD)
"""Fields never carried back: what is secret goes no further than the request that sent it."""


def _page_before(request: Request) -> str | None:
    """The page the form was on, if this site's: the ``Referer`` a browser sends a same-origin form's post
    (our Referrer-Policy is same-origin). Anything else, another site's address included, is no page of ours
    to send a person back to."""
    referer = request.headers.get("referer", "")
    try:
        parts = urlsplit(referer)
    except ValueError:
        return None
    if (parts.scheme, parts.netloc) != (request.url.scheme, request.url.netloc):
        return None
    if not parts.path.startswith("/") or parts.path.startswith("//") or "\\" in parts.path:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def refused_form(request: Request, message: str) -> RedirectResponse | None:
    """The answer to a browser's form refused for what it said: back to the page it came from, the refusal
    shown there and the fields filled as they were typed (``None`` when this was not such a form: a script's
    call, a post without a page of ours before it, a form refused before it was read)."""
    form = getattr(request.state, "form", None)
    if request.method != "POST" or not isinstance(form, Form):
        return None
    back = _page_before(request)
    if back is None:
        return None
    fields = {k: v for k, v in form.lists() if not any(word in k.lower() for word in _UNSAID)}

    def packed() -> str:
        return quote(json.dumps({"action": request.url.path, "fields": fields}, separators=(",", ":")), safe="")

    value = packed()
    while len(value) > MAX_TYPED and fields:
        del fields[max(fields, key=lambda k: sum(len(v) for v in fields[k]))]
        value = packed()
    resp = redirect(back, message, error=True)
    set_private_cookie(request, resp, typed_cookie(request), value, 60)
    return resp
