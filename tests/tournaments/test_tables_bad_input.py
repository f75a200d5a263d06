"""Bad input at a tournament of tables (issue 12), through the paths people meet: the
tables page and its join button after the draw, the start with fewer players than the
structure was made for, and the command with a deal count of 0."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from tests.helpers import wait_for_idle_bots
from tournaments import actions
from tournaments.models import Entry, Round, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def _bots_done(live_game_db):
    yield
    wait_for_idle_bots()


def test_joining_after_the_draw_is_refused_on_the_page_in_dutch(client, make_user):
    t = actions.create_tables_tournament(
        None, name="Te laat", fmt="rotating", players=8, sets=3, deals=1, open_now=True
    )
    for i in range(4):
        actions.join(t.pk, make_user(f"early{i}"))
    late = make_user("late")
    client.force_login(late)
    before = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert f'action="/tournaments/{t.pk}/join/"' in before  # still open
    actions.start_tables(t.pk)
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert f'action="/tournaments/{t.pk}/join/"' not in page  # no button after the draw
    assert "Gesloten: de loting is gebeurd." in page
    # A page left open from before the draw: its button says why, in the page's language.
    response = client.post(f"/tournaments/{t.pk}/join/", follow=True)
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/tables/"
    assert "De loting is gebeurd: inschrijven kan niet meer" in response.content.decode()
    assert not Entry.objects.filter(tournament=t, player=late).exists()
    # Those drawn see their table, not the notice.
    client.force_login(Entry.objects.filter(tournament=t).first().player)
    assert (
        "Gesloten: de loting is gebeurd."
        not in client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    )


def test_a_cut_larger_than_the_players_who_came_keeps_them_all(make_user):
    """Checked against the capacity at creation; at the start fewer came: the start is
    not refused (nobody could change the cut then), everyone goes on."""
    with pytest.raises(actions.TournamentError, match="larger than the field of 8"):
        actions.create_tables_tournament(
            None, name="Te groot", fmt="rotating", players=8, rounds=2, sets=3, deals=1,
            cut=9,
        )  # fmt: skip
    t = actions.create_tables_tournament(
        None, name="Snede", fmt="rotating", players=8, rounds=2, sets=3, deals=1, cut=6,
        open_now=True,
    )  # fmt: skip
    for i in range(5):
        actions.join(t.pk, make_user(f"cut{i}"))
    actions.start_tables(t.pk)
    assert Round.objects.filter(tournament=t, number=1).exists()
    assert actions.apply_cut(t, 1) == 0


def test_a_movement_the_players_who_came_cannot_fill_is_refused_with_what_works(make_user):
    """Writer stays made for 8; five came: one table, nobody can move on. The start is
    refused with why and what would work, and nothing is half made."""
    t = actions.create_tables_tournament(
        None, name="Schrijver", fmt="writer-stays", players=8, sets=2, deals=1, open_now=True
    )
    for i in range(5):
        actions.join(t.pk, make_user(f"ws{i}"))
    status = Tournament.objects.get(pk=t.pk).status
    with pytest.raises(actions.TournamentError, match=r"needs at least 8 players \(two tables\)"):
        actions.start_tables(t.pk)
    t.refresh_from_db()
    assert not t.rounds.exists() and t.status == status


@pytest.mark.parametrize("fmt", ["solo", "rotating"])
def test_a_deal_count_of_0_is_refused_by_the_command(fmt):
    with pytest.raises(CommandError, match="1 to 100"):
        call_command(
            "create_tournament", "--format", fmt, "--players", "8", "--deals", "0",
            stdout=io.StringIO(),
        )  # fmt: skip
    assert not Tournament.objects.exists()


def test_a_deal_count_of_0_is_refused_by_the_actions_in_dutch(organizer, club):
    from django.utils import translation

    with pytest.raises(actions.TournamentError) as solo:
        actions.create_tournament(organizer, name="Nul", club=club, deals=0)
    with translation.override("nl"):
        assert translation.gettext(str(solo.value)) == (
            "een partij met een vast aantal delen heeft 1 tot 100 delen"
        )
    with pytest.raises(actions.TournamentError, match="1 to 100 deals"):
        actions.create_tables_tournament(
            organizer, name="Nul", club=club, fmt="pairs", players=8, deals=0
        )
