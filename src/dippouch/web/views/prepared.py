"""A game's shared page made by the process that processed the game, before any reader asks for it.

A worker (:class:`dippouch.worker.service.Worker`) processes a game's phase and, right after, has this module
make the game's visitors' page in every language a reader read it in (:attr:`dippouch.store.page_cache.Shared.
languages`), kept for every web process as the first reader would have kept it
(:func:`dippouch.web.views.page_cache.made`): the web's readers then read it back in the state's one query. The
worker sits below the web and never imports it; ``dippouch worker`` passes this maker in
(:data:`dippouch.worker.service.AfterProcessing`). The page is made by the web's own code, in an app of the
worker's own built once a process, so it is the very page a reader would have made: under the same version (the
game's state read after the processing, the templates' digest, the language), with the installation's public
address (``DIPPOUCH_PUBLIC_URL``) for its links, as every web process of the installation makes them.

A page made here is never shown stale: it carries the version of the state it was made from, and a reader whose
state differs (a submission, press or a vote since) makes the page again, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from dippouch.i18n import LANGUAGES
from dippouch.web.http.security import Viewer
from dippouch.web.views import page_cache

if TYPE_CHECKING:
    from fastapi import FastAPI

    from dippouch.store import GameStore

__all__ = ["PageMaker", "page_request"]


def page_request(app: FastAPI, name: str, lang: str) -> Request:
    """A visitor's request for ``name``'s page in ``lang``, as the page's templates read one (its address, the
    app's site and templates): no cookie, no session, the language chosen."""
    path = f"/games/{name}"
    scope: dict[str, Any] = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"accept-language", lang.encode())],
        "app": app,
        "state": {"language": lang},
    }
    return Request(scope)


class PageMaker:
    """:data:`dippouch.worker.service.AfterProcessing`: the visitors' pages of the games just processed, made
    and kept. Its app (templates, the web's caches) is built at its first use, once a process."""

    __name__ = "shared game pages"

    def __init__(self, make_app: Callable[[GameStore], FastAPI] | None = None) -> None:
        self._make_app = make_app
        self._app: FastAPI | None = None
        self.made = 0
        """Pages made (for the tests and the bench's counts)."""

    def prepare(self, store: GameStore) -> None:
        """Build the app and compile the page's templates in every language, before the worker's first look (a
        first page otherwise costs a second or two while phases wait)."""
        app = self.app(store)
        for templates in app.state.templates.values():
            for template in ("game.html", "_game_main.html"):
                templates.env.get_template(template)

    def app(self, store: GameStore) -> FastAPI:
        if self._app is None:
            if self._make_app is not None:
                self._app = self._make_app(store)
            else:
                from dippouch.web.app import create_app

                self._app = create_app(store=store)
        return self._app

    def __call__(self, store: GameStore, games: Sequence[str], stop: Callable[[], bool]) -> int:
        from dippouch.web.routes.games import made_page

        app = self.app(store)
        web = app.state.web
        made = 0
        for name in games:
            web.touched(name)  # this process's memory of the game is older than the processing
            if stop():
                return made
            # The state alone, not the page kept (an older state's, nearly always: the game was just processed),
            # with the languages the page is kept in: the first language's lookup is the state's for it too.
            first = page_cache.current(web, name, "page", LANGUAGES[0], page=False)
            for i, lang in enumerate(() if first is None else first.shared.languages or ()):
                if i and stop():
                    return made
                now = first if lang == LANGUAGES[0] else page_cache.current(web, name, "page", lang, page=False)
                if now is None or now.shared.visibility == "private" or now.made:
                    continue  # gone, for its own people only (never a visitor's page), or made already
                make = partial(made_page, page_request(app, name, lang), web, Viewer(), name, lang, now.reading)
                with web.page_lock(name):
                    page_cache.made(web, name, "page", lang, now, make)
                made += 1
        self.made += made
        return made
