"""Bad input and edge cases of tournaments: each gives a clear message and keeps the data
consistent.

- joining a full, closed or ended tournament, a second entry, a removed entry;
- playing after the play window has ended (before the periodic close) and after close:
  refused at move time for the player and the bots, and an "as played" close stops
  the game for good (the table says so and links to the results);
- the close_tournament command goes through the organizer panel's action;
- a club with tournaments cannot be deleted (their results would go with it);
- exports of a tournament without (finished) entries;
- concurrent finishes and joins on PostgreSQL (two connections at once).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import threading
import time
import zipfile

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import ProtectedError
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from engine.bots import bot_seed, get_bot
from game import actions as game_actions
from game.models import Game
from tests.helpers import PRODUCTION_STACK, wait_for_turn
from tests.tournaments.conftest import finish, joined, play_moves
from tournaments import actions, rankings
from tournaments.models import AuditLog, Club, Entry, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

CLOSED_MESSAGE = "this tournament has closed: its games can no longer be played"
WINDOW_MESSAGE = "the tournament's play window has ended: no more moves are accepted"


def english_client(user=None) -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    if user is not None:
        client.force_login(user)
    return client


def page_messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def south_to_lead(entry, user) -> Game:
    """Play on (South with the heuristic bot) until South leads a trick: South's next
    card hands the turn to West, a bot."""
    bot = get_bot("heuristic")
    game = wait_for_turn(entry.game.public_id)
    for _ in range(200):
        state = game.state
        assert not state["game_over"]
        if state["phase"] == "play" and not state["current_trick"]["cards"]:
            return game
        action = bot.act(state, bot_seed(game.seed, state["deal_number"], 0))
        game_actions.apply_action(game.public_id, user, action, game.seq)
        game = wait_for_turn(game.public_id)
    raise AssertionError("South never led a trick")


def a_card(game) -> str:
    return game.state["legal"][0]


def end_the_window(t: Tournament) -> None:
    """The clock passes the end of the play window (the periodic close has not run)."""
    Tournament.objects.filter(pk=t.pk).update(ends_at=timezone.now() - dt.timedelta(seconds=1))


@pytest.fixture
def windowed(make_tournament):
    """A running tournament whose play window ends in an hour."""

    def make(**kwargs):
        return make_tournament(ends_at=timezone.now() + dt.timedelta(hours=1), **kwargs)

    return make


# --- joining ------------------------------------------------------------------------------


def test_joining_a_full_tournament_says_it_is_full(make_tournament, make_user, club):
    t = make_tournament(capacity=1)
    anna, ben = make_user("anna"), make_user("ben")
    joined(t, anna)
    club.members.add(ben)
    response = english_client(ben).post(f"/tournaments/{t.pk}/join/", follow=True)
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/"
    assert page_messages(response) == ["The tournament is full"]
    assert not Entry.objects.filter(tournament=t, player=ben).exists()
    assert t.entries.count() == 1


def test_joining_a_closed_tournament_says_it_is_not_open(make_tournament, make_user, club):
    t = make_tournament()
    actions.close_tournament(t.pk, None)
    anna = make_user("anna")
    club.members.add(anna)
    response = english_client(anna).post(f"/tournaments/{t.pk}/join/", follow=True)
    assert page_messages(response) == ["This tournament is not open"]
    assert not t.entries.exists()


def test_joining_after_the_window_ended_says_so(windowed, make_user, club):
    t = windowed()
    end_the_window(t)
    anna = make_user("anna")
    club.members.add(anna)
    response = english_client(anna).post(f"/tournaments/{t.pk}/join/", follow=True)
    assert page_messages(response) == ["The play window has closed"]
    assert not t.entries.exists()


def test_a_second_entry_leads_back_to_the_first_game(make_tournament, make_user, club):
    t = make_tournament()
    anna = make_user("anna")
    club.members.add(anna)
    client = english_client(anna)
    first = client.post(f"/tournaments/{t.pk}/join/")
    second = client.post(f"/tournaments/{t.pk}/join/")
    entry = Entry.objects.get(tournament=t, player=anna)
    assert first["Location"] == second["Location"] == f"/game/{entry.game.public_id}/"
    assert anna.games.count() == 1
    # The tournament page offers the game to resume, not a second entry.
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "Resume your game" in page and "Play this tournament" not in page


def test_a_removed_entry_gets_no_second_entry_and_its_game_stops(
    make_tournament, make_user, organizer
):
    t = make_tournament()
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 2)
    actions.remove_entry(entry.pk, organizer, "speelde met twee accounts")
    assert actions.join(t.pk, anna).pk == entry.pk  # no fresh entry
    stopped = Game.objects.get(pk=game.pk)
    assert stopped.status == Game.Status.FINISHED and stopped.seq == game.seq
    with pytest.raises(game_actions.PlayClosed, match="removed by the organizer"):
        game_actions.apply_action(game.public_id, anna, a_card(stopped), stopped.seq)
    assert Entry.objects.get(pk=entry.pk).status == Entry.Status.REMOVED
    # Joining again leads to that stopped game, whose table says why.
    client = english_client(anna)
    response = client.post(f"/tournaments/{t.pk}/join/", follow=True)
    assert response.redirect_chain[-1][0] == f"/game/{game.public_id}/"
    page = response.content.decode()
    assert 'data-closed="true"' in page
    assert "Your entry was removed by the organizer: this game can no longer be played." in page
    assert (
        "Your entry was removed by the organizer."
        in client.get(f"/tournaments/{t.pk}/").content.decode()
    )


# --- playing after the window / after close -------------------------------------------------


def test_a_move_after_the_window_ended_is_refused_before_the_periodic_close(windowed, make_user):
    t = windowed()
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 3)
    end_the_window(t)
    with pytest.raises(game_actions.PlayClosed) as refused:
        game_actions.apply_action(game.public_id, anna, a_card(game), game.seq)
    assert refused.value.code == "closed" and str(refused.value) == WINDOW_MESSAGE
    assert Game.objects.get(pk=game.pk).seq == game.seq  # nothing stored
    t.refresh_from_db()
    assert not t.is_closed  # the tick has not run: the check is at move time


def test_bots_do_not_move_after_the_window_ended(windowed, make_user):
    t = windowed()
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = south_to_lead(entry, anna)
    card = a_card(game)
    # South's card and the end of the window commit together: the bots' turn that the
    # card queues (eager here, a worker on the production stack) must not play.
    with transaction.atomic():
        game_actions.apply_action(game.public_id, anna, card, game.seq)
        end_the_window(t)
    after = Game.objects.get(pk=game.pk)
    assert after.seq == game.seq + 1 and after.state["to_move"] == 1
    assert game_actions.play_bots(after.pk, after.seq) == 0
    if PRODUCTION_STACK:
        time.sleep(1.0)  # the worker's task had its chance too
    assert Game.objects.get(pk=game.pk).seq == game.seq + 1


def test_the_periodic_close_then_lets_the_bot_finish_from_where_it_stood(windowed, make_user):
    t = windowed(unfinished_rule="bot")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 4)
    end_the_window(t)
    assert actions.tick()["closed"] == 1
    entry.refresh_from_db()
    done = Game.objects.get(pk=game.pk)
    assert entry.status == Entry.Status.FINISHED and entry.finish_mode == "bot"
    assert done.status == Game.Status.FINISHED and done.actions[: game.seq] == game.actions
    assert entry.score == done.final_score
    with pytest.raises(game_actions.PlayClosed, match="has closed"):
        game_actions.apply_action(game.public_id, anna, "TS", done.seq)


def test_an_as_played_close_stops_the_game_for_good(make_tournament, make_user, organizer):
    t = make_tournament(unfinished_rule="as_played")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 12)
    actions.close_tournament(t.pk, organizer)
    entry.refresh_from_db()
    stopped = Game.objects.get(pk=game.pk)
    assert entry.finish_mode == "as_played" and entry.status == Entry.Status.FINISHED
    assert stopped.status == Game.Status.FINISHED and stopped.seq == game.seq
    assert stopped.final_score == entry.score == entry.game_score
    assert stopped.record  # the record as played, downloadable now that the seed is out
    with pytest.raises(game_actions.PlayClosed) as refused:
        game_actions.apply_action(game.public_id, anna, a_card(stopped), stopped.seq)
    assert str(refused.value) == CLOSED_MESSAGE
    assert game_actions.play_bots(stopped.pk, stopped.seq) == 0
    assert game_actions.autoplay(stopped.pk) == 0
    assert Game.objects.get(pk=game.pk).seq == game.seq
    entry.refresh_from_db()
    assert entry.finish_mode == "as_played" and entry.score == stopped.final_score

    # The table says so and links to the results instead of offering the cards.
    page = english_client(anna).get(f"/game/{game.public_id}/").content.decode()
    assert 'data-closed="true"' in page
    note = page[
        page.index('id="closed-note"') : page.index("</div>", page.index('id="closed-note"'))
    ]
    assert "hidden" not in note.split(">", 1)[0]
    assert "your game was scored as played so far" in note
    assert f'href="/tournaments/{t.pk}/standings/"' in note
    assert english_client(anna).get(f"/tournaments/{t.pk}/standings/").status_code == 200


def test_a_running_tournaments_table_has_no_closed_note(make_tournament, make_user):
    t = make_tournament()
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    page = english_client(anna).get(f"/game/{entry.game.public_id}/").content.decode()
    assert 'data-closed="false"' in page
    tag = page[page.index('id="closed-note"') :].split(">", 1)[0]
    assert "hidden" in tag


def test_the_window_check_costs_no_query_of_its_own(make_tournament, make_user):
    t = make_tournament()
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = wait_for_turn(entry.game.public_id)
    bot = get_bot("heuristic")
    card = bot.act(game.state, bot_seed(game.seed, game.state["deal_number"], 0))
    with CaptureQueriesContext(connection) as ctx:
        game_actions.apply_action(game.public_id, anna, card, game.seq)
    reads = [q["sql"] for q in ctx.captured_queries if "tournaments_tournament" in q["sql"]]
    assert reads, "the move's game row comes with its entry and tournament"
    # Every read of the tournament is the join on the locked game row, no query apart.
    assert all('FROM "game_game"' in sql for sql in reads), reads


def test_closing_again_and_finishing_after_close_change_nothing(
    make_tournament, make_user, organizer
):
    t = make_tournament(unfinished_rule="bot")
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    play_moves(e_ben, ben, 2)
    actions.close_tournament(t.pk, organizer)
    before = {e.pk: (e.status, e.score, e.finish_mode) for e in t.entries.all()}
    assert before[e_anna.pk][2] == "played" and before[e_ben.pk][2] == "bot"
    actions.close_tournament(t.pk, organizer)  # a second click: nothing happens
    assert AuditLog.objects.filter(tournament=t, action="close").count() == 1
    assert {e.pk: (e.status, e.score, e.finish_mode) for e in t.entries.all()} == before


def test_a_close_before_the_bots_last_cards_keeps_a_played_game_the_players(
    make_tournament, make_user, organizer, monkeypatch
):
    """The person played their last card; the bots' last cards of that trick are still
    in the queue when the close comes ('finish by the bot'). The close plays them, and
    the game stays the person's own: not tagged 'bot' (which leaves it out of ratings
    and seasons). Before, any move the close made counted, the bots' own too."""
    from game import tasks as game_tasks

    # The bots' turns wait (a busy queue): each is played below, one at a time.
    monkeypatch.setattr(game_tasks.play_bots, "apply_async", lambda *a, **k: None)
    monkeypatch.setattr(game_actions, "_schedule", lambda *a, **k: None)
    bot = get_bot("heuristic")
    for attempt in range(6):
        t = make_tournament(unfinished_rule="bot", deals=1, seed=f"last-card-{attempt}")
        anna = make_user(f"anna{attempt}")
        (entry,) = joined(t, anna)
        game = Game.objects.get(pk=entry.game_id)
        while not game.state["game_over"]:
            state = game.state
            if state["to_move"] == game_actions.HUMAN_SEAT:
                action = bot.act(state, bot_seed(game.seed, state["deal_number"], 0))
                game_actions.apply_action(game.public_id, anna, action, game.seq)
            elif not state.get("hand") and state.get("phase") == "play":
                break  # the person's hand is empty, the bots' last cards wait
            else:
                game_actions.play_bots(game.pk, game.seq)
            game = Game.objects.get(pk=entry.game_id)
        if not game.state["game_over"]:
            break
    else:
        pytest.fail("South played the last card of every seed tried")
    actions.close_tournament(t.pk, organizer)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.FINISHED
    assert entry.finish_mode == "played"
    # (A person who had moves left is still finished by the bot: the test above.)


