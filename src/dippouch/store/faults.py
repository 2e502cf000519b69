"""The crash and pause points the crash and race tests set through the environment; nothing else uses them.

Processing and submitting stop at the moments a test needs to reach (after the results are written, before
the commit, with the power's lock held) through the database's :meth:`~dippouch.store.db.Database.pause_point`
and :meth:`~dippouch.store.db.Database.crash_point`, which come here only when the tests' variables name that
point: otherwise each is one comparison. The variables are read with every other setting
(:class:`dippouch.settings.TestHooks`), so the tests set them in the environment of the process they start.
"""

from __future__ import annotations

import os

from dippouch import settings

__all__ = ["crash_point", "pause_point"]


def crash_point(name: str) -> None:
    """Die here, abruptly, when ``DIPPOUCH_CRASH_AT`` names this point: the crash tests' kill switch.

    ``DIPPOUCH_CRASH_CHANCE`` (0 to 1, default 1) makes the death random, for tests that kill workers
    now and then while they keep going; ``DIPPOUCH_CRASH_SIGKILL=1`` dies by SIGKILL, as the kernel's
    out-of-memory killer or ``kill -9`` would, instead of ``os._exit``.
    """
    hooks = settings.current().test_hooks
    if hooks.crash_at != name:
        return
    chance = hooks.crash_chance
    if chance < 1:
        import random

        if random.random() >= chance:
            return
    import sys

    print(f"dippouch: dying at crash point {name}", file=sys.stderr, flush=True)  # the tests count these
    if hooks.crash_sigkill:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    os._exit(70)


def pause_point(name: str) -> None:
    """Stop here until told to go, when ``DIPPOUCH_PAUSE_AT`` names this point: the race tests' brake.

    The process leaves ``<name>.reached`` in ``DIPPOUCH_PAUSE_DIR`` and waits (at most two minutes) for
    ``<name>.go`` there, holding whatever locks its transaction holds, so a test can put another action in
    exactly that gap.
    """
    hooks = settings.current().test_hooks
    if hooks.pause_at != name or hooks.pause_dir is None:  # TestHooks refuses a point without a folder
        return
    import time

    folder = hooks.pause_dir
    safe = name.replace(":", "-")
    (folder / f"{safe}.reached").touch()
    end = time.monotonic() + 120
    while not (folder / f"{safe}.go").exists() and time.monotonic() < end:
        time.sleep(0.01)
