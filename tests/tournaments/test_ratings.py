"""Players' ratings (tournaments/ratings.py): Elo over the pairs of each closed
tournament's field, rated once by the tick in the order the tournaments closed, shown on
the ratings page and the player's page (the history only where the viewer may see the
tournament's results)."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pytest
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import wait_for_idle_worker
from tests.tournaments.test_rounds import create, run
from tournaments import actions, ratings
from tournaments.models import Rating, RatingChange, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(800, 2400), st.integers(1, 6)), min_size=2, max_size=30))
def test_one_tournament_moves_ratings_zero_sum_and_at_most_k(players):
    values = [v for v, _ in players]
    ranks = [r for _, r in players]
    d = ratings.deltas(values, ranks)
    assert abs(d.sum()) < 1e-6
    assert np.all(np.abs(d) <= ratings.K + 1e-9)
    # Between two players of equal rating, the better ranked gains more.
    for i in range(len(players)):
        for j in range(len(players)):
            if values[i] == values[j] and ranks[i] < ranks[j]:
                assert d[i] > d[j]


def test_the_expected_result_moves_less_than_the_upset():
    assert ratings.deltas([1500, 1500], [1, 2]).tolist() == [16.0, -16.0]
    favourite_wins = ratings.deltas([1800, 1400], [1, 2])
    upset = ratings.deltas([1800, 1400], [2, 1])
    assert 0 < favourite_wins[0] < 16 < upset[1]
    assert ratings.deltas([1500], [1]).tolist() == [0.0]


def test_the_module_examples_hold():
    import doctest

    result = doctest.testmod(ratings)
    assert result.attempted > 0 and result.failed == 0


def closed_room_night(seed: str) -> Tournament:
    """Eight simulated players through a duplicate night (fast: no online play)."""
    t = create(
        "--format", "rotating", "--players", "8", "--sets", "3", "--deals", "1",
        "--duplicate", "--in-room", "--open", "--seed", seed,
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--prefix", seed)
    t.refresh_from_db()
    assert t.is_closed
    return t


def test_a_deleted_account_still_counts_in_the_field_whenever_it_is_rated():
    """Deleted before the tick rates the night: its results still count for the others
    (as in the standings), and every change names the night's whole field."""
    from accounts.actions import delete_account
    from tournaments.models import Entry

    t = closed_room_night("rate-deleted")
    gone = Entry.objects.filter(tournament=t).order_by("rank", "pk")[2].player
    delete_account(gone)
    assert actions.tick()["rated"] == 1
    changes = list(RatingChange.objects.filter(tournament=t))
    assert len(changes) == 8 and {c.field for c in changes} == {8}
    assert all(c.rank <= c.field for c in changes)
    assert abs(sum(c.after - c.before for c in changes)) < 1e-6


def test_a_closed_tournament_is_rated_once_by_the_tick():
    t = closed_room_night("rate-a")
    assert actions.tick()["rated"] == 1
    changes = list(RatingChange.objects.filter(tournament=t))
    assert len(changes) == 8 and {c.field for c in changes} == {8}
    assert all(c.before == ratings.START for c in changes)
    values = {r.player_id: r.value for r in Rating.objects.all()}
    assert abs(sum(values.values()) - 8 * ratings.START) < 1e-6
    best = min(changes, key=lambda c: c.rank)
    worst = max(changes, key=lambda c: c.rank)
    assert values[best.player_id] > ratings.START > values[worst.player_id]
    # Once: the next tick leaves it alone.
    assert actions.tick()["rated"] == 0
    assert RatingChange.objects.filter(tournament=t).count() == 8
    # A second night of the same players starts from the first night's ratings.
    second = create(
        "--format", "rotating", "--players", "8", "--sets", "3", "--deals", "1",
        "--duplicate", "--in-room", "--open", "--seed", "rate-b",
    )  # fmt: skip
    run("simulate_tournament", str(second.pk), "--prefix", "rate-a")  # the same eight
    actions.tick()
    again = RatingChange.objects.filter(tournament=second)
    assert again.count() == 8
    for c in again:
        first = RatingChange.objects.get(tournament=t, player=c.player)
        assert c.before == pytest.approx(first.after)
        assert Rating.objects.get(player=c.player).events == 2


