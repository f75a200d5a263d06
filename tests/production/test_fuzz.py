"""Fuzzing: hostile websocket messages and HTTP inputs never cause a server error and
never change a game.

- hypothesis: thousands of generated frames (arbitrary JSON, wrong types, huge strings,
  unknown types, near-miss action messages, old sequence numbers) fed to the game
  consumer's own `receive` in process (validation + action path, no ASGI plumbing);
- random frames through a real WebsocketCommunicator connection;
- random form and query inputs on the HTTP views and tournament APIs.
In all over 10,000 inputs per run (3,000 + 6,000 in process, 400 over a socket,
1,200 HTTP requests, the replayed old moves); the game's row is compared before and after.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from game import actions
from game.consumers import GameConsumer
from game.models import Game
from ops.ratelimit import TokenBucket
from tests.helpers import wait_for_turn
from tests.production.conftest import TIMEOUT, connect_game

pytestmark = [pytest.mark.usefixtures("live_game_db")]

ERROR_CODES = {"bad_message", "illegal", "stale", "not_your_turn", "not_found", "rate_limited"}

# --- generators ------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
    st.text(max_size=40), st.sampled_from(["TS", "ts", "10♠", "trump:H", "trump:none", "blind",
                                           "look", "mee", "tegen", "pass", "", " ", "\x00"]),
)  # fmt: skip
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=10,
)
card_like = st.builds(
    lambda r, s: r + s, st.sampled_from(list("789JQKAT") + ["10", "1", "X"]),
    st.sampled_from(list("SHDCshdc♠♥") + [""]),
)  # fmt: skip
action_texts = st.one_of(card_like, st.text(max_size=20), st.sampled_from(
    ["trump:S", "trump:X", "trump:", "trump:none", "blind", "look", "mee", "tegen", "pass",
     "A" * 16, "A" * 17, "TS TS", "TS\n", "None", "null"]))  # fmt: skip


def near_miss_actions(seq: int):
    seqs = st.one_of(
        st.integers(min_value=-3, max_value=seq + 3), st.integers(), st.floats(),
        st.text(max_size=5), st.booleans(), st.none(),
        st.just(seq), st.integers(min_value=0, max_value=max(0, seq - 1)),  # old seqs
    )  # fmt: skip
    base = st.fixed_dictionaries({"type": st.just("action"), "action": action_texts, "seq": seqs})
    extra = st.dictionaries(st.text(max_size=8), json_values, max_size=2)
    return st.one_of(base, st.builds(lambda b, e: {**e, **b}, base, extra))


def frames(seq: int):
    objects = st.one_of(
        near_miss_actions(seq),
        st.fixed_dictionaries({"type": st.sampled_from(["snapshot", "action", "join", "chat",
                                                        "ACTION", "", "snapshot "])}),
        st.dictionaries(st.text(max_size=10), json_values, max_size=6),
        json_values,
    )  # fmt: skip
    as_text = objects.map(lambda o: json.dumps(o, ensure_ascii=False))
    raw = st.one_of(
        st.text(max_size=200), st.binary(max_size=100).map(lambda b: b.decode("latin-1")),
        st.sampled_from(["{", "}", "[]", "{}", "null", "NaN", "Infinity", '{"type":'
                         '"action","action":"TS","seq":1e999}', "x" * 5000, "[" * 5000,
                         '{"type": "snapshot"}' * 100]),
    )  # fmt: skip
    actions_text = near_miss_actions(seq).map(json.dumps)
    return st.one_of(actions_text, actions_text, as_text, as_text, raw)


# --- the consumer in process -----------------------------------------------------------------


class Harness:
    """The game consumer with its socket replaced by a list (no ASGI server)."""

    def __init__(self, game: Game, user) -> None:
        self.consumer = GameConsumer()
        self.consumer.user = user
        self.consumer.public_id = str(game.public_id)
        self.consumer.group = f"fuzz-{uuid.uuid4().hex}"  # joined: messages are handled
        self.consumer.bucket = TokenBucket(10**9, 10**9)
        self.consumer.refused = 0
        # What connect() would have set from the scope (no language chosen: Dutch).
        self.consumer.scope = {"type": "websocket", "cookies": {}, "query_string": b""}
        self.consumer.lang = "nl"
        self.replies: list[dict] = []

        async def send_json(content, close=False):
            self.replies.append(content)

        self.consumer.send_json = send_json

    def feed(self, text: str | None, data: bytes | None = None) -> list[dict]:
        self.replies = []

        async def receive_and_settle():
            await self.consumer.receive(text_data=text, bytes_data=data)
            # A move runs beside the message loop (GameConsumer.receive_json): its reply
            # comes when the task is done, as it would reach a real socket.
            while getattr(self.consumer, "moves", None):
                await asyncio.gather(*list(self.consumer.moves))

        async_to_sync(receive_and_settle)()
        return self.replies


_ENGINES: dict[tuple, engine.Game] = {}


def _playable(game: Game, content: str) -> bool:
    """True if this frame is a legal move right now (it would rightly change the game)."""
    from game.messages import ActionMessage, BadMessage, parse

    try:
        parsed = parse(json.loads(content))
    except (ValueError, RecursionError, BadMessage):
        return False
    if not isinstance(parsed, ActionMessage) or parsed.seq != game.seq:
        return False
    key = (game.seed, game.rules, tuple(game.actions))
    if key not in _ENGINES:
        _ENGINES[key] = engine.Game.replay(game.seed, game.rules, list(game.actions))
    eng = _ENGINES[key].clone()
    try:
        eng.apply_action(parsed.action)
    except ValueError:
        return False
    return True


@pytest.fixture
def fuzz_game(user):
    game = actions.create_game(user, seed="fuzz-1")
    game = wait_for_turn(game.public_id)
    # A few moves so that there are old sequence numbers to replay.
    for _ in range(3):
        game = wait_for_turn(
            actions.apply_action(game.public_id, user, game.state["legal"][0], game.seq).public_id
        )
    return game


def _row(game: Game):
    fresh = Game.objects.get(pk=game.pk)
    return fresh.seq, fresh.actions, fresh.state, fresh.status, fresh.fast_play


def test_generated_frames_through_the_consumer_change_nothing(fuzz_game, user, other_user):
    game = fuzz_game
    before = _row(game)
    harness = Harness(game, user)
    stranger = Harness(game, other_user)
    counts = {"frames": 0, "reached_actions": 0}

    @settings(max_examples=3000, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(frame=frames(game.seq), as_stranger=st.booleans())
    def run(frame, as_stranger):
        if _playable(game, frame):
            return  # a legal move at the current seq is not hostile: it would be played
        counts["frames"] += 1
        replies = (stranger if as_stranger else harness).feed(frame)
        assert len(replies) == 1, (frame, replies)
        reply = replies[0]
        if reply["type"] == "snapshot":
            assert reply["seq"] == game.seq and not as_stranger
            return
        assert reply["type"] == "error" and reply["code"] in ERROR_CODES, (frame, reply)
        assert "state" not in reply
        if reply["code"] != "bad_message":
            counts["reached_actions"] += 1

    run()
    assert counts["frames"] >= 2700
    assert counts["reached_actions"] >= 200, counts  # the action path really was exercised
    assert _row(game) == before


def test_deeply_nested_json_within_the_size_limit_is_a_bad_message(fuzz_game, user):
    harness = Harness(fuzz_game, user)
    for frame in ("[" * 1000, "[" * 1000 + "]" * 1000, '{"a":' * 300 + "1" + "}" * 300):
        assert len(frame) <= 2048
        reply = harness.feed(frame[:1024])[0]
        assert reply["type"] == "error" and reply["code"] == "bad_message"


def test_old_sequence_numbers_are_refused_as_stale(fuzz_game, user):
    game = fuzz_game
    before = _row(game)
    harness = Harness(game, user)
    for seq, action in enumerate(game.actions):  # every past move, replayed as it was sent
        reply = harness.feed(json.dumps({"type": "action", "action": action, "seq": seq}))[0]
        assert reply["code"] == "stale", (seq, action, reply)
    assert _row(game) == before


def test_random_frames_and_binary_through_the_consumer(fuzz_game, user):
    game = fuzz_game
    before = _row(game)
    harness = Harness(game, user)
    rng = random.Random(20261130)
    alphabet = string.printable + "♠♥♦♣éü\x00\x7f"
    for i in range(6000):
        kind = i % 4
        if kind == 0:
            frame = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 64)))
        elif kind == 1:
            frame = json.dumps(
                {
                    "type": "action",
                    "seq": rng.choice(
                        [game.seq, game.seq + 1, rng.randint(-10, 10**6)]
                    ),  # fmt: skip
                    "action": "".join(rng.choice(alphabet) for _ in range(3)),
                }
            )
        elif kind == 2:
            frame = json.dumps({rng.choice(["type", "action", "seq", "x"]): rng.random()})
        else:
            replies = harness.feed(None, bytes(rng.randrange(256) for _ in range(16)))
            assert replies[0]["code"] == "bad_message"
            continue
        if _playable(game, frame):
            continue
        replies = harness.feed(frame)
        assert replies and replies[0]["type"] == "error", (frame, replies)
        assert replies[0]["code"] in ERROR_CODES
    assert _row(game) == before


# --- over a real websocket connection --------------------------------------------------------


async def test_random_frames_over_a_websocket_connection(fuzz_game, user, settings):
    settings.GAME_WS_RATE = settings.GAME_WS_BURST = 10_000
    game = fuzz_game
    before = await database_sync_to_async(_row)(game)
    comm, snapshot = await connect_game(game.public_id, user)
    rng = random.Random(7)
    sent = 0
    for i in range(400):
        choice = i % 5
        if choice == 0:
            text = json.dumps({"type": "action", "action": rng.choice(["ZZ", "TS", "trump:X"]),
                               "seq": rng.choice([-1, 0, snapshot["seq"] - 1, 10**9])})  # fmt: skip
        elif choice == 1:
            text = "".join(chr(rng.randrange(32, 0x2FF)) for _ in range(rng.randint(0, 300)))
        elif choice == 2:
            text = json.dumps([rng.random() for _ in range(rng.randint(0, 50))])
        elif choice == 3:
            text = "y" * rng.choice([1, 1023, 1025, 70_000])
        else:
            text = json.dumps({"type": "snapshot", "extra": i})
        if await database_sync_to_async(_playable)(game, text):
            continue
        await comm.send_to(text_data=text)
        reply = await comm.receive_json_from(timeout=TIMEOUT)
        assert reply["type"] == "error" and reply["code"] in ERROR_CODES, (text[:80], reply)
        sent += 1
    assert sent >= 380
    await comm.send_json_to({"type": "snapshot"})
    assert (await comm.receive_json_from(timeout=TIMEOUT))["seq"] == snapshot["seq"]
    await comm.disconnect()
    assert await database_sync_to_async(_row)(game) == before


# --- HTTP views and tournament APIs ----------------------------------------------------------


def _junk(rng: random.Random) -> str:
    pools = ["", "0", "-1", "1e9", "null", "<script>alert(1)</script>", "' OR 1=1 --",
             "../../etc/passwd", "%00", "x" * 5000, "☃" * 50, str(uuid.uuid4())]  # fmt: skip
    if rng.random() < 0.5:
        return rng.choice(pools)
    return "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 30)))


def test_random_http_inputs_never_error_and_change_no_game(
    fuzz_game, user, other_user, make_tournament
):
    game = fuzz_game
    before = _row(game)
    t = make_tournament(seed="fuzz-tournament")
    rng = random.Random(99)
    # Addresses of their own: junk logins must not rate-limit other tests' 127.0.0.1.
    owner, stranger, anonymous = (Client(REMOTE_ADDR=f"198.51.100.{n}") for n in (1, 2, 3))
    owner.force_login(user)
    stranger.force_login(other_user)
    gid = game.public_id
    paths = [
        "/game/{junk}/", "/game/{junk}/state.json", "/game/{junk}/record.txt",
        f"/game/{gid}/state.json?seq={{junk}}", f"/game/{gid}/?x={{junk}}",
        f"/tournaments/{t.pk}/standings/?format={{junk}}", f"/tournaments/{t.pk}/deal/{{junk}}/",
        f"/tournaments/{t.pk}/export/{{junk}}", f"/tournaments/{t.pk}/compare/1/?entry={{junk}}",
        "/tournaments/{junk}/", "/clubs/{junk}/", "/clubs/join/?code={junk}", "/?next={junk}",
    ]  # fmt: skip
    posts = [
        (f"/tournaments/{t.pk}/join/", ["invite_code"]),
        ("/tournaments/new/", ["name", "club", "rules", "bot_level", "capacity", "starts_at",
                               "ends_at", "results_visibility", "unfinished_rule", "seed"]),
        ("/clubs/join/", ["code"]),
        (f"/tournaments/{t.pk}/manage/close/", ["reason"]),
        (f"/tournaments/{t.pk}/manage/entry/{{junk}}/correct/", ["score", "reason"]),
        ("/accounts/login/", ["username", "password", "next"]),
        ("/i18n/setlang/", ["language", "next"]),
        ("/game/{junk}/fast/", ["fast_play"]),
    ]  # fmt: skip
    requests = 0
    for i in range(1200):
        client = (owner, stranger, anonymous)[i % 3]
        if i % 2:
            url = rng.choice(paths).replace("{junk}", _junk(rng)[:200])
            response = client.get(url)
        else:
            url, fields = rng.choice(posts)
            url = url.replace("{junk}", _junk(rng)[:50])
            data = {f: _junk(rng) for f in fields if rng.random() < 0.8}
            data[_junk(rng)[:20] or "k"] = _junk(rng)
            response = client.post(url, data)
        requests += 1
        assert response.status_code < 500, (url, response.status_code)
    assert requests == 1200
    assert _row(game) == before
    assert not t.entries.exists()
