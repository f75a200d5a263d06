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
from engine.records import dumps_json, write_json, write_text  # noqa: E402

DOCS = HERE.parents[2] / "docs" / "records.md"

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


def deal_blocks(text: str, numbers) -> str:
    """The blocks of the given deal numbers from a text record."""
    blocks = text.split("\n\n")[1:]
    keep = [b for b in blocks if int(b.split("}")[0].removeprefix("{Deal ")) in numbers]
    return "\n\n".join(b.strip("\n") for b in keep) + "\n"


def table_example() -> Game:
    """Deal 1 blind with mee and tegen, deal 2 looked at and played without trump."""
    g = Game("docs-table", "flemish-table")
    bot = get_bot("heuristic")
    g.apply_action("blind")
    while g.deal.phase == "announce":
        legal = g.legal_actions()
        g.apply_action(legal[0] if legal[0] in ("mee", "tegen") else "pass")
    while g.deal_number == 1 or g.deal.phase in ("blind", "trump"):
        if g.deal.phase == "blind":
            g.apply_action("look")
        elif g.deal.phase == "trump":
            g.apply_action("trump:none")
        else:
            s = g.to_move
            g.apply_action(bot.act(g.observation(s), bot_seed(g.seed, g.deal_number, s)))
    while g.deal_number == 2:
        s = g.to_move
        g.apply_action(bot.act(g.observation(s), bot_seed(g.seed, g.deal_number, s)))
    return g


def put(doc: str, name: str, body: str, lang: str = "") -> str:
    begin, end = f"<!-- example-{name}:begin -->", f"<!-- example-{name}:end -->"
    i, j = doc.index(begin) + len(begin), doc.index(end)
    return doc[:i] + f"\n```{lang}\n" + body.rstrip("\n") + "\n```\n" + doc[j:]


def docs() -> None:
    seed = "kortrijk-2026-11-30-23"
    g = play(seed, "flemish", "heuristic", "heuristic")
    doc_tags = {"Event": "Club Kortrijk daglijst", "Site": "Kortrijk", "Date": "2026.11.30"}
    doc_tags |= {"Round": "1", "Board": "23"}
    doc_tags |= {seat: "bot:heuristic" for seat in ("South", "West", "North", "East")}
    doc = DOCS.read_text(encoding="utf-8")
    doc = put(doc, "text", write_text(g, doc_tags))
    doc = put(doc, "table", deal_blocks(write_text(table_example()), {1, 2}))
    fr = play("docs-french", "french", "heuristic", "heuristic")
    first_of_game2 = next(r.number for r in fr.results if r.number > fr.games[0].deals)
    doc = put(doc, "french", deal_blocks(write_text(fr), {first_of_game2}))
    data = write_json(g, doc_tags)
    data["deals"] = data["deals"][:1] + [f"... deals 2 to {len(data['deals'])} ..."]
    data["actions"] = data["actions"][:20] + [f"... {len(g.actions)} actions in all"]
    doc = put(doc, "json", dumps_json(data), "json")
    DOCS.write_text(doc, encoding="utf-8")
    print(f"{DOCS.name}: examples updated")


def main() -> None:
    docs()
    for name, (seed, rules, wij, zij) in GOLDEN.items():
        g = play(seed, rules, wij, zij)
        path = HERE / f"{name}.txt"
        path.write_text(write_text(g, tags(name, wij, zij)), encoding="utf-8")
        print(f"{path.name}: {len(g.results)} deals, result {g.outcome.scores}")


if __name__ == "__main__":
    main()
