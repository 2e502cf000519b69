"""An outside bot's pipes are waited on with poll, not select: select refuses a descriptor numbered 1024 or more,
which a long-running server (and a test process that has opened many databases) reaches: every outside bot then
failed with "filedescriptor out of range in select()"."""

from __future__ import annotations

import os
import resource
import select

import pytest

from dippouch.bots.outside import _ready


def test_a_pipe_numbered_past_1024_is_waited_on() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    high = 1500
    if soft <= high:
        if hard != resource.RLIM_INFINITY and hard <= high:
            pytest.fail(f"this machine allows {hard} open files; the test needs {high + 1}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (high + 1, hard))
    r, w = os.pipe()
    try:
        os.dup2(r, high)
        assert not _ready(high, select.POLLIN, 0.05)  # nothing written yet
        os.write(w, b"x")
        assert _ready(high, select.POLLIN, 0.05)
    finally:
        for fd in (r, w, high):
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
