"""Command line: ``python -m engine play | replay | selfplay | verify | deal``.

Pure standard library (argparse, statistics); run ``python -m engine --help``.
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import statistics
import sys
import unicodedata
from pathlib import Path
from typing import Any, TextIO

from .cards import CARD_BY_TEXT, SUIT_NAMES, SUIT_SYMBOLS, Card, parse_suit
from .deal import DONE
from .dealing import commitment, deal_for, verify_commitment
from .errors import IllegalMove, InvalidRecord
from .game import Game
from .messages import SEAT_NAMES, explain
from .records import (
    SEAT_LETTERS,
    GameRecord,
    decode_text,
    read_many,
    read_record,
    sort_hand,
    write_json,
    write_text,
)
from .rules import MAX_FIXED_DEALS, PRESETS, get_rules

LANGS = ("nl", "en", "fr")

UI: dict[str, dict[str, str]] = {
    "en": {
        "welcome": (
            "Manillen: you are South, partner North; seed {seed}, rules {rules}. "
            "Type a card (TS, 10s, ah), ? for help, q to quit."
        ),
        "deal": "=== Deal {n} (game {game}) - dealer {dealer} ===",
        "hand": "Your hand",
        "hidden": "(your cards stay face down until your partner has chosen trump)",
        "not_looked": "(you have not looked at your cards yet)",
        "trick": "Trick",
        "empty": "(empty)",
        "trump_is": "Trump: {trump}",
        "no_trump": "no trump",
        "turn": "{seat} to play",
        "prompt": "Your move> ",
        "prompt_trump": "Choose trump (S H D C{none})> ",
        "prompt_blind": "Blind no trump or look at your cards? (blind/look)> ",
        "prompt_ann": "{call} or pass?> ",
        "said": "{seat}: {action}",
        "won": "{seat} wins the trick ({points} points)",
        "score": (
            "Deal {n}: card points WIJ {a} - ZIJ {b}, x{mult}, written {wa}-{wb}; "
            "total WIJ {ta} - ZIJ {tb}"
        ),
        "board": "Board",
        "game_end": "Game {game} over: WIJ {a} - ZIJ {b}",
        "over": "Game over: WIJ {a} - ZIJ {b} ({reason}). Your score: {score:+d}",
        "legal": "Legal: {legal}",
        "bad_input": "I do not understand {text!r}: {reason}",
        "bye": "Bye. Seed {seed}: replay with --seed {seed}",
        "saved": "Record saved to {path}",
        "not_saved": "Could not save the record to {path}: {error}. The record follows; keep it:",
        "wij": "WIJ",
        "zij": "ZIJ",
        "col_dealer": "dealer",
        "col_trump": "trump",
        "deal_line": "Deal {n}: dealer {dealer}",
        "turned": "turned {card}",
        "seed_rules": "seed {seed}, rules {rules}",
        "verify_ok": "OK: commitment {commitment} matches seed {seed}",
        "verify_failed": "FAILED: the commitment does not match seed {seed}",
        "published": "published",
        "computed": "computed",
        "verify_deals": "rules {rules}, deals 1..{n}",
        "result": "Result {result} ({reason}, {winner})",
        "draw": "draw",
        "unfinished": "Result * (unfinished, WIJ {a} - ZIJ {b})",
        "replay_ok": "OK: the record replays and every score line matches",
        "reason_boom": "target reached",
        "reason_deal_limit": "deal limit reached",
        "reason_match": "match over",
        "reason_deals": "all deals played",
    },
    "nl": {
        "welcome": (
            "Manillen: jij bent Zuid, je partner Noord; seed {seed}, regels {rules}. "
            "Typ een kaart (TS, 10s, ah), ? voor hulp, q om te stoppen."
        ),
        "deal": "=== Spel {n} (partij {game}) - gever {dealer} ===",
        "hand": "Je kaarten",
        "hidden": "(je kaarten blijven gedekt tot je partner troef gekozen heeft)",
        "not_looked": "(je hebt je kaarten nog niet bekeken)",
        "trick": "Slag",
        "empty": "(leeg)",
        "trump_is": "Troef: {trump}",
        "no_trump": "zonder troef",
        "turn": "{seat} is aan zet",
        "prompt": "Jouw zet> ",
        "prompt_trump": "Kies troef (S H D C{none})> ",
        "prompt_blind": "Blind zonder troef of kijken? (blind/look)> ",
        "prompt_ann": "{call} of pass?> ",
        "said": "{seat}: {action}",
        "won": "{seat} wint de slag ({points} punten)",
        "score": (
            "Spel {n}: kaartpunten WIJ {a} - ZIJ {b}, x{mult}, geschreven {wa}-{wb}; "
            "totaal WIJ {ta} - ZIJ {tb}"
        ),
        "board": "Scorebord",
        "game_end": "Partij {game} gedaan: WIJ {a} - ZIJ {b}",
        "over": "Gedaan: WIJ {a} - ZIJ {b} ({reason}). Jouw score: {score:+d}",
        "legal": "Toegelaten: {legal}",
        "bad_input": "Ik begrijp {text!r} niet: {reason}",
        "bye": "Tot ziens. Seed {seed}: opnieuw met --seed {seed}",
        "saved": "Verslag bewaard in {path}",
        "not_saved": "Kon het verslag niet bewaren in {path}: {error}. Hier is het; bewaar het:",
        "wij": "WIJ",
        "zij": "ZIJ",
        "col_dealer": "gever",
        "col_trump": "troef",
        "deal_line": "Spel {n}: gever {dealer}",
        "turned": "omgedraaid: {card}",
        "seed_rules": "seed {seed}, regels {rules}",
        "verify_ok": "OK: vastlegging {commitment} hoort bij seed {seed}",
        "verify_failed": "MISLUKT: de vastlegging hoort niet bij seed {seed}",
        "published": "gepubliceerd",
        "computed": "berekend",
        "verify_deals": "regels {rules}, spellen 1..{n}",
        "result": "Uitslag {result} ({reason}, {winner})",
        "draw": "gelijk",
        "unfinished": "Uitslag * (niet uitgespeeld, WIJ {a} - ZIJ {b})",
        "replay_ok": "OK: het verslag speelt opnieuw af en elke scoreregel klopt",
        "reason_boom": "doel bereikt",
        "reason_deal_limit": "maximum aantal spellen bereikt",
        "reason_match": "match gedaan",
        "reason_deals": "alle spellen gespeeld",
    },
    "fr": {
        "welcome": (
            "Manille : vous êtes Sud, partenaire Nord ; seed {seed}, règles {rules}. "
            "Tapez une carte (TS, 10s, ah), ? pour l'aide, q pour quitter."
        ),
        "deal": "=== Donne {n} (partie {game}) - donneur {dealer} ===",
        "hand": "Votre main",
        "hidden": "(vos cartes restent cachées tant que votre partenaire n'a pas choisi l'atout)",
        "not_looked": "(vous n'avez pas encore regardé vos cartes)",
        "trick": "Pli",
        "empty": "(vide)",
        "trump_is": "Atout : {trump}",
        "no_trump": "sans atout",
        "turn": "{seat} joue",
        "prompt": "Votre coup> ",
        "prompt_trump": "Choisissez l'atout (S H D C{none})> ",
        "prompt_blind": "Sans-atout aveugle ou regarder ? (blind/look)> ",
        "prompt_ann": "{call} ou pass ?> ",
        "said": "{seat} : {action}",
        "won": "{seat} gagne le pli ({points} points)",
        "score": (
            "Donne {n} : points NOUS {a} - EUX {b}, x{mult}, marqué {wa}-{wb} ; "
            "total NOUS {ta} - EUX {tb}"
        ),
        "board": "Tableau",
        "game_end": "Partie {game} terminée : NOUS {a} - EUX {b}",
        "over": "Fin : NOUS {a} - EUX {b} ({reason}). Votre score : {score:+d}",
        "legal": "Permis : {legal}",
        "bad_input": "Je ne comprends pas {text!r} : {reason}",
        "bye": "Au revoir. Seed {seed} : rejouez avec --seed {seed}",
        "saved": "Partie enregistrée dans {path}",
        "not_saved": (
            "Impossible d'enregistrer la partie dans {path} : {error}. La voici ; conservez-la :"
        ),
        "wij": "NOUS",
        "zij": "EUX",
        "col_dealer": "donneur",
        "col_trump": "atout",
        "deal_line": "Donne {n} : donneur {dealer}",
        "turned": "retournée : {card}",
        "seed_rules": "seed {seed}, règles {rules}",
        "verify_ok": "OK : l'engagement {commitment} correspond à la seed {seed}",
        "verify_failed": "ÉCHEC : l'engagement ne correspond pas à la seed {seed}",
        "published": "publié",
        "computed": "calculé",
        "verify_deals": "règles {rules}, donnes 1..{n}",
        "result": "Résultat {result} ({reason}, {winner})",
        "draw": "égalité",
        "unfinished": "Résultat * (inachevée, NOUS {a} - EUX {b})",
        "replay_ok": "OK : la partie se rejoue et chaque ligne de score correspond",
        "reason_boom": "objectif atteint",
        "reason_deal_limit": "nombre maximal de donnes atteint",
        "reason_match": "match terminé",
        "reason_deals": "toutes les donnes jouées",
    },
}


def t(lang: str, key: str, **kw) -> str:
    return UI.get(lang, UI["en"])[key].format(**kw)


def reason_text(lang: str, reason: str) -> str:
    """Why a game ended (``Outcome.reason``) in words; an unknown code as it is."""
    return UI.get(lang, UI["en"]).get(f"reason_{reason}", reason)


# Characters shown escaped when a record's text is printed: C0/C1 controls (ESC would
# drive the terminal), every character at which a line is cut (a newline in a tag would
# fake a header line), and the bidirectional controls that reorder what follows them.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _escaped(ch: str) -> bool:
    return (
        ch in _BIDI
        or unicodedata.category(ch) in ("Cc", "Zl", "Zp")
        or len(("a" + ch + "a").splitlines()) > 1
    )


def shown(text: str) -> str:
    r"""``text`` safe to print on one terminal line: control characters, line breaks and
    bidi controls escaped as ``repr`` writes them (``\x1b``, ``\n``, ``\u2028``), and a
    backslash doubled so that what is shown is unambiguous.

    >>> print(shown("Café \x1b[2J\nDe Kroon"))
    Café \x1b[2J\nDe Kroon
    >>> print(shown("C:\\club \u202eevil"))
    C:\\club \u202eevil
    """
    return "".join("\\\\" if ch == "\\" else repr(ch)[1:-1] if _escaped(ch) else ch for ch in text)


def score_line(lang: str, n: int, card_points, mult: int, written, total) -> str:
    a, b = card_points
    return t(
        lang,
        "score",
        n=n,
        a=a,
        b=b,
        mult=mult,
        wa=written[0],
        wb=written[1],
        ta=total[0],
        tb=total[1],
    )


# --------------------------------------------------------------------------- display
def show_cards(cards) -> str:
    """``10♠ A♠ 7♠  K♥ 9♥``: by suit, high to low, a wider gap between suits."""
    out, prev = [], None
    for text in sort_hand(cards):
        c = CARD_BY_TEXT[text]
        if prev is not None and c.suit != prev:
            out.append("")
        out.append(c.display())
        prev = c.suit
    return " ".join(out)


def show_action(action: str, lang: str) -> str:
    if action in CARD_BY_TEXT:
        return CARD_BY_TEXT[action].display()
    if action.startswith("trump:"):
        s = action.split(":", 1)[1]
        if s == "none":
            return UI[lang]["no_trump"]
        return f"{UI[lang]['trump_is'].format(trump=SUIT_SYMBOLS[s])} ({SUIT_NAMES[lang][s]})"
    return action


def seat_name(seat: int, lang: str) -> str:
    return SEAT_NAMES[lang][seat]


def show_board(g: Game, lang: str, out: TextIO) -> None:
    board = g.board
    if not board:
        return
    w, z = UI[lang]["wij"], UI[lang]["zij"]
    print(f"{UI[lang]['board']}:", file=out)
    dealer, trump = UI[lang]["col_dealer"], UI[lang]["col_trump"]
    print(f"  {'#':>3} {dealer:<7} {trump:<6} {'x':>2} {w:>5} {z:>5}", file=out)
    ta = tb = 0
    for r in board:
        ta += r["written"][0]
        tb += r["written"][1]
        trump = "-" if r["no_trump"] else SUIT_SYMBOLS.get(r["trump"] or "", "?")
        print(
            f"  {r['deal']:>3} {seat_name(r['dealer'], lang):<7} {trump:<6} {r['multiplier']:>2} "
            f"{r['written'][0]:>5} {r['written'][1]:>5}   ({ta}-{tb})",
            file=out,
        )


# --------------------------------------------------------------------------- play
def bot_action(g: Game, bot, seat: int) -> str:
    from .bots import bot_seed

    return bot.act(g.observation(seat), bot_seed(g.seed, g.deal_number, seat))


def _read_line(inp: TextIO, out: TextIO, prompt: str) -> str | None:
    out.write(prompt)
    out.flush()
    line = inp.readline()
    if not line:
        out.write("\n")
        return None
    return line.strip()


def parse_input(text: str, g: Game) -> str:
    """What the player typed -> an action string (ValueError with a reason if unclear)."""
    phase = g.deal.phase
    low = text.strip().lower()
    if phase == "blind":
        if low in ("blind", "look", "kijk", "kijken", "regarder"):
            return "blind" if low == "blind" else "look"
        raise ValueError("blind or look")
    if phase == "trump":
        if low.startswith("trump:"):
            low = low[6:]
        s = parse_suit(low)
        return "trump:none" if s is None else "trump:" + "SHDC"[s]
    if phase == "announce":
        if low in ("mee", "tegen", "pass"):
            return low
        raise ValueError(" / ".join(g.legal_actions()))
    return str(Card.parse(text))


def play(args, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """A game in the terminal; with ``--record`` the record is saved however it ends (the
    path was checked before play; should writing still fail, the record goes to stdout)."""
    from .bots import get_bot

    lang = args.lang
    seed = args.seed if args.seed is not None else secrets.token_hex(6)
    g = Game(seed, args.rules)
    bot = get_bot(args.bot)
    saved = True
    try:
        code = _play_game(g, bot, seed, lang, inp, out)
    finally:
        if args.record:
            saved = save_record(g, args, out)
    return code if saved else 1


def save_record(g: Game, args, out: TextIO) -> bool:
    """Write the game's record to ``args.record`` (JSON for ``.json``). If that fails, say
    so on stderr and print the record itself to ``out`` so that the game is not lost."""
    lang = args.lang
    path = Path(args.record)
    tags = {"Event": "python -m engine play", "South": "you", "West": f"bot:{args.bot}",
            "North": f"bot:{args.bot}", "East": f"bot:{args.bot}"}  # fmt: skip
    text = write_json(g, tags, as_string=True) if path.suffix == ".json" else write_text(g, tags)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        print(t(lang, "not_saved", path=path, error=e.strerror or e), file=sys.stderr)
        out.write(text if text.endswith("\n") else text + "\n")
        out.flush()
        return False
    print(t(lang, "saved", path=path), file=out)
    return True


def _play_game(g: Game, bot, seed: str, lang: str, inp: TextIO, out: TextIO) -> int:
    print(t(lang, "welcome", seed=seed, rules=g.rules.spec), file=out)
    announced_deal = 0
    while not g.is_terminal():
        deal = g.deal
        if g.deal_number != announced_deal:
            announced_deal = g.deal_number
            print("", file=out)
            print(
                t(
                    lang,
                    "deal",
                    n=g.deal_number,
                    game=g.game_index + 1,
                    dealer=seat_name(deal.dealer, lang),
                ),
                file=out,
            )
            if deal.turned is not None:
                print(t(lang, "trump_is", trump=deal.turned.display()), file=out)
        seat = g.to_move
        assert seat is not None
        if seat == 0:
            action = _ask(g, lang, inp, out)
            if action is None:
                print(t(lang, "bye", seed=seed), file=out)
                return 0
        else:
            action = bot_action(g, bot, seat)
            print(
                "  "
                + t(lang, "said", seat=seat_name(seat, lang), action=show_action(action, lang)),
                file=out,
            )
        n_tricks = len(deal.tricks)
        g.apply_action(action)
        if len(deal.tricks) > n_tricks:
            tr = deal.tricks[-1]
            print(
                "  -> " + t(lang, "won", seat=seat_name(tr.winner, lang), points=tr.points),
                file=out,
            )
        if deal.phase == DONE:
            r = deal.result
            assert r is not None
            done_game = (
                g.games[-1] if g.games and sum(x.deals for x in g.games) == deal.number else None
            )
            total = done_game.scores if done_game else g.scores
            print(
                score_line(lang, deal.number, r.card_points, r.multiplier, r.written, total),
                file=out,
            )
            if done_game is None:
                show_board(g, lang, out)
            elif not g.is_terminal():
                print(
                    t(lang, "game_end", game=done_game.index + 1, a=total[0], b=total[1]),
                    file=out,
                )
    o = g.outcome
    assert o is not None
    print(
        t(
            lang,
            "over",
            a=o.scores[0],
            b=o.scores[1],
            reason=reason_text(lang, o.reason),
            score=g.score_for(0),
        ),
        file=out,
    )
    return 0


def _ask(g: Game, lang: str, inp: TextIO, out: TextIO) -> str | None:
    deal = g.deal
    obs = g.observation(0)
    if deal.phase == "play":
        trick = deal.current_trick
        shown = (
            ", ".join(f"{seat_name(s, lang)} {c.display()}" for s, c in trick) or UI[lang]["empty"]
        )
        suit = deal.trump_suit
        trump = UI[lang]["no_trump"] if suit is None else SUIT_SYMBOLS[suit]
        trick_no = len(deal.tricks) + 1
        print(
            f"  {t(lang, 'trump_is', trump=trump)} | {UI[lang]['trick']} {trick_no}: {shown}",
            file=out,
        )
    hand = obs["hand"]
    if hand is not None:
        shown_hand = show_cards(hand)
    else:
        shown_hand = UI[lang]["not_looked" if deal.phase == "blind" else "hidden"]
    print(f"  {UI[lang]['hand']}: {shown_hand}", file=out)
    while True:
        if deal.phase == "trump":
            none = " none" if g.rules.allow_no_trump else ""
            prompt = t(lang, "prompt_trump", none=none)
        elif deal.phase == "blind":
            prompt = t(lang, "prompt_blind")
        elif deal.phase == "announce":
            prompt = t(lang, "prompt_ann", call=g.legal_actions()[0])
        else:
            prompt = t(lang, "prompt")
        text = _read_line(inp, out, prompt)
        if text is None or text.lower() in ("q", "quit", "exit", "stop"):
            return None
        if not text:
            continue
        if text.lower() in ("?", "help", "hulp", "aide"):
            print(
                "  "
                + t(lang, "legal", legal=" ".join(show_action(a, lang) for a in g.legal_actions())),
                file=out,
            )
            continue
        try:
            action = parse_input(text, g)
        except ValueError as e:
            print("  " + t(lang, "bad_input", text=text, reason=e), file=out)
            continue
        try:
            test = g.deal.clone()
            test.apply_action(action)
        except IllegalMove as e:
            print("  ! " + explain(e, lang), file=out)
            continue
        return action


# --------------------------------------------------------------------------- replay
def replay(args, out: TextIO = sys.stdout) -> int:
    lang = args.lang
    try:
        raw = Path(args.file).read_bytes() if args.file != "-" else sys.stdin.buffer.read()
    except OSError as e:
        print(f"cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    try:
        data = decode_text(raw)  # not UTF-8: an invalid record like any other
        head = data.lstrip()
        if head.startswith("{") and not head.startswith("{Deal"):
            recs = [read_record(data)]  # JSON: one record
        else:
            recs = read_many(data)  # text: one record or several (a tournament's games)
    except InvalidRecord as e:
        print(f"{args.file}: invalid record: {e}", file=sys.stderr)
        return 1
    if not recs:  # empty, or comments only: a download cut to nothing is no record
        print(f"{args.file}: invalid record: no game record in it", file=sys.stderr)
        return 1
    for k, rec in enumerate(recs, 1):
        if len(recs) > 1:
            print(f"##### {k} / {len(recs)}", file=out)
        print_record(rec, rec.replay(), lang, out)
    return 0


def print_record(rec: GameRecord, g: Game, lang: str, out: TextIO) -> None:
    for k, v in rec.tags.items():
        print(f"{k}: {shown(v)}", file=out)  # a tag's value may hold ESC, a newline...
    for d in rec.deals:
        print("", file=out)
        print(t(lang, "deal", n=d.number, game=d.game, dealer=seat_name(d.dealer, lang)), file=out)
        for s in range(4):
            print(f"  {seat_name(s, lang):<6} {show_cards(d.hands[s])}", file=out)
        if d.turned is not None:
            print("  " + t(lang, "trump_is", trump=CARD_BY_TEXT[d.turned].display()), file=out)
        for a in d.bidding:
            print(
                "  " + t(lang, "said", seat=seat_name(d.dealer, lang), action=show_action(a, lang)),
                file=out,
            )
        for s, call in d.announcements:
            print("  " + t(lang, "said", seat=seat_name(s, lang), action=call), file=out)
        for i, tr in enumerate(d.tricks, 1):
            cards = ", ".join(
                f"{seat_name(s, lang)} {CARD_BY_TEXT[c].display()}" for s, c in tr.cards
            )
            won = (
                ""
                if tr.winner is None
                else " -> " + t(lang, "won", seat=seat_name(tr.winner, lang), points=tr.points)
            )
            print(f"  {i}. {cards}{won}", file=out)
        if d.score is not None:
            sc = d.score
            line = score_line(lang, d.number, sc.card_points, sc.multiplier, sc.written, sc.total)
            print("  " + line, file=out)
        if d.end is not None:
            print("  " + t(lang, "game_end", game=d.game, a=d.end[0][0], b=d.end[0][1]), file=out)
    print("", file=out)
    if g.outcome:
        o = g.outcome
        winner = {0: UI[lang]["wij"], 1: UI[lang]["zij"], None: UI[lang]["draw"]}[o.winner]
        # The reason as the record's Termination tag writes it (boom, deals, ...).
        print(t(lang, "result", result=rec.result, reason=o.reason, winner=winner), file=out)
    else:
        print(t(lang, "unfinished", a=g.scores[0], b=g.scores[1]), file=out)
    print(t(lang, "replay_ok"), file=out)


# --------------------------------------------------------------------------- selfplay
def play_out(seed: str, rules: str, bots_by_seat: list) -> Game:
    from .bots import bot_seed

    g = Game(seed, rules)
    while not g.is_terminal():
        s = g.to_move
        assert s is not None
        g.apply_action(bots_by_seat[s].act(g.observation(s), bot_seed(seed, g.deal_number, s)))
    return g


class Progress:
    def __init__(self, total: int, stream: TextIO, width: int = 30, enabled: bool = True) -> None:
        self.total, self.stream, self.width, self.enabled = total, stream, width, enabled

    def interrupt(self) -> None:
        """End the bar's line before a message."""
        if self.enabled:
            self.stream.write("\n")

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        filled = self.width * done // max(1, self.total)
        self.stream.write(f"\r[{'#' * filled}{' ' * (self.width - filled)}] {done}/{self.total}")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def mean_ci(values: list[float], z: float = 1.959964) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95 % confidence interval."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, -math.inf, math.inf
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return m, m - half, m + half


def selfplay(args, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    from .bots import get_bot

    names = [n.strip() for n in args.bots.split(",")]
    if len(names) != 2 or not all(names):
        print("--bots takes two names, e.g. heuristic,random", file=err)
        return 2
    try:
        bots = [get_bot(n) for n in names]
    except ValueError as e:
        print(e, file=err)
        return 2
    if args.games < 1:
        print("--games must be at least 1", file=err)
        return 2
    rec_dir = Path(args.record_dir) if args.record_dir else None
    if rec_dir:
        try:
            rec_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            print(f"--record-dir {args.record_dir}: cannot make it: {e.strerror or e}", file=err)
            return 2
    label = [f"{names[0]} (A)", f"{names[1]} (B)"] if names[0] == names[1] else names
    points = [0, 0]  # card points per bot over all deals
    deals = 0
    won = [0, 0]
    draws = 0
    dagscore = [0, 0]
    diffs: list[float] = []  # per game pair: mean card points per deal, A - B
    progress = Progress(args.games, err, enabled=not args.quiet)
    progress.update(0)
    for i in range(1, args.games + 1):
        seed = f"{args.seed}-{i}"
        pair_pts = [0, 0]
        pair_deals = 0
        for swap in (0, 1):
            a_team = swap  # A sits on 0/2 in the first game, on 1/3 in the second
            seats = [bots[0] if (s & 1) == a_team else bots[1] for s in range(4)]
            g = play_out(seed, args.rules, seats)
            for r in g.results:
                pair_pts[0] += r.card_points[a_team]
                pair_pts[1] += r.card_points[1 - a_team]
            pair_deals += len(g.results)
            assert g.outcome is not None
            w = g.outcome.winner
            if w is None:
                draws += 1
            else:
                won[0 if w == a_team else 1] += 1
            dagscore[0] += g.score_for(a_team)
            dagscore[1] += g.score_for(1 - a_team)
            if rec_dir:
                tags = {
                    "Event": f"selfplay {names[0]} vs {names[1]}",
                    "Round": str(i),
                    "Board": "ab"[swap],
                }
                for s in range(4):
                    tags[("South", "West", "North", "East")[s]] = (
                        f"bot:{names[0] if (s & 1) == a_team else names[1]}"
                    )
                path = rec_dir / f"{seed}-{'ab'[swap]}.txt"
                try:
                    path.write_text(write_text(g, tags), encoding="utf-8")
                except OSError as e:
                    progress.interrupt()
                    print(f"cannot write {path}: {e.strerror or e}; stopped", file=err)
                    return 1
        points[0] += pair_pts[0]
        points[1] += pair_pts[1]
        deals += pair_deals
        diffs.append((pair_pts[0] - pair_pts[1]) / pair_deals)
        progress.update(i)
    n_games = 2 * args.games
    print(
        f"selfplay: {args.games} game pairs ({n_games} games, teams swapped), "
        f"seed {args.seed}, rules {args.rules}",
        file=out,
    )
    width = max(len(x) for x in label)
    for k in (0, 1):
        print(
            f"{label[k]:<{width}}  card points/deal {points[k] / deals:6.2f}"
            f"  games won {won[k]}/{n_games}"
            f"  mean dagscore {dagscore[k] / n_games:+.1f}",
            file=out,
        )
    if draws:
        print(f"draws: {draws}", file=out)
    m, lo, hi = mean_ci(diffs)
    # One pair has no spread to make an interval of (mean_ci gives ±inf).
    ci = f"95% CI [{lo:+.2f}, {hi:+.2f}]" if len(diffs) > 1 else "no 95% CI from one pair"
    print(
        f"difference {label[0]} - {label[1]}: {m:+.2f} card points/deal, {ci}"
        f" (paired over {len(diffs)} game pairs)",
        file=out,
    )
    return 0


# --------------------------------------------------------------------------- verify / deal
def print_deal(seed: str, number: int, rules: str, lang: str, out: TextIO) -> None:
    spec = deal_for(seed, number, rules)
    print(t(lang, "deal_line", n=number, dealer=seat_name(spec.dealer, lang)), file=out)
    for s in range(4):
        print(f"  {seat_name(s, lang):<6} {show_cards(spec.hands[s])}", file=out)
    if spec.turned is not None:
        print("  " + t(lang, "turned", card=spec.turned.display()), file=out)
    hands = " ".join(f"{SEAT_LETTERS[s]}:" + " ".join(sort_hand(spec.hands[s])) for s in range(4))
    print(
        f"  Hands {hands}" + (f"  Turned {spec.turned}" if spec.turned is not None else ""),
        file=out,
    )


def verify(args, out: TextIO = sys.stdout) -> int:
    lang = args.lang
    seed = repr(args.seed)  # repr: control characters escaped
    if not verify_commitment(args.seed, args.commitment):
        print(t(lang, "verify_failed", seed=seed), file=out)
        published, computed = UI[lang]["published"], UI[lang]["computed"]
        width = max(len(published), len(computed))
        print(f"  {published:<{width}} {shown(args.commitment.strip().lower())}", file=out)
        print(f"  {computed:<{width}} {commitment(args.seed)}", file=out)
        return 1
    print(t(lang, "verify_ok", commitment=commitment(args.seed), seed=seed), file=out)
    print(t(lang, "verify_deals", rules=args.rules, n=args.deals), file=out)
    for k in range(1, args.deals + 1):
        print_deal(args.seed, k, args.rules, args.lang, out)
    return 0


def deal_cmd(args, out: TextIO = sys.stdout) -> int:
    if args.number < 1:
        print("--number starts at 1", file=sys.stderr)
        return 2
    print(t(args.lang, "seed_rules", seed=repr(args.seed), rules=args.rules), file=out)
    print_deal(args.seed, args.number, args.rules, args.lang, out)
    return 0


# --------------------------------------------------------------------------- argparse
def _count_from_1(text: str, top: int, bounds: str) -> int:
    """A whole number from 1 to `top`; else argparse's error, `bounds` saying why."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= top:
        raise argparse.ArgumentTypeError(f"{text!r}: {bounds.format(top=top)}")
    return n


def deal_count(text: str) -> int:
    """``--deals N``: a whole number of deals, 1 to MAX_FIXED_DEALS."""
    return _count_from_1(text, MAX_FIXED_DEALS, "a game of fixed deals has 1 to {top} deals")


MAX_VERIFY_DEALS = 1000  # verify prints deals 1..N; a tournament has far fewer


def verify_deal_count(text: str) -> int:
    """``verify --deals N``: 1 to MAX_VERIFY_DEALS deals to print."""
    return _count_from_1(text, MAX_VERIFY_DEALS, "the number of deals to print is 1 to {top}")


def _writable_dir(path: Path) -> str | None:
    """Why files cannot be created in ``path`` (or under it, once the missing directories
    are made), or None when they can."""
    p = path
    while not p.exists():  # the nearest existing ancestor is where mkdir starts
        if p.parent == p:
            break
        p = p.parent
    if not p.is_dir():
        return f"{p} is not a directory"
    if not os.access(p, os.W_OK | os.X_OK):
        return f"cannot write in {p}: permission denied"
    return None


def record_file(text: str) -> str:
    """``play --record FILE``: checked before the game starts, so that a game is never
    played for a record that cannot be saved (the directory must exist, as for any file
    an editor saves; the file may exist and is replaced)."""
    path = Path(text)
    if not text or path.is_dir() or text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    parent = path.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise argparse.ArgumentTypeError(f"{text!r}: directory {str(parent)!r} {what}")
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text!r}: cannot write this file: permission denied")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(
            f"{text!r}: cannot write in directory {str(parent)!r}: permission denied"
        )
    return text


def record_dir(text: str) -> str:
    """``selfplay --record-dir DIR``: an existing directory we may write in, or one that
    can be made (its nearest existing ancestor a directory we may write in)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not a directory")
    why = _writable_dir(path)
    if why:
        raise argparse.ArgumentTypeError(f"{text!r}: {why}")
    return text


def build_parser() -> argparse.ArgumentParser:
    from .bots import available

    p = argparse.ArgumentParser(
        prog="python -m engine",
        description="Manillen engine: play against the bots, replay and verify records, "
        "bot matches, deals.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    rules: dict[str, Any] = dict(
        choices=sorted(PRESETS), default="flemish", help="rule preset (default flemish)"
    )
    lang: dict[str, Any] = dict(
        choices=LANGS, default="nl", help="language of names and messages (default nl)"
    )

    def game_options(sp) -> None:
        sp.add_argument(
            "--deals",
            dest="fixed_deals",
            type=deal_count,
            metavar="N",
            help="a game of exactly N deals (default: to the preset's target, 101)",
        )
        sp.add_argument(
            "--tie",
            choices=("carry", "own"),
            help="carry: a tie doubles the next deal; own: each deal stands on its own"
            " (default: the preset's)",
        )

    sp = sub.add_parser("play", help="play a game as South against the bots")
    sp.add_argument("--rules", **rules)
    game_options(sp)
    sp.add_argument("--seed", help="game seed (default: a random one, printed)")
    sp.add_argument(
        "--bot", default="heuristic", choices=available(), help="bot for the other three seats"
    )
    sp.add_argument("--lang", **lang)
    sp.add_argument(
        "--record",
        metavar="FILE",
        type=record_file,
        help="save the game record here at the end (.json for JSON); checked before play",
    )
    sp.set_defaults(func=lambda a: play(a))

    sp = sub.add_parser(
        "replay", help="verify a game record (text or JSON) and print it trick by trick"
    )
    sp.add_argument("file", metavar="FILE", help="record file, - for stdin")
    sp.add_argument("--lang", **lang)
    sp.set_defaults(func=lambda a: replay(a))

    sp = sub.add_parser(
        "selfplay", help="duplicate bot match: each seed played twice with the teams swapped"
    )
    sp.add_argument("--games", type=int, default=10, help="number of game pairs (default 10)")
    sp.add_argument("--seed", default="selfplay", help="base seed; game i uses SEED-i")
    sp.add_argument(
        "--bots", default="heuristic,random", help="two bot names, A,B (default heuristic,random)"
    )
    sp.add_argument("--rules", **rules)
    game_options(sp)
    sp.add_argument(
        "--record-dir",
        metavar="DIR",
        type=record_dir,
        help="write every game's record into DIR (made if missing; checked before play)",
    )
    sp.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    sp.set_defaults(func=lambda a: selfplay(a))

    sp = sub.add_parser(
        "verify", help="check a tournament's commitment against its seed and print its deals"
    )
    sp.add_argument("--seed", required=True)
    sp.add_argument(
        "--commitment", required=True, metavar="HEX", help="the published SHA-256 commitment"
    )
    sp.add_argument(
        "--deals",
        type=verify_deal_count,
        default=10,
        metavar="N",
        help=f"how many deals to print, 1 to {MAX_VERIFY_DEALS} (default 10)",
    )
    sp.add_argument("--rules", **rules)
    sp.add_argument("--lang", **lang)
    sp.set_defaults(func=lambda a: verify(a))

    sp = sub.add_parser("deal", help="print one deal of a seed")
    sp.add_argument("--seed", required=True)
    sp.add_argument("--number", type=int, default=1, help="deal number, from 1")
    sp.add_argument("--rules", **rules)
    sp.add_argument("--lang", **lang)
    sp.set_defaults(func=lambda a: deal_cmd(a))
    return p


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]  # suit symbols on a non-UTF-8 terminal
        except (AttributeError, ValueError):
            pass
    args = build_parser().parse_args(argv)
    if getattr(args, "fixed_deals", None) or getattr(args, "tie", None):
        tie = None if args.tie is None else args.tie == "carry"
        args.rules = get_rules(args.rules, deals=args.fixed_deals, tie_carry=tie).spec
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


__all__ = ["main", "build_parser", "show_cards", "parse_input", "mean_ci"]
