"""The table of a tournament game links back to its tournament, and offers no record
download (a 404 while the seed is sealed) until the tournament closes."""

from __future__ import annotations

import pytest

from tests.tournaments.conftest import finish, joined
from tournaments import actions

pytestmark = pytest.mark.usefixtures("live_game_db")


def _table(client, game) -> str:
    response = client.get(f"/game/{game.public_id}/")
    assert response.status_code == 200
    return response.content.decode()


def test_a_tournament_table_links_back_and_hides_the_record_until_close(
    client, make_tournament, make_user, organizer
):
    t = make_tournament(results_visibility="after_finish")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    client.force_login(anna)
    body = _table(client, entry.game)
    assert f'href="/tournaments/{t.pk}/" data-tournament-link' in body
    assert "record.txt" not in body

    game = finish(entry)
    body = _table(client, game)
    assert "record.txt" not in body
    assert client.get(f"/game/{game.public_id}/record.txt").status_code == 404
    assert f'href="/tournaments/{t.pk}/standings/" data-standings-link' in body
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code == 200

    actions.close_tournament(t.pk, organizer)
    body = _table(client, game)
    # After close: the record, and the way back to the results (the seed is out).
    assert f"/game/{game.public_id}/record.txt" in body
    assert f'href="/tournaments/{t.pk}/standings/" data-standings-link' in body
    assert client.get(f"/game/{game.public_id}/record.txt").status_code == 200


def test_results_after_close_link_to_the_tournament_page(client, make_tournament, make_user):
    t = make_tournament(results_visibility="after_close")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    client.force_login(anna)
    body = _table(client, finish(entry))
    assert f'href="/tournaments/{t.pk}/" data-standings-link' in body
    assert "record.txt" not in body


def test_a_free_game_has_no_tournament_link_and_keeps_its_record_link(client):
    client.post("/play/")
    from game.models import Game

    game = Game.objects.latest("created")
    body = _table(client, game)
    assert "data-tournament-link" not in body and "data-standings-link" not in body
    assert f"/game/{game.public_id}/record.txt" in body
