"""Serving MiniWoB++ pages, starting an episode and reading its reward.

The pages are the ``miniwob`` package's ``html`` folder, served as static files (UTF-8, which
the pages do not declare; ``unicode-test`` needs it) under ``http://miniwob.webrefs.test``.
An episode starts the way MiniWoB's gymnasium environment starts one: after the page has
loaded, ``Math.seedrandom(seed)``, the data mode ``train``, ``core.startEpisodeReal()``, then
a wait for ``WOB_TASK_READY``; the goal is the task's utterance (``#query``). The side
panel of scores and the countdown (``#reward-display``) is hidden, as MiniWoB's own DOM
observation leaves it out: it is not part of the task, and a countdown in every snapshot
would make prompts differ with timing (recorded model calls could not replay). The page's own
timer (``core.EPISODE_MAX_TIME``) ends the episode with reward -1 when time runs out, unless
the time limit is lifted. At the end the reward is ``WOB_REWARD_GLOBAL`` (time-discounted,
as published) when the page says it is done (``WOB_DONE_GLOBAL``), else -1.
"""

from __future__ import annotations

from ..running.sites import SiteHandler

__all__ = ["LIFTED_LIMIT_MS", "ORIGIN", "REWARD_JS", "SETUP_JS", "MiniwobHandler"]

ORIGIN = "http://miniwob.webrefs.test"

LIFTED_LIMIT_MS = 1_000_000_000
"""The time limit when it is lifted (11.6 days; below ``setTimeout``'s 2^31 ms bound)."""

SETUP_JS = """async ({seed, time_limit}) => {
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < 100 && !(window.core && core.cover_div); i++) await wait(50);
  if (!(window.core && core.cover_div)) throw new Error('the MiniWoB page did not start');
  if (!time_limit) core.EPISODE_MAX_TIME = LIFTED;
  Math.seedrandom(seed);
  core.setDataMode('train');
  core.startEpisodeReal();
  if (core.hideDisplay) core.hideDisplay();
  for (let i = 0; i < 40 && !WOB_TASK_READY; i++) await wait(50);
  if (!WOB_TASK_READY) throw new Error('the MiniWoB task did not become ready');
  const u = core.getUtterance();
  return typeof u === 'string' ? u : u.utterance;
}""".replace("LIFTED", str(LIFTED_LIMIT_MS))
"""Starts the episode (``Task.setup``); returns the utterance, the episode's goal."""

REWARD_JS = """() => ({
  done: WOB_DONE_GLOBAL,
  reward: WOB_DONE_GLOBAL ? WOB_REWARD_GLOBAL : -1,
  raw: WOB_RAW_REWARD_GLOBAL,
  reason: WOB_DONE_GLOBAL ? String(WOB_REWARD_REASON ?? '') : 'not finished'
})"""
"""The episode's reward (a ``reward`` check): -1 when the task was not finished."""


class MiniwobHandler(SiteHandler):
    """The static pages, declared UTF-8."""

    extensions_map = {**SiteHandler.extensions_map,  # noqa: RUF012 - the base's attribute
        ".html": "text/html; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
        ".css": "text/css; charset=utf-8"}
