"""A request is charged the event loop's CPU time for its own steps, not for another request's between them."""

from __future__ import annotations

import asyncio
import time

import pytest

from dippouch.web.http.budget import OnLoop


def _burn(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


async def _request(steps: int, each: float) -> str:
    for _ in range(steps):
        _burn(each)
        await asyncio.sleep(0.001)
    return "answered"


async def _neighbour(steps: int, each: float) -> None:
    for _ in range(steps):
        _burn(each)
        await asyncio.sleep(0)


def test_a_request_is_charged_its_own_steps_only() -> None:
    async def both() -> tuple[str, float]:
        measured: OnLoop[str] = OnLoop(_request(5, 0.01))
        answer, _ = await asyncio.gather(measured, _neighbour(20, 0.01))
        return answer, measured.seconds

    answer, seconds = asyncio.run(both())
    assert answer == "answered"
    assert 0.05 <= seconds < 0.08  # five steps of 10 ms; the neighbour's 200 ms not counted


def test_an_error_and_a_cancellation_reach_the_request_and_its_time_is_kept() -> None:
    async def failing() -> None:
        _burn(0.01)
        await asyncio.sleep(0)
        raise ValueError("refused")

    async def run_failing() -> float:
        measured: OnLoop[None] = OnLoop(failing())
        with pytest.raises(ValueError, match="refused"):
            await measured
        return measured.seconds

    assert asyncio.run(run_failing()) >= 0.01

    cleaned: list[str] = []

    async def slow() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append("cleaned")

    async def cancel_it() -> None:
        task = asyncio.ensure_future(OnLoop(slow()))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_it())
    assert cleaned == ["cleaned"]
