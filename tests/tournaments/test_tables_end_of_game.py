"""The end of a tournament table's game (issue 12): no "Nog een spel" (the tournament
draws the next table), a link back to the tournament's tables page instead; asking for
a rematch anyway is refused with a reason."""

from __future__ import annotations

import pytest

from game import actions as game_actions
from game.models import Game
from tests.helpers import wait_for_idle_bots
from tournaments import actions
from tournaments.models import Table

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def _bots_done(live_game_db):
    yield
    wait_for_idle_bots()


def finished_table(make_user, players: int):
    t = actions.create_tables_tournament(
        None, name="Eindtafel", fmt="rotating", players=players, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    users = [make_user(f"end{i}") for i in range(players)]
    for u in users:
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    # The table with the fewest people (5 players: a table of one or two with bots).
    table = min(
        Table.objects.filter(table_set__round__tournament=t),
        key=lambda tab: sum(1 for s in game_actions.seats_of(tab.game) if s.user_id),
    )
    game_actions.autoplay(table.game_id)
    game = Game.objects.get(pk=table.game_id)
    assert game.status == Game.Status.FINISHED
    person = next(s.user for s in game_actions.seats_of(game) if s.user_id)
    return t, game, person


@pytest.mark.parametrize("players", [4, 5])
def test_a_tournament_table_offers_its_tables_page_not_another_game(client, make_user, players):
    """Four people at the table, and (5 players) a table of two people and two bots."""
    t, game, person = finished_table(make_user, players)
    client.force_login(person)
    page = client.get(f"/game/{game.public_id}/").content.decode()
    tables_url = f"/tournaments/{t.pk}/tables/"
    assert f'href="{tables_url}" data-tables-link' in page
    assert "Naar je volgende tafel en de stand" in page
    assert "data-rematch>" not in page and "data-new-game" not in page
    assert "Nog een spel" not in page
    # The toolbar leads back too, and the sealed record is not offered for download.
    assert f'href="{tables_url}" data-tournament-link' in page
    assert f"/game/{game.public_id}/record.txt" not in page


def test_a_rematch_of_a_tournament_table_is_refused_with_a_reason(client, make_user):
    _, game, person = finished_table(make_user, 4)
    # (The next set's tables may be made meanwhile, by the worker: count the others.)
    others = Game.objects.filter(tournament_table__isnull=True)
    games = others.count()
    with pytest.raises(game_actions.SeatRefused, match="tournament's page"):
        game_actions.rematch(game.public_id, person)
    client.force_login(person)
    response = client.post(f"/tables/{game.public_id}/rematch/")
    assert response.status_code == 409
    assert "je volgende tafel en de stand staan op de pagina van het toernooi" in (
        response.content.decode()
    )
    game.refresh_from_db()
    assert game.rematch_id is None and others.count() == games  # nothing made


def test_a_table_of_friends_still_offers_another_game(client, make_user):
    host, friend = make_user("host"), make_user("friend")
    game = game_actions.create_table(host, rules="flemish", bot_level="heuristic")
    game_actions.add_bot(game.public_id, host, 1)
    game_actions.sit(game.public_id, friend, 2)
    game_actions.add_bot(game.public_id, host, 3)
    game_actions.start(game.public_id, host)
    wait_for_idle_bots()
    game_actions.autoplay(game.pk)
    client.force_login(friend)
    page = client.get(f"/game/{game.public_id}/").content.decode()
    assert "data-rematch>" in page and "data-tables-link" not in page
    assert game_actions.rematch(game.public_id, friend).pk != game.pk


def test_the_last_sets_table_leads_to_the_standings_not_a_next_table(client, make_user):
    """After the tournament's last set there is no next table: the end of the game says
    'De stand', and the tables page waiting for the others says the final standings
    come (1 of 2 tables done, in the singular)."""
    t = actions.create_tables_tournament(
        None, name="Laatste", fmt="pairs", players=8, sets=1, deals=1, open_now=True,
    )  # fmt: skip
    users = [make_user(f"last{i}") for i in range(8)]
    for u in users:
        actions.join(t.pk, u)
    actions.start_tables(t.pk)
    first = Table.objects.filter(table_set__round__tournament=t).order_by("number").first()
    game_actions.autoplay(first.game_id)
    game = Game.objects.get(pk=first.game_id)
    person = next(s.user for s in game_actions.seats_of(game) if s.user_id)
    client.force_login(person)
    page = client.get(f"/game/{game.public_id}/").content.decode()
    assert "Naar je volgende tafel" not in page
    assert "data-tables-link>De stand</a>" in page
    tables = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "1 van de 2 is klaar" in tables and "zijn klaar" not in tables
    assert "Dat was de laatste set" in tables and "volgende tafel" not in tables
