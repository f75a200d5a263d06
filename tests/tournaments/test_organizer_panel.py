"""Organizer panel: only organizers; create, close (with the unfinished rule), correct, remove."""

from __future__ import annotations

import re

import pytest

from game.models import Game
from tests.tournaments.conftest import finish, joined, play_moves
from tournaments import actions
from tournaments.models import AuditLog, Entry, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


ORGANIZER_GETS = ["manage/", "manage/deals/"]
ORGANIZER_POSTS = ["manage/close/", "manage/open/"]


@pytest.mark.parametrize("page", ORGANIZER_GETS)
def test_organizer_pages_refused_for_players(make_tournament, make_user, club, client, page):
    t = make_tournament()
    anna = make_user("anna")
    club.members.add(anna)
    client.force_login(anna)
    assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 403


@pytest.mark.parametrize("page", ORGANIZER_POSTS)
def test_organizer_actions_refused_for_players(make_tournament, make_user, club, client, page):
    t = make_tournament()
    anna = make_user("anna")
    club.members.add(anna)
    client.force_login(anna)
    assert client.post(f"/tournaments/{t.pk}/{page}").status_code == 403
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING


def test_correction_and_removal_refused_for_players(make_tournament, make_user, client):
    t = make_tournament(seed="refuse-corrections")
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, _ = joined(t, anna, ben)
    finish(e_anna)
    client.force_login(ben)
    base = f"/tournaments/{t.pk}/manage/entry/{e_anna.pk}"
    assert client.post(f"{base}/correct/", {"score": 99, "reason": "x"}).status_code == 403
    assert client.post(f"{base}/remove/", {"reason": "x"}).status_code == 403
    e_anna.refresh_from_db()
    assert e_anna.score == e_anna.game_score and e_anna.status == Entry.Status.FINISHED
    assert not AuditLog.objects.filter(action__in=["correct_score", "remove_entry"]).exists()


def test_organizer_creates_a_tournament_through_the_panel(client, organizer, club):
    client.force_login(organizer)
    assert client.get("/tournaments/new/").status_code == 200
    response = client.post(
        "/tournaments/new/",
        {
            "name": "Vrijdagavond", "club": club.pk, "rules": "flemish", "bot_level": "heuristic",
            "capacity": 12, "results_visibility": "after_finish", "unfinished_rule": "as_played",
            "seed": "gegeven-seed", "open_now": "on",
        },
    )  # fmt: skip
    t = Tournament.objects.get(name="Vrijdagavond")
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{t.pk}/manage/"
    assert t.seed == "gegeven-seed" and t.capacity == 12 and t.status == "running"
    assert t.deals.count() == 40
    assert client.get(f"/tournaments/{t.pk}/manage/").status_code == 200


def test_a_player_cannot_create_a_tournament_for_a_club_they_do_not_run(client, make_user, club):
    anna = make_user("anna")
    club.members.add(anna)
    with pytest.raises(actions.NotAllowed):
        actions.create_tournament(anna, name="x", club=club)
    client.force_login(anna)
    client.post("/tournaments/new/", {"name": "x", "club": club.pk, "rules": "flemish"})
    assert not Tournament.objects.filter(name="x").exists()


def test_close_finishes_unfinished_games_by_the_bot(make_tournament, make_user, organizer):
    t = make_tournament(seed="close-by-bot", unfinished_rule="bot")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    play_moves(entry, anna, 3)
    actions.close_tournament(t.pk, organizer)
    entry.refresh_from_db()
    t.refresh_from_db()
    assert t.status == "closed" and t.closed_at is not None
    assert entry.status == "finished" and entry.finish_mode == "bot"
    assert Game.objects.get(pk=entry.game_id).status == "finished"
    assert entry.score == Game.objects.get(pk=entry.game_id).final_score