@pytest.mark.asyncio
async def test_the_table_hears_the_close_and_refusals_are_translated(
    make_tournament, make_user, organizer
):
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    @database_sync_to_async
    def setup():
        t = make_tournament(unfinished_rule="as_played")
        anna = make_user("anna")
        (entry,) = joined(t, anna)
        game = play_moves(entry, anna, 12)  # a deal played: a result to score as played
        client = Client()
        client.force_login(anna)
        return t, game, f"sessionid={client.cookies['sessionid'].value}"

    t, game, cookie = await setup()
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
               (b"cookie", cookie.encode())]  # fmt: skip
    comm = WebsocketCommunicator(application, f"/ws/game/{game.public_id}/?lang=nl", headers)
    connected, _ = await comm.connect(timeout=10)
    assert connected
    snapshot = await comm.receive_json_from(timeout=10)
    # Messages are handled one by one: once this answer is back, the consumer's own
    # database work after connecting is done (SQLite would refuse two writers).
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=10)) == {"type": "pong"}
    await database_sync_to_async(actions.close_tournament)(t.pk, organizer)
    pushed = await comm.receive_json_from(timeout=10)
    assert pushed == {"type": "closed", "seq": snapshot["seq"], "reason": "as_played"}
    card = snapshot["state"]["legal"][0]
    await comm.send_json_to({"type": "action", "action": card, "seq": snapshot["seq"]})
    reply = await comm.receive_json_from(timeout=10)
    await comm.disconnect()
    with translation.override("nl"):
        dutch = translation.gettext(CLOSED_MESSAGE)
    assert reply == {"type": "error", "code": "closed", "message": dutch}


