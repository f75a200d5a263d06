"""Authorization and abuse: every way in that is not yours is refused, and tested.

Games belong to their owner; tournaments gate joining, results, deals and organizer
pages; forms need CSRF; production settings are `check --deploy` clean with secure
cookies; logins and websocket messages are rate limited; oversized messages are
refused without any change of state.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache
from django.test import Client

from game import actions
from game.models import Game
from tests.helpers import ROOT, wait_for_turn
from tests.production.conftest import TIMEOUT, communicator, connect_game, session_cookie
from tests.tournaments.conftest import finish, joined
from tournaments import actions as t_actions
from tournaments.models import Entry

pytestmark = [pytest.mark.usefixtures("live_game_db")]


def _game(user, seed="authz-1") -> Game:
    game = actions.create_game(user, seed=seed)
    return wait_for_turn(game.public_id)


# --- games -----------------------------------------------------------------------------------


def test_another_players_game_is_not_found_over_http(make_user):
    owner, intruder = make_user("owner"), make_user("intruder")
    game = _game(owner)
    client = Client()
    client.force_login(intruder)
    gid = game.public_id
    for url in (f"/game/{gid}/", f"/game/{gid}/state.json", f"/game/{gid}/record.txt"):
        assert client.get(url).status_code == 404, url
    assert client.post(f"/game/{gid}/fast/", {"fast_play": "1"}).status_code == 404
    anonymous = Client()
    assert anonymous.get(f"/game/{gid}/state.json").status_code == 404
    game.refresh_from_db()
    assert game.fast_play is False


def test_acting_in_another_players_game_is_refused_by_the_action_path(make_user):
    owner, intruder = make_user("owner"), make_user("intruder")
    game = _game(owner)
    legal = game.state["legal"][0]
    for user in (intruder, None):
        with pytest.raises(actions.GameNotFound):
            actions.apply_action(game.public_id, user, legal, game.seq)
        with pytest.raises(actions.GameNotFound):
            actions.snapshot(game.public_id, user)
        with pytest.raises(actions.GameNotFound):
            actions.set_fast_play(game.public_id, user, True)
    after = Game.objects.get(pk=game.pk)
    assert (after.seq, after.actions, after.fast_play) == (game.seq, game.actions, False)


async def test_acting_in_another_players_game_over_the_websocket_is_refused(make_user):
    owner = await database_sync_to_async(make_user)("owner")
    intruder = await database_sync_to_async(make_user)("intruder")
    game = await database_sync_to_async(_game)(owner)
    comm, first = await connect_game(game.public_id, intruder)
    assert first == {"type": "error", "code": "not_found", "message": "no such game"}
    # Closed: nothing the intruder sends afterwards reaches the game.
    closed = await comm.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close" and closed["code"] == 4404
    await comm.disconnect()
    after = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert after.seq == game.seq


async def test_a_user_id_in_the_message_changes_nothing(make_user):
    owner = await database_sync_to_async(make_user)("owner")
    intruder = await database_sync_to_async(make_user)("intruder")
    game = await database_sync_to_async(_game)(owner)
    # The intruder's own game socket, with the owner's id in the message: refused.
    other = await database_sync_to_async(_game)(intruder, seed="authz-2")
    comm, _ = await connect_game(other.public_id, intruder)
    await comm.send_json_to(
        {"type": "action", "action": game.state["legal"][0], "seq": game.seq, "user_id": owner.pk}
    )
    reply = await comm.receive_json_from(timeout=TIMEOUT)
    assert reply["type"] == "error" and reply["code"] == "bad_message"
    await comm.disconnect()
    after = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert after.seq == game.seq


# --- tournaments ------------------------------------------------------------------------------


@pytest.fixture
def field(make_tournament, make_user):
    """A club tournament: anna finished, ben half-way (playing), carl a club member
    without an entry, and an outsider."""
    t = make_tournament(seed="authz-tournament")
    anna, ben, carl, outsider = (make_user(n) for n in ("anna", "ben", "carl", "outsider"))
    e_anna, e_ben = joined(t, anna, ben)
    t.club.members.add(carl)
    finish(e_anna)
    e_anna.refresh_from_db()
    return {"t": t, "anna": anna, "ben": ben, "carl": carl, "outsider": outsider,
            "e_anna": e_anna, "e_ben": e_ben}  # fmt: skip


def _as(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_joining_a_tournament_twice_gives_no_second_entry(field):
    """A second join is idempotent: the same entry and game back, never a second one
    (which would be a second try at the same deals)."""
    t, ben, e_ben = field["t"], field["ben"], field["e_ben"]
    games_before = Game.objects.filter(owner=ben).count()
    assert t_actions.join(t.pk, ben).pk == e_ben.pk
    response = _as(ben).post(f"/tournaments/{t.pk}/join/")
    assert response.status_code == 302
    assert response["Location"] == f"/game/{e_ben.game.public_id}/"
    assert Entry.objects.filter(tournament=t, player=ben).count() == 1
    assert Game.objects.filter(owner=ben).count() == games_before
    # The database refuses a second entry even past the action's check.
    from django.db import IntegrityError, transaction

    second = actions.create_game(ben, seed="second-try")
    with pytest.raises(IntegrityError), transaction.atomic():
        Entry.objects.create(tournament=t, player=ben, game=second)


def test_reading_another_entrys_game_is_not_found(field):
    ben, e_anna = field["ben"], field["e_anna"]
    gid = e_anna.game.public_id
    client = _as(ben)
    for url in (f"/game/{gid}/", f"/game/{gid}/state.json", f"/game/{gid}/record.txt"):
        assert client.get(url).status_code == 404, url


def test_results_and_deals_are_refused_before_finishing(field):
    t, ben = field["t"], field["ben"]
    e_anna = field["e_anna"]
    client = _as(ben)
    for page in ("standings/", "standings/?format=json", "deal/1/", "results/",
                 "export/standings.csv", "export/standings.json", "export/travellers.csv",
                 "export/travellers.json", "export/records.zip", "compare/",
                 f"compare/1/?entry={e_anna.pk}"):  # fmt: skip
        assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 403, page


def test_organizer_pages_are_refused_to_a_non_organizer(field):
    t, anna, carl = field["t"], field["anna"], field["carl"]
    e_anna = field["e_anna"]
    invite = t.club.invite_code
    for user in (anna, carl):
        client = _as(user)
        assert client.get(f"/tournaments/{t.pk}/manage/").status_code == 403
        assert client.get(f"/tournaments/{t.pk}/manage/deals/").status_code == 403
        assert client.post(f"/tournaments/{t.pk}/manage/deals/").status_code == 403
        assert client.post(f"/tournaments/{t.pk}/manage/close/").status_code == 403
        assert client.post(f"/tournaments/{t.pk}/manage/open/").status_code == 403
        assert client.post(f"/tournaments/{t.pk}/manage/delete/").status_code == 403
        assert client.get(f"/tournaments/{t.pk}/manage/edit/").status_code == 403
        assert client.post(f"/tournaments/{t.pk}/manage/edit/", {"name": "Mine"}).status_code == 403
        # The club's own page: its members (anna, carl) cannot hand out organizer rights,
        # take anyone out, rename it or renew its invite code (refused with a message).
        club_url = f"/clubs/{t.club.slug}/"
        for data in ({"organizer": user.pk}, {"remove": t.club.organizers.get().pk},
                     {"rename": "Mine"}, {"new_invite": "1"}):  # fmt: skip
            assert client.post(club_url, data).status_code in (302, 404), data
        url = f"/tournaments/{t.pk}/manage/entry/{e_anna.pk}/"
        assert client.post(url + "correct/", {"score": 999, "reason": "x"}).status_code == 403
        assert client.post(url + "remove/", {"reason": "x"}).status_code == 403
    t.refresh_from_db()
    e_anna.refresh_from_db()
    assert t.name != "Mine" and t.club.name != "Mine" and t.club.invite_code == invite
    assert t.club.is_organizer(t.club.organizers.get()) and not t.club.is_organizer(anna)
    assert t.club.is_member(t.club.organizers.get())
    assert t.status != "closed" and e_anna.status == Entry.Status.FINISHED
    assert e_anna.score == e_anna.game_score
    for fn, args in (
        (t_actions.close_tournament, (t.pk, carl)),
        (t_actions.correct_score, (e_anna.pk, carl, 999, "because")),
        (t_actions.remove_entry, (e_anna.pk, carl, "because")),
        (t_actions.edit_tournament, (t.pk, carl)),
        (t_actions.delete_draft, (t.pk, carl)),
        (t_actions.set_club_organizer, (carl, t.club, carl.pk, True)),
        (t_actions.rename_club, (carl, t.club, "Mine")),
    ):
        with pytest.raises(t_actions.NotAllowed):
            fn(*args)


def test_club_tournaments_are_hidden_from_outsiders(field):
    t, outsider = field["t"], field["outsider"]
    client = _as(outsider)
    for page in ("", "standings/", "standings/?format=json", "deal/1/", "verify/",
                 "export/standings.json", "calendar.ics"):  # fmt: skip
        assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 404, page
    assert client.post(f"/tournaments/{t.pk}/join/").status_code == 404
    assert not Entry.objects.filter(tournament=t, player=outsider).exists()


def test_tournament_apis_without_login_are_refused(field):
    t = field["t"]
    anonymous = Client()
    for url in (f"/tournaments/{t.pk}/join/", "/tournaments/new/", "/clubs/new/"):
        response = anonymous.post(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    for url in (f"/tournaments/{t.pk}/manage/", f"/tournaments/{t.pk}/compare/", "/clubs/",
                "/tournaments/new/", "/accounts/profile/data.json"):  # fmt: skip
        response = anonymous.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    for page in ("standings/?format=json", "export/standings.json", "deal/1/"):
        assert anonymous.get(f"/tournaments/{t.pk}/{page}").status_code in (403, 404), page
    assert Entry.objects.filter(tournament=t).count() == 2


async def test_live_standings_socket_refuses_the_unfinished_and_anonymous(field):
    t, ben = field["t"], field["ben"]
    ben_cookie = await database_sync_to_async(session_cookie)(ben)
    for cookie in (ben_cookie, None):
        comm = communicator(f"/ws/tournaments/{t.pk}/standings/", cookie)
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected
        message = await comm.receive_json_from(timeout=TIMEOUT)
        assert message["type"] == "error" and message["code"] == "forbidden"
        assert "rows" not in message
        await comm.disconnect()


# --- CSRF, cookies, deploy checks ---------------------------------------------------------


def test_forms_refuse_posts_without_a_csrf_token(field):
    t, carl = field["t"], field["carl"]
    client = Client(enforce_csrf_checks=True)
    client.force_login(carl)
    game = _game(carl, seed="csrf")
    for url, data in (
        ("/play/", {}),
        (f"/tournaments/{t.pk}/join/", {}),
        (f"/game/{game.public_id}/fast/", {"fast_play": "1"}),
        ("/clubs/new/", {"name": "Evil club"}),
        ("/clubs/join/", {"code": t.club.invite_code}),
        ("/tournaments/new/", {"name": "x"}),
        (f"/tournaments/{t.pk}/manage/edit/", {"name": "x"}),
        (f"/clubs/{t.club.slug}/", {"leave": "1"}),
        ("/accounts/profile/delete/", {"password": "pw-carl-123"}),
        ("/i18n/setlang/", {"language": "fr"}),
        (
            "/accounts/signup/",
            {"username": "csrf-x", "password1": "Zz-9x!qq-long", "password2": "Zz-9x!qq-long"},
        ),  # fmt: skip
    ):
        assert client.post(url, data).status_code == 403, url
    assert (
        Client(enforce_csrf_checks=True)
        .post("/accounts/login/", {"username": "carl", "password": "pw-carl-123"})
        .status_code
        == 403
    )
    assert not Entry.objects.filter(tournament=t, player=carl).exists()
    assert Game.objects.filter(owner=carl).count() == 1
    carl.refresh_from_db()
    assert carl.is_active and carl.get_username() == "carl"


PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "prod-settings-test-" + "s" * 50,
    "ALLOWED_HOSTS": "manillen.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://manillen.example.org",
}


def _production(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(PRODUCTION_ENV, DJANGO_SETTINGS_MODULE="config.settings")
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def test_check_deploy_is_clean_in_production_settings():
    result = _production(
        "import sys, django; django.setup(); from django.core.management import call_command;"
        "call_command('check', deploy=True, fail_level='WARNING')"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout + result.stderr


def test_production_cookies_are_secure_and_http_only():
    result = _production(
        "import json, django; django.setup(); from django.conf import settings as s;"
        "print(json.dumps({k: getattr(s, k) for k in ('SESSION_COOKIE_SECURE',"
        "'CSRF_COOKIE_SECURE','SESSION_COOKIE_HTTPONLY','SECURE_SSL_REDIRECT',"
        "'SECURE_HSTS_SECONDS','SECURE_CONTENT_TYPE_NOSNIFF','X_FRAME_OPTIONS','DEBUG')}))"
    )
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["SESSION_COOKIE_HTTPONLY"] and values["SECURE_SSL_REDIRECT"]
    assert values["SECURE_HSTS_SECONDS"] > 0 and values["SECURE_CONTENT_TYPE_NOSNIFF"]
    assert values["X_FRAME_OPTIONS"] == "DENY" and values["DEBUG"] is False


def test_production_settings_refuse_a_missing_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(DEBUG="0", ALLOWED_HOSTS="x.example.org", DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr


# --- rate limits and sizes -------------------------------------------------------------------


@pytest.fixture
def login_limit(settings):
    settings.LOGIN_RATE_LIMIT = 3
    settings.LOGIN_RATE_LIMIT_ADDRESS = 6
    settings.LOGIN_RATE_WINDOW = 60
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.7"
    yield address
    cache.delete_many([f"login-fail:ip:{address}", f"login-fail:ip:{address}:until"])


def _login(client, user, password=None):
    password = password or f"pw-{user.username}-123"
    return client.post("/accounts/login/", {"username": user.username, "password": password})


def test_login_is_rate_limited_per_address_and_username(login_limit, make_user):
    victim = make_user(f"victim{uuid.uuid4().hex[:6]}")
    client = Client(REMOTE_ADDR=login_limit)
    bad = {"username": victim.username, "password": "guess"}
    for _ in range(3):
        assert client.post("/accounts/login/", bad).status_code == 200  # the form again
    blocked = client.post("/accounts/login/", bad)
    assert blocked.status_code == 429
    # The message says how long to wait (the window is 60 s: one minute).
    assert "over 1 minuut" in blocked.content.decode(), blocked.content.decode()
    # Even the right password is refused while blocked, from this address and name...
    good = {"username": victim.username, "password": f"pw-{victim.username}-123"}
    assert client.post("/accounts/login/", good).status_code == 429
    assert "_auth_user_id" not in client.session
    # ...but the owner elsewhere is not locked out by somebody else's guesses,
    assert _login(Client(REMOTE_ADDR="192.0.2.99"), victim).status_code == 302
    # nor is another account on the guesser's address (a club's shared wifi).
    other = make_user(f"other{uuid.uuid4().hex[:6]}")
    assert _login(Client(REMOTE_ADDR=login_limit), other).status_code == 302


def test_login_is_limited_per_address_with_a_higher_bound(login_limit, make_user, settings):
    settings.LANGUAGE_CODE = "en"
    users = [make_user(f"spray{i}{uuid.uuid4().hex[:6]}") for i in range(4)]
    client = Client(REMOTE_ADDR=login_limit, HTTP_COOKIE="django_language=en")
    # Spraying many names from one address: 2 failures each stays under the pair bound...
    for user in users[:3]:
        for _ in range(2):
            assert _login(client, user, "guess").status_code == 200
    # ...but the address has used its 6: every name from it now waits, the right one too.
    blocked = _login(client, users[3])
    assert blocked.status_code == 429
    assert "Try again in 1 minute." in blocked.content.decode()
    assert _login(Client(REMOTE_ADDR="192.0.2.98"), users[3]).status_code == 302


def test_the_wait_message_counts_whole_minutes():
    from django.utils import translation

    from ops.ratelimit import wait_message

    with translation.override("en"):
        assert wait_message(1) == "Too many failed attempts. Try again in 1 minute."
        assert wait_message(61) == "Too many failed attempts. Try again in 2 minutes."
    with translation.override("fr"):
        assert "15 minutes" in wait_message(15 * 60)
    with translation.override("nl"):
        assert "15 minuten" in wait_message(14 * 60 + 1)


def test_admin_login_is_rate_limited_too(login_limit, make_user):
    staff = make_user(f"staff{uuid.uuid4().hex[:6]}")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    client = Client(REMOTE_ADDR=login_limit)
    bad = {"username": staff.username, "password": "guess", "next": "/admin/"}
    for _ in range(3):
        assert client.post("/admin/login/", bad).status_code == 200  # the admin form again
    blocked = client.post("/admin/login/", bad)
    assert blocked.status_code == 429
    assert b"Too many failed attempts" in blocked.content or b"Te veel" in blocked.content
    good = {**bad, "password": f"pw-{staff.username}-123"}
    assert client.post("/admin/login/", good).status_code == 429
    assert "_auth_user_id" not in client.session
    # The site's own login counts the same failures: no side door either way.
    assert client.post("/accounts/login/", good).status_code == 429
    # A staff member elsewhere gets in (the same one too), and the GET works.
    assert Client(REMOTE_ADDR="192.0.2.102").post("/admin/login/", good).status_code == 302
    other = make_user(f"staff{uuid.uuid4().hex[:6]}")
    other.is_staff = True
    other.save(update_fields=["is_staff"])
    fresh = Client(REMOTE_ADDR="192.0.2.101")
    assert fresh.get("/admin/login/").status_code == 200
    response = fresh.post(
        "/admin/login/",
        {"username": other.username, "password": f"pw-{other.username}-123", "next": "/admin/"},
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"


def test_forwarded_for_is_trusted_only_behind_configured_proxies(settings):
    from django.test import RequestFactory

    from ops.ratelimit import client_address

    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.1",
                                   HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.5")  # fmt: skip
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(request) == "127.0.0.1"
    settings.TRUSTED_PROXY_COUNT = 1  # nginx appends the real peer: the spoofed part is ignored
    assert client_address(request) == "203.0.113.5"


async def test_websocket_messages_are_rate_limited_without_state_change(user, settings):
    settings.GAME_WS_RATE = 1
    settings.GAME_WS_BURST = 3
    game = await database_sync_to_async(_game)(user)
    comm, snapshot = await connect_game(game.public_id, user)
    for _ in range(3):
        await comm.send_json_to({"type": "snapshot"})
        assert (await comm.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
    legal = snapshot["state"]["legal"][0]
    await comm.send_json_to({"type": "action", "action": legal, "seq": snapshot["seq"]})
    reply = await comm.receive_json_from(timeout=TIMEOUT)
    assert reply == {"type": "error", "code": "rate_limited", "message": reply["message"]}
    assert await comm.receive_nothing(timeout=0.3)
    after = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert after.seq == game.seq and after.actions == game.actions
    await comm.disconnect()


async def test_a_flooding_connection_is_closed(user, settings):
    settings.GAME_WS_RATE = 1
    settings.GAME_WS_BURST = 2
    game = await database_sync_to_async(_game)(user)
    comm, _ = await connect_game(game.public_id, user)
    closed = None
    for _ in range(40):
        await comm.send_to(text_data='{"type": "snapshot"}')
    for _ in range(60):
        output = await comm.receive_output(timeout=TIMEOUT)
        if output["type"] == "websocket.close":
            closed = output
            break
    assert closed is not None and closed["code"] == 4429
    await comm.disconnect()


async def test_open_game_sockets_are_bounded_per_user(user, other_user, settings):
    settings.GAME_WS_SOCKETS_PER_USER = 3
    game = await database_sync_to_async(_game)(user)
    held = [(await connect_game(game.public_id, user))[0] for _ in range(3)]
    # The fourth is told why and closed, before any database work.
    comm, first = await connect_game(game.public_id, user)
    assert first == {"type": "error", "code": "rate_limited", "message": first["message"]}
    assert "sockets" in first["message"]
    closed = await comm.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close" and closed["code"] == 4429
    # Another player is not affected; a closed socket gives its place back.
    other_game = await database_sync_to_async(_game)(other_user, seed="authz-budget-2")
    other, snap = await connect_game(other_game.public_id, other_user)
    assert snap["type"] == "snapshot"
    await other.disconnect()
    await held.pop().disconnect()
    again, snap = await connect_game(game.public_id, user)
    assert snap["type"] == "snapshot"
    for comm in [*held, again]:
        await comm.disconnect()


async def test_snapshots_are_bounded_per_user_across_sockets(user, settings):
    """Each socket's own message budget is far from spent: the user's snapshot budget,
    shared by all their sockets, is what refuses."""
    settings.GAME_WS_SNAPSHOT_RATE = 1
    settings.GAME_WS_SNAPSHOT_BURST = 4
    game = await database_sync_to_async(_game)(user)
    one, _ = await connect_game(game.public_id, user)  # a snapshot each on connect
    two, _ = await connect_game(game.public_id, user)
    answered = refused = 0
    for comm in (one, two, one, two):
        await comm.send_json_to({"type": "snapshot"})
        reply = await comm.receive_json_from(timeout=TIMEOUT)
        if reply["type"] == "snapshot":
            answered += 1
        else:
            assert reply["code"] == "rate_limited" and "snapshots" in reply["message"]
            refused += 1
    # 4 in the burst: 2 on connect, 2 asked for (one more may have refilled meanwhile).
    assert answered in (2, 3) and refused == 4 - answered
    for comm in (one, two):
        await comm.disconnect()


async def test_oversized_messages_are_refused_and_change_nothing(user, settings):
    game = await database_sync_to_async(_game)(user)
    comm, snapshot = await connect_game(game.public_id, user)
    legal = snapshot["state"]["legal"][0]
    limit = settings.GAME_WS_MAX_MESSAGE_BYTES
    message = {"type": "action", "action": legal, "seq": snapshot["seq"]}
    padded = json.dumps(message)[:-1] + " " * (limit + 1 - len(json.dumps(message))) + "}"
    assert len(padded) == limit + 1
    for text in (padded, "x" * 1_000_000):
        await comm.send_to(text_data=text)
        reply = await comm.receive_json_from(timeout=TIMEOUT)
        assert reply["code"] == "bad_message" and "large" in reply["message"]
    after = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert after.seq == game.seq
    # Still usable: the same move, small, is played.
    await comm.send_json_to(message)
    reply = await comm.receive_json_from(timeout=TIMEOUT)
    assert reply["type"] == "event" and reply["seq"] == snapshot["seq"] + 1
    await comm.disconnect()


def test_socket_budget_doctest():
    import doctest

    from ops import sockets

    assert doctest.testmod(sockets).failed == 0
