"""A second, naive implementation of the play obligations, written from RULES.md §5 and
§8 alone (card strings and lists, no masks, nothing shared with engine/deal.py), compared
with the engine on many random reachable positions of every preset.
"""

from __future__ import annotations

import random

import pytest

from engine import Deal, IllegalMove

ORDER = "789JQKAT"  # low to high, the same in every suit
POINTS = {"T": 5, "A": 4, "K": 3, "Q": 2, "J": 1, "9": 0, "8": 0, "7": 0}
ALL = [r + s for s in "SHDC" for r in ORDER]


def higher(a: str, b: str) -> bool:
    """Same suit, ``a`` ranks above ``b``."""
    return a[1] == b[1] and ORDER.index(a[0]) > ORDER.index(b[0])


def winning_play(trick: list[tuple[int, str]], trump: str | None) -> tuple[int, str]:
    """§5: the highest trump in the trick; with no trump in it, the highest of the led suit."""
    led = trick[0][1][1]
    trumps = [(s, c) for s, c in trick if trump is not None and c[1] == trump]
    pool = trumps if trumps else [(s, c) for s, c in trick if c[1] == led]
    best = pool[0]
    for s, c in pool[1:]:
        if higher(c, best[1]):
            best = (s, c)
    return best


def naive_legal(
    preset: str, hand: list[str], trick: list[tuple[int, str]], seat: int, trump: str | None
) -> set[str]:
    # 1. Leading: any card.
    if not trick:
        return set(hand)
    led = trick[0][1][1]
    win_seat, win_card = winning_play(trick, trump)
    partner_winning = (win_seat % 2) == (seat % 2)
    beat_everyone = preset == "malilla"  # no partner exception
    must_beat = beat_everyone or not partner_winning
    trick_trumped = trump is not None and led != trump and win_card[1] == trump

    # 2. Follow suit: before everything.
    same_suit = [c for c in hand if c[1] == led]
    if same_suit:
        if must_beat and not trick_trumped:
            beaters = [c for c in same_suit if higher(c, win_card)]
            if beaters:
                return set(beaters)
        return set(same_suit)

    # Void in the led suit.
    if trump is None:  # no-trump deal (5.): any card
        return set(hand)
    my_trumps = [c for c in hand if c[1] == trump]
    if not my_trumps:
        return set(hand)
    others = [c for c in hand if c[1] != trump]
    if trick_trumped:
        over = [c for c in my_trumps if higher(c, win_card)]
        under = [c for c in my_trumps if not higher(c, win_card)]
    else:
        over, under = list(my_trumps), []

    if must_beat:
        # 3. Must trump; must over-trump if able.
        if over:
            return set(over)
        if preset == "malilla":  # otherwise must still play a trump
            return set(my_trumps)
        if preset == "french":  # under-trumping allowed: any card
            return set(hand)
        # Flemish: no under-trump; lower trumps only if nothing else.
        return set(others) if others else set(under)

    # 4. Partner winning: any card, but no under-trump (flemish); french allows it.
    if preset == "french":
        return set(hand)
    allowed = set(others) | set(over)
    return allowed if allowed else set(under)


# ------------------------------------------------------------------ random positions


def random_deal(rng: random.Random, preset: str) -> Deal:
    cards = list(ALL)
    rng.shuffle(cards)
    hands = [cards[i * 8 : i * 8 + 8] for i in range(4)]
    d = Deal.from_hands(hands, dealer=rng.randrange(4), rules=preset)
    # Trump choices, including no trump and (table) blind and the announcements.
    while d.phase != "play":
        acts = d.legal_actions()
        if d.phase == "trump":
            weights = [3 if a != "trump:none" else 2 for a in acts]
            d.apply_action(rng.choices(acts, weights)[0])
        else:
            d.apply_action(rng.choice(acts))
    return d


def check_refusals(d: Deal, legal: set[str], seat: int) -> int:
    """Every card in hand that is not legal is refused and changes nothing."""
    count = 0
    state = (
        d.phase,
        d.to_move,
        tuple(d.hands),
        tuple(d.current_trick),
        len(d.tricks),
        tuple(d.actions),
    )
    obs = d.observation(seat)
    for c in d.hand(seat):
        if str(c) in legal:
            continue
        with pytest.raises(IllegalMove) as err:
            d.play(str(c))
        assert err.value.code not in ("not_in_hand", "unknown_action", "wrong_phase")
        assert str(err.value)
        assert (
            d.phase,
            d.to_move,
            tuple(d.hands),
            tuple(d.current_trick),
            len(d.tricks),
            tuple(d.actions),
        ) == state
        count += 1
    if count:
        assert d.observation(seat) == obs
    return count


POSITIONS_PER_PRESET = 10_000