def test_a_solo_tournament_waits_for_its_final_ranks(make_tournament, fake_entry, organizer):
    t = make_tournament(name="Solo", seed="rate-solo", results_audience="everyone")
    fake_entry(t, "anna", 40, {1: 40})
    fake_entry(t, "bert", -10, {1: 20})
    actions.close_tournament(t.pk, organizer)
    t.refresh_from_db()
    # As when the rankings task has not run since the close (a worker busy elsewhere).
    Tournament.objects.filter(pk=t.pk).update(
        rankings_computed_at=t.closed_at - dt.timedelta(seconds=1)
    )
    assert ratings.rate(t.pk) is None and not Rating.objects.exists()
    from tournaments import rankings

    rankings.recompute(t.pk)
    assert ratings.rate(t.pk) == 2
    anna = Rating.objects.get(player__username="anna")
    assert anna.value == pytest.approx(ratings.START + 16)


def test_a_tournament_with_one_ranked_player_is_marked_and_rates_nobody(
    make_tournament, fake_entry, organizer
):
    t = make_tournament(name="Alleen", seed="rate-one")
    fake_entry(t, "solist", 10, {1: 40})
    actions.close_tournament(t.pk, organizer)
    from tournaments import rankings

    rankings.recompute(t.pk)
    assert ratings.rate(t.pk) == 0
    t.refresh_from_db()
    assert t.rated_at is not None and not Rating.objects.exists()


def test_the_ratings_page_and_the_players_page(client, make_user):
    t = closed_room_night("rate-page")
    actions.tick()
    page = client.get(reverse("tournaments:ratings")).content.decode()
    assert page.count("<tr") == 1 + 8
    best = RatingChange.objects.filter(tournament=t).order_by("rank").first()
    name = best.player.get_username()
    assert page.index(name) < page.index("</tbody>")
    profile = client.get(reverse("player", args=[name])).content.decode()
    assert "data-rating" in profile and f"{best.after:.0f}" in profile
    # A public tournament: its change is listed for anybody.
    assert "data-rating-change" in profile and t.name in profile
    # The player's own data download holds what each tournament did to the rating.
    client.force_login(best.player)
    data = client.get(reverse("profile-data")).json()
    assert data["rating"] == [
        {"tournament": t.name, "before": ratings.START, "after": round(best.after, 1),
         "rank": best.rank, "players": 8, "when": data["rating"][0]["when"]}
    ]  # fmt: skip


def test_a_members_only_tournament_is_not_listed_to_outsiders(client, make_user, club, organizer):
    """Its results are for the club: the ratings it made would tell them (everyone
    starts at 1500, so a first tournament's ratings are its ranking). An outsider sees
    neither the ratings nor the rating on a player's page; members and the players do."""
    public = closed_room_night("rate-public")  # eight others, results for everyone
    t = closed_room_night("rate-private")
    Tournament.objects.filter(pk=t.pk).update(club=club, results_audience="members")
    actions.tick()
    private_players = {c.player.get_username() for c in RatingChange.objects.filter(tournament=t)}
    public_players = {
        c.player.get_username() for c in RatingChange.objects.filter(tournament=public)
    }
    player = RatingChange.objects.filter(tournament=t).first().player
    member = make_user("clublid")
    club.members.add(member)
    outsider = make_user("buitenstaander")

    def listed(who, fmt: str = "") -> set[str]:
        client.logout()
        if who is not None:
            client.force_login(who)
        page = client.get(reverse("tournaments:ratings") + fmt).content.decode()
        return {n for n in private_players | public_players if n in page}

    for who in (None, outsider):
        assert listed(who) == public_players, who
        assert listed(who, "?format=csv") == public_players, who
        page = client.get(reverse("tournaments:ratings")).content.decode()
        assert "data-ratings-hidden" in page
        profile = client.get(reverse("player", args=[player.get_username()])).content.decode()
        assert "data-rating-hidden" in profile and "data-rating-change" not in profile
        assert f"{Rating.objects.get(player=player).value:.0f}" not in profile
    assert listed(member) == private_players | public_players
    assert "data-ratings-hidden" not in client.get(reverse("tournaments:ratings")).content.decode()
    client.force_login(player)  # a player of it sees it (and their own rating)
    assert listed(player) == private_players | public_players
    own = client.get(reverse("profile")).content.decode()
    assert "data-rating-change" in own
    client.force_login(member)
    profile = client.get(reverse("player", args=[player.get_username()])).content.decode()
    assert "data-rating-change" in profile and "data-rating-hidden" not in profile


# --- corrections after the ratings ------------------------------------------------------


