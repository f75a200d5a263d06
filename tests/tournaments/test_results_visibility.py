"""Nobody sees the field's results before finishing their own game (or before close)."""

from __future__ import annotations

import pytest

from tests.tournaments.conftest import finish, joined, play_to_end
from tournaments import actions

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture
def half_played(make_tournament, make_user):
    """anna finished, ben still playing."""
    t = make_tournament(seed="visibility-seed")
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    return t, anna, ben


GATED = ["standings/", "deal/1/", "export/standings.csv", "export/travellers.json", "results/"]


@pytest.mark.parametrize("page", GATED)
def test_standings_and_travellers_hidden_before_finishing(half_played, client, page):
    t, anna, ben = half_played
    client.force_login(ben)
    assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 403
    client.force_login(anna)
    assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 200


def test_a_finished_entrant_sees_only_the_deals_their_game_reached(half_played, client):
    """The tournament has more deals than a game to 101 plays: the hands and results of
    the others stay hidden from an entrant (say a throwaway account) until close."""
    from tournaments.models import DealResult

    t, anna, ben = half_played
    reached = set(DealResult.objects.filter(entry__player=anna).values_list("number", flat=True))
    beyond = max(reached) + 1
    assert t.deals.filter(number=beyond).exists()
    client.force_login(anna)
    assert client.get(f"/tournaments/{t.pk}/deal/{max(reached)}/").status_code == 200
    refused = client.get(f"/tournaments/{t.pk}/deal/{beyond}/")
    assert refused.status_code == 403
    standings = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert f'/tournaments/{t.pk}/deal/{beyond}/"' not in standings
    assert f'/tournaments/{t.pk}/deal/{max(reached)}/"' in standings
    actions.close_tournament(t.pk)
    assert client.get(f"/tournaments/{t.pk}/deal/{beyond}/").status_code == 200


def test_detail_page_shows_standings_only_after_finishing(half_played, client):
    t, anna, ben = half_played
    client.force_login(ben)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "anna" not in page
    client.force_login(anna)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "anna" in page and "data-commitment" in page


def test_after_close_setting_hides_results_even_from_finished_players(
    make_tournament, make_user, organizer, client
):
    t = make_tournament(results_visibility="after_close")
    (anna,) = [make_user("anna")]
    (entry,) = joined(t, anna)
    finish(entry)
    client.force_login(anna)
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code == 403
    actions.close_tournament(t.pk, organizer)
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code == 200


def test_anonymous_visitors_see_results_only_after_close(
    make_tournament, make_user, client, organizer
):
    # Results for everyone after close (a club's default is its members only:
    # tests/tournaments/test_closed_results_audience.py).
    t = make_tournament(seed="visibility-seed", results_audience="everyone")
    (entry,) = joined(t, make_user("anna"))
    finish(entry)
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code in (403, 404)
    actions.close_tournament(t.pk, organizer)
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code == 200


def test_organizer_looking_at_results_can_no_longer_enter(half_played, client, organizer):
    t, *_ = half_played
    client.force_login(organizer)
    assert client.get(f"/tournaments/{t.pk}/standings/").status_code == 200
    with pytest.raises(actions.CannotJoin):
        actions.join(t.pk, organizer)


def test_record_download_is_sealed_until_close(half_played, client, organizer):
    t, anna, _ = half_played
    entry = t.entries.get(player=anna)
    client.force_login(anna)
    url = f"/game/{entry.game.public_id}/record.txt"
    assert client.get(url).status_code == 404  # the record names the seed
    assert client.get(f"/tournaments/{t.pk}/export/records.zip").status_code == 403
    actions.close_tournament(t.pk, organizer)
    assert client.get(f"/tournaments/{t.pk}/export/records.zip").status_code == 200


def test_club_tournament_hidden_from_outsiders(make_tournament, make_user, client):
    t = make_tournament()
    client.force_login(make_user("outsider"))
    assert client.get(f"/tournaments/{t.pk}/").status_code == 404


def test_organizer_still_playing_sees_no_scores_in_the_panel(
    make_tournament, make_user, organizer, client
):
    t = make_tournament()  # random seed: the organizer may play
    anna = make_user("anna")
    e_org, e_anna = joined(t, organizer, anna)
    finish(e_anna)
    other = make_user("co-organizer")
    t.club.organizers.add(other)
    actions.correct_score(e_anna.pk, other, 4321, "typfout")
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert "typfout" not in page and "4321" not in page
    assert client.get(f"/tournaments/{t.pk}/manage/deals/").status_code == 403


def test_the_exports_and_printed_results_keep_to_the_deals_an_entrant_reached(
    make_tournament, make_user, client
):
    """Before close, travellers.csv / .json and the printable results (and so its PDF)
    show a finished entrant the hands and results of the deals their own game reached
    only, as the standings page does; after close, every deal."""
    import json
    import re

    from tournaments.models import DealResult

    t = make_tournament(seed="visibility-seed")
    users = [make_user(f"speler{i}") for i in range(4)]
    for entry, user in zip(joined(t, *users), users, strict=True):
        if user is users[0]:
            finish(entry)
        else:  # South plays the random bot: games of other lengths
            play_to_end(entry, user, bot="random")
    reached = {
        u: set(DealResult.objects.filter(entry__player=u).values_list("number", flat=True))
        for u in users
    }
    short = min(users, key=lambda u: len(reached[u]))
    played = set().union(*reached.values())
    assert played - reached[short]  # another game went further
    client.force_login(short)
    base = f"/tournaments/{t.pk}"

    def shown() -> tuple[set, set, set]:
        data = json.loads(client.get(f"{base}/export/travellers.json").content)
        rows = client.get(f"{base}/export/travellers.csv").content.decode("utf-8-sig")
        page = client.get(f"{base}/results/").content.decode()
        return (
            {trav["deal"] for trav in data["travellers"]},
            {int(line.split(";")[0]) for line in rows.splitlines()[1:]},
            {int(k) for k in re.findall(r"<h3>Deel (\d+)", page)},
        )

    assert shown() == (reached[short],) * 3
    actions.close_tournament(t.pk)
    assert shown() == (played,) * 3
