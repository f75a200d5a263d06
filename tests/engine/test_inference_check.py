"""bench/inference_check.py: record deals, replay them, score an inference's pool."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys

from engine.bots import get_bot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tool():
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    spec = importlib.util.spec_from_file_location(
        "inference_check", os.path.join(ROOT, "bench/inference_check.py")
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_record_and_replay_give_back_the_same_deal(tmp_path):
    tool = _tool()
    out = tmp_path / "rec.jsonl"
    tool.record("ic-test", 1, 2, str(out), "heuristic")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [d["number"] for d in lines] == [1, 2]
    assert lines[0]["bots"] == ["heuristic", "heuristic"]
    for d in lines:
        # every recorded action is replayed, each legal where it was played (the game
        # is the same object throughout: check it at each step)
        seen = []
        for g, a in tool.replay(d):
            assert a in g.legal_actions()
            seen.append(a)
        assert seen == d["actions"]
    # a line cut short by a stopped recorder is skipped, not an error
    with open(out, "a", encoding="utf-8") as f:
        f.write('{"seed": "ic-test", "num')
    assert len(tool.load([str(out)])) == 2


def test_pool_scores_without_inference_are_the_baseline_and_with_it_differ(tmp_path):
    tool = _tool()
    out = tmp_path / "rec.jsonl"
    tool.record("ic-pool", 1, 1, str(out), "heuristic")
    pos = tool.positions(tool.load([str(out)]), share=1.0, limit=40)
    assert pos
    plain = get_bot("expert@no-inference")
    expert = get_bot("expert")
    differ = 0
    for obs, hands in pos:
        rows = tool.pool_scores(plain, obs, hands, pool=50)
        if rows is None:
            continue
        # no inference: the pool is the baseline (room share) itself
        assert all(math.isclose(a, b) for a, b in rows)
        assert all(b <= 0 for _, b in rows)
        rows2 = tool.pool_scores(expert, obs, hands, pool=50)
        assert len(rows2) == len(rows)
        differ += any(not math.isclose(a, b) for (a, _), (b, _) in zip(rows2, rows, strict=True))
    assert differ  # the expert's inference moves the shares somewhere
