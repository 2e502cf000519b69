"""The web app (``dippouch serve``): game pages, the player's order form, the coordinator's desk,
variant pages and the move browser, an iCalendar feed, and a JSON API, on the game store.

``create_app`` is in :mod:`dippouch.web.app`; it is not imported here so that importing this package
costs nothing until the server is wanted.
"""
