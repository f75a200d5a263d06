"""A bot turn lost with a crashed server process does not leave the table waiting forever.

The server is stopped with the game on South's card already stored but its bot turn
never queued (what a process killed between the commit and the task leaves behind).
A new process starts; the page reconnects long before the sweeper and the connect-time
check would call the turn stuck (SWEEP_STUCK_AFTER, 30 s). The table's socket on the
server waits on a bot and hears nothing (GAME_BOT_TURN_TIMEOUT_MS, ops/sweeper.py): it
re-queues the turn, and the bots move on within 5 s of the page being back, without a
reload, exactly once.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from contextlib import closing

import pytest

import engine
from engine.bots import bot_seed, get_bot
from tests.helpers import TABLE_AT_REST_JS as AT_REST_JS
from tests.helpers import TABLE_SEQ_JS as SEQ_JS
from tests.helpers import start_new_game

expect = pytest.importorskip("playwright.sync_api").expect

# transaction=True: the edit made here on the production stack must be committed to be
# seen by the server process.
pytestmark = pytest.mark.django_db(transaction=True)


def _store_south_move_without_bot_turn(server, game_id: str) -> tuple[list[str], int]:
    """Stop-the-world edit, the server being down: South's next move stored as the
    server would store it, and no task queued for the bots."""
    row = server.stored_game(game_id)
    eng = engine.Game.replay(row["seed"], row["rules"], row["actions"])
    assert eng.to_move == 0
    eng.apply_action(eng.legal_actions()[0])
    assert eng.to_move != 0, "a bot must be to move after South's card"
    actions, state = eng.actions, eng.observation(0)
    if server.sqlite is not None:
        import sqlite3

        with closing(sqlite3.connect(server.sqlite, timeout=20)) as conn:
            conn.execute(
                "UPDATE game_game SET actions = ?, seq = ?, state = ?,"
                " updated = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE public_id = ?",
                (json.dumps(actions), len(actions), json.dumps(state), uuid.UUID(game_id).hex),
            )
            conn.commit()
    else:
        from django.utils import timezone

        from game.models import Game

        Game.objects.filter(public_id=game_id).update(
            actions=actions, seq=len(actions), state=state, updated=timezone.now()
        )
    return actions, len(actions)


def test_the_table_recovers_a_bot_turn_lost_with_the_server(page, restartable_server):
    server = restartable_server
    start_new_game(page, server.base)
    expect(page.locator("#table-root")).to_be_visible()
    page.wait_for_function("() => window.manillenTable !== undefined")
    game_id = re.search(r"/game/([0-9a-f-]{36})/", page.url).group(1)
    page.evaluate("window.sameDocument = true")
    page.wait_for_function(AT_REST_JS, timeout=30_000)

    server.kill()
    actions, seq = _store_south_move_without_bot_turn(server, game_id)
    server.env.pop("SWEEP_STUCK_AFTER", None)  # the default: 30 s
    server.start()

    # The page comes back by itself on the stored state: a bot to move, nothing coming.
    page.wait_for_function(f"() => {SEQ_JS} === {seq}", timeout=20_000)
    back = time.monotonic()
    assert page.evaluate("manillenTable.ui.state.to_move") != 0
    # Then, with no reload and no click, the bots play on.
    page.wait_for_function(f"() => {SEQ_JS} > {seq}", timeout=30_000)
    waited = time.monotonic() - back
    page.wait_for_function(AT_REST_JS, timeout=30_000)
    assert page.evaluate("window.sameDocument") is True, "the page was reloaded"
    assert not page.js_errors, page.js_errors

    row = server.stored_game(game_id)
    assert row["actions"][:seq] == actions
    # The moves after South's card are the deterministic bots', each once, up to
    # South's next turn (or the end).
    eng = engine.Game.replay(row["seed"], row["rules"], actions)
    bot = get_bot(row["bot_level"])
    expected = list(actions)
    while not eng.is_terminal() and eng.to_move != 0:
        choice = bot.act(
            eng.observation(eng.to_move), bot_seed(row["seed"], eng.deal_number, eng.to_move)
        )
        eng.apply_action(choice)
        expected.append(choice)
    assert row["actions"] == expected
    assert row["seq"] == len(expected) == page.evaluate(SEQ_JS)
    assert row["state"] == eng.observation(0) == page.evaluate("manillenTable.ui.state")
    # Recovered by the server's watch on the waiting table, well before the sweeper.
    assert waited < 5, waited
