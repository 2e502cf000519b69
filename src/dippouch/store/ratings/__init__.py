"""The ratings as stored: the ledger of finished games taken in and every pool's standings (:mod:`.ledger`),
their tables (:mod:`.models`, migration 0020), and the reader of the problems stored before they were
messages (:mod:`.legacy`, used by migration 0032).

A domain beside the games core: it reads finished games through :mod:`dippouch.store.finished`, and the core
never names it.
"""
