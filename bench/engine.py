"""Engine speed: one random deal, one random game to 101, dealing, observations, and the
public API against a naive list-based implementation of the same rules, in one run.

Run: python bench/engine.py [--repeats 7] [--n 300]
Prints medians over repeats (each repeat times N items and takes their median).
Times are the process's own CPU time (time.process_time): on a shared machine that is
what one idle core would take; wall-clock figures swing with the other load, so the
comparison with the naive rules is a ratio measured in the same run, item by item.
Targets (issue #2, one core): a whole random game to 101 (legal_moves + play) <= 2 ms
median; a full random deal (32 cards) <= 0.1 ms median. Issue #10: a random deal through
the public API (Deal.from_hands + 32 x legal_moves + play) at least 3x the speed of the
naive rules (tests/engine/test_oracle.py's obligations on lists of card strings).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "engine"))

from test_oracle import ALL, POINTS, naive_legal, winning_play  # noqa: E402

from engine import Deal, Game, deal_for  # noqa: E402

CLOCK = time.process_time


def random_deal(spec, rnd) -> float:
    d = Deal.from_spec(spec)
    d.choose_trump("SHDC"[spec.number % 4])
    t0 = CLOCK()
    while d.to_move is not None:
        moves = d.legal_moves()
        d.play(moves[int(rnd() * len(moves))])
    return CLOCK() - t0


def random_game(seed: str, rnd) -> tuple[float, int, float]:
    """Whole game wall/CPU time, deal count, and the time spent in legal_moves + play."""
    t0 = CLOCK()
    g = Game(seed)
    in_play = 0.0
    while g.outcome is None:
        deal = g.deal
        if deal.phase == "play":
            t1 = CLOCK()
            while g.deal is deal and g.outcome is None:
                moves = deal.legal_moves()
                g.apply_action(moves[int(rnd() * len(moves))])
            in_play += CLOCK() - t1
        else:
            acts = deal.legal_actions()
            g.apply_action(acts[int(rnd() * len(acts))])
    return CLOCK() - t0, g.deal_number, in_play


def timed(fn, items) -> float:
    ts = []
    for it in items:
        t0 = CLOCK()
        fn(it)
        ts.append(CLOCK() - t0)
    return statistics.median(ts)


# ------------------------------------------------------------ public API vs naive rules


def api_deal(hands, dealer, trump, rnd) -> float:
    """The public API from card texts: from_hands, trump, 32 x legal_moves + play."""
    t0 = CLOCK()
    d = Deal.from_hands(hands, dealer, "flemish")
    d.choose_trump(trump)
    while d.to_move is not None:
        moves = d.legal_moves()
        d.play(moves[int(rnd() * len(moves))])
    return CLOCK() - t0


def from_hands_only(hands, dealer, trump, rnd) -> float:
    t0 = CLOCK()
    Deal.from_hands(hands, dealer, "flemish")
    return CLOCK() - t0


class NaiveDeal:
    """The flemish deal on plain lists of card strings with the oracle's obligations
    (tests/engine/test_oracle.py), behind the calls the API offers and doing what they
    do: the hands are checked, ``legal_moves`` lists the cards in a fixed order, ``play``
    refuses a card the rules forbid, the tricks, actions and written score are kept."""

    def __init__(self, hands, dealer: int) -> None:
        if len(hands) != 4 or any(len(h) != 8 for h in hands):
            raise ValueError("four hands of eight cards are needed")
        if sorted(c for h in hands for c in h) != SORTED_DECK:
            raise ValueError("every card is dealt once")
        self.hands = [list(h) for h in hands]
        self.dealer = dealer
        self.to_move: int | None = dealer
        self.trump: str | None = None
        self.trick: list[tuple[int, str]] = []
        self.tricks: list = []
        self.actions: list[str] = []
        self.points = [0, 0]
        self.won = [0, 0]
        self.written: tuple[int, int] | None = None

    def choose_trump(self, suit: str | None) -> None:
        if suit not in ("S", "H", "D", "C", None):
            raise ValueError(f"unknown suit {suit!r}")
        self.trump = suit
        self.actions.append(f"trump:{suit or 'none'}")
        self.to_move = (self.dealer + 1) % 4

    def legal_moves(self) -> list[str]:
        seat = self.to_move
        if seat is None:
            return []
        hand = self.hands[seat]
        allowed = naive_legal("flemish", hand, self.trick, seat, self.trump)
        return [c for c in hand if c in allowed]

    def play(self, card: str) -> None:
        if card not in self.legal_moves():
            raise ValueError(f"{card} may not be played now")
        seat: int = self.to_move  # type: ignore[assignment]
        self.hands[seat].remove(card)
        self.actions.append(card)
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            self.to_move = (seat + 1) % 4
            return
        winner = winning_play(self.trick, self.trump)[0]
        self.points[winner % 2] += sum(POINTS[c[0]] for _, c in self.trick)
        self.won[winner % 2] += 1
        self.tricks.append((self.trick[0][0], self.trick, winner))
        self.trick = []
        self.to_move = winner
        if len(self.tricks) == 8:
            self.to_move = None
            mult = 2 if self.trump is None else 1
            a, b = self.points
            self.written = (
                max(0, a - 30) * mult if a > b else 0,
                max(0, b - 30) * mult if b > a else 0,
            )


SORTED_DECK = sorted(ALL)


def naive_deal(hands, dealer, trump, rnd) -> float:
    """The same random deal through :class:`NaiveDeal`, driven by the same loop."""
    t0 = CLOCK()
    d = NaiveDeal(hands, dealer)
    d.choose_trump(trump)
    while d.to_move is not None:
        moves = d.legal_moves()
        d.play(moves[int(rnd() * len(moves))])
    return CLOCK() - t0


def bare_naive_deal(hands, dealer, trump, rnd) -> float:
    """The least a list-based loop can do: the oracle's obligations and the trick winner,
    no checks, no API (shown for scale; the target is against :class:`NaiveDeal`)."""
    t0 = CLOCK()
    held = [list(h) for h in hands]
    seat = (dealer + 1) % 4
    trick: list[tuple[int, str]] = []
    for _ in range(32):
        hand = held[seat]
        allowed = naive_legal("flemish", hand, trick, seat, trump)
        moves = [c for c in hand if c in allowed]
        card = moves[int(rnd() * len(moves))]
        hand.remove(card)
        trick.append((seat, card))
        if len(trick) == 4:
            seat = winning_play(trick, trump)[0]
            trick = []
        else:
            seat = (seat + 1) % 4
    return CLOCK() - t0


def deal_items(n: int, rng: random.Random) -> list[tuple]:
    items = []
    for i in range(n):
        cards = list(ALL)
        rng.shuffle(cards)
        hands = [cards[k * 8 : k * 8 + 8] for k in range(4)]
        items.append((hands, rng.randrange(4), ("S", "H", "D", "C", None)[i % 5]))
    return items


def api_vs_naive(items, seed: int) -> dict[str, float]:
    """Medians over the items of each way to play them; every item is played by all
    ways back to back, in alternating order (the second run of a deal finds warmer
    caches), so a burst of load hits all of them alike."""
    ways = {
        "api": api_deal,
        "naive": naive_deal,
        "bare": bare_naive_deal,
        "from_hands": from_hands_only,
    }
    rnds = {name: random.Random(seed).random for name in ways}
    times: dict[str, list[float]] = {name: [] for name in ways}
    order = list(ways)
    for it in items:
        for name in order:
            times[name].append(ways[name](*it, rnds[name]))
        order.reverse()
    return {name: statistics.median(ts) for name, ts in times.items()}


# ------------------------------------------------------------ observation mid-game


def observation_mid_game(seed: str, rnd) -> tuple[list[float], list[float]]:
    """A random game: after every action, South's observation as the server asks for it
    (once, right after the move) and a second time (nothing changed)."""
    g = Game(seed)
    first, again = [], []
    while g.outcome is None:
        acts = g.legal_actions()
        g.apply_action(acts[int(rnd() * len(acts))])
        t0 = CLOCK()
        g.observation(0)
        t1 = CLOCK()
        g.observation(0)
        t2 = CLOCK()
        if g.deal_number > 1 or g.deal.tricks:  # mid-game: some trick or deal behind
            first.append(t1 - t0)
            again.append(t2 - t1)
    return first, again


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--n", type=int, default=300, help="deals/games per repeat")
    ap.add_argument("--wall", action="store_true", help="wall clock instead of CPU time")
    args = ap.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter
    rnd = random.Random(2026).random
    specs = [deal_for("bench", i) for i in range(1, args.n + 1)]
    items = deal_items(args.n, random.Random(10))

    deal_meds, game_meds, deal_counts, gen_meds, obs_meds = [], [], [], [], []
    play_meds: list[float] = []
    api_meds, naive_meds, bare_meds, build_meds, ratios, bare_ratios = [], [], [], [], [], []
    mid_meds, mid_again_meds = [], []
    for rep in range(args.repeats):
        deal_meds.append(statistics.median(random_deal(s, rnd) for s in specs))
        runs = [random_game(f"bench-{rep}-{i}", rnd) for i in range(args.n // 3)]
        game_meds.append(statistics.median(t for t, _, _ in runs))
        play_meds.append(statistics.median(p for _, _, p in runs))
        deal_counts.append(statistics.mean(n for _, n, _ in runs))
        gen_meds.append(timed(lambda k: deal_for("gen", k), range(1, args.n + 1)))
        obs_meds.append(timed(Game("obs").observation, [s % 4 for s in range(args.n)]))
        meds = api_vs_naive(items, rep)
        api_meds.append(meds["api"])
        naive_meds.append(meds["naive"])
        bare_meds.append(meds["bare"])
        build_meds.append(meds["from_hands"])
        ratios.append(meds["naive"] / meds["api"])
        bare_ratios.append(meds["bare"] / meds["api"])
        first, again = [], []
        for i in range(max(1, args.n // 30)):
            f, g = observation_mid_game(f"obs-{rep}-{i}", rnd)
            first += f
            again += g
        mid_meds.append(statistics.median(first))
        mid_again_meds.append(statistics.median(again))

    def fmt(xs, scale=1e3, unit="ms"):
        lo, hi = min(xs) * scale, max(xs) * scale
        return f"{statistics.median(xs) * scale:8.3f} {unit} (repeats: min {lo:.3f}, max {hi:.3f})"

    clock = "wall clock" if args.wall else "CPU time"
    print(f"python {sys.version.split()[0]}, {args.repeats} x {args.n} items, medians, {clock}")
    print(f"full random deal (32 x legal_moves + play): {fmt(deal_meds)}   target <= 0.100 ms")
    deals = statistics.mean(deal_counts)
    print(f"random game to 101 (with dealing, ~{deals:.1f} deals): {fmt(game_meds)} target <= 2 ms")
    print(f"  of which legal_moves + play:               {fmt(play_meds)} target <= 2 ms")
    print(f"deal_for (HMAC shuffle + deal):            {fmt(gen_meds, 1e6, 'us')}")
    print(f"Game.observation(seat) at game start:       {fmt(obs_meds, 1e6, 'us')}")
    print(f"Game.observation(0) mid-game, after a move: {fmt(mid_meds, 1e6, 'us')}")
    print(f"  the same, asked again:                    {fmt(mid_again_meds, 1e6, 'us')}")
    print("public API vs naive rules, same deals, interleaved:")
    print(f"  Deal.from_hands + trump + 32 x (legal_moves + play): {fmt(api_meds, 1e6, 'us')}")
    print(f"    of which Deal.from_hands:                          {fmt(build_meds, 1e6, 'us')}")
    print(f"  NaiveDeal, the same calls on lists:                  {fmt(naive_meds, 1e6, 'us')}")
    print(f"  bare naive loop, no checks:                          {fmt(bare_meds, 1e6, 'us')}")
    share = statistics.median(b / a for a, b in zip(api_meds, build_meds, strict=True))
    print(f"  from_hands share of the API deal: {share:.0%}")
    print(
        f"  speed ratio NaiveDeal / API: {statistics.median(ratios):.2f}x "
        f"(repeats: min {min(ratios):.2f}, max {max(ratios):.2f})   target >= 3x"
    )
    print(
        f"  speed ratio bare loop / API: {statistics.median(bare_ratios):.2f}x "
        f"(repeats: min {min(bare_ratios):.2f}, max {max(bare_ratios):.2f})"
    )


if __name__ == "__main__":
    main()