# --- the close command --------------------------------------------------------------------


def test_the_close_command_sets_the_rule_through_the_action(make_tournament, make_user):
    t = make_tournament(unfinished_rule="bot")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 12)  # a deal played: a result to score as played
    version = Tournament.objects.get(pk=t.pk).rankings_version
    out = io.StringIO()
    call_command("close_tournament", str(t.pk), "--unfinished", "as-played", stdout=out)
    t.refresh_from_db()
    entry.refresh_from_db()
    assert t.is_closed and t.unfinished_rule == "as_played"
    assert "unfinished games: as_played" in out.getvalue()
    log = AuditLog.objects.get(tournament=t, action="close")
    assert log.before == {"unfinished_rule": "bot"} and log.after == {
        "unfinished_rule": "as_played"
    }
    assert entry.finish_mode == "as_played"
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED  # stopped, as in the panel
    assert t.rankings_version > version  # the recomputation ran, as after a close in the panel


def test_the_panel_may_choose_the_rule_at_close_and_refuses_a_bad_one(make_tournament, organizer):
    t = make_tournament(unfinished_rule="bot")
    client = english_client(organizer)
    response = client.post(
        f"/tournaments/{t.pk}/manage/close/", {"unfinished_rule": "sometimes"}, follow=True
    )
    assert page_messages(response) == ["Unknown rule for unfinished games"]
    assert not Tournament.objects.get(pk=t.pk).is_closed
    client.post(f"/tournaments/{t.pk}/manage/close/", {"unfinished_rule": "as_played"})
    t.refresh_from_db()
    assert t.is_closed and t.unfinished_rule == "as_played"


