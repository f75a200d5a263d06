"""Leak audit: every payload sent to a player, over many whole games, against the truth.

For each game (every preset, several seeds), South plays random legal cards to the end
over the websocket while the test records every message received, plus the HTTP
views a player may fetch (the table page, state.json, the record). At each payload's
move number the engine's true position says which cards South may not see: the three
other hands, South's own hand while North deals and has not chosen trump (and while
South deals blind in flemish-table); a face-up turned card is public. No payload may
contain one of them, and the seed (which yields every hand) may not appear until the
game is over.

For tournaments: a player who has not finished sees no other entry's result, name,
score or the tournament's seed on any page or socket.
"""

from __future__ import annotations

import asyncio
import random
import re
import time

import pytest
from channels.db import database_sync_to_async
from django.test import Client

import engine
from game import actions
from game.models import Game
from tests.helpers import PRODUCTION_STACK, card_tokens, wait_for_turn
from tests.production.conftest import TIMEOUT, communicator, connect_game, session_cookie
from tests.tournaments.conftest import finish, joined, play_moves

pytestmark = [pytest.mark.usefixtures("live_game_db")]

QUOTED_CARD = re.compile(r"[\"'\[ ,:]([789JQKAT][SHDC])[\"'\], ]")


def truly_hidden(seed: str, rules: str, actions_so_far: list[str]) -> set[str]:
    """Cards South may not see after `actions_so_far`, from the engine's true deal and
    the rules of who looks when, not from the observation under test."""
    eng = engine.Game.replay(seed, rules, actions_so_far)
    deal = eng.deal
    hidden = {str(c) for seat in (1, 2, 3) for c in deal.hand(seat)}
    if not eng.is_terminal():
        before_trump = deal.phase in ("blind", "trump")
        if (deal.dealer == 2 and before_trump) or (deal.dealer == 0 and deal.phase == "blind"):
            hidden |= {str(c) for c in deal.hand(0)}
    turned = getattr(deal, "turned", None)
    if turned is not None:  # (a Card may be falsy: 7S is card number 0)
        hidden.discard(str(turned))  # turned face up for everybody (french)
    return hidden


def assert_no_leak(game: Game, payload, seq: int, where: str) -> None:
    hidden = truly_hidden(game.seed, game.rules, game.actions[:seq])
    if isinstance(payload, str):
        found = set(QUOTED_CARD.findall(payload))
        text = payload
    else:
        # An event's "action" is the card just played: face up on the table for all
        # (it may be in another hand of the next deal already). It must be that move.
        if "action" in payload:
            assert payload["action"] == game.actions[seq - 1], (where, seq)
        rest = {k: v for k, v in payload.items() if k != "action"}
        found = card_tokens(rest)
        text = repr(rest)
    leaked = found & hidden
    assert not leaked, f"{where} at seq {seq} shows {sorted(leaked)}: {_paths(payload, leaked)}"
    if seq < len(game.actions) or game.status != Game.Status.FINISHED:
        assert game.seed not in text, f"{where} at seq {seq} shows the seed"


def _paths(payload, cards: set[str], path: str = "") -> list[str]:
    """Where in a JSON payload the cards are (for the failure message)."""
    if isinstance(payload, dict):
        return [p for k, v in payload.items() for p in _paths(v, cards, f"{path}.{k}")]
    if isinstance(payload, list):
        return [p for i, v in enumerate(payload) for p in _paths(v, cards, f"{path}[{i}]")]
    return [f"{path}={payload}"] if payload in cards else []


GAMES = [
    (rules, seed)
    for rules in ("flemish", "flemish-table", "french", "malilla")
    for seed in (["leak-a", "leak-b", "leak-c"] if not PRODUCTION_STACK else ["leak-a"])
]


