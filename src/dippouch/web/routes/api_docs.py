"""The JSON API's documentation page, drawn from its OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.web.http.deps import render, words
from dippouch.web.http.docstrings import docstring_html

router = APIRouter(tags=["api"])

I18N_DOMAIN = "site"


@router.get("/api/docs", include_in_schema=False, response_class=HTMLResponse)
def api_docs(request: Request) -> Response:
    """The JSON API described from its OpenAPI document, as a plain page: FastAPI's own docs page loads
    Swagger UI from a CDN (and runs an inline script), both of which this app refuses."""
    spec = request.app.openapi()
    schemas = spec.get("components", {}).get("schemas", {})
    gettext = words(request).gettext
    ops = []
    for path, methods in spec.get("paths", {}).items():
        for method, op in methods.items():
            body = None
            ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
            if ref:
                body = _shape(ref, schemas, gettext)
            elif "requestBody" in op:
                body = {"name": gettext("JSON object"), "fields": []}
            ops.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": docstring_html(op.get("description") or op.get("summary", "")),
                    "params": [
                        {"name": p["name"], "in": p["in"], "required": p.get("required", False)}
                        for p in op.get("parameters", [])
                    ],
                    "body": body,
                    "answer": _answer_shape(op, schemas, gettext),
                }
            )
    return render(request, "api_docs.html", {"ops": ops, "title": spec.get("info", {}).get("title", "dippouch")})


def _type_name(f: dict[str, Any]) -> str:
    """A field's type as the docs page names it: a model by its name, a list of them as ``[Name]``."""
    if "$ref" in f:
        return str(f["$ref"]).rsplit("/", 1)[-1]
    if f.get("type") == "array" and isinstance(f.get("items"), dict) and f["items"]:
        return f"[{_type_name(f['items'])}]"
    if "anyOf" in f:
        return "/".join(_type_name(x) for x in f["anyOf"])
    return str(f.get("type") or "any")


def _shape(ref: str, schemas: dict[str, Any], gettext: Callable[[str], str]) -> dict[str, Any]:
    """A model of the OpenAPI document as the docs page lists it: its name and its fields (the page's own
    words in the reader's language, ``gettext``; names and descriptions as the API writes them)."""
    name = ref.rsplit("/", 1)[-1]
    schema = schemas.get(name, {})
    return {
        "name": name,
        "fields": [
            {
                "name": k,
                "type": _type_name(f),
                "required": k in schema.get("required", []),
                "limit": gettext("max %(num)s") % {"num": f["maxLength"]} if "maxLength" in f else "",
                "default": f.get("default"),
                # Written for Python readers as the docstrings are (``variant``'s): code shown as code.
                "description": docstring_html(f["description"]) if f.get("description") else "",
            }
            for k, f in schema.get("properties", {}).items()
        ],
    }


def _answer_shape(op: dict[str, Any], schemas: dict[str, Any], gettext: Callable[[str], str]) -> dict[str, Any] | None:
    """What a call answers when it succeeds (a list of a model shown as ``[Name]``)."""
    schema = op.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {}).get("schema", {})
    many = schema.get("type") == "array"
    ref = (schema.get("items", {}) if many else schema).get("$ref")
    if not ref:
        return None
    shape = _shape(ref, schemas, gettext)
    return {**shape, "name": f"[{shape['name']}]" if many else shape["name"]}
