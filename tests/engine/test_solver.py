"""The double-dummy solver against a naive minimax over engine.deal.Deal (the oracle).

The oracle knows nothing of the solver: it clones the engine's Deal, plays every legal
card and takes max/min of the final team points.  The compiled core and the pure-Python
one must both agree with it on hundreds of small endgames in every preset, and with
each other on full deals.
"""

from __future__ import annotations

import random

import pytest

from engine import Deal, deal_for, get_rules
from engine.cards import CARD_TEXT
from engine.rules import UNDERTRUMP_ALLOWED, UNDERTRUMP_FORBIDDEN, UNDERTRUMP_FORCED
from engine.solver import BACKEND, available_backends, deal_value, legal, move_values, solve_moves

PRESETS = ["flemish", "flemish-table", "french", "malilla"]
# Variants built from the presets, so every obligation switch is exercised.
VARIANTS = [
    get_rules("flemish").replace(name="beat-partner", beat_partner=True),
    get_rules("flemish").replace(name="undertrump-allowed", undertrump=UNDERTRUMP_ALLOWED),
    get_rules("flemish").replace(name="undertrump-forced", undertrump=UNDERTRUMP_FORCED),
    get_rules("malilla").replace(name="malilla-last", last_trick_bonus=1),
    get_rules("french").replace(name="french-forbidden", undertrump=UNDERTRUMP_FORBIDDEN),
]
ALL_RULES = [get_rules(p) for p in PRESETS] + VARIANTS
BACKENDS = available_backends()


def start_play(rules, seed: str, number: int, rng: random.Random) -> Deal:
    """A deal of ``seed`` with a random trump choice, ready to play."""
    spec = deal_for(seed, number, rules.name if rules.name in PRESETS else "flemish")
    if rules.trump_by_turned_card:
        masks = [sum(1 << c for c in h) for h in spec.hands]
        d = Deal(masks, spec.dealer, rules, turned=spec.hands[spec.dealer][-1])
    else:
        masks = [sum(1 << c for c in h) for h in spec.hands]
        d = Deal(masks, spec.dealer, rules)
    while d.phase != "play":
        acts = d.legal_actions()
        if d.phase == "blind":
            d.apply_action(rng.choice(["look", "look", "blind"]))
        elif d.phase == "announce":
            d.apply_action("pass")
        else:
            d.apply_action(rng.choice(acts))
    return d


def random_position(rules, seed: str, cards_left: int, rng: random.Random) -> Deal:
    """Random legal play until ``cards_left`` cards are still to be played."""
    d = start_play(rules, seed, rng.randrange(1, 10_000), rng)
    while d.phase == "play":
        played = sum(len(t.cards) for t in d.tricks) + len(d.current_trick)
        if 32 - played <= cards_left:
            break
        d.play(rng.choice(d.legal_moves()))
    return d


def oracle(d: Deal, memo: dict) -> tuple[int, int]:
    """Final team points (team 0, team 1) with team 0 maximising its own; naive minimax."""
    if d.phase == "done":
        return tuple(d.team_points)
    key = None
    if not d.current_trick:
        key = (tuple(d.hands), d.to_move, tuple(d.team_points))
        if key in memo:
            return memo[key]
    maxi = d.to_move % 2 == 0
    best = None
    for c in d.legal_moves():
        e = d.clone()
        e.play(c)
        v = oracle(e, memo)
        if best is None or (v[0] > best[0] if maxi else v[0] < best[0]):
            best = v
    if key is not None:
        memo[key] = best
    return best


