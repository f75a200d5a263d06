"""Compare: your deals beside the field, a side-by-side replay, the bot in your seat."""

from __future__ import annotations

import pytest

from game import actions as game_actions
from game.models import Game
from tests.tournaments.conftest import finish, joined
from tournaments import rankings, replays
from tournaments.models import DealResult

pytestmark = pytest.mark.usefixtures("live_game_db")


def _first_move_differs(entry, user):
    """South's first choice is another legal action than the bot's; then the bot plays on."""
    game = Game.objects.get(pk=entry.game_id)
    legal = game.state["legal"]
    assert game.state["to_move"] == 0 and len(legal) > 1
    game_actions.apply_action(game.public_id, user, legal[-1], game.seq)
    return finish(entry)


@pytest.fixture
def two_plays(make_tournament, make_user):
    t = make_tournament(seed="compare-seed-3")
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    _first_move_differs(e_ben, ben)
    return t, anna, ben, e_anna, e_ben


def test_first_difference_of_two_action_lists():
    assert replays.first_difference(["trump:H", "TS", "7S"], ["trump:H", "AS", "7S"]) == 1
    assert replays.first_difference(["a", "b"], ["a", "b"]) is None
    assert replays.first_difference(["a"], ["a", "b"]) == 1


def test_compare_needs_your_own_finished_game(make_tournament, make_user, client, two_plays):
    t, *_ = two_plays
    late = make_user("laatkomer")
    t.club.members.add(late)
    client.force_login(late)
    assert client.get(f"/tournaments/{t.pk}/compare/").status_code == 403
    assert client.get(f"/tournaments/{t.pk}/compare/1/").status_code == 403


def test_compare_lists_your_deals_beside_the_field_and_the_bots_par(two_plays, client):
    t, anna, *_ = two_plays
    client.force_login(anna)
    response = client.get(f"/tournaments/{t.pk}/compare/")
    assert response.status_code == 200
    rows = response.context["rows"]
    assert rows[0]["number"] == 1 and rows[0]["played_by"] == 2
    # Every column is explained under the table, not only the bot's.
    legend = response.content.decode().split("data-compare-legend>")[1].split("</p>")[0]
    for words in ("Kaartpunten van je ploeg", "het gemiddelde", "MP:", "Gespeeld door:"):
        assert words in legend, legend
    # What an MP figure is out of: 2 per other entry (a field of two: 2).
    assert "Een deel geeft hoogstens 2 MP: 2 per andere inschrijving." in legend, legend
    assert rows[0]["par"] is not None and 0 <= rows[0]["par"] <= 60
    # Your Neuberg value on each deal is the traveller's (both computed when read).
    e_anna = two_plays[3]
    for row in rows:
        (mine,) = [r for r in rankings.traveller(t, row["number"]) if r["entry"] == e_anna.pk]
        assert row["neuberg"] == mine["neuberg"] and row["mine"] == mine["card_points"][0]


def test_side_by_side_replay_of_results_without_a_stored_play(make_tournament, fake_entry, client):
    """Results stored without their play (DealPlay) still open: an empty replay."""
    t = make_tournament(seed="no-plays")
    a = fake_entry(t, "alice", 10, {1: 40})
    fake_entry(t, "bert", 5, {1: 20})
    client.force_login(a.player)
    response = client.get(f"/tournaments/{t.pk}/compare/1/")
    assert response.status_code == 200 and response.context["steps"] == []


def test_side_by_side_replay_highlights_the_first_differing_card(two_plays, client):
    t, anna, ben, e_anna, e_ben = two_plays
    mine = DealResult.objects.get(entry=e_anna, number=1).play
    theirs = DealResult.objects.get(entry=e_ben, number=1).play
    expected = replays.first_difference(mine.actions, theirs.actions)
    assert expected is not None
    client.force_login(anna)
    response = client.get(f"/tournaments/{t.pk}/compare/1/?entry={e_ben.pk}")
    assert response.status_code == 200
    assert response.context["first_diff"] == expected + 1
    flagged = [s for s in response.context["steps"] if s["first_diff"]]
    assert len(flagged) == 1 and flagged[0]["index"] == expected + 1
    assert flagged[0]["mine"]["action"] != flagged[0]["other"]["action"]
    assert "data-first-diff" in response.content.decode()


def test_traveller_lists_both_entries_with_neuberg_points(two_plays, client):
    t, anna, *_ = two_plays
    client.force_login(anna)
    response = client.get(f"/tournaments/{t.pk}/deal/1/")
    assert response.status_code == 200
    rows = response.context["rows"]
    assert {r["player"] for r in rows} == {"anna", "ben"}
    assert sorted(r["neuberg"] for r in rows) in ([0.0, 2.0], [1.0, 1.0])


def test_a_refusal_by_the_fairness_rules_is_logged_in_one_line(
    make_user, client, two_plays, caplog
):
    """Django logs a view's PermissionDenied with its traceback at WARNING; an operator's
    log filled with one per refusal (ops/logs.py keeps the line, drops the traceback)."""
    import logging

    t, *_ = two_plays
    late = make_user("nieuwsgierig")
    t.club.members.add(late)
    client.force_login(late)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get(f"/tournaments/{t.pk}/compare/").status_code == 403
    (line,) = [r for r in caplog.records if r.name == "django.request"]
    assert line.getMessage() == f"Forbidden (Permission denied): /tournaments/{t.pk}/compare/"
    assert line.exc_info is None and line.levelno == logging.WARNING