# --- a deleted club -------------------------------------------------------------------------


def test_a_club_with_a_played_tournament_cannot_be_deleted(make_tournament, make_user, club):
    t = make_tournament(name="Kermis")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    finish(entry)
    actions.close_tournament(t.pk, None)
    with pytest.raises(ProtectedError) as refused:
        Club.objects.get(pk=club.pk).delete()
    assert refused.value.protected_objects == {t}
    assert "protected" in str(refused.value)
    assert Club.objects.filter(pk=club.pk).exists()
    entry.refresh_from_db()
    assert entry.deal_results.exists() and entry.status == Entry.Status.FINISHED
    # Still readable by its players (and its club: results for members only by default).
    assert english_client(anna).get(f"/tournaments/{t.pk}/standings/").status_code == 200


def test_a_club_with_only_drafts_is_deleted_with_its_drafts(make_tournament, club):
    draft = make_tournament(open_now=False)
    Club.objects.get(pk=club.pk).delete()
    assert not Club.objects.filter(pk=club.pk).exists()
    assert not Tournament.objects.filter(pk=draft.pk).exists()


def test_the_admin_explains_why_a_club_cannot_be_deleted(make_tournament, make_user, club):
    make_tournament(name="Kermis")
    admin = make_user("admin", is_staff=True, is_superuser=True)
    client = english_client(admin)
    url = f"/admin/tournaments/club/{club.pk}/delete/"
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "protected" in text and "Kermis" in text
    client.post(url, {"post": "yes"})
    assert Club.objects.filter(pk=club.pk).exists()


