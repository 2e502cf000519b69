"""The worker's stop request, in a module of its own: it imports nothing of dippouch's, so a test can run it
under a storm of signals in a process that starts in a moment."""

from __future__ import annotations

import contextlib
import os
import select
import weakref

__all__ = ["StopFlag"]


class StopFlag:
    """A stop request that a signal handler may raise, and a wait that it ends at once.

    ``threading.Event`` will not do: its ``set`` takes the lock that ``wait`` holds for a moment on entry and
    on waking, and a handler runs in the main thread between two of its bytecodes, so a SIGTERM landing in
    that moment waits for a lock its own thread holds, for ever (a worker that ignored SIGTERM on a loaded
    machine; cpython issue 126434 is the same for ``multiprocessing.Event``). Here ``set`` only assigns and
    writes a byte to a pipe, neither of which waits for anything, and ``wait`` sleeps in ``poll`` on that pipe,
    which the byte wakes, from a handler or from any thread. It is never cleared: a stopped worker stays stopped.
    ``poll``, not ``select``: ``select`` refuses a descriptor numbered 1024 or more ("filedescriptor out of range
    in select()"), which a process with many files and connections open hands out (seen in the test suite's
    process)."""

    def __init__(self) -> None:
        self._set = False
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        weakref.finalize(self, os.close, self._read)
        weakref.finalize(self, os.close, self._write)
        self._waiter = select.poll()
        self._waiter.register(self._read, select.POLLIN)

    def set(self) -> None:
        self._set = True
        # A full pipe holds earlier wake-ups, which wake any waiter as well.
        with contextlib.suppress(BlockingIOError):
            os.write(self._write, b"!")

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float) -> bool:
        """Sleep until set or ``timeout`` seconds have passed; whether it is set."""
        if not self._set:
            self._waiter.poll(max(0.0, timeout) * 1000)  # milliseconds
        return self._set
