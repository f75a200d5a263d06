"""Celery app for the fault tests: config.celery's app, with bots that "think".

While the file named by FAULT_SLOW_FILE exists, every bot card waits FAULT_BOT_DELAY
seconds inside the bot turn's transaction (the game row locked, nothing committed), so
a test can kill the worker, or its database connection, in the middle of a bot turn.
Start it with `celery -A tests.production.slow_worker worker ...`.
"""

from __future__ import annotations

import os
import time

from celery.signals import task_prerun

from config.celery import app

__all__ = ["app"]

_patched = False


def _slow_bots(**kwargs) -> None:
    global _patched
    if _patched:
        return
    from game import actions

    original = actions.get_bot
    flag = os.environ["FAULT_SLOW_FILE"]
    delay = float(os.environ.get("FAULT_BOT_DELAY", "1.0"))

    class Thinking:
        def __init__(self, bot) -> None:
            self.bot = bot

        def act(self, observation, seed):
            if os.path.exists(flag):
                time.sleep(delay)
            return self.bot.act(observation, seed)

    actions.get_bot = lambda level: Thinking(original(level))
    _patched = True


task_prerun.connect(_slow_bots, weak=False)