@pytest.mark.parametrize(("rules", "seed"), GAMES)
async def test_no_payload_shows_south_a_card_it_may_not_see(user, rules, seed, settings):
    settings.GAME_WS_RATE = settings.GAME_WS_BURST = 10_000  # a test plays faster than people
    game = await database_sync_to_async(actions.create_game)(
        user, seed=seed, rules=rules, fast_play=True
    )
    game = await database_sync_to_async(wait_for_turn)(game.public_id)
    cookie = await database_sync_to_async(session_cookie)(user)
    http = Client()
    http.cookies.load(cookie.decode())
    rng = random.Random(f"{rules}-{seed}")
    comm, snapshot = await connect_game(game.public_id, user)
    received: list[dict] = [snapshot]
    pages: list[tuple[int, str, str]] = []
    seq, state = snapshot["seq"], snapshot["state"]
    for turn in range(400):
        if state["game_over"]:
            break
        assert state["to_move"] == 0, state
        if turn % 7 == 0:  # South to move: nothing changes until South acts
            table = await database_sync_to_async(http.get)(f"/game/{game.public_id}/")
            pages.append((seq, "table page", table.content.decode()))
            snap = await database_sync_to_async(http.get)(f"/game/{game.public_id}/state.json")
            received.append(snap.json())
            record = await database_sync_to_async(http.get)(f"/game/{game.public_id}/record.txt")
            assert record.status_code == 404  # mid-game: the record would show every hand
        await comm.send_json_to(
            {"type": "action", "action": rng.choice(state["legal"]), "seq": seq}
        )
        while True:
            message = await comm.receive_json_from(timeout=TIMEOUT)
            received.append(message)
            assert message["type"] == "event", message
            assert message["seq"] == seq + 1
            seq, state = message["seq"], message["state"]
            if state["to_move"] == 0 or state["game_over"]:
                break
    assert state["game_over"], "the game did not finish"
    await comm.disconnect()
    final = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert final.status == Game.Status.FINISHED
    for payload in received:
        assert payload["state"]["seat"] == 0
        assert_no_leak(final, payload, payload["seq"], payload["type"])
    for page_seq, where, html in pages:
        assert_no_leak(final, html, page_seq, where)
    # Once over, the record is the owner's to download (every hand, the seed).
    record = await database_sync_to_async(http.get)(f"/game/{game.public_id}/record.txt")
    assert record.status_code == 200 and final.seed in record.content.decode()


async def test_an_observer_socket_of_another_user_receives_nothing(user, other_user):
    game = await database_sync_to_async(actions.create_game)(user, seed="leak-observer")
    game = await database_sync_to_async(wait_for_turn)(game.public_id)
    spy, first = await connect_game(game.public_id, other_user)
    assert first["type"] == "error" and "state" not in first
    owner, snapshot = await connect_game(game.public_id, user)
    await owner.send_json_to(
        {"type": "action", "action": snapshot["state"]["legal"][0], "seq": snapshot["seq"]}
    )
    assert (await owner.receive_json_from(timeout=TIMEOUT))["type"] == "event"
    output = await spy.receive_output(timeout=TIMEOUT)
    assert output["type"] == "websocket.close"  # and never an event of that game
    assert await spy.receive_nothing(timeout=0.5)
    await spy.disconnect()
    await owner.disconnect()


# --- tournaments --------------------------------------------------------------------------


def _pages(t, entry) -> list[str]:
    pk = t.pk
    return [
        "/tournaments/", f"/tournaments/{pk}/", f"/tournaments/{pk}/verify/",
        f"/tournaments/{pk}/standings/", f"/tournaments/{pk}/standings/?format=json",
        f"/tournaments/{pk}/deal/1/", f"/tournaments/{pk}/results/",
        f"/tournaments/{pk}/compare/", f"/tournaments/{pk}/compare/1/",
        f"/tournaments/{pk}/export/standings.json", f"/tournaments/{pk}/export/travellers.csv",
        f"/tournaments/{pk}/export/records.zip", f"/tournaments/{pk}/export/records.txt",
        f"/tournaments/{pk}/manage/",
        f"/tournaments/{pk}/manage/deals/", f"/game/{entry.game.public_id}/",
        f"/game/{entry.game.public_id}/state.json", "/", f"/clubs/{t.club.slug}/",
        "/api/v1/tournaments/", f"/api/v1/tournaments/{pk}/",
        f"/api/v1/tournaments/{pk}/standings/", f"/api/v1/tournaments/{pk}/travellers/",
        f"/api/v1/tournaments/{pk}/travellers/1/", "/accounts/profile/",
        f"/players/{entry.player.username}/",
    ]  # fmt: skip


