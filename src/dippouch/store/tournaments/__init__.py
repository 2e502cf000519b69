"""Tournaments as stored: a tournament's name, scoring system, variant, runner and games (:mod:`.stored`) and
its table (:mod:`.models`, migration 0019).

A domain beside the games core: it reads the games' rows to say what a standing is made of, and the core never
names it.
"""
