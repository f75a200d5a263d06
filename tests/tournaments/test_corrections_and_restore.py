"""Issue 10 item 16: a corrected score shows in the player's end dialog and in their
list of games too; removing an entry asks first, and a removed entry can be restored by
the organizer (logged like a correction)."""

from __future__ import annotations

import re

import pytest

from game.models import Game
from tests.helpers import wait_for_turn
from tests.tournaments.conftest import finish, joined, play_moves
from tournaments import actions, rankings
from tournaments.models import AuditLog, Entry

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def english(client):
    client.cookies["django_language"] = "en"


def _corrected(make_tournament, make_user, organizer):
    t = make_tournament(seed="corrected-seed")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = finish(entry)
    entry.refresh_from_db()
    new = game.final_score + 17
    actions.correct_score(entry.pk, organizer, new, "telfout")
    return t, anna, entry, game, new


def test_the_end_dialog_shows_the_corrected_score(make_tournament, make_user, organizer, client):
    t, anna, entry, game, new = _corrected(make_tournament, make_user, organizer)
    client.force_login(anna)
    body = client.get(f"/game/{game.public_id}/").content.decode()
    assert f'data-end-corrected="{new}"' in body
    assert f"Corrected by the organizer: {new} counts in the tournament." in body


def test_your_games_list_shows_the_corrected_score(make_tournament, make_user, organizer, client):
    t, anna, entry, game, new = _corrected(make_tournament, make_user, organizer)
    client.force_login(anna)
    body = re.sub(r"\s+", " ", client.get("/").content.decode())
    assert f"score {new} <span data-corrected>(corrected by the organizer)</span>" in body
    assert f"score {game.final_score}<" not in body and f"score {game.final_score} " not in body


def test_an_uncorrected_game_shows_no_correction(make_tournament, make_user, client):
    t = make_tournament(seed="plain-seed")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = finish(entry)
    client.force_login(anna)
    assert "data-end-corrected" not in client.get(f"/game/{game.public_id}/").content.decode()
    assert "data-corrected" not in client.get("/").content.decode()


def test_remove_asks_first_and_a_removed_entry_offers_restore(
    make_tournament, make_user, organizer, client
):
    t = make_tournament(seed="ask-first")
    e_anna, e_ben = joined(t, make_user("anna"), make_user("ben"))
    actions.remove_entry(e_ben.pk, organizer, "dubbel account")
    client.force_login(organizer)
    body = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    remove_url = f"/tournaments/{t.pk}/manage/entry/{e_anna.pk}/remove/"
    # The remove form is inside a closed <details>: a first tap asks, a second removes.
    confirm = re.search(r'<details class="t-confirm" data-remove>(.*?)</details>', body, re.S)
    assert confirm and remove_url in confirm.group(1) and "Yes, remove" in confirm.group(1)
    assert "Remove the entry of anna?" in confirm.group(1)
    assert f"/tournaments/{t.pk}/manage/entry/{e_ben.pk}/restore/" in body
    assert f"/tournaments/{t.pk}/manage/entry/{e_ben.pk}/remove/" not in body


def test_restoring_a_finished_entry_puts_it_back_in_the_standings(
    make_tournament, make_user, organizer, client
):
    t = make_tournament(seed="restore-finished")
    e_anna, e_ben = joined(t, make_user("anna"), make_user("ben"))
    finish(e_anna), finish(e_ben)
    actions.remove_entry(e_ben.pk, organizer, "dubbel account")
    assert [r["player"] for r in rankings.standings(t)] == ["anna"]
    client.force_login(organizer)
    url = f"/tournaments/{t.pk}/manage/entry/{e_ben.pk}/restore/"
    assert client.post(url, {"reason": ""}).status_code == 302  # refused: no reason
    assert Entry.objects.get(pk=e_ben.pk).status == "removed"
    assert client.post(url, {"reason": "toch geen dubbel"}).status_code == 302
    e_ben.refresh_from_db()
    assert e_ben.status == "finished"
    assert sorted(r["player"] for r in rankings.standings(t)) == ["anna", "ben"]
    log = AuditLog.objects.get(action="restore_entry")
    assert log.actor == organizer and log.reason == "toch geen dubbel"
    assert log.before == {"status": "removed", "player": "ben"} and log.after == {
        "status": "finished"
    }
    body = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert "restored the entry of ben" in body and "toch geen dubbel" in body


