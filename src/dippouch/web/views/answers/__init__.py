"""The shapes of the JSON API's answers, so its OpenAPI document (``/api/openapi.json``, shown at ``/api/docs``)
says what every call answers, field by field.

The rooms of the web app (:mod:`dippouch.web.views.games`, :mod:`~dippouch.web.views.player_page` ...) build plain data;
the routes turn it into these models, which the JSON calls answer and the pages' templates read. A model
refuses a field it does not name (``extra="forbid"``), so what is sent is exactly what the OpenAPI document
says; a field only a page shows (a map's SVG) is declared left out of the JSON and of the document. Each
feature's models are in the module of its name, imported from there.
"""