def oracle_moves(d: Deal) -> dict[str, int]:
    team = d.to_move % 2
    memo: dict = {}
    out = {}
    for c in d.legal_moves():
        e = d.clone()
        e.play(c)
        out[str(c)] = oracle(e, memo)[team] - d.team_points[team]
    return out


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_solver_legal_moves_match_the_engine(rules):
    rng = random.Random("legal/" + rules.name)
    checked = 0
    for i in range(40):
        d = start_play(rules, "legal", i + 1, rng)
        while d.phase == "play":
            hands, trump, to_move = list(d.hands), d.trump, d.to_move
            trick = [(s, int(c)) for s, c in d.current_trick]
            for b in BACKENDS:
                assert legal(hands, trump, to_move, trick, rules, backend=b) == d.legal_mask(), (
                    b,
                    d.actions,
                )
            checked += 1
            d.play(rng.choice(d.legal_moves()))
    assert checked == 40 * 32


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_endgames_agree_with_the_naive_oracle(rules):
    rng = random.Random("endgame/" + rules.name)
    n = 0
    for i in range(40):
        cards_left = rng.choice([6, 7, 8, 9, 10, 11, 12]) if i % 8 else rng.choice([16, 15, 14, 13])
        d = random_position(rules, "endgame", cards_left, rng)
        want = oracle_moves(d)
        for b in BACKENDS:
            got = move_values(d, backend=b)
            assert got == want, (b, rules.name, d.actions)
            assert deal_value(d, backend=b) == max(want.values())
        n += 1
    assert n == 40


def test_a_few_hundred_endgames_in_all():
    # The parametrised test above: 40 positions x 9 rule sets = 360 endgames.
    assert len(ALL_RULES) * 40 >= 300


@pytest.mark.parametrize("rules", PRESETS)
def test_full_deals_c_and_python_agree_and_the_principal_line_keeps_the_value(rules):
    rs = get_rules(rules)
    rng = random.Random("full/" + rules)
    for k in range(2):
        d = start_play(rs, "full", k + 1, rng)
        team = d.to_move % 2
        values = move_values(d)
        if "python" in BACKENDS and BACKEND == "c":
            # pure Python on a 5-trick position (after best play) keeps the test fast
            e = d.clone()
            while len(e.tricks) < 3:
                mv = move_values(e)
                e.play(max(sorted(mv), key=lambda c: mv[c]))
            assert move_values(e, backend="python") == move_values(e, backend="c")
        v = max(values.values())
        # Play the whole deal along the solver's best moves: the value must hold.
        e = d.clone()
        while e.phase == "play":
            mv = move_values(e)
            e.play(max(sorted(mv), key=lambda c: mv[c]))
        assert e.team_points[team] - d.team_points[team] == v


def test_worked_example_values():
    hands = [
        "TS AS KS QS JS 9S 8S 7S".split(),
        "TH AH KH QH JH 9H 8H 7H".split(),
        "TD AD KD QD JD 9D 8D 7D".split(),
        "TC AC KC QC JC 9C 8C 7C".split(),
    ]
    d = Deal.from_hands(hands, dealer=3)
    d.choose_trump("S")
    assert deal_value(d) == 60
    assert set(move_values(d).values()) == {60}
    for card in "TS 7H 7D 7C AS 8H 8D 8C".split():  # two tricks: keeps pure Python quick
        d.play(card)
    for b in BACKENDS:
        assert deal_value(d, backend=b) == 60 - 5 - 4
        assert set(move_values(d, backend=b).values()) == {51}
    # French: every trick adds a point and the turned card (10 of spades) already
    # counted 5 for the dealer's team. South holds every trump: after East leads,
    # North's side takes all the rest.
    d = Deal.from_hands(hands, dealer=0, rules="french", turned="TS")
    assert d.team_points == [5, 0] and d.to_move == 3
    d.play("7C")
    for b in BACKENDS:
        assert deal_value(d, backend=b) == 60 + 8


def test_mid_trick_counts_the_table_and_equivalent_cards_share_a_value():
    rules = get_rules("flemish")
    rng = random.Random("mid")
    for i in range(30):
        d = random_position(rules, "mid", 14 - (i % 3), rng)
        want = oracle_moves(d)
        got = solve_moves(
            *[list(d.hands), d.trump, d.to_move, [(s, int(c)) for s, c in d.current_trick], rules]
        )
        assert {CARD_TEXT[c]: v for c, v in got.items()} == want


