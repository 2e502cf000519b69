"""What a route hands out: the typed answers (:mod:`dippouch.web.views.answers`) and the pages' contexts."""