def _solo_closed(make_tournament, organizer, name: str, scores) -> Tournament:
    """A closed solo tournament whose players (users) finished with the given scores,
    its ranks written and rated."""
    from django.utils import timezone

    from game.models import Game
    from tournaments import rankings
    from tournaments.models import Entry

    t = make_tournament(name=name, seed=name, results_audience="everyone")
    for user, score in scores:
        game = Game.objects.create(owner=user, seed=t.seed, rules=t.rules)
        Entry.objects.create(
            tournament=t, player=user, game=game, status=Entry.Status.FINISHED,
            score=score, game_score=score, deals_played=1, finished_at=timezone.now(),
        )  # fmt: skip
    actions.close_tournament(t.pk, organizer)
    wait_for_idle_worker()  # the production stack's worker writes the ranks as well
    rankings.recompute(t.pk)
    assert ratings.rate(t.pk) == len(scores)
    return t


def _expected(*fields) -> dict[str, float]:
    """Elo by hand: each field is [(name, rank)], rated in turn."""
    value: dict[str, float] = {}
    for field in fields:
        names = [n for n, _ in field]
        before = [value.get(n, ratings.START) for n in names]
        change = ratings.deltas(before, [r for _, r in field])
        for n, b, d in zip(names, before, change, strict=True):
            value[n] = b + d
    return value


def test_a_correction_after_the_ratings_rates_it_and_the_later_ones_again(
    make_tournament, make_user, organizer
):
    from tournaments import rankings
    from tournaments.models import Entry

    a, b, c = make_user("anna"), make_user("bert"), make_user("cis")
    first = _solo_closed(make_tournament, organizer, "rate-fix-1", [(a, 40), (b, 10), (c, -10)])
    second = _solo_closed(make_tournament, organizer, "rate-fix-2", [(b, 30), (c, 20), (a, 0)])
    before = {r.player.username: r.value for r in Rating.objects.select_related("player")}
    assert before == pytest.approx(
        _expected([("anna", 1), ("bert", 2), ("cis", 3)], [("bert", 1), ("cis", 2), ("anna", 3)])
    )
    # Cis's score of the first night was written wrong: she won it.
    entry = Entry.objects.get(tournament=first, player=c)
    actions.correct_score(entry.pk, organizer, 50, "telfout")
    wait_for_idle_worker()
    rankings.recompute(first.pk)  # the embedded mode's eager task ran it already: a no-op
    after = {r.player.username: r for r in Rating.objects.select_related("player")}
    assert {n: r.value for n, r in after.items()} == pytest.approx(
        _expected([("cis", 1), ("anna", 2), ("bert", 3)], [("bert", 1), ("cis", 2), ("anna", 3)])
    )
    assert {r.events for r in after.values()} == {2}
    # Each tournament's changes say what it did, once per player, in order.
    for t in (first, second):
        changes = RatingChange.objects.filter(tournament=t)
        assert changes.count() == 3
        assert {(ch.player_id, ch.rank) for ch in changes} == set(
            Entry.objects.filter(tournament=t).values_list("player_id", "rank")
        )
    for player in (a, b, c):
        one = RatingChange.objects.get(tournament=first, player=player)
        two = RatingChange.objects.get(tournament=second, player=player)
        assert one.before == ratings.START and two.before == pytest.approx(one.after)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.rated_at is not None and second.rated_at is not None


def test_a_correction_that_keeps_the_ranks_changes_no_rating(make_tournament, make_user, organizer):
    from tournaments import rankings
    from tournaments.models import Entry

    a, b = make_user("anna"), make_user("bert")
    t = _solo_closed(make_tournament, organizer, "rate-keep", [(a, 40), (b, 10)])
    changes = sorted(RatingChange.objects.values_list("pk", "after"))
    entry = Entry.objects.get(tournament=t, player=a)
    actions.correct_score(entry.pk, organizer, 45, "telfout")
    wait_for_idle_worker()
    rankings.recompute(t.pk)
    assert sorted(RatingChange.objects.values_list("pk", "after")) == changes
    assert ratings.revise(t.pk) is False


def test_a_removed_entry_after_the_ratings_leaves_the_ratings(
    make_tournament, make_user, organizer
):
    from tournaments import rankings
    from tournaments.models import Entry

    a, b, c = make_user("anna"), make_user("bert"), make_user("cis")
    t = _solo_closed(make_tournament, organizer, "rate-removed", [(a, 40), (b, 10), (c, -10)])
    entry = Entry.objects.get(tournament=t, player=c)
    actions.remove_entry(entry.pk, organizer, "speelde met twee accounts")
    wait_for_idle_worker()
    rankings.recompute(t.pk)
    # Cis never counted: her rating is gone, the others' are those of a field of two.
    assert not Rating.objects.filter(player=c).exists()
    assert {r.player.username: r.value for r in Rating.objects.select_related("player")} == (
        pytest.approx(_expected([("anna", 1), ("bert", 2)]))
    )
    assert set(RatingChange.objects.values_list("player__username", "field")) == {
        ("anna", 2),
        ("bert", 2),
    }


