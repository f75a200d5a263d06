"""A fixed regression set: the expert must not do worse on these deals than the last
committed result.

Each deal of ``SEED`` is played twice (duplicate, flemish), expert in seats 0/2 against
the heuristic bot, then swapped; the expert's score is its card points minus the
heuristic's in the same seats with the same cards.  The bots are pure functions of
(observation, seed), so the figure is exact and the same on every machine: a change that
lowers the total must be a deliberate one, with the new figures committed here (and the
full benchmark, ``bench/bots.py``, re-run).
"""

from __future__ import annotations

from engine import Game, deal_for
from engine.bots import bot_seed, get_bot

SEED = "regression-expert"
DEALS = range(1, 41)

# expert − heuristic card points per deal at the last commit that changed the expert
# (issue #13, 2026-12-04: the card-location network refitted on expert self-play and the
# expert against ismcts:20000 and the heuristic bot; bench/results/bots-2026-12-04.md).
# The set was 8 deals until 2026-12-01c (one deal swings 20 points, so 8 deals guarded
# nothing); over these 40 the expert of 2026-12-01b makes +299, that of 2026-12-01c +321,
# that of 2026-12-02 +330, that of 2026-12-02b +308, that of 2026-12-03 +244 (lowered
# deliberately: its inference, fitted on expert play, brought nothing against the
# rule-based bot -- +6.84 on the benchmark's 1,000 deals where the one before made +6.96
# -- and gained +0.60 [+0.18, +1.02] against ismcts:20000), this one +265.
# fmt: off
COMMITTED = {
    1: 3, 2: 5, 3: 15, 4: -9, 5: 6, 6: 22, 7: 7, 8: 13, 9: 12, 10: 2,
    11: -2, 12: 26, 13: 9, 14: 6, 15: 0, 16: 5, 17: 5, 18: 9, 19: 8, 20: 7,
    21: 1, 22: 2, 23: -2, 24: 10, 25: 9, 26: 0, 27: 4, 28: 9, 29: 11, 30: 36,
    31: -5, 32: -1, 33: 12, 34: 16, 35: 1, 36: 0, 37: 9, 38: -4, 39: 9, 40: -1,
}
# fmt: on
COMMITTED_TOTAL = sum(COMMITTED.values())  # +265


def _play(number: int, bots: dict[int, object]) -> list[int]:
    spec = deal_for(SEED, number, "flemish")
    g = Game(SEED, "flemish", deals=lambda n: spec)
    while g.deal_number == 1 and not g.is_terminal():
        seat = g.to_move
        obs = g.observation(seat)
        g.apply_action(bots[seat & 1].act(obs, bot_seed(SEED, number, seat)))
    return list(g.results[0].card_points)


def duplicate_scores() -> dict[int, int]:
    expert, heuristic = get_bot("expert"), get_bot("heuristic")
    out = {}
    for k in DEALS:
        first = _play(k, {0: expert, 1: heuristic})
        second = _play(k, {0: heuristic, 1: expert})
        out[k] = first[0] - second[0]
    return out


def test_expert_is_not_worse_than_the_committed_result_on_the_regression_deals():
    scores = duplicate_scores()
    total = sum(scores.values())
    assert total >= COMMITTED_TOTAL, (
        f"expert − heuristic on the regression deals: {total:+d} (per deal {scores}), "
        f"below the committed {COMMITTED_TOTAL:+d} ({COMMITTED})"
    )


if __name__ == "__main__":  # print the figures to commit
    s = duplicate_scores()
    print("COMMITTED =", s)
    print("total =", sum(s.values()))  # COMMITTED_TOTAL follows from COMMITTED
