"""The loop bridge: a browser loop that stops under a waiting caller leaves nothing broken."""

from __future__ import annotations

import asyncio
import logging

import pytest
from webrefs._loop import Runner


def test_stopping_the_loop_under_a_waiting_caller_ends_its_call_cleanly(
        caplog: pytest.LogCaptureFixture) -> None:
    runner = Runner()
    started = asyncio.Event()
    ended: list[str] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            ended.append("cleaned up on its own loop")

    async def caller() -> None:
        waiting = asyncio.ensure_future(runner.arun(forever()))
        await asyncio.sleep(0.2)
        started.set()
        await asyncio.to_thread(runner.stop)  # the browser closes while the call waits
        done, _ = await asyncio.wait([waiting], timeout=10)
        assert done, "the call still waits on a stopped loop"
        assert waiting.cancelled()
        waiting.cancel()  # what an interrupted caller does after: nothing may fail now

    with caplog.at_level(logging.ERROR):
        asyncio.run(caller())
    assert started.is_set()
    assert ended == ["cleaned up on its own loop"]
    assert runner.loop.is_closed()
    assert not [r for r in caplog.records if "callback" in r.getMessage()], caplog.text


def test_a_caller_cancelled_after_the_loop_stopped_logs_no_error(
        caplog: pytest.LogCaptureFixture) -> None:
    runner = Runner()

    async def caller() -> None:
        waiting = asyncio.ensure_future(runner.arun(asyncio.sleep(3600)))
        await asyncio.sleep(0.2)
        await asyncio.to_thread(runner.stop)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting

    with caplog.at_level(logging.ERROR):
        asyncio.run(caller())
    assert not caplog.records, caplog.text
