"""Refused cards are explained in the player's language: ?lang= of the socket's URL
(the page's language), else the language cookie, else Dutch."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

import engine
from config.asgi import application
from engine.bots import bot_seed, get_bot
from game import actions
from tests.helpers import wait_for_turn

pytestmark = [pytest.mark.usefixtures("live_game_db")]

TIMEOUT = 10


@database_sync_to_async
def _game_with_a_refusable_card(user):
    """A game where South is to play and holds a card the rules forbid now."""
    bot = get_bot("heuristic")
    for n in range(20):
        game = wait_for_turn(actions.create_game(user, seed=f"lang-test-{n}").public_id)
        for _ in range(60):
            state = game.state
            if state["game_over"]:
                break
            hand = state.get("hand") or []
            forbidden = [c for c in hand if c not in state["legal"]]
            if state["phase"] == "play" and forbidden:
                client = Client()
                client.force_login(user)
                cookie = f"sessionid={client.cookies['sessionid'].value}"
                return game, forbidden[0], cookie
            action = bot.act(state, bot_seed(game.seed, state["deal_number"], 0))
            actions.apply_action(game.public_id, user, action, game.seq)
            game = wait_for_turn(game.public_id)
    raise AssertionError("no game with a forbidden card found")


def _expected(game, card: str, lang: str) -> str:
    eng = engine.Game.replay(game.seed, game.rules, list(game.actions))
    with pytest.raises(engine.IllegalMove) as refused:
        eng.apply_action(card)
    return engine.explain(refused.value, lang)


async def _refusal(game, card, cookie: str, query: str = "") -> dict:
    path = f"/ws/game/{game.public_id}/" + (f"?{query}" if query else "")
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
               (b"cookie", cookie.encode())]  # fmt: skip
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    snapshot = await comm.receive_json_from(timeout=TIMEOUT)
    await comm.send_json_to({"type": "action", "action": card, "seq": snapshot["seq"]})
    reply = await comm.receive_json_from(timeout=TIMEOUT)
    await comm.disconnect()
    assert reply["type"] == "error" and reply["code"] == "illegal", reply
    return reply


async def test_refusals_speak_the_language_of_the_page(user):
    game, card, cookie = await _game_with_a_refusable_card(user)
    dutch = (await _refusal(game, card, cookie, "lang=nl"))["message"]
    assert dutch == _expected(game, card, "nl")
    assert "bekennen" in dutch or "troef" in dutch
    english = (await _refusal(game, card, cookie, "lang=en"))["message"]
    assert english == _expected(game, card, "en") and english != dutch
    assert "follow" in english or "trump" in english
    french = (await _refusal(game, card, cookie, "lang=fr"))["message"]
    assert french == _expected(game, card, "fr")


async def test_without_a_valid_lang_the_cookie_or_dutch_decides(user):
    game, card, cookie = await _game_with_a_refusable_card(user)
    dutch = _expected(game, card, "nl")
    assert (await _refusal(game, card, cookie))["message"] == dutch
    assert (await _refusal(game, card, cookie, "lang=xx"))["message"] == dutch
    with_cookie = cookie + "; django_language=en"
    assert (await _refusal(game, card, with_cookie))["message"] == _expected(game, card, "en")
    assert (await _refusal(game, card, with_cookie, "lang=fr"))["message"] == _expected(
        game, card, "fr"
    )