def test_a_deleted_player_account_leaves_consistent_standings(make_tournament, fake_entry):
    t = make_tournament()
    fake_entry(t, "alice", 40, {1: 40, 2: 35})
    bert = fake_entry(t, "bert", 60, {1: 50, 2: 35})
    rankings.recompute(t.pk)
    assert [(r["player"], r["rank"]) for r in rankings.standings(t)] == [
        ("bert", 1),
        ("alice", 2),
    ]
    version = Tournament.objects.get(pk=t.pk).rankings_version
    bert.player.delete()
    (alice,) = rankings.standings(t)
    assert alice["player"] == "alice" and alice["rank"] == 1  # recomputed after the delete
    assert Tournament.objects.get(pk=t.pk).rankings_version == version + 1


# --- exports of an empty tournament ---------------------------------------------------------

EXPORTS = ("standings.csv", "standings.json", "travellers.csv", "travellers.json")


def test_exports_of_a_tournament_nobody_entered(make_tournament, tmp_path):
    t = make_tournament(name="Leeg", results_audience="everyone")  # read logged out
    actions.close_tournament(t.pk, None)
    client = english_client()
    got = {kind: client.get(f"/tournaments/{t.pk}/export/{kind}") for kind in EXPORTS}
    assert all(r.status_code == 200 for r in got.values())
    rows = list(csv.reader(io.StringIO(got["standings.csv"].content.decode("utf-8-sig"))))
    assert rows == [rows[0]] and rows[0][:2] == ["rank", "player"]
    assert json.loads(got["standings.json"].content)["standings"] == []
    assert json.loads(got["travellers.json"].content)["travellers"] == []
    assert len(got["travellers.csv"].content.decode().strip().splitlines()) == 1

    html = client.get(f"/tournaments/{t.pk}/results/").content.decode()
    assert "Nobody finished this tournament: there are no results." in html
    assert "No travellers: no deal has been played by an entry that finished." in html
    pdf = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    records = client.get(f"/tournaments/{t.pk}/export/records.zip")
    with zipfile.ZipFile(io.BytesIO(records.content)) as zf:
        assert zf.namelist() == ["standings.json"]
        assert json.loads(zf.read("standings.json"))["standings"] == []
    text = client.get(f"/tournaments/{t.pk}/export/records.txt")
    assert text.status_code == 200 and "no games" in text.content.decode()
    from engine import records as engine_records

    assert engine_records.read_many(text.content.decode()) == []

    out = io.StringIO()
    call_command("export_tournament", str(t.pk), "--format", "json", stdout=out)
    assert json.loads(out.getvalue())["standings"] == []
    call_command("export_tournament", str(t.pk), "--format", "pdf", "-o", str(tmp_path / "r.pdf"))
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")
    call_command(
        "export_tournament", str(t.pk), "--format", "records-zip", "-o", str(tmp_path / "r.zip")
    )
    assert zipfile.is_zipfile(tmp_path / "r.zip")
    call_command(
        "export_tournament", str(t.pk), "--format", "records", "-o", str(tmp_path / "r.txt")
    )
    assert "no games" in (tmp_path / "r.txt").read_text(encoding="utf-8")


