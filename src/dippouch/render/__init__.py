"""Maps: a position, with its orders and results, drawn as SVG (PNG and PDF beside it).

Drawing is a pure function of the variant, its built geometry and a position, in the manner of
``chess.svg``: no I/O, no database, so the web pages, the mail and the command line all draw the same picture.
"""