def test_values_do_not_depend_on_call_history():
    rules = get_rules("flemish")
    rng = random.Random("history")
    d = random_position(rules, "history", 20, rng)
    first = move_values(d)
    for _ in range(3):
        move_values(random_position(rules, "other", 24, rng))
    assert move_values(d) == first


# (preset, deal index) chosen among the first few of a fixed sequence so that the
# pure-Python search of the whole 8-trick deal stays well under a second each.
QUICK_FULL = {"flemish": 2, "french": 4, "malilla": 2, "flemish-table": 2}


@pytest.mark.skipif("c" not in BACKENDS, reason="no compiled core to compare with")
@pytest.mark.parametrize("rules", PRESETS)
def test_full_deal_values_c_equals_pure_python(rules):
    from engine.solver import position, solve_value

    rng = random.Random("fullpy/" + rules)
    for k in range(1, QUICK_FULL[rules] + 1):
        d = start_play(get_rules(rules), "fullpy", k, rng)
    pos = position(d)
    assert solve_value(*pos, backend="python") == solve_value(*pos, backend="c")


@pytest.mark.skipif("c" not in BACKENDS, reason="no compiled core")
def test_threads_solve_at_once_with_the_same_values():
    """The compiled search runs without the GIL, each thread in its own table: a
    Celery worker's threads solve side by side and get exactly the serial values."""
    import sys
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from engine.solver import position

    rules = get_rules("flemish")
    rng = random.Random("threads")
    deals = [start_play(rules, "threads", k, rng) for k in range(1, 9)]
    serial = [move_values(d) for d in deals]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(move_values, deals * 3))
    assert parallel == serial * 3

    # While one thread is inside the compiled search, another thread runs Python code:
    # it could not if the search held the GIL. (A functional check, no time threshold.)
    from engine.solver import _args, _pick

    core = _pick("c")
    calls = [_args(*position(d)) for d in deals]
    ticks: list[float] = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)  # gives the GIL back

    # No forced switches: the ticker can only run while this thread waits or sits in
    # code that released the GIL.
    switch = sys.getswitchinterval()
    spans = []
    t = threading.Thread(target=ticker)
    t.start()
    sys.setswitchinterval(1000.0)
    try:
        for args in calls:
            start = time.perf_counter()
            core.move_values(*args)  # argument parsing aside, one GIL-free search
            spans.append((start, time.perf_counter()))
    finally:
        sys.setswitchinterval(switch)
        stop.set()
        t.join()
    inside = sum(1 for a, b in spans for x in ticks if a < x < b)
    assert inside > 0, "no Python ran in another thread during any solve"


def test_the_cache_key_of_a_core_covers_the_header_it_includes(tmp_path):
    """A core built on first use is cached under a hash of its source: the shared
    header (_rules.h) is part of it, or a changed header would load a stale build."""
    import shutil

    from engine.solver import _build

    for name in ("_ddcore.c", "_ismcts.c", "_rules.h"):
        shutil.copy(_build.HERE / name, tmp_path / name)
    for core in ("_ddcore.c", "_ismcts.c"):
        assert _build.local_headers(tmp_path / core) == [(tmp_path / "_rules.h").resolve()]
    before = {c: _build.source_digest(tmp_path / c, "-O3") for c in ("_ddcore.c", "_ismcts.c")}
    with open(tmp_path / "_rules.h", "a") as f:
        f.write("/* changed */\n")
    after = {c: _build.source_digest(tmp_path / c, "-O3") for c in ("_ddcore.c", "_ismcts.c")}
    assert all(before[c] != after[c] for c in before)
    assert _build.source_digest(tmp_path / "_ddcore.c", "-O2") != after["_ddcore.c"]