def test_an_unfinished_player_sees_no_other_entrys_result(make_tournament, make_user):
    t = make_tournament(seed="leak-tournament-seed-7f3a")
    anna, ben = make_user("annaleaktest"), make_user("benleaktest")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    e_anna.refresh_from_db()
    play_moves(e_ben, ben, 5)
    client = Client()
    client.force_login(ben)
    markers = {anna.username, t.seed}
    for url in _pages(t, e_ben):
        response = client.get(url)
        body = response.content.decode(errors="replace")
        for marker in markers:
            assert marker not in body, f"{url} ({response.status_code}) shows {marker!r}"
    # The standings socket refuses ben; his game socket only carries his own game.
    t.refresh_from_db()
    assert t.status != "closed"


async def test_standings_socket_pushes_nothing_to_an_unfinished_player(make_tournament, make_user):
    t = await database_sync_to_async(make_tournament)(seed="leak-ws-seed")
    anna = await database_sync_to_async(make_user)("annaws")
    ben = await database_sync_to_async(make_user)("benws")
    e_anna, _ = await database_sync_to_async(joined)(t, anna, ben)
    cookie = await database_sync_to_async(session_cookie)(ben)
    comm = communicator(f"/ws/tournaments/{t.pk}/standings/", cookie)
    assert (await comm.connect(timeout=TIMEOUT))[0]
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == "error" and "rows" not in message
    await database_sync_to_async(finish)(e_anna)  # a result arrives: ben must not get it
    output = await comm.receive_output(timeout=TIMEOUT)
    assert output["type"] == "websocket.close"
    assert await comm.receive_nothing(timeout=1.0)
    await comm.disconnect()


# --- tables of people: every seat and the spectators ------------------------------------------


def hidden_from(seed: str, rules: str, actions_so_far: list[str], seat: int | None) -> set[str]:
    """Cards `seat` may not see after `actions_so_far` (None: a spectator, who sees no
    hand), from the engine's true deal and the rules of who looks when."""
    eng = engine.Game.replay(seed, rules, actions_so_far)
    deal = eng.deal
    others = (0, 1, 2, 3) if seat is None else [s for s in (0, 1, 2, 3) if s != seat]
    hidden = {str(c) for s in others for c in deal.hand(s)}
    if seat is not None and not eng.is_terminal():
        partner = (deal.dealer + 2) % 4
        before_trump = deal.phase in ("blind", "trump")
        if (seat == partner and before_trump) or (seat == deal.dealer and deal.phase == "blind"):
            hidden |= {str(c) for c in deal.hand(seat)}
    turned = getattr(deal, "turned", None)
    if turned is not None:
        hidden.discard(str(turned))  # turned face up for everybody (french)
    return hidden


def assert_receiver_sees_nothing_hidden(game: Game, message: dict, seat: int | None) -> None:
    seq = message.get("seq", 0)
    hidden = hidden_from(game.seed, game.rules, game.actions[:seq], seat)
    if message["type"] == "event":
        assert message["action"] == game.actions[seq - 1], (seat, seq)
    if "state" in message:
        assert message["state"]["seat"] == seat, (seat, message["type"], seq)
    rest = {k: v for k, v in message.items() if k != "action"}
    leaked = card_tokens(rest) & hidden
    who = "spectator" if seat is None else f"seat {seat}"
    assert not leaked, f"{who} at seq {seq} ({message['type']}) sees {sorted(leaked)}"
    assert game.seed not in repr(rest) or seq == len(game.actions), f"{who} sees the seed"


def _read_row(pk: int) -> Game:
    """The game row; the embedded test database (SQLite, shared cache) refuses a read
    while a socket's move commits in another thread ("table is locked"): read again."""
    from django.db import OperationalError

    for _ in range(100):
        try:
            return Game.objects.get(pk=pk)
        except OperationalError:
            time.sleep(0.02)
    return Game.objects.get(pk=pk)


TABLE_PRESETS = ["flemish", "flemish-table", "french", "malilla"]


