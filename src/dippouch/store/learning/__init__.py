"""What people learn the game with, as stored: puzzles and the positions they are looked for in (:mod:`.puzzles`),
the guided first game's progress (:mod:`.lessons`), the coach's analyses of phases (:mod:`.coach`), the opening
explorer's read of finished games (:mod:`.explorer`), and their tables (:mod:`.models`).

A domain beside the games core: it reads finished and practice games' phases, and the core never names it. What a
puzzle, a lesson or an analysis means is the play layer's (:mod:`dippouch.play.puzzles`, :mod:`dippouch.play.lessons`,
:mod:`dippouch.play.coach`); this package only keeps what it is handed.
"""