def test_a_deal_corrected_at_a_table_after_the_ratings(make_user):
    from tournaments.models import Entry, Table

    staff = make_user("beheerder")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    t = closed_room_night("rate-table")
    actions.tick()
    last = Entry.objects.filter(tournament=t).order_by("-rank", "pk").first()
    last_rank = last.rank
    # The organizer finds that the last-ranked player's side won every deal by far.
    for seat in last.table_seats.select_related("table__table_set__round"):
        table = seat.table
        for row in table.board:
            ours = [60, 0] if seat.index % 2 == 0 else [0, 60]
            actions.correct_table_deal(
                t.pk, staff, table.table_set.round.number, table.table_set.number,
                table.number, row["deal"], ours, "verkeerd ingevuld",
            )  # fmt: skip
    last.refresh_from_db()
    assert last.rank < last_rank  # the correction changed the order...
    ranked = set(Entry.objects.filter(tournament=t).values_list("player_id", "rank"))
    # ...and the ratings follow the corrected order, from the start.
    assert set(RatingChange.objects.filter(tournament=t).values_list("player_id", "rank")) == ranked
    for change in RatingChange.objects.filter(tournament=t):
        assert change.before == ratings.START
        assert Rating.objects.get(player=change.player).value == pytest.approx(change.after)
    assert not Table.objects.filter(table_set__round__tournament=t, finished=False).exists()


def test_a_clubs_members_see_their_ratings_together(client, club, organizer, make_user):
    t = closed_room_night("rate-club")
    actions.tick()
    rated = list(RatingChange.objects.filter(tournament=t).order_by("rank"))
    members = [rated[1].player, rated[4].player, rated[6].player]
    club.members.add(*members)
    url = reverse("tournaments:ratings") + f"?club={club.slug}"
    client.force_login(members[0])
    club_page = client.get(reverse("clubs:detail", args=[club.slug])).content.decode()
    assert url.replace("&", "&amp;") in club_page or url in club_page
    page = client.get(url).content.decode()
    body = page[page.index("<tbody") : page.index("</tbody>")]
    names = re.findall(r'href="/players/([^/]+)/"', body)
    assert names == [m.get_username() for m in members]  # best first, as on the full list
    assert "data-club-ratings" in page
    # The same list to take away, in the reader's spreadsheet style.
    client.cookies["django_language"] = "nl"
    assert f"?club={club.slug}&amp;format=csv" in page
    lines = client.get(url + "&format=csv").content.decode("utf-8").splitlines()
    assert lines[0] == "\ufeffrank;player;rating;tournaments"
    assert [line.split(";")[1] for line in lines[1:]] == names
    value = Rating.objects.get(player=members[0]).value
    assert lines[1] == f"1;{names[0]};{round(value, 1):.1f}".replace(".", ",") + ";1"
    # Nobody else: not an outsider, not a visitor.
    client.force_login(make_user("buiten"))
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 404
    assert client.get(reverse("tournaments:ratings") + "?club=geen-club").status_code == 404


def test_partners_level_on_every_figure_share_a_rank_a_rating_draw_and_a_season_score(
    club, organizer
):
    """Fixed pairs: partners score the same in every set, so they are level on raw,
    duplicate score and head-to-head. They share a rank (the lot only orders the list,
    and the draw and a cut follow that order), their comparison is a draw in the
    ratings, and they score alike in the season."""
    from django.utils import timezone

    from tournaments import seasons, tables
    from tournaments.models import Entry, TableSeat

    t = create(
        "--format", "pairs", "--players", "8", "--sets", "3", "--deals", "1", "--duplicate",
        "--in-room", "--open", "--seed", "level-pairs", "--club", club.slug,
    )  # fmt: skip
    run("simulate_tournament", str(t.pk), "--prefix", "level")
    t.refresh_from_db()
    assert t.is_closed
    rows = tables.standings(t)
    by_entry = {r["entry"]: r for r in rows}
    partners = set()
    for s in TableSeat.objects.filter(table__table_set__round__tournament=t, entry__isnull=False):
        mate = TableSeat.objects.get(table_id=s.table_id, index=(s.index + 2) % 4)
        partners.add(tuple(sorted((s.entry_id, mate.entry_id))))
    assert len(partners) == 4
    for a, b in partners:
        assert by_entry[a]["rank"] == by_entry[b]["rank"]
    assert [r["rank"] for r in rows] == [1, 1, 3, 3, 5, 5, 7, 7]
    assert dict(Entry.objects.filter(tournament=t).values_list("pk", "rank")) == {
        r["entry"]: r["rank"] for r in rows
    }
    assert [e.pk for e in actions._active_entries(t)] == [r["entry"] for r in rows]
    actions.tick()
    after = dict(RatingChange.objects.filter(tournament=t).values_list("player_id", "after"))
    player = dict(Entry.objects.filter(tournament=t).values_list("pk", "player_id"))
    for a, b in partners:
        assert after[player[a]] == pytest.approx(after[player[b]])
    today = timezone.localdate()
    season = seasons.create_season(
        organizer, club, "Nu", today - dt.timedelta(days=1), today + dt.timedelta(days=1)
    )
    totals = {r["player"]: r["total"] for r in seasons.standings(season)["rows"]}
    names = dict(Entry.objects.filter(tournament=t).values_list("pk", "player__username"))
    for a, b in partners:
        assert totals[names[a]] == totals[names[b]]