@pytest.mark.parametrize("rules", TABLE_PRESETS)
async def test_every_seat_and_spectator_of_a_table_sees_only_its_own_cards(
    rules, settings, django_user_model
):
    """Four people at an open table and a spectator, a whole game over websockets; one
    person leaves mid-game (the bot plays on and they keep receiving their seat's view).
    Every message to every receiver is checked against the true deal."""
    settings.GAME_WS_RATE = settings.GAME_WS_BURST = 10_000
    make = database_sync_to_async(django_user_model.objects.create_user)
    people = [await make(f"leak-{rules}-{i}", password="pw-leak-123") for i in range(4)]
    watcher = await make(f"leak-{rules}-w", password="pw-leak-123")
    game = await database_sync_to_async(actions.create_table)(people[0], rules=rules)
    gid = game.public_id
    for i in (1, 2):
        await database_sync_to_async(actions.sit)(gid, people[i], i)
    comms: dict = {}
    received: dict = {}
    for key, who in ((0, people[0]), (1, people[1]), (2, people[2]), (None, watcher)):
        comms[key], first = await connect_game(gid, who)
        assert first["type"] == "snapshot" and first["table"]["seat"] == key
        assert first["state"]["hand"] is None  # nobody sees a hand before the start
        received[key] = [first]
    await database_sync_to_async(actions.sit)(gid, people[3], 3)  # the table starts
    latest = {}
    for key, comm in comms.items():  # the start pushes every seat its first view
        while True:
            message = await comm.receive_json_from(timeout=TIMEOUT)
            received[key].append(message)
            if message["type"] == "snapshot":
                break
        latest[key] = message
        assert message["table"]["status"] == "active" and message["table"]["seat"] == key
        if key is None:
            assert message["state"]["hand"] is None
    comms[3], first = await connect_game(gid, people[3])
    received[3] = [first]
    latest[3] = first

    async def drain_to(seq: int) -> None:
        for key, comm in comms.items():
            while latest[key].get("seq", 0) < seq:
                message = await comm.receive_json_from(timeout=TIMEOUT)
                assert message["type"] != "error", (key, message)
                received[key].append(message)
                if message["type"] in ("event", "snapshot"):
                    latest[key] = message

    rng = random.Random(f"table-{rules}")
    left = None
    # The spectator's stream says whose turn it is (no database reads while a move may
    # be committing: the embedded SQLite test database would refuse one of the two).
    watcher_comm = comms[None]

    async def next_public() -> None:
        message = await watcher_comm.receive_json_from(timeout=TIMEOUT)
        received[None].append(message)
        if message["type"] in ("event", "snapshot"):
            latest[None] = message

    turn, give_up = 0, time.monotonic() + 300
    while time.monotonic() < give_up:
        public = latest[None]
        if public["state"]["game_over"]:
            break
        seat, seq = public["state"]["to_move"], public["seq"]
        if seat == left:  # the bot plays the seat of the one who left
            await next_public()
            continue
        await drain_to(seq)
        state = latest[seat]["state"]
        assert state["seat"] == seat and state["legal"], (seat, state)
        turn += 1
        if turn == 60 and left is None:
            left = (seat + 1) % 4
            await database_sync_to_async(actions.leave)(gid, people[left])
            continue
        await comms[seat].send_json_to(
            {"type": "action", "action": rng.choice(state["legal"]), "seq": seq}
        )
        while latest[None].get("seq", 0) <= seq:
            await next_public()
    for _ in range(200):  # the last move's commit (and its bots) done
        final = await database_sync_to_async(_read_row)(game.pk)
        if final.status == Game.Status.FINISHED:
            break
        await asyncio.sleep(0.05)
    assert final.status == Game.Status.FINISHED, "the game did not finish"
    assert left is not None and final.bot_moves  # the bot played for the one who left
    await drain_to(final.seq)
    for comm in comms.values():
        await comm.disconnect()
    for key, messages in received.items():
        events = [m for m in messages if m["type"] == "event"]
        assert events and events[-1]["seq"] == final.seq, key
        for message in messages:
            assert_receiver_sees_nothing_hidden(final, message, key)
