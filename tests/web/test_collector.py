"""The server's garbage collector (``dippouch.web.http.collector``): a full collection after it is installed
walks only what was made since the last one, and once the frozen objects have doubled a true collection frees
the cycles that died frozen. Each case runs in a fresh interpreter: the collector's state is the process's."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_full_collection_walks_only_what_is_new() -> None:
    """What a full collection walks is counted, not timed (a time compared under a loaded machine's noise failed
    once): the 200,000 objects kept before are frozen, out of every collection's walk, and so are the 1,000 the
    next collection found alive."""
    out = _run(
        """
        import gc
        from dippouch.web.http.collector import install

        kept = [[i] for i in range(200_000)]  # what a server keeps: walked by every full collection
        gc.collect()
        walked_before = len(gc.get_objects(2))
        c = install()
        frozen = gc.get_freeze_count()
        assert frozen >= 200_000, frozen
        more = [[i] for i in range(1_000)]
        gc.collect()
        assert gc.get_freeze_count() >= frozen + 1_000  # what the collection found alive is frozen in turn
        assert c.young_collections == 1 and c.true_collections == 0
        print(walked_before, len(gc.get_objects(2)))
        """
    )
    before, after = (int(x) for x in out.split())
    assert before >= 200_000 and after < 1_000, (before, after)


def test_cycles_that_die_frozen_are_freed_once_the_frozen_objects_have_doubled() -> None:
    out = _run(
        """
        import gc, weakref
        from dippouch.web.http.collector import install

        class Node:
            pass

        c = install(growth=1.0)
        start = gc.get_freeze_count()
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the collector can free it
        gone = weakref.ref(a)
        gc.collect()  # alive now: frozen
        del a, b
        gc.collect()
        assert gone() is not None  # frozen, so not walked: not freed yet
        grown = [[i] for i in range(start + 10)]  # the frozen objects more than double
        gc.collect()  # a young collection: past the limit, everything is unfrozen
        assert c.true_next
        gc.collect()  # the true one
        assert gone() is None, "the cycle that died frozen was not freed"
        assert c.true_collections == 1 and not c.true_next
        assert c.limit > 2 * start
        print("ok")
        """
    )
    assert out == "ok"