def test_close_scores_unfinished_games_as_played_so_far(make_tournament, make_user, organizer):
    t = make_tournament(seed="close-as-played", unfinished_rule="as_played")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    game = play_moves(entry, anna, 12)
    import engine

    eng = engine.Game.replay(game.seed, game.rules, game.actions)
    actions.close_tournament(t.pk, organizer)
    entry.refresh_from_db()
    assert entry.status == "finished" and entry.finish_mode == "as_played"
    assert entry.score == eng.score_for(0)
    assert entry.deals_played == len(eng.results)
    # Playing on afterwards changes nothing: the tournament is closed.
    finish_game = Game.objects.get(pk=entry.game_id)
    from game import actions as game_actions

    game_actions.autoplay(finish_game.pk)
    entry.refresh_from_db()
    assert entry.finish_mode == "as_played" and entry.score == eng.score_for(0)


@pytest.mark.parametrize("rule", ["as_played", "bot"])
def test_a_no_show_at_close_has_no_result_and_is_not_ranked(
    make_tournament, make_user, organizer, client, rule
):
    """ben joined and never played. Scored "as played" he had 0 over 0 deals, ranked
    above anna's negative score; "by the bot", the bot played his whole game. Either
    way he has no result: not ranked (so not rated, nor in a season)."""
    t = make_tournament(seed=f"no-show-{rule}", unfinished_rule=rule)
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    actions.close_tournament(t.pk, organizer)
    from tournaments import rankings

    rankings.recompute(t.pk)
    e_anna.refresh_from_db()
    e_ben.refresh_from_db()
    assert e_ben.status == "absent" and e_ben.rank is None and e_ben.score is None
    assert e_anna.rank == 1
    assert [row["player"] for row in rankings.standings(t)] == ["anna"]
    game = Game.objects.get(pk=e_ben.game_id)
    from game import actions as game_actions

    # Stopped where it stood: no bot played it out.
    assert game.status == "finished" and not game_actions.replay(game).is_terminal()
    client.force_login(ben)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "data-absent-note" in page and "niet in de rangschikking" in page
    assert "niet gespeeld" in client.get("/accounts/profile/").content.decode()


def test_correcting_a_score_needs_a_reason_and_is_logged(
    make_tournament, make_user, organizer, client
):
    t = make_tournament(seed="corrections")
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    finish(e_ben)
    with pytest.raises(actions.TournamentError):
        actions.correct_score(e_anna.pk, organizer, 50, "  ")
    actions.correct_score(e_anna.pk, organizer, 50, "verkeerde kaart na storing")
    e_anna.refresh_from_db()
    assert e_anna.score == 50
    assert e_anna.game_score == Game.objects.get(pk=e_anna.game_id).final_score
    log = AuditLog.objects.get(action="correct_score")
    assert log.actor == organizer and log.reason == "verkeerde kaart na storing"
    assert log.before["score"] == e_anna.game_score and log.after == {"score": 50}
    # The panel marks the corrected score, as the standings and exports do.
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert panel.count("data-corrected") == 1
    assert re.search(r">50 <span data-corrected[^>]*>\*</span>", panel)


def test_removing_an_entry_drops_it_from_the_standings(
    make_tournament, make_user, organizer, client
):
    t = make_tournament(seed="removals")
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    finish(e_ben)
    client.force_login(organizer)
    response = client.post(
        f"/tournaments/{t.pk}/manage/entry/{e_ben.pk}/remove/", {"reason": "dubbel account"}
    )
    assert response.status_code == 302
    e_ben.refresh_from_db()
    assert e_ben.status == "removed"
    client.cookies["django_language"] = "nl"
    panel = client.get(response["Location"]).content.decode()
    assert "De inschrijving van ben is verwijderd." in panel  # the organizer is told
    client.force_login(ben)  # ... and ben's page says why he sees no standings yet
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "De organisator heeft je inschrijving verwijderd." in page
    assert "zodra je je eigen spel" not in page
    from tournaments import rankings

    assert [r["player"] for r in rankings.standings(t)] == ["anna"]
    # The removed player cannot come back with a fresh entry.
    again = actions.join(t.pk, ben)
    assert again.pk == e_ben.pk and again.status == "removed"


def test_a_draft_cannot_be_closed(make_tournament, organizer):
    t = make_tournament(open_now=False)
    with pytest.raises(actions.TournamentError):
        actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    assert t.status == "draft"


def test_a_removed_entry_frees_its_place(make_tournament, make_user, organizer):
    t = make_tournament(capacity=1)
    anna, ben = make_user("anna"), make_user("ben")
    (e_anna,) = joined(t, anna)
    actions.remove_entry(e_anna.pk, organizer, "speelt niet mee")
    (e_ben,) = joined(t, ben)
    assert e_ben.status == "playing"


