"""The HTML forms' round trip: a posted form read under one policy, and the redirect that answers it.

One reader for every router, so a form's limits are stated where it is read and what is not text is refused the
same way everywhere: by the field's name, with a 400, unless the route declared that field a file. A field
dropped in silence would make a form do something other than what was sent; a file read as text would fail
later, further from its cause.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping

from fastapi.responses import RedirectResponse
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request

from dippouch.web.deps import set_flash
from dippouch.web.security import CSRF_FIELD, BadInput, WebError, check_csrf

__all__ = ["MAX_FIELDS", "MAX_PART_SIZE", "Form", "read_form", "redirect"]

MAX_FIELDS = 100
"""Fields a form may post unless its route says otherwise."""
MAX_PART_SIZE = 100_000
"""Bytes one text field may hold unless its route says otherwise (the body as a whole is bounded by the
middleware, dippouch.web.middleware.MAX_BODY)."""


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
        raise BadInput(f"the form could not be read ({type(e).__name__})") from None
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
            raise BadInput(f"field {stray!r} must be text, not a file: this form takes no file there")
    except WebError:
        await posted.close()
        raise
    return form


def redirect(url: str, flash: str | None = None, *, error: bool = False) -> RedirectResponse:
    """The answer to a form: to ``url`` (303, so a reload does not post again), which shows ``flash`` once;
    ``error`` announces it as a refusal."""
    resp = RedirectResponse(url, status_code=303)
    if flash:
        set_flash(resp, flash, error=error)
    return resp