def test_exports_while_no_entry_has_finished(make_tournament, make_user, organizer):
    t = make_tournament()
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    play_moves(entry, anna, 2)
    # The player still playing sees no results, and is told why.
    player = english_client(anna)
    refused = player.get(f"/tournaments/{t.pk}/export/standings.csv")
    assert refused.status_code == 403
    # The organizer (who then may no longer enter: asked first) gets empty but valid
    # exports.
    client = english_client(organizer)
    asked = client.get(f"/tournaments/{t.pk}/export/standings.csv")
    assert asked.status_code == 200 and b"data-look-first" in asked.content
    client.post(f"/tournaments/{t.pk}/look/", {"next": f"/tournaments/{t.pk}/standings/"})
    for kind in EXPORTS:
        assert client.get(f"/tournaments/{t.pk}/export/{kind}").status_code == 200
    data = json.loads(client.get(f"/tournaments/{t.pk}/export/standings.json").content)
    assert data["standings"] == [] and data["tournament"]["seed"] is None
    html = client.get(f"/tournaments/{t.pk}/results/").content.decode()
    assert "No entry has finished yet: there are no results so far." in html
    assert client.get(f"/tournaments/{t.pk}/results.pdf").content.startswith(b"%PDF")
    # The records name the seed: only after close, with a clear refusal before.
    assert client.get(f"/tournaments/{t.pk}/export/records.zip").status_code == 403


# --- two connections at once (PostgreSQL) ---------------------------------------------------

needs_postgresql = pytest.mark.skipif(
    not PRODUCTION_STACK,
    reason="row locks across connections: run with DATABASE_URL/REDIS_URL (as CI does)",
)


def run_in_threads(*targets):
    """Run each target in its own thread (its own database connection); re-raise."""
    errors: list[BaseException] = []
    results: list = [None] * len(targets)

    def wrap(i, target):
        try:
            results[i] = target()
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=wrap, args=(i, t)) for i, t in enumerate(targets)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a thread is stuck"
    if errors:
        raise errors[0]
    return results


def waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        # Inside a transaction the activity view is a snapshot, unless cleared first.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def meet_at_the_tournament_row(pk: int, *targets) -> None:
    """Run each target in its own thread, all of them waiting behind the tournament's
    row, held here until every one waits for it: they really meet."""
    ready, release = threading.Event(), threading.Event()

    def hold():
        with transaction.atomic():
            Tournament.objects.select_for_update().get(pk=pk)
            ready.set()
            release.wait(60)

    def behind(target):
        def run():
            ready.wait(60)
            target()

        return run

    def release_when_all_wait():
        ready.wait(60)
        until(lambda: waiting_on_locks() >= len(targets))
        release.set()

    run_in_threads(hold, *[behind(target) for target in targets], release_when_all_wait)