@pytest.mark.parametrize("preset", ["flemish", "flemish-table", "french", "malilla"])
def test_engine_legal_moves_match_the_naive_rules(preset):
    rng = random.Random(f"oracle-{preset}")
    positions = refusals = deals = 0
    kinds = {"lead": 0, "follow": 0, "void_trump": 0, "void_no_trump": 0}
    while positions < POSITIONS_PER_PRESET:
        d = random_deal(rng, preset)
        deals += 1
        trump = d.trump_suit
        if preset in ("french", "malilla"):
            assert trump == str(d.turned)[1]
        stop = rng.randrange(1, 33)  # play to a random point of the deal
        for _ in range(stop):
            seat = d.to_move
            hand = [str(c) for c in d.hand(seat)]
            trick = [(s, str(c)) for s, c in d.current_trick]
            expected = naive_legal(preset, hand, trick, seat, trump)
            got = {str(c) for c in d.legal_moves()}
            assert got == expected, (preset, d.actions, seat, hand, trick, trump)
            assert set(d.legal_actions()) == expected
            mask, code, _ = d._legal_explained()
            assert mask == d._legal_mask()
            if mask != d.hands[seat]:
                assert code is not None
            positions += 1
            if not trick:
                kinds["lead"] += 1
            elif any(c[1] == trick[0][1][1] for c in hand):
                kinds["follow"] += 1
            elif trump is None:
                kinds["void_no_trump"] += 1
            else:
                kinds["void_trump"] += 1
            if positions % 3 == 0:
                refusals += check_refusals(d, expected, seat)
            card = rng.choice(sorted(expected))
            before = [(s, c) for s, c in trick]
            d.play(card)
            if len(before) == 3:  # the trick just completed: check its winner too
                done = d.tricks[-1]
                full = before + [(seat, card)]
                assert done.winner == winning_play(full, trump)[0]
                assert d.to_move == done.winner or d.is_terminal()
    assert refusals > 500
    assert kinds["void_trump"] > 300
    if preset in ("flemish", "flemish-table"):
        assert kinds["void_no_trump"] > 100


def test_naive_oracle_agrees_with_the_worked_examples():
    # Sanity of the oracle itself (RULES §5, hearts trump, South plays 4th).
    assert naive_legal(
        "flemish", ["TS", "7S", "AD"], [(1, "KS"), (2, "8S"), (3, "9S")], 0, "H"
    ) == {"TS"}
    assert naive_legal("flemish", ["7H", "AS"], [(1, "AC"), (2, "7C"), (3, "8C")], 0, "H") == {"7H"}
    assert naive_legal(
        "flemish", ["9H", "7H", "AS"], [(1, "AC"), (2, "7C"), (3, "8H")], 0, "H"
    ) == {"9H"}
    assert naive_legal(
        "flemish", ["7H", "AS", "KD"], [(1, "AC"), (2, "7C"), (3, "8H")], 0, "H"
    ) == {"AS", "KD"}
    assert naive_legal("flemish", ["7H"], [(1, "AC"), (2, "7C"), (3, "8H")], 0, "H") == {"7H"}
    assert naive_legal("french", ["7H", "AS"], [(1, "AC"), (2, "7C"), (3, "8H")], 0, "H") == {
        "7H",
        "AS",
    }
    assert naive_legal("malilla", ["7H", "AS"], [(1, "AC"), (2, "7C"), (3, "8H")], 0, "H") == {"7H"}
    assert naive_legal("malilla", ["AS", "7S"], [(1, "QS"), (2, "KS")], 0, "H") == {
        "AS"
    }  # beat the partner
    assert naive_legal("flemish", ["AS", "7S"], [(1, "QS"), (2, "KS")], 0, "H") == {"AS", "7S"}


# ------------------------------------------------------------------ perft
# Like a chess move generator's perft: the number of distinct play sequences of the
# first two tricks of a fixed deal, pinned, and counted by the engine and the naive
# rules alike. A change in these numbers is a change in the rules.


def perft_engine(d: Deal, depth: int) -> int:
    if depth == 0 or d.is_terminal():
        return 1
    total = 0
    for c in d.legal_moves():
        e = d.clone()
        e.play(c)
        total += perft_engine(e, depth - 1)
    return total


def perft_naive(preset, hands, trick, seat, trump, direction, depth) -> int:
    if depth == 0:
        return 1
    total = 0
    for c in sorted(naive_legal(preset, hands[seat], trick, seat, trump)):
        rest = [list(h) for h in hands]
        rest[seat].remove(c)
        now = trick + [(seat, c)]
        if len(now) == 4:
            nxt, now = winning_play(now, trump)[0], []
        else:
            nxt = (seat + direction) % 4
        total += perft_naive(preset, rest, now, nxt, trump, direction, depth - 1)
    return total


PERFT = [
    ("flemish", "trump:H", 78, 7601),
    ("flemish", "trump:none", 78, 12265),
    ("flemish-table", "trump:S", 15, 4368),
    ("french", None, 87, 2779),
    ("malilla", None, 15, 4036),
]


@pytest.mark.parametrize("preset, trump_action, one_trick, two_tricks", PERFT)
def test_perft_of_the_first_two_tricks(preset, trump_action, one_trick, two_tricks):
    from engine import deal_for

    d = Deal.from_spec(deal_for("perft", 1, preset), preset)
    while d.phase != "play":
        acts = d.legal_actions()
        if "look" in acts:
            d.apply_action("look")
        elif trump_action in acts:
            d.apply_action(trump_action)
        else:
            d.apply_action("pass")
    hands = [[str(c) for c in d.hand(s)] for s in range(4)]
    args = (preset, hands, [], d.to_move, d.trump_suit, d.rules.direction)
    assert perft_engine(d, 4) == perft_naive(*args, 4) == one_trick
    assert perft_engine(d, 8) == perft_naive(*args, 8) == two_tricks
