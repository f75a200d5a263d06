"""Regenerate the golden game records (run from the repository root):

    python tests/engine/golden/make_golden.py

Only do this when a change of the engine's behaviour (dealing, rules, scoring or the
bots) is intended; the diff of the .txt files shows what changed.  test_records.py
replays every record here and checks its score lines and Result.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from engine import Game  # noqa: E402
from engine.bots import bot_seed, get_bot  # noqa: E402
from engine.records import write_text  # noqa: E402

# name: (seed, rules, bot on South/North, bot on West/East)
GOLDEN = {
    "flemish-heuristic": ("golden-flemish-1", "flemish", "heuristic", "heuristic"),
    "flemish-heuristic-random": ("golden-flemish-2", "flemish", "heuristic", "random"),
    "flemish-table-heuristic": ("golden-table-1", "flemish-table", "heuristic", "heuristic"),
    "flemish-table-random-heuristic": ("golden-table-2", "flemish-table", "random", "heuristic"),
    "french-heuristic": ("golden-french-1", "french", "heuristic", "heuristic"),
    "french-random-heuristic": ("golden-french-2", "french", "random", "heuristic"),
    "malilla-heuristic": ("golden-malilla-1", "malilla", "heuristic", "heuristic"),
    "malilla-random": ("golden-malilla-2", "malilla", "random", "random"),
}


def play(seed: str, rules: str, wij: str, zij: str) -> Game:
    bots = [get_bot(wij if s % 2 == 0 else zij) for s in range(4)]
    g = Game(seed, rules)
    while not g.is_terminal():
        s = g.to_move
        g.apply_action(bots[s].act(g.observation(s), bot_seed(seed, g.deal_number, s)))
    return g


def tags(name: str, wij: str, zij: str) -> dict:
    return {
        "Event": f"Golden record {name}",
        "Site": "tests/engine/golden",
        "Date": "2026.11.30",
        "South": f"bot:{wij}",
        "West": f"bot:{zij}",
        "North": f"bot:{wij}",
        "East": f"bot:{zij}",
    }


def main() -> None:
    for name, (seed, rules, wij, zij) in GOLDEN.items():
        g = play(seed, rules, wij, zij)
        path = HERE / f"{name}.txt"
        path.write_text(write_text(g, tags(name, wij, zij)), encoding="utf-8")
        print(f"{path.name}: {len(g.results)} deals, result {g.outcome.scores}")


if __name__ == "__main__":
    main()