def until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@needs_postgresql
def test_two_entries_finishing_at_the_same_moment_both_count(make_tournament, make_user):
    t = make_tournament(seed="same-moment")
    anna, ben, carl = make_user("anna"), make_user("ben"), make_user("carl")
    e_carl, e_anna, e_ben = joined(t, carl, anna, ben)
    finish(e_carl)
    for e in (e_anna, e_ben):
        wait_for_turn(e.game.public_id)
    both_done = threading.Barrier(2, timeout=60)

    def last_move(entry):
        def run():
            # The whole finish (game, entry, deal results) is written, then both
            # transactions wait for each other and commit at the same moment.
            with transaction.atomic():
                assert game_actions.autoplay(entry.game_id) > 0
                both_done.wait()
            return True

        return run

    assert run_in_threads(last_move(e_anna), last_move(e_ben)) == [True, True]
    entries = {e.player.username: e for e in Entry.objects.filter(tournament=t)}
    assert all(e.status == Entry.Status.FINISHED for e in entries.values())
    assert sorted(e.rank for e in entries.values())[0] == 1
    assert all(e.rank is not None and e.matchpoints is not None for e in entries.values())
    # The recomputations that ran in both threads saw both finishes: a fresh one from
    # scratch changes nothing.
    stored = {n: (e.rank, e.matchpoints, e.deal_matchpoints) for n, e in entries.items()}
    assert sum(e.matchpoints for e in entries.values()) == 3 * 2  # 3 entries: 2·C(3,2)
    rankings.recompute(t.pk)
    again = {
        e.player.username: (e.rank, e.matchpoints, e.deal_matchpoints)
        for e in Entry.objects.filter(tournament=t)
    }
    assert again == stored
    assert [r["player"] for r in rankings.standings(t)] == sorted(
        stored, key=lambda n: (stored[n][0], entries[n].pk)
    )


@needs_postgresql
def test_the_last_place_goes_to_one_of_two_joining_at_once(make_tournament, make_user, club):
    t = make_tournament(capacity=2)
    anna, ben, carl = make_user("anna"), make_user("ben"), make_user("carl")
    club.members.add(anna, ben, carl)
    actions.join(t.pk, anna)
    outcome: dict[str, str] = {}

    def try_join(user):
        def run():
            try:
                actions.join(t.pk, user)
                outcome[user.username] = "in"
            except actions.CannotJoin as exc:
                outcome[user.username] = str(exc)

        return run

    meet_at_the_tournament_row(t.pk, try_join(ben), try_join(carl))
    assert sorted(outcome.values()) == ["in", "the tournament is full"]
    assert Entry.objects.filter(tournament=t).count() == 2
    assert Game.objects.filter(owner__in=[ben, carl]).count() == 1  # no orphan game


@needs_postgresql
def test_one_account_joining_twice_at_once_gets_one_entry(make_tournament, make_user, club):
    t = make_tournament()
    anna = make_user("anna")
    club.members.add(anna)
    results = run_in_threads(
        lambda: actions.join(t.pk, anna).pk, lambda: actions.join(t.pk, anna).pk
    )
    assert results[0] == results[1]
    assert Entry.objects.filter(tournament=t, player=anna).count() == 1
    assert anna.games.count() == 1


@needs_postgresql
def test_a_close_and_a_last_card_at_the_same_moment(make_tournament, make_user, organizer):
    """The close waits for the game's row like a move does (game, then entry): the last
    card counts as played, and neither side deadlocks."""
    t = make_tournament(unfinished_rule="bot")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    wait_for_turn(entry.game.public_id)
    game_locked, closing = threading.Event(), threading.Event()

    def player_finishes():
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=entry.game_id)  # the move has begun
            game_locked.set()
            closing.wait(60)
            until(lambda: waiting_on_locks() >= 1)  # the close waits for this game
            game_actions.autoplay(entry.game_id)  # ... and its last card is played

    def organizer_closes():
        game_locked.wait(60)
        closing.set()
        actions.close_tournament(t.pk, organizer)

    run_in_threads(player_finishes, organizer_closes)
    entry.refresh_from_db()
    t.refresh_from_db()
    assert t.is_closed
    assert entry.status == Entry.Status.FINISHED and entry.finish_mode == "played"
    assert entry.score == Game.objects.get(pk=entry.game_id).final_score