def test_the_panel_lists_the_ranked_first_and_offers_a_playing_organizer_no_peek(
    make_tournament, make_user, organizer, client
):
    """After close the ranked entries come first (a removed one or one that did not play
    after them, on SQLite as on PostgreSQL); an organizer who plays is not offered the
    standings before finishing (that link could only be refused)."""
    t = make_tournament(seed="panel-order")
    anna, ben, cor = make_user("anna"), make_user("ben"), make_user("cor")
    e_anna, e_ben, e_cor = joined(t, anna, ben, cor)
    actions.remove_entry(e_anna.pk, organizer, "weg")
    finish(e_ben)
    actions.close_tournament(t.pk, organizer)  # cor never played
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert page.index(">ben<") < page.index(">anna<") and page.index(">ben<") < page.index(">cor<")
    running = make_tournament(name="Meespelen")  # no seed chosen: may play
    joined(running, organizer, make_user("dirk"))
    page = client.get(f"/tournaments/{running.pk}/manage/").content.decode()
    hidden = page[page.index("data-results-hidden") :]
    hidden = hidden[: hidden.index("</p>")]
    assert f"/tournaments/{running.pk}/standings/" not in hidden


def test_a_correction_is_no_way_round_the_results_rule(make_tournament, make_user, organizer, club):
    """A correction sent by hand (the panel hides the form): an organizer still playing
    is refused, scores unchanged and nothing said about them; one without an entry has
    seen the scores by correcting (even a refused 'that is the score already written'),
    so cannot enter afterwards."""
    t = make_tournament(seed="correct-by-hand")
    anna = make_user("anna")
    (e_anna,) = joined(t, anna)
    finish(e_anna)
    e_anna.refresh_from_db()
    helper = make_user("helper")
    club.organizers.add(helper)
    joined(t, helper)  # an organizer with a game still being played
    for score in (e_anna.score, e_anna.score + 7):
        with pytest.raises(actions.NotAllowed, match="once your own game is finished"):
            actions.correct_score(e_anna.pk, helper, score, "probe")
    e_anna.refresh_from_db()
    assert e_anna.score == e_anna.game_score
    assert not AuditLog.objects.filter(action="correct_score").exists()
    other = make_user("other")  # an organizer who did not give the seed
    club.organizers.add(other)
    assert not actions.has_seen(t, other)
    with pytest.raises(actions.TournamentError, match="already written"):
        actions.correct_score(e_anna.pk, other, e_anna.score, "probe")
    assert actions.has_seen(t, other)
    with pytest.raises(actions.CannotJoin, match="seen"):
        actions.join(t.pk, other)


def test_the_panel_keeps_the_standings_order_from_an_organizer_who_may_not_see_it(
    make_tournament, make_user, organizer, club, client
):
    """Scores hidden ('until you have finished your own game, or choose to look') means
    the order too: the entries are listed as they joined, not by rank, until then."""
    from tournaments.models import Entry

    t = make_tournament(name="Volgorde")  # nobody gave the seed: organizers may play
    anna, ben, cor = make_user("anna"), make_user("ben"), make_user("cor")
    entries = joined(t, anna, ben, cor)
    for entry in entries:
        finish(entry)
    from tests.helpers import wait_for_idle_worker

    wait_for_idle_worker()  # the rankings of the finishes are written before the ranks below
    for entry, rank in zip(entries, (3, 2, 1), strict=True):  # cor leads, anna last
        Entry.objects.filter(pk=entry.pk).update(rank=rank)
    helper = make_user("helper")
    club.organizers.add(helper)
    joined(t, helper)  # an organizer still playing

    def order(user) -> list[str]:
        client.force_login(user)
        page = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
        return sorted(("anna", "ben", "cor"), key=lambda n: page.index(f">{n}<"))

    assert order(helper) == ["anna", "ben", "cor"]
    assert order(organizer) == ["anna", "ben", "cor"]  # has not chosen to look
    actions.mark_seen(t, organizer)
    assert order(organizer) == ["cor", "ben", "anna"]
