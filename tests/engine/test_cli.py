"""``python -m engine ...`` driven through subprocess, as a user would run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Game, IllegalMove, commitment, deal_for, explain
from engine.bots import bot_seed, get_bot
from engine.cli import mean_ci, parse_input, show_cards
from engine.records import read_text, sort_hand, write_json, write_text

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "engine" / "golden"


def run(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


# --------------------------------------------------------------------------- help
@pytest.mark.parametrize("cmd", [[], ["play"], ["replay"], ["selfplay"], ["verify"], ["deal"]])
def test_help(cmd):
    r = run(*cmd, "--help")
    assert r.returncode == 0, r.stderr
    assert "usage: python -m engine" in r.stdout


def test_no_command_is_a_usage_error():
    r = run()
    assert r.returncode == 2
    assert "usage" in r.stderr


# --------------------------------------------------------------------------- play
def typed(action: str) -> str:
    """How a person would type an action: 10s, ah, h, none."""
    if action.startswith("trump:"):
        return action.split(":")[1].lower()
    if action in ("look", "blind", "mee", "tegen", "pass"):
        return action
    rank, suit = action[0], action[1]
    return ("10" if rank == "T" else rank.lower()) + suit.lower()


def south_script(seed: str, rules: str = "flemish", lang: str = "nl"):
    """South's inputs for a whole game where South plays like the heuristic bot, with one
    illegal card typed first at the first chance; also returns the expected refusal."""
    bot = get_bot("heuristic")
    g = Game(seed, rules)
    lines: list[str] = []
    refusal = None
    while not g.is_terminal():
        s = g.to_move
        a = bot.act(g.observation(s), bot_seed(seed, g.deal_number, s))
        if s == 0:
            d = g.deal
            if refusal is None and d.phase == "play":
                hand = {str(c) for c in d.hand(0)}
                illegal = sorted(hand - {str(c) for c in d.legal_moves()})
                if illegal:
                    try:
                        d.clone().play(illegal[0])
                    except IllegalMove as e:
                        refusal = explain(e, lang)
                    lines.append(typed(illegal[0]))
            lines.append(typed(a))
        g.apply_action(a)
    return lines, refusal, g


def test_play_a_whole_game_with_an_illegal_card_refused():
    lines, refusal, g = south_script("cli-play-1")
    assert refusal is not None
    r = run("play", "--seed", "cli-play-1", stdin="\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "! " + refusal in out  # the rule, in Dutch
    assert "Je kaarten:" in out and "♠" in out
    assert re.search(r"Slag \d+: ", out)
    assert "Scorebord:" in out
    a, b = g.outcome.scores
    assert f"Gedaan: WIJ {a} - ZIJ {b}" in out
    assert f"Jouw score: {g.score_for(0):+d}" in out


def test_play_in_english_and_save_the_record(tmp_path):
    lines, refusal, g = south_script("cli-play-2", lang="en")
    path = tmp_path / "game.txt"
    r = run(
        "play",
        "--seed",
        "cli-play-2",
        "--lang",
        "en",
        "--record",
        str(path),
        stdin="\n".join(lines) + "\n",
    )
    assert r.returncode == 0, r.stderr
    assert "! " + refusal in r.stdout
    assert "Game over: WIJ" in r.stdout
    rec = read_text(path.read_text(encoding="utf-8"))
    assert rec.actions == g.actions
    assert rec.tags["South"] == "you"


def test_play_a_few_cards_then_eof():
    g = Game("cli-eof")
    r = run("play", "--seed", "cli-eof", "--lang", "en", stdin="zz\n?\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "seed cli-eof" in out
    assert "=== Deal 1 (game 1) - dealer" in out
    assert "I do not understand 'zz'" in out
    assert "Legal:" in out
    assert out.rstrip().endswith("replay with --seed cli-eof")
    assert "Traceback" not in r.stderr
    # the hand shown is South's, with suit symbols
    hand = show_cards(deal_for("cli-eof", 1).hands[0])
    assert hand in out or g.deal.dealer == 2  # hidden while partner North chooses trump


def test_play_quit_with_q_and_a_typed_trump():
    # Find a seed where South deals the first deal, so the first question is trump.
    seed = next(f"cli-q-{i}" for i in range(100) if deal_for(f"cli-q-{i}", 1).dealer == 0)
    r = run("play", "--seed", seed, "--lang", "fr", stdin="x\nh\nq\n")
    assert r.returncode == 0, r.stderr
    assert "Choisissez l'atout" in r.stdout
    assert "Je ne comprends pas 'x'" in r.stdout
    assert "Au revoir" in r.stdout


def test_play_other_presets_until_eof():
    for rules in ("flemish-table", "french", "malilla"):
        lines, _, g = south_script(f"cli-{rules}", rules)
        r = run(
            "play", "--seed", f"cli-{rules}", "--rules", rules, stdin="\n".join(lines[:12]) + "\n"
        )
        assert r.returncode == 0, (rules, r.stderr)
        assert "Tot ziens" in r.stdout


# --------------------------------------------------------------------------- replay
@pytest.mark.parametrize("name", ["flemish-heuristic", "french-heuristic"])
def test_replay_golden_record(name):
    path = GOLDEN / f"{name}.txt"
    rec = read_text(path.read_text(encoding="utf-8"))
    r = run("replay", str(path), "--lang", "en")
    assert r.returncode == 0, r.stderr
    assert f"Result {rec.result} (" in r.stdout
    assert "OK: the record replays" in r.stdout
    assert "1. " in r.stdout and "wins the trick" in r.stdout
    assert len(re.findall(r"^=== Deal \d+", r.stdout, re.M)) == len(rec.deals)


def test_replay_json_record(tmp_path):
    rec = read_text((GOLDEN / "malilla-heuristic.txt").read_text(encoding="utf-8"))
    g = rec.replay()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(write_json(g, {"Event": "json"})), encoding="utf-8")
    r = run("replay", str(path))
    assert r.returncode == 0, r.stderr
    assert "wint de slag" in r.stdout  # Dutch by default
    assert f"Uitslag {rec.result} (" in r.stdout
    assert "OK: het verslag speelt opnieuw af en elke scoreregel klopt" in r.stdout


def test_replay_corrupt_record_exits_1_with_line_and_reason(tmp_path):
    text = (GOLDEN / "flemish-heuristic.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    i = next(k for k, x in enumerate(lines) if x.startswith("Score"))
    lines[i] = re.sub(r"Score (\d+)", lambda m: f"Score {int(m.group(1)) + 1}", lines[i])
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = run("replay", str(path))
    assert r.returncode == 1
    assert f"line {i + 1}: deal 1: card points" in r.stderr
    assert "Traceback" not in r.stderr


def test_replay_a_file_of_several_records(tmp_path):
    names = ["flemish-heuristic", "french-heuristic"]
    texts = [(GOLDEN / f"{n}.txt").read_text(encoding="utf-8") for n in names]
    path = tmp_path / "tournament.txt"
    path.write_text("\n".join(texts), encoding="utf-8")
    r = run("replay", str(path), "--lang", "en")
    assert r.returncode == 0, r.stderr
    assert re.findall(r"^##### (\d) / 2$", r.stdout, re.M) == ["1", "2"]
    assert r.stdout.count("OK: the record replays") == 2
    for text in texts:
        assert f"Result {read_text(text).result} (" in r.stdout


@pytest.mark.parametrize("text", ["", "; only a comment\n", "  \n\n"])
def test_replay_of_a_file_without_a_record_exits_1(tmp_path, text):
    """A download cut to nothing (or comments only) holds no game: not a verified one."""
    path = tmp_path / "empty.txt"
    path.write_text(text, encoding="utf-8")
    r = run("replay", str(path))
    assert r.returncode == 1 and "no game record" in r.stderr
    assert "OK" not in r.stdout


def test_replay_missing_file():
    r = run("replay", "/nonexistent/record.txt")
    assert r.returncode == 2
    assert "cannot read" in r.stderr


# --------------------------------------------------------------------------- selfplay
def test_selfplay_prints_means_and_a_confidence_interval(tmp_path):
    d = tmp_path / "records"
    r = run(
        "selfplay",
        "--games",
        "3",
        "--seed",
        "ci",
        "--bots",
        "heuristic,random",
        "--record-dir",
        str(d),
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "3 game pairs (6 games, teams swapped)" in out
    assert re.search(
        r"^heuristic\s+card points/deal\s+\d+\.\d\d\s+games won \d/6\s+mean dagscore [+-]\d+\.\d$",
        out,
        re.M,
    )
    assert re.search(r"^random\s+card points/deal", out, re.M)
    m = re.search(
        r"difference heuristic - random: ([+-]\d+\.\d\d) card points/deal,"
        r" 95% CI \[([+-]\d+\.\d\d), ([+-]\d+\.\d\d)\]",
        out,
    )
    assert m, out
    mean, lo, hi = (float(x) for x in m.groups())
    assert lo <= mean <= hi
    assert "3/3" in r.stderr and "[" in r.stderr  # the progress bar
    files = sorted(d.glob("*.txt"))
    assert [f.name for f in files] == [
        "ci-1-a.txt",
        "ci-1-b.txt",
        "ci-2-a.txt",
        "ci-2-b.txt",
        "ci-3-a.txt",
        "ci-3-b.txt",
    ]
    a = read_text(files[0].read_text(encoding="utf-8"))
    b = read_text(files[1].read_text(encoding="utf-8"))
    assert (a.tags["South"], a.tags["West"]) == ("bot:heuristic", "bot:random")
    assert (b.tags["South"], b.tags["West"]) == ("bot:random", "bot:heuristic")
    assert (
        a.deals[0].hands == b.deals[0].hands and a.deals[0].dealer == b.deals[0].dealer
    )  # same deals


def test_selfplay_of_one_pair_has_no_interval_to_print():
    r = run("selfplay", "--games", "1", "--seed", "one", "--bots", "heuristic,random")
    assert r.returncode == 0, r.stderr
    assert "inf" not in r.stdout and "no 95% CI from one pair" in r.stdout


def test_selfplay_is_reproducible_and_quiet():
    args = (
        "selfplay",
        "--games",
        "2",
        "--seed",
        "rep",
        "--bots",
        "random,random",
        "--rules",
        "french",
        "--quiet",
    )
    r1, r2 = run(*args), run(*args)
    assert r1.returncode == 0, r1.stderr
    assert r1.stdout == r2.stdout
    assert r1.stderr == ""
    assert "random (A)" in r1.stdout and "random (B)" in r1.stdout


def test_selfplay_bad_bot():
    r = run("selfplay", "--games", "1", "--bots", "heuristic,grandmaster")
    assert r.returncode == 2
    assert "unknown bot 'grandmaster'" in r.stderr


# --------------------------------------------------------------------------- verify / deal
def test_verify_good_commitment_prints_the_deals():
    r = run(
        "verify",
        "--seed",
        "tournament-7",
        "--commitment",
        commitment("tournament-7").upper(),
        "--deals",
        "3",
    )
    assert r.returncode == 0, r.stderr
    assert "OK: vastlegging" in r.stdout  # Dutch by default
    for k in (1, 2, 3):
        spec = deal_for("tournament-7", k)
        hands = " ".join(f"{'SWNE'[s]}:" + " ".join(sort_hand(spec.hands[s])) for s in range(4))
        assert f"Hands {hands}" in r.stdout
    assert "Spel 4:" not in r.stdout and "Spel 3: gever" in r.stdout


def test_verify_wrong_commitment_fails():
    r = run("verify", "--seed", "tournament-7", "--commitment", commitment("tournament-8"))
    assert r.returncode == 1
    assert "MISLUKT" in r.stdout
    assert "Hands" not in r.stdout


def test_deal_prints_one_deal_with_the_turned_card():
    r = run("deal", "--seed", "s1", "--number", "4", "--rules", "malilla", "--lang", "en")
    assert r.returncode == 0, r.stderr
    spec = deal_for("s1", 4, "malilla")
    assert f"Deal 4: dealer {('South', 'West', 'North', 'East')[spec.dealer]}" in r.stdout
    assert f"turned {spec.turned.display()}" in r.stdout
    assert show_cards(spec.hands[0]) in r.stdout


# --------------------------------------------------------------------------- in process
def test_parse_input():
    g = Game("parse")
    g.apply_action("trump:H") if g.deal.phase == "trump" else None
    assert parse_input("10s", g) == "TS"
    assert parse_input("ah", g) == "AH"
    assert parse_input("T♣", g) == "TC"
    with pytest.raises(ValueError):
        parse_input("11s", g)
    g2 = Game("parse")
    assert parse_input("H", g2) == "trump:H"
    assert parse_input("none", g2) == "trump:none"
    assert parse_input("harten", g2) == "trump:H"


def test_mean_ci():
    m, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5
    assert lo < m < hi
    assert round(hi - m, 3) == round(1.959964 * 1.2909944 / 2, 3)
    m, lo, hi = mean_ci([5.0])
    assert m == 5.0 and lo == float("-inf")


def test_play_table_rules_blind_question_when_south_deals():
    seed = next(
        f"cli-blind-{i}"
        for i in range(100)
        if deal_for(f"cli-blind-{i}", 1, "flemish-table").dealer == 0
    )
    r = run("play", "--seed", seed, "--rules", "flemish-table", "--lang", "en", stdin="blind\n")
    assert r.returncode == 0, r.stderr
    assert "(you have not looked at your cards yet)" in r.stdout
    assert "Blind no trump or look at your cards?" in r.stdout
    assert "South: " not in r.stdout.split("look at your cards?")[0]  # nothing shown before


# --------------------------------------------------------------------------- bad input, paths
def golden_game(name: str = "flemish-heuristic"):
    rec = read_text((GOLDEN / f"{name}.txt").read_text(encoding="utf-8"))
    return rec, rec.replay()


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("tricks", None, "deal 1, tricks: 'tricks' must be a list"),
        ("announcements", None, "deal 1, announcements: 'announcements' must be a list"),
        ("leader", None, "deal 1, trick 1: leader must be a seat S W N E, got null"),
    ],
)
def test_replay_json_with_null_where_a_list_or_seat_belongs_is_an_invalid_record(
    tmp_path, field, value, reason
):
    rec, g = golden_game()
    data = write_json(g, rec.tags)
    if field == "leader":
        data["deals"][0]["tricks"][0]["leader"] = value
    else:
        data["deals"][0][field] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    r = run("replay", str(path))
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip() == f"{path}: invalid record: {reason}"


def test_replay_a_file_that_is_not_utf8_is_an_invalid_record(tmp_path):
    path = tmp_path / "latin1.txt"
    text = (GOLDEN / "flemish-heuristic.txt").read_text(encoding="utf-8")
    path.write_bytes(text.replace('[Event "', '[Event "Caf\u00e9 ').encode("latin-1", "replace"))
    r = run("replay", str(path))
    assert r.returncode == 1
    assert r.stderr.startswith(f"{path}: invalid record: not UTF-8 text: byte 0xe9")
    assert "Traceback" not in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "-"],
        cwd=ROOT,
        input=b"\xff\xfe[",
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 1
    assert b"-: invalid record: not UTF-8" in r.stderr and b"Traceback" not in r.stderr


def test_replay_shows_control_characters_in_tags_escaped(tmp_path):
    rec, g = golden_game()
    tags = dict(rec.tags)
    tags["Event"] = "Club \x1b[2J\x1b[31mred\u202e"
    tags["Site"] = "Caf\u00e9\nDate: 1999.01.01"
    path = tmp_path / "tags.txt"
    path.write_text(write_text(g, tags), encoding="utf-8")
    r = run("replay", str(path), "--lang", "en")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout
    lines = r.stdout.splitlines()
    assert "Event: Club \\x1b[2J\\x1b[31mred\\u202e" in lines
    assert "Site: Caf\u00e9\\nDate: 1999.01.01" in lines
    assert [x for x in lines if x.startswith("Date:")] == ["Date: 2026.11.30"]


@pytest.mark.parametrize(
    ("lang", "result", "ok"),
    [
        ("nl", "Uitslag {} (boom, WIJ)", "OK: het verslag speelt opnieuw af"),
        ("en", "Result {} (boom, WIJ)", "OK: the record replays"),
        ("fr", "Résultat {} (boom, NOUS)", "OK : la partie se rejoue"),
    ],
)
def test_replay_ends_in_the_chosen_language(lang, result, ok):
    rec, g = golden_game()
    assert g.outcome.winner == 0 and g.outcome.reason == "boom"
    r = run("replay", str(GOLDEN / "flemish-heuristic.txt"), "--lang", lang)
    assert r.returncode == 0, r.stderr
    end = r.stdout.rstrip().splitlines()[-2:]
    assert end[0] == result.format(rec.result)
    assert end[1].startswith(ok)


def test_replay_of_an_unfinished_game_in_dutch(tmp_path):
    g = Game("cli-unfinished")
    bot = get_bot("random")
    while len(g.actions) < 20:
        s = g.to_move
        g.apply_action(bot.act(g.observation(s), bot_seed(g.seed, g.deal_number, s)))
    path = tmp_path / "unfinished.txt"
    path.write_text(write_text(g), encoding="utf-8")
    r = run("replay", str(path))
    assert r.returncode == 0, r.stderr
    a, b = g.scores
    assert f"Uitslag * (niet uitgespeeld, WIJ {a} - ZIJ {b})" in r.stdout


def test_deal_and_verify_name_the_turned_card_in_the_chosen_language():
    spec = deal_for("s1", 4, "malilla")
    shown_card = spec.turned.display()
    for lang, line, head in [
        ("nl", f"omgedraaid: {shown_card}", "Spel 4: gever "),
        ("fr", f"retournée : {shown_card}", "Donne 4 : donneur "),
        ("en", f"turned {shown_card}", "Deal 4: dealer "),
    ]:
        r = run("deal", "--seed", "s1", "--number", "4", "--rules", "malilla", "--lang", lang)
        assert r.returncode == 0, r.stderr
        assert "  " + line in r.stdout.splitlines(), (lang, r.stdout)
        assert head in r.stdout
        r = run(
            "verify",
            "--seed",
            "s1",
            "--commitment",
            commitment("s1"),
            "--deals",
            "4",
            "--rules",
            "malilla",
            "--lang",
            lang,
        )
        assert r.returncode == 0, r.stderr
        assert "  " + line in r.stdout.splitlines(), (lang, r.stdout)
    r = run("verify", "--seed", "s1", "--commitment", commitment("s1"), "--deals", "1")
    assert r.stdout.splitlines()[:2] == [
        f"OK: vastlegging {commitment('s1')} hoort bij seed 's1'",
        "regels flemish, spellen 1..1",
    ]
    r = run("verify", "--seed", "s1", "--commitment", "00", "--lang", "fr")
    assert r.returncode == 1
    assert r.stdout.startswith("ÉCHEC : l'engagement ne correspond pas à la seed 's1'")


@pytest.mark.parametrize("deals", ["0", "-1", "1001", "1000000", "ten"])
def test_verify_deals_out_of_bounds_is_a_usage_error(deals):
    r = run("verify", "--seed", "s1", "--commitment", commitment("s1"), "--deals", deals)
    assert r.returncode == 2
    assert "argument --deals" in r.stderr and "1 to 1000" in r.stderr
    assert r.stdout == ""


def test_verify_prints_up_to_1000_deals():
    r = run("verify", "--seed", "s1", "--commitment", commitment("s1"), "--deals", "1000")
    assert r.returncode == 0, r.stderr
    assert len(re.findall(r"^Spel \d+: gever ", r.stdout, re.M)) == 1000


def test_play_board_headers_are_translated():
    lines, _, _ = south_script("cli-board")  # a whole game: the board shows after each deal
    r = run("play", "--seed", "cli-board", stdin="\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^\s+# gever\s+troef\s+x\s+WIJ\s+ZIJ$", r.stdout, re.M), r.stdout[-2000:]
    r = run("play", "--seed", "cli-board", "--lang", "fr", stdin="\n".join(lines) + "\n")
    assert re.search(r"^\s+# donneur\s+atout\s+x\s+NOUS\s+EUX$", r.stdout, re.M)
    assert re.search(
        r"^Fin : NOUS \d+ - EUX \d+ \((objectif atteint|toutes les donnes jouées)", r.stdout, re.M
    )


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("/nonexistent/x.txt", "directory '/nonexistent' does not exist"),
        ("{tmp}", "is a directory, not a file"),
        ("{tmp}/file.txt/x.txt", "directory '{tmp}/file.txt' is not a directory"),
    ],
)
def test_play_record_path_is_checked_before_the_game(tmp_path, record, message):
    (tmp_path / "file.txt").write_text("", encoding="utf-8")
    record, message = record.format(tmp=tmp_path), message.format(tmp=tmp_path)
    r = run("play", "--seed", "cli-path", "--record", record, stdin="q\n")
    assert r.returncode == 2
    assert "argument --record" in r.stderr and message in r.stderr
    assert r.stdout == ""  # no game was started
    assert "Traceback" not in r.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_play_a_record_that_cannot_be_written_at_the_end_goes_to_stdout():
    lines, _, g = south_script("cli-full")
    r = run("play", "--seed", "cli-full", "--lang", "en", "--record", "/dev/full",
            stdin="\n".join(lines) + "\n")  # fmt: skip
    assert r.returncode == 1
    assert "Could not save the record to /dev/full" in r.stderr
    assert "Traceback" not in r.stderr
    text = r.stdout[r.stdout.index("; Manillen game record") :]
    assert read_text(text).actions == g.actions  # the whole game, not lost


def test_play_record_directory_gone_during_the_game_keeps_the_record(tmp_path, capsys):
    import io

    from engine.cli import build_parser, play

    sub = tmp_path / "sub"
    sub.mkdir()
    args = build_parser().parse_args(["play", "--seed", "cli-gone", "--record", str(sub / "g.txt")])
    sub.rmdir()
    out = io.StringIO()
    assert play(args, io.StringIO("q\n"), out) == 1
    assert f"Kon het verslag niet bewaren in {sub / 'g.txt'}" in capsys.readouterr().err
    assert "; Manillen game record" in out.getvalue()
    assert read_text(out.getvalue()[out.getvalue().index("; Manillen") :]).seed == "cli-gone"


def test_play_record_in_a_read_only_directory_is_refused(tmp_path, monkeypatch, capsys):
    # Refused by what os.access says (root may write anywhere, so the denial is the
    # operating system's answer made up here, in the process itself).
    from engine import cli

    ro = tmp_path / "ro"
    ro.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if str(p).startswith(str(ro)) else real_access(p, mode)
    )
    with pytest.raises(SystemExit) as exit_:
        cli.main(["play", "--record", str(ro / "g.txt")])
    assert exit_.value.code == 2
    assert "permission denied" in capsys.readouterr().err
    assert not (ro / "g.txt").exists()


@pytest.mark.parametrize("kind", ["file", "under_a_file"])
def test_selfplay_record_dir_is_checked_before_the_games(tmp_path, kind):
    f = tmp_path / "file.txt"
    f.write_text("", encoding="utf-8")
    target = f if kind == "file" else f / "records"
    r = run("selfplay", "--games", "1", "--bots", "random,random", "--record-dir", str(target))
    assert r.returncode == 2
    assert "argument --record-dir" in r.stderr
    assert "not a directory" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_selfplay_record_dir_is_made_when_missing(tmp_path):
    d = tmp_path / "a" / "b"
    r = run(
        "selfplay", "--games", "1", "--bots", "random,random", "--record-dir", str(d), "--quiet"
    )
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in d.iterdir()) == ["selfplay-1-a.txt", "selfplay-1-b.txt"]