def test_equal_ratings_share_their_place_on_every_page_and_in_the_csv(client, make_user):
    """Two players with the same rating are level in the list: 1, 2, 2, 4 (the second
    page goes on from there), on the page and in ratings.csv alike."""
    from tournaments import rating_views

    values = [1600.0, 1550.0, 1550.0, 1500.0, 1500.0, 1450.0]
    for i, value in enumerate(values):
        Rating.objects.create(player=make_user(f"r{i}"), value=value, events=1)

    def places(html: str) -> list[int]:
        body = html[html.index("<tbody") : html.index("</tbody>")]
        return [int(n) for n in re.findall(r'<tr[^>]*><td class="num">(\d+)</td>', body)]

    url = reverse("tournaments:ratings")
    assert places(client.get(url).content.decode()) == [1, 2, 2, 4, 4, 6]
    old, rating_views.PAGE = rating_views.PAGE, 4
    try:
        second = client.get(url + "?page=2").content.decode()
    finally:
        rating_views.PAGE = old
    assert places(second) == [4, 6]
    body = client.get(url + "?format=csv&sep=comma").content.decode("utf-8-sig")
    assert [int(line.split(",")[0]) for line in body.splitlines()[1:]] == [1, 2, 2, 4, 4, 6]


def test_a_game_the_bot_finished_at_the_close_rates_nobody(
    client, make_tournament, make_user, organizer
):
    """A player who stops after a card and lets the close hand the game to the (strong)
    bot must not gain rating from the bot's play; the others' places stand."""
    from django.utils import timezone

    from game.models import Game
    from tournaments import rankings
    from tournaments.models import Entry

    a, b, c = make_user("anna"), make_user("bert"), make_user("cis")
    t = make_tournament(name="rate-bot", seed="rate-bot", results_audience="everyone")
    for user, score, mode in ((a, 40, "played"), (b, 10, "played"), (c, 70, "bot")):
        game = Game.objects.create(owner=user, seed=t.seed, rules=t.rules)
        Entry.objects.create(
            tournament=t, player=user, game=game, status=Entry.Status.FINISHED,
            score=score, game_score=score, deals_played=1, finished_at=timezone.now(),
            finish_mode=mode,
        )  # fmt: skip
    actions.close_tournament(t.pk, organizer)
    wait_for_idle_worker()
    rankings.recompute(t.pk)
    assert Entry.objects.get(tournament=t, player=c).rank == 1  # the standings keep it
    assert ratings.rate(t.pk) == 2
    assert not Rating.objects.filter(player=c).exists()
    assert {r.player.username: r.value for r in Rating.objects.select_related("player")} == (
        pytest.approx(_expected([("anna", 2), ("bert", 3)]))
    )
    assert set(RatingChange.objects.values_list("player__username", "rank", "field")) == {
        ("anna", 2, 3),
        ("bert", 3, 3),
    }
    page = client.get("/tournaments/ratings/").content.decode()
    assert "Een spel dat de bot afwerkte toen het toernooi sloot" in page
    # Nor does it score in the club's season (in the field of three all the same), nor
    # count as a tournament won on the player's page.
    import datetime as dt

    from accounts import history
    from tournaments import seasons

    season = seasons.create_season(
        organizer, t.club, "Nu", timezone.localdate() - dt.timedelta(days=1),
        timezone.localdate() + dt.timedelta(days=1),
    )  # fmt: skip
    rows = {r["player"]: r["total"] for r in seasons.standings(season)["rows"]}
    assert rows == {"anna": 50.0, "bert": 0.0}  # above one of the two others: 50
    assert history.summary(c)["played"] == 0 and history.summary(c)["wins"] == 0
    assert history.summary(a)["played"] == 1
