"""The movements of the table formats over a whole tournament: fixed pairs kept to the
end (the team cup), who meets the bot pair, the bots spread in a draw by standing, a cut
that keeps whole pairs and never leaves fewer players than a round needs, and the
bounds of a structure (tournaments/draw.py, actions.draw_set / apply_cut /
check_structure, the create form)."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from types import SimpleNamespace

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tournaments.conftest import joined
from tournaments import actions
from tournaments.draw import (
    BOT,
    History,
    fixed_pairs,
    pair_tables,
    partnerships,
    random_draw,
    standing_draw,
)
from tournaments.models import Entry, TableSeat, TableSet, Tournament

seeds = st.text(min_size=1, max_size=8)


def partners_of(seating) -> set[frozenset]:
    """The partnerships of people at a set's tables (a bot's partner is alone)."""
    return {
        frozenset((table[i], table[j]))
        for table in seating
        for i, j in ((0, 2), (1, 3))
        if table[i] is not BOT and table[j] is not BOT
    }


def bot_pair_faced(seating) -> list:
    """Who sits against two bots in a set."""
    faced = []
    for table in seating:
        for (i, j), (k, m) in (((0, 2), (1, 3)), ((1, 3), (0, 2))):
            if table[i] is BOT and table[j] is BOT:
                faced += [p for p in (table[k], table[m]) if p is not BOT]
    return faced


# --- the draw by standing spreads the bots ------------------------------------------


@given(n=st.integers(min_value=1, max_value=70), seed=seeds)
@settings(max_examples=60, deadline=None)
def test_standing_draw_spreads_the_bots_as_the_random_draw_and_follows_the_standing(n, seed):
    ranked = [f"p{i:02}" for i in range(n)]
    draw = standing_draw(ranked, History(), seed)
    bots = 4 * len(draw) - n
    per_table = [t.count(BOT) for t in draw]
    assert max(per_table) == math.ceil(bots / len(draw))
    assert sorted(per_table) == sorted(t.count(BOT) for t in random_draw(ranked, seed))
    if n > 1:
        assert 3 not in per_table, "one person with three bots"
    # The tables follow the standing: the first table the best, and so on.
    assert [p for t in draw for p in sorted(x for x in t if x is not BOT)] == ranked
    for table in draw:
        if table.count(BOT) == 2:
            assert (table[0] is BOT) == (table[2] is BOT), "two bots are partners"


@pytest.mark.parametrize(
    "n, people",
    [(5, [3, 2]), (6, [3, 3]), (9, [3, 3, 3]), (10, [4, 3, 3]), (13, [4, 3, 3, 3])],
)
def test_standing_draw_of_the_tester_s_fields(n, people):
    draw = standing_draw(list(range(n)), History(), "s")
    assert [4 - t.count(BOT) for t in draw] == people


# --- fixed pairs: drawn once, kept to the end ----------------------------------------


def cup(n: int, rounds: int, sets: int, redraw: str, seed: str = "cup", leave=None):
    """Every set of a team cup through actions.draw_set, with a standing that changes
    at random (partners level: the lot may part them in the list). `leave`: {set index:
    players who are no longer in from that set on}."""
    t = SimpleNamespace(
        format=Tournament.Format.PAIRS, seed=seed, structure=SimpleNamespace(redraw=redraw)
    )
    players, previous = list(range(1, n + 1)), []
    rng = random.Random(seed)
    for r in range(1, rounds + 1):
        for k in range(1, sets + 1):
            for p in (leave or {}).get(len(previous), ()):
                players.remove(p)
            order = list(players)
            rng.shuffle(order)
            seating = actions.draw_set(t, r, k, order, previous, False)
            assert sorted(p for table in seating for p in table if p is not BOT) == sorted(order)
            previous.append(seating)
    return previous


@pytest.mark.parametrize("redraw", ["standing", "random"])
@pytest.mark.parametrize("n", [4, 7, 8, 9, 10, 11, 16, 30])
def test_fixed_pairs_keep_their_partners_for_the_whole_tournament(n, redraw):
    sets = cup(n, rounds=4, sets=2, redraw=redraw, seed=f"cup-{n}")
    first = partners_of(sets[0])
    assert len(first) == n // 2
    for seating in sets[1:]:
        assert partners_of(seating) == first
        for table in seating:  # partners sit opposite: one pair against another
            assert table.count(BOT) in (0, 1, 2)
            if table.count(BOT) == 2:
                assert (table[0] is BOT) == (table[2] is BOT)


@pytest.mark.parametrize("redraw", ["standing", "random"])
def test_the_pairs_meet_other_pairs_round_by_round(redraw):
    sets = cup(16, rounds=4, sets=1, redraw=redraw, seed="meet")
    met = Counter()
    for seating in sets:
        for table in seating:
            met[frozenset((frozenset((table[0], table[2])), frozenset((table[1], table[3]))))] += 1
    assert max(met.values()) == 1, "8 pairs over 4 sets: nobody meets the same pair twice"


def test_a_player_whose_partner_left_partners_another_one_then_a_bot():
    drawn = sorted(sorted(p) for p in partners_of(cup(12, 3, 1, "standing", "left")[0]))
    (a, b), (c, d), (e, f) = drawn[0], drawn[-1], drawn[1]
    # b and d leave before round 2: a and c partner each other, to the end.
    sets = cup(12, rounds=3, sets=1, redraw="standing", seed="left", leave={1: (b, d)})
    assert partners_of(sets[0]) == {frozenset(p) for p in drawn}
    kept = {frozenset(p) for p in drawn} - {frozenset((a, b)), frozenset((c, d))}
    assert partners_of(sets[1]) == partners_of(sets[2]) == kept | {frozenset((a, c))}
    # f leaves too before round 3: e plays with a bot, not against the bot pair.
    sets = cup(12, rounds=3, sets=1, redraw="random", seed="left", leave={1: (b, d), 2: (f,)})
    assert partners_of(sets[2]) == kept - {frozenset((e, f))} | {frozenset((a, c))}
    (table,) = [t for t in sets[2] if e in t]
    assert table[(table.index(e) + 2) % 4] is BOT and table.count(BOT) == 1


def test_fixed_pairs_and_partnerships_read_the_last_set():
    seating = [(1, 2, 3, 4), (5, 6, BOT, BOT)]  # 1+3, 2+4, 5 with a bot, 6 with a bot
    assert partnerships([4, 1, 2, 3, 5, 6], seating) == [(4, 2), (1, 3), (5,), (6,)]
    assert partnerships([1, 2, 4, 5], seating) == [(1,), (2, 4), (5,)]  # 3 left
    pairs = fixed_pairs([6, 1, 2, 3, 4, 5], seating, History.of(seating), "x")
    assert [frozenset(p) for p in pairs] == [
        frozenset((6, 5)), frozenset((1, 3)), frozenset((2, 4)),
    ]  # fmt: skip


# --- the bot pair: who meets it rotates ------------------------------------------------


@given(count=st.integers(min_value=1, max_value=12), by_standing=st.booleans(), seed=seeds)
@settings(max_examples=40, deadline=None)
def test_who_meets_the_bot_pair_rotates(count, by_standing, seed):
    pairs = [(f"a{k}", f"b{k}") for k in range(2 * count + 1)]  # an odd number of pairs
    history, faced = History(), Counter()
    for s in range(len(pairs)):
        draw = pair_tables(pairs, history, f"{seed}{s}", by_standing=by_standing)
        assert sum(t.count(BOT) for t in draw) == 2
        for table in draw:
            history.add(table)
        faced.update(bot_pair_faced(draw))
        # Nobody meets the bot pair a second time before every pair met it once.
        assert max(faced.values()) == 1
    assert len(faced) == 2 * len(pairs), "each pair met the bot pair once"


@given(n=st.integers(min_value=4, max_value=41), redraw=st.sampled_from(["standing", "random"]))
@settings(max_examples=30, deadline=None)
def test_nobody_sits_with_three_bots_in_the_team_cup(n, redraw):
    for seating in cup(n, rounds=3, sets=2, redraw=redraw, seed=f"three-{n}"):
        assert all(table.count(BOT) < 3 for table in seating), seating


def test_a_lone_player_with_a_bot_partner_does_not_meet_the_bot_pair():
    pairs = [(1, 2), (3, 4), (5, BOT)]  # 5 players: a bot partners the fifth
    for by_standing in (False, True):
        history = History()
        for s in range(4):
            draw = pair_tables(pairs, history, f"lone{s}", by_standing=by_standing)
            assert [t.count(BOT) for t in draw] == [1, 2]  # 5 meets a pair; a pair the bots
            for table in draw:
                history.add(table)


# --- a cut, through the database -------------------------------------------------------


def started_cup(django_user_model, players: int, **structure):
    t = actions.create_tables_tournament(
        None, name="Beker", fmt=Tournament.Format.PAIRS, players=players, rounds=2, sets=1,
        deals=1, open_now=True, seed="cut-cup", **structure,
    )  # fmt: skip
    users = [
        django_user_model.objects.create_user(f"c{i}", password="pw-123456") for i in range(players)
    ]
    joined(t, *users)
    actions.start_tables(t.pk)
    t.refresh_from_db()
    return t


def interleaved(t) -> tuple[list, list]:
    """The pairs of the draw (a lone player last), and the entries in a standing that
    lists the pairs' first players, then their second ones (partners are level, the lot
    between them): a1 b1 c1 d1 a2 b2 c2 d2."""
    (seating,) = actions.seatings_so_far(t)
    groups = partnerships([p for table in seating for p in table if p is not None], seating)
    full = [g for g in groups if len(g) == 2]
    pairs = full + [g for g in groups if len(g) == 1]
    order = [g[0] for g in pairs] + [g[1] for g in full]
    by_pk = {e.pk: e for e in Entry.objects.filter(tournament=t)}
    return pairs, [by_pk[pk] for pk in order]


@pytest.mark.usefixtures("live_game_db")
@pytest.mark.parametrize("structure", [{"cut": 4}, {"cut_fraction": 0.5}])
def test_a_cut_in_the_team_cup_keeps_whole_pairs(django_user_model, monkeypatch, structure):
    t = started_cup(django_user_model, 8, **structure)
    pairs, order = interleaved(t)
    monkeypatch.setattr(actions, "_active_entries", lambda _t: order)
    assert actions.apply_cut(t, 1) == 4
    still_in = set(
        Entry.objects.filter(tournament=t, out_after__isnull=True).values_list("pk", flat=True)
    )
    # The two best pairs (by their better player) go on, both partners.
    assert still_in == set(pairs[0]) | set(pairs[1])


@pytest.mark.usefixtures("live_game_db")
def test_a_cut_in_the_team_cup_counts_a_lone_player_as_a_pair(django_user_model, monkeypatch):
    t = started_cup(django_user_model, 9, cut_fraction=0.6)  # 5 "pairs": 3 go on
    pairs, order = interleaved(t)
    monkeypatch.setattr(actions, "_active_entries", lambda _t: order)
    actions.apply_cut(t, 1)
    still_in = set(
        Entry.objects.filter(tournament=t, out_after__isnull=True).values_list("pk", flat=True)
    )
    assert still_in == set(pairs[0]) | set(pairs[1]) | set(pairs[2])


def run(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.usefixtures("live_game_db")
def test_a_team_cup_with_a_cut_end_to_end():
    """10 players, 5 pairs, 3 rounds of 2 sets, the best 6 (3 pairs) go on: the pairs
    drawn at the start play together to the end, the cut keeps whole pairs, and the
    bot pair is met by a different pair each set while it can."""
    out = run(
        "create_tournament", "--format", "pairs", "--players", "10", "--rounds", "3",
        "--sets", "2", "--deals", "1", "--cut", "6", "--open", "--seed", "cup-10",
    )  # fmt: skip
    t = Tournament.objects.get(pk=int(re.search(r"id: (\d+)", out).group(1)))
    run("simulate_tournament", str(t.pk))
    t.refresh_from_db()
    assert t.is_closed
    sets = []
    for tset in TableSet.objects.filter(round__tournament=t).order_by("round__number", "number"):
        tabs: dict[int, list] = {}
        for seat in TableSeat.objects.filter(table__table_set=tset):
            tabs.setdefault(seat.table.number, [None] * 4)[seat.index] = seat.entry_id
        sets.append([tuple(v) for _, v in sorted(tabs.items())])
    assert len(sets) == 6
    first = partners_of(sets[0])
    assert len(first) == 5
    for seating in sets[1:]:
        assert partners_of(seating) <= first
    still_in = set(
        Entry.objects.filter(tournament=t, out_after__isnull=True).values_list("pk", flat=True)
    )
    assert len(still_in) == 6 and {p for pair in partners_of(sets[-1]) for p in pair} == still_in
    assert all(len(pair & still_in) in (0, 2) for pair in first), "a cut kept half a pair"
    faced = Counter(p for seating in sets[:2] for p in bot_pair_faced(seating))
    assert len(faced) == 4 and max(faced.values()) == 1  # round 1: two pairs met it
    faced = Counter(p for seating in sets for p in bot_pair_faced(seating))
    assert max(faced.values()) <= 2  # then 3 pairs in 4 sets: once each, one twice


# --- the structure: a cut leaves enough, the bounds of the form ------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--format", "pairs", "--players", "8", "--rounds", "2", "--cut", "5"],
            "a cut keeps whole pairs, an even number of players (asked: 5; e.g. 4 or 6) [--cut]",
        ),
        (
            [
                "--format",
                "writer-stays",
                "--players",
                "10",
                "--rounds",
                "3",
                "--cut-fraction",
                "0.3",
            ],
            "leaves 3 players for round 2, and a round needs at least 8",
        ),  # fmt: skip
        (
            ["--format", "rotating", "--players", "16", "--rounds", "3", "--cut-fraction", "0.3"],
            "leaves 2 players for round 3, and a round needs at least 4: keep a larger part "
            "or play fewer rounds [--cut-fraction]",
        ),
        (
            ["--format", "pairs", "--players", "8", "--rounds", "3", "--cut-fraction", "0.5"],
            "leaves 2 players for round 3, and a round needs at least 4",
        ),
        (
            ["--format", "writer-stays", "--players", "12", "--rounds", "2", "--cut", "4"],
            "writer stays needs two tables in every round: a cut keeps at least 8 players",
        ),
        (
            ["--format", "rotating", "--players", "8", "--rounds", "2", "--cut", "3"],
            "a cut keeps at least 4 players, a table of four for the next round (asked: 3)",
        ),
        (["--format", "rotating", "--players", "8", "--rounds", "2", "--cut", "1"], "(asked: 1)"),
        (
            ["--format", "rotating", "--players", "8", "--rounds", "1000000"],
            "at most 20 rounds (asked: 1000000) [--rounds]",
        ),
        (
            ["--format", "rotating", "--players", "8", "--sets", "1000002"],
            "at most 30 sets (asked: 1000002) [--sets]",
        ),
        (
            ["--format", "rotating", "--players", "100000"],
            "at most 10000 players (asked: 100000) [--players]",
        ),
        (
            ["--format", "rotating", "--players", "8", "--set-minutes", "100000"],
            "1 to 600 minutes, or none (asked: 100000) [--set-minutes]",
        ),
    ],
)
def test_a_structure_the_rounds_cannot_serve_is_refused(args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run("create_tournament", *args)


@pytest.mark.parametrize(
    "fmt, players, kwargs",
    [
        ("pairs", 8, {"cut": 4}),
        ("pairs", 9, {"cut": 9}),  # keeps everyone: no pair is parted
        ("pairs", 10, {"cut_fraction": 0.5, "rounds": 3}),  # 5 pairs, 3, 2
        ("writer-stays", 16, {"cut": 8}),
        ("writer-stays", 16, {"cut_fraction": 0.5}),
        ("rotating", 8, {"cut": 4}),
        ("rotating", 10, {"cut_fraction": 0.4}),  # 4 go on
        ("rotating", 8, {"rounds": 20, "sets": 30}),
        ("rotating", 10000, {"set_minutes": 600}),
    ],
)
def test_a_structure_that_works_is_accepted(fmt, players, kwargs):
    kwargs = {"rounds": 2, "sets": 3, "deals": 8, **kwargs}
    actions.check_structure(fmt, players, **kwargs)


def test_the_bounds_are_the_create_form_s():
    from tournaments.forms import TournamentForm

    fields = TournamentForm().fields
    assert fields["capacity"].max_value == actions.MAX_TABLE_PLAYERS
    assert fields["rounds"].max_value == actions.MAX_TABLE_ROUNDS
    assert fields["sets"].max_value == actions.MAX_TABLE_SETS
    assert fields["set_minutes"].max_value == actions.MAX_SET_MINUTES


BASE = {
    "name": "Kampioenschap", "rules": "flemish", "bot_level": "heuristic",
    "results_visibility": "after_finish", "unfinished_rule": "bot", "open_now": "on",
    "format": "rotating", "capacity": 16, "rounds": 2, "sets": 3, "set_deals": 8,
    "redraw": "standing", "clock": 0, "round_break": 0,
}  # fmt: skip


@pytest.mark.usefixtures("live_game_db")
@pytest.mark.parametrize(
    "extra, field, message",
    [
        ({"rounds": 21}, "rounds", "Hoogstens 20 rondes."),
        ({"sets": 31}, "sets", "Hoogstens 30 sets per ronde."),
        ({"set_deals": "acht"}, "set_deals", "Voer een geheel getal in."),
        ({"rounds": "twee"}, "rounds", "Voer een geheel getal in."),
        ({"capacity": 20000}, "capacity", "10000"),
        ({"cut": "vier"}, "cut", "Voer een geheel getal in."),
        ({"format": "pairs", "cut": 5}, "cut", "een even aantal spelers"),
        (
            {"format": "writer-stays", "capacity": 10, "rounds": 3, "cut_percent": 30},
            "cut_percent",
            "laat 3 spelers over voor ronde 2",
        ),
    ],
)
def test_the_create_form_says_why_instead_of_failing(
    client, organizer, club, extra, field, message
):
    client.force_login(organizer)
    data = {**BASE, "club": club.pk, **extra}
    response = client.post("/tournaments/new/", data)
    assert response.status_code == 200
    assert not Tournament.objects.exists()
    errors = response.context["form"].errors
    assert field in errors, errors
    assert message.lower() in " ".join(errors[field]).lower(), errors