def test_restoring_an_entry_being_played_lets_the_player_go_on(
    make_tournament, make_user, organizer
):
    t = make_tournament(seed="restore-playing")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 3)
    actions.remove_entry(entry.pk, organizer, "per ongeluk")
    assert Game.objects.get(pk=game.pk).status == "finished"  # stopped
    actions.restore_entry(entry.pk, organizer, "vergissing")
    entry.refresh_from_db()
    game = wait_for_turn(game.public_id)
    assert entry.status == "playing" and game.status == "active"
    assert game.final_score is None and game.record == ""
    play_moves(entry, anna, 1)  # a move is accepted again
    finish(entry)
    entry.refresh_from_db()
    assert entry.status == "finished" and entry.finish_mode == "played"


@pytest.mark.parametrize("rule", ["bot", "as_played"])
def test_restoring_after_close_ends_the_game_by_the_tournaments_rule(
    make_tournament, make_user, organizer, rule
):
    t = make_tournament(seed=f"restore-closed-{rule}", unfinished_rule=rule)
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 12)
    actions.remove_entry(entry.pk, organizer, "weg")
    actions.close_tournament(t.pk, organizer)
    actions.restore_entry(entry.pk, organizer, "toch meetellen")
    entry.refresh_from_db()
    game = Game.objects.get(pk=game.pk)
    assert entry.status == "finished" and entry.finish_mode == rule
    assert game.status == "finished" and entry.score == game.final_score
    assert game.state["game_over"] is (rule == "bot")


def test_restore_is_refused_when_full_not_removed_or_not_an_organizer(
    make_tournament, make_user, organizer
):
    t = make_tournament(capacity=1, seed="restore-full")
    anna, ben = make_user("anna"), make_user("ben")
    (e_anna,) = joined(t, anna)
    actions.remove_entry(e_anna.pk, organizer, "weg")
    joined(t, ben)  # took the freed place
    with pytest.raises(actions.TournamentError, match="full"):
        actions.restore_entry(e_anna.pk, organizer, "terug")
    with pytest.raises(actions.NotAllowed):
        actions.restore_entry(e_anna.pk, ben, "terug")
    e_ben = Entry.objects.get(player=ben)
    with pytest.raises(actions.TournamentError, match="only a removed entry"):
        actions.restore_entry(e_ben.pk, organizer, "terug")
    assert not AuditLog.objects.filter(action="restore_entry").exists()


@pytest.mark.parametrize("rule", ["bot", "as_played"])
def test_an_entry_without_a_result_restored_after_close_is_not_ranked(
    make_tournament, make_user, organizer, rule
):
    """Removed and restored after close, an entry that never made a move of its own
    (bot) or never finished a deal (as played) is "did not play" again, as the close
    left it: not a whole game played by the bot for someone who never came."""
    t = make_tournament(seed=f"restore-absent-{rule}", unfinished_rule=rule)
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    actions.close_tournament(t.pk, organizer)
    e_ben.refresh_from_db()
    assert e_ben.status == "absent"
    moves = list(Game.objects.get(pk=e_ben.game_id).actions)
    actions.remove_entry(e_ben.pk, organizer, "weg")
    actions.restore_entry(e_ben.pk, organizer, "terug")
    e_ben.refresh_from_db()
    game = Game.objects.get(pk=e_ben.game_id)
    assert e_ben.status == "absent" and e_ben.rank is None and e_ben.finish_mode != "bot"
    assert game.status == "finished" and game.actions == moves  # the bot played nothing
    assert [r["player"] for r in rankings.standings(t)] == ["anna"]


def test_an_entry_removed_twice_is_refused_the_second_time(make_tournament, make_user, organizer):
    t = make_tournament(seed="remove-twice")
    (entry,) = joined(t, make_user("anna"))
    actions.remove_entry(entry.pk, organizer, "weg")
    with pytest.raises(actions.TournamentError, match="removed already"):
        actions.remove_entry(entry.pk, organizer, "nog eens weg")
    assert AuditLog.objects.filter(action="remove_entry").count() == 1


def test_a_correction_out_of_range_is_refused_not_a_server_error(
    make_tournament, make_user, organizer, client
):
    t, anna, entry, game, new = _corrected(make_tournament, make_user, organizer)
    client.force_login(organizer)
    url = f"/tournaments/{t.pk}/manage/entry/{entry.pk}/correct/"
    for score in ("99999999999999999999999", "-1000000", "1e3"):
        page = client.post(url, {"score": score, "reason": "typo"}, follow=True)
        assert page.status_code == 200
        assert "The new score is a whole number from -100000 to 100000" in page.content.decode()
    entry.refresh_from_db()
    assert entry.score == new
    with pytest.raises(actions.TournamentError, match="from -100000 to 100000"):
        actions.correct_score(entry.pk, organizer, 10**15, "typo")
    with pytest.raises(actions.TournamentError, match="score already written"):
        actions.correct_score(entry.pk, organizer, new, "nog eens")
    assert AuditLog.objects.filter(action="correct_score").count() == 1
