"""Game records: a PGN/PBN-like text format and its JSON twin (see docs/records.md).

A record holds header tags and, per deal, the hands as dealt, the dealer's trump
actions, the announcements, the eight tricks and the score lines.  A record is always
made from a seeded game: on reading, the hands are checked against
:func:`engine.deal_for` and the whole game is replayed, so a corrupt record raises
:class:`engine.InvalidRecord` naming the line and the reason.

>>> from engine import Game
>>> from engine.bots import get_bot, bot_seed
>>> g, bot = Game("records-doc"), get_bot("heuristic")
>>> while not g.is_terminal():
...     s = g.to_move
...     g.apply_action(bot.act(g.observation(s), bot_seed(g.seed, g.deal_number, s)))
>>> text = write_text(g, {"Event": "Doc test"})
>>> rec = read_text(text)
>>> rec.actions == g.actions, rec.replay().board == g.board
(True, True)
>>> read_json(write_json(g)).actions == g.actions
True
"""

from __future__ import annotations

import calendar
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from .cards import CARD_BY_TEXT, Card
from .deal import BLIND, DONE, LOOK, MEE, NO_TRUMP_ACTION, PASS, TEGEN, TRUMP, Deal
from .dealing import commitment, seed_bytes
from .errors import IllegalMove, InvalidRecord
from .game import Game
from .messages import explain
from .rules import PRESETS, get_rules, options_words, parse_options

FORMAT = "manillen-record/1"
SEAT_LETTERS = "SWNE"  # seat 0..3
SEAT_WORDS = ("South", "West", "North", "East")
# The writer's tag order: these first, then any other tag given (in the order given),
# then TAIL_TAGS. Termination is always the last tag written, so a record cut anywhere in
# its tag block lacks it (REQUIRED_TAGS).
TAG_ORDER = (
    "Event", "Site", "Date", "Round", "Board", "Seed", "Commitment", "Rules", "Options",
    "South", "West", "North", "East",
)  # fmt: skip
TAIL_TAGS = ("Actions", "Digest", "Result", "Games", "Termination")
GENERATED_TAGS = (
    "Seed",
    "Commitment",
    "Rules",
    "Options",
    "Actions",
    "Digest",
    "Result",
    "Games",
    "Termination",
)
# Every record the platform ever wrote has these; Games too in a match preset. Actions and
# Digest are written since December 2026: a record without them is an older one, read
# without the checks they allow (docs/records.md, "Older records").
REQUIRED_TAGS = (
    "Event", "Date", "Seed", "Commitment", "Rules", "South", "West", "North", "East", "Result",
    "Termination",
)  # fmt: skip

_TAG_RE = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*(?:;.*)?$')
_HEADER_RE = re.compile(r"^\{Deal\s+(\d+)\}(?:\s+Game\s+(\d+))?\s+Dealer\s+(\S+)$")
_TRICK_RE = re.compile(r"^(\d+)\.\s*(.*)$")
_SCORE_RE = re.compile(
    r"^Score\s+(\d+)-(\d+)\s+x(\d+)\s+written\s+(\d+)-(\d+)\s+total\s+(\d+)-(\d+)$"
)
_END_RE = re.compile(r"^End\s+(\d+)-(\d+)\s+(boom|deal_limit|deals)$")
_RESULT_RE = re.compile(r"^(\d+)-(\d+)$")
_DATE_RE = re.compile(r"^(\d{4}|\?{4})\.(\d\d|\?\?)\.(\d\d|\?\?)$")


def valid_date(text: str) -> bool:
    """A Date tag as PGN writes it: ``YYYY.MM.DD``, a real date, where any part may be
    unknown (``????``, ``??``); the known parts must fit one (month 01-12, a day the
    month has: 2026.02.29 is refused, ????.02.29 is not).

    >>> [valid_date(d) for d in ("2026.11.30", "????.??.??", "2026.11.??", "2024.02.29")]
    [True, True, True, True]
    >>> [valid_date(d) for d in ("2026.13.45", "2026.02.29", "2026.00.10", "2026.04.31")]
    [False, False, False, False]
    """
    m = _DATE_RE.match(text)
    if not m:
        return False
    year, month, day = (None if "?" in g else int(g) for g in m.groups())
    if month is not None and not 1 <= month <= 12:
        return False
    if day is None:
        return True
    if month is None:
        return 1 <= day <= 31
    # An unknown year may be a leap year (2000 is one): ????.02.29 stands.
    return 1 <= day <= calendar.monthrange(2000 if year is None else year, month)[1]


# --------------------------------------------------------------------------- data
@dataclass
class TrickRecord:
    leader: int
    cards: list[tuple[int, str]]  # (seat, card text) in playing order
    winner: int | None = None  # None while the trick is incomplete
    points: int | None = None  # card points in the trick (no trick bonus)


@dataclass
class ScoreRecord:
    card_points: tuple[
        int, int
    ]  # per team, with trick / turned-card points where the preset has them
    multiplier: int
    written: tuple[int, int]
    total: tuple[int, int]  # running totals of the current game after this deal


@dataclass
class DealRecord:
    number: int  # 1-based across the match, as deal_for numbers them
    dealer: int
    hands: list[list[str]]  # seat 0..3, the 8 cards at the start of the deal
    game: int = 1  # 1-based game of the match
    turned: str | None = None  # the dealer's turned card (french, malilla)
    bidding: list[str] = field(default_factory=list)  # "look", "blind", "trump:H", "trump:none"
    announcements: list[tuple[int, str]] = field(default_factory=list)  # (seat, mee|tegen|pass)
    tricks: list[TrickRecord] = field(default_factory=list)
    score: ScoreRecord | None = None  # None while the deal is unfinished
    end: tuple[tuple[int, int], str] | None = None  # the game ended after this deal
    where: dict = field(default_factory=dict, compare=False, repr=False)  # element -> line

    @property
    def actions(self) -> list[str]:
        """This deal's action strings, exactly as :attr:`engine.Game.actions` holds them."""
        acts = list(self.bidding)
        acts += [call for _, call in self.announcements]
        for t in self.tricks:
            acts += [c for _, c in t.cards]
        return acts


@dataclass
class GameRecord:
    tags: dict[str, str]
    deals: list[DealRecord]
    tag_lines: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def seed(self) -> str:
        return self.tags["Seed"]

    @property
    def rules(self) -> str:
        """The preset and the game options (the Options tag), as get_rules reads them."""
        spec = self.tags.get("Rules", "flemish")
        options = self.tags.get("Options", "").strip()
        return f"{spec} {options}" if options else spec

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")

    @property
    def actions(self) -> list[str]:
        acts: list[str] = []
        for d in self.deals:
            acts += d.actions
        return acts

    def replay(self) -> Game:
        """The game rebuilt with :meth:`engine.Game.replay` from the seed and the actions."""
        return Game.replay(self.seed, self.rules, self.actions)

    def verify(self) -> Game:
        """Replay and check every line; raises InvalidRecord, returns the game."""
        return _verify(self)

    def to_text(self) -> str:
        return _format_text(self)

    def to_json(self) -> dict:
        return _to_json(self)

    @classmethod
    def from_game(cls, game: Game, tags: dict | None = None) -> GameRecord:
        return _from_game(game, tags)


# --------------------------------------------------------------------------- helpers
def _hand_sort_key(text: str) -> tuple[int, int]:
    c = CARD_BY_TEXT[text]
    return (c >> 3, -(c & 7))  # suits S H D C, ranks 10 A K Q J 9 8 7


def sort_hand(cards) -> list[str]:
    """Card texts in record order: by suit (S H D C), high to low."""
    return sorted((str(c) for c in cards), key=_hand_sort_key)


def _seed_text(seed: Any) -> str:
    if isinstance(seed, bytes):
        try:
            return seed.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("a record needs a text seed; this one is not UTF-8") from None
    return str(seed_bytes(seed), "utf-8")


def _pair(a: tuple[int, int] | list[int]) -> str:
    return f"{a[0]}-{a[1]}"


def _breaks_or_controls(ch: str) -> bool:
    """A character that must not appear as itself in a record line: one where
    ``str.splitlines`` (the reader's notion of a line) cuts, or any other control."""
    return len(("a" + ch + "a").splitlines()) > 1 or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def _escape(value: str) -> str:
    """A tag value as written between quotes: backslash and quote escaped with a
    backslash, line breaks and other control characters as ``\\uXXXX``."""
    out = []
    for ch in value:
        if ch in '\\"':
            out.append("\\" + ch)
        elif _breaks_or_controls(ch):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


_UNESCAPE_RE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")


def _unescape(value: str) -> str:
    def one(m: re.Match) -> str:
        x = m.group(1)
        return chr(int(x[1:], 16)) if len(x) > 1 else x

    return _UNESCAPE_RE.sub(one, value)


def is_one_line(text: str) -> bool:
    """True when ``text`` holds no line break and no other control character: what a form
    asks of a name that ends up in records (the writer escapes the rest anyway)."""
    return not any(_breaks_or_controls(ch) for ch in text)


def one_line(text: str) -> str:
    """``text`` with every line break and control character replaced by a space: safe in
    a record's comment (a record line holds no character the reader would cut at)."""
    return "".join(" " if _breaks_or_controls(ch) else ch for ch in text)


def digest(rules: str, seed: str, actions) -> str:
    """The Digest tag: SHA-256 (hex) of the rules, the seed and the actions, so a record
    whose plays were changed or swapped, or whose Rules were changed, is caught."""
    body = "\n".join(["manillen-record digest", rules, seed, " ".join(str(a) for a in actions)])
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _seat(letter: str, where, what: str = "seat") -> int:
    if len(letter) == 1 and letter in SEAT_LETTERS:
        return SEAT_LETTERS.index(letter)
    raise _err(f"unknown {what} {letter!r}: seats are S W N E", where)


def _card(text: str, where) -> str:
    if text in CARD_BY_TEXT:
        return text
    try:
        hint = f" (write {Card.parse(text)})"
    except ValueError:
        hint = ""
    raise _err(f"unknown card {text!r}: cards are written like TS, AH, 7C{hint}", where)


def _err(reason: str, where) -> InvalidRecord:
    if isinstance(where, int) or where is None:
        return InvalidRecord(reason, where)
    return InvalidRecord(f"{where}: {reason}")


def _game_over_line(game: Game) -> str:
    return _pair(game.outcome.scores) if game.outcome else "*"


# --------------------------------------------------------------------------- from a game
def _from_game(game: Game, tags: dict | None) -> GameRecord:
    if getattr(game, "_deals", None) is not None:
        raise ValueError("a record needs a game dealt from its seed (deal_for), not custom deals")
    rules = game.rules
    if rules.name not in PRESETS or get_rules(rules.spec) != rules:
        raise ValueError(
            f"a record names a preset and its options;"
            f" the rules {rules.name!r} are a custom variant"
        )
    seed = _seed_text(game.seed)
    replay = Game(seed, rules)
    deals: list[DealRecord] = []

    def start(d: Deal, game_index: int) -> DealRecord:
        return DealRecord(
            number=d.number,
            dealer=d.dealer,
            hands=[sort_hand(replay.spec(d.number).hands[s]) for s in range(4)],
            game=game_index + 1,
            turned=None if d.turned is None else str(d.turned),
        )

    cur = start(replay.deal, replay.game_index) if game.actions else None
    for a in game.actions:
        d = replay.deal
        if cur is None or cur.number != d.number:
            cur = start(d, replay.game_index)
        games_before = len(replay.games)
        phase = d.phase
        seat = d.to_move
        replay.apply_action(a)
        if phase == PLAY_PHASE:
            if not cur.tricks or len(cur.tricks[-1].cards) == 4:
                cur.tricks.append(TrickRecord(seat, []))
            cur.tricks[-1].cards.append((seat, a))
            if len(cur.tricks[-1].cards) == 4:
                t = d.tricks[len(cur.tricks) - 1]
                cur.tricks[-1].winner, cur.tricks[-1].points = t.winner, t.points
        elif phase == "announce":
            cur.announcements.append((seat, a))
        else:
            cur.bidding.append(a)
        if d.phase == DONE:
            res = d.result
            assert res is not None
            total: tuple[int, int] = (replay.scores[0], replay.scores[1])
            if len(replay.games) > games_before:
                g = replay.games[-1]
                total, cur.end = g.scores, (g.scores, g.reason)
            cur.score = ScoreRecord(res.card_points, res.multiplier, res.written, total)
            deals.append(cur)
            cur = None
    if cur is not None:
        deals.append(cur)
    if replay.actions != [str(a) for a in game.actions]:
        raise ValueError("the game's actions do not replay")  # pragma: no cover - defensive
    merged = _tags_for(replay, seed, tags)
    return GameRecord(merged, deals)


PLAY_PHASE = "play"


def _tags_for(game: Game, seed: str, tags: dict | None) -> dict[str, str]:
    given = {str(k): str(v) for k, v in (tags or {}).items()}
    for k in given:
        if not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", k):
            raise ValueError(f"a tag name is a letter followed by letters, digits or _: {k!r}")
    actions = [str(a) for a in game.actions]
    generated = {
        "Seed": seed,
        "Commitment": commitment(seed),
        "Rules": game.rules.name,
        "Options": " ".join(options_words(game.rules.options)),
        "Actions": str(len(actions)),
        # The rules text with its options (the preset's name for a preset game).
        "Digest": digest(game.rules.spec, seed, actions),
        "Result": _game_over_line(game),
    }
    if game.rules.is_match:
        generated["Games"] = _pair(game.games_won)
    generated["Termination"] = game.outcome.reason if game.outcome else "unterminated"
    for k, v in generated.items():
        if k in given and given[k] != v:
            raise ValueError(f"tag {k} is {given[k]!r} but the game says {v!r}")
    if not generated["Options"]:
        del generated["Options"]  # the preset as it is: no tag
    out: dict[str, str] = {}
    defaults = {
        "Event": "?",
        "Date": "????.??.??",
        "South": "?",
        "West": "?",
        "North": "?",
        "East": "?",
    }
    for k in TAG_ORDER:
        if k in generated:
            out[k] = generated[k]
        elif k in given:
            out[k] = given[k]
        elif k in defaults:
            out[k] = defaults[k]
    for k, v in given.items():
        if k not in out and k not in TAIL_TAGS:
            out[k] = v
    for k in TAIL_TAGS:
        if k in generated:
            out[k] = generated[k]
    if not valid_date(out["Date"]):
        raise ValueError(
            f"Date is a real date written YYYY.MM.DD (?? for unknown parts), got {out['Date']!r}"
        )
    return out


# --------------------------------------------------------------------------- text
def _format_trump(bidding: list[str]) -> str:
    words = []
    for a in bidding:
        if a in (LOOK, BLIND):
            words.append(a)
        elif a == NO_TRUMP_ACTION:
            words.append("none")
        else:
            words.append(a.split(":", 1)[1])
    return " ".join(words)


def _format_text(rec: GameRecord) -> str:
    lines = ["; Manillen game record, format manillen-record/1 (docs/records.md)"]
    for k, v in rec.tags.items():
        lines.append(f'[{k} "{_escape(v)}"]')
    match = get_rules(rec.rules).is_match
    for d in rec.deals:
        lines.append("")
        game = f" Game {d.game}" if match else ""
        lines.append(f"{{Deal {d.number}}}{game} Dealer {SEAT_LETTERS[d.dealer]}")
        lines.append(
            "Hands " + " ".join(f"{SEAT_LETTERS[s]}:" + " ".join(d.hands[s]) for s in range(4))
        )
        if d.turned is not None:
            lines.append(f"Turned {d.turned}")
        if d.bidding:
            lines.append("Trump " + _format_trump(d.bidding))
        if d.announcements:
            lines.append(
                "Announce " + " ".join(f"{SEAT_LETTERS[s]}:{c}" for s, c in d.announcements)
            )
        for i, t in enumerate(d.tricks, 1):
            line = f"{i}. " + " ".join(f"{SEAT_LETTERS[s]}:{c}" for s, c in t.cards)
            if t.winner is not None:
                line += f"  ; {SEAT_LETTERS[t.winner]} +{t.points}"
            lines.append(line)
        if d.score is not None:
            sc = d.score
            lines.append(
                f"Score {_pair(sc.card_points)} x{sc.multiplier}"
                f" written {_pair(sc.written)} total {_pair(sc.total)}"
            )
        if d.end is not None:
            lines.append(f"End {_pair(d.end[0])} {d.end[1]}")
    text = "\n".join(lines) + "\n"
    if len(text.splitlines()) != len(lines):  # the reader cuts lines where the writer does
        raise ValueError("a record line holds a line break")  # pragma: no cover - defensive
    return text


def write_text(game: Game, tags: dict | None = None) -> str:
    """The game as a text record; ``tags`` adds Event, Date, players, ...

    Seed, Commitment, Rules, Actions, Digest, Result, Games and Termination come from
    the game.
    """
    return _from_game(game, tags).to_text()


def _strip_comment(line: str) -> str:
    i = line.find(";")
    return (line if i < 0 else line[:i]).strip()


# Order of the lines inside a deal block.
_ORDER = {"hands": 1, "turned": 2, "trump": 3, "announce": 4, "trick": 5, "score": 6, "end": 7}


def _parse_text(text: str) -> GameRecord:
    text = text.removeprefix("\ufeff")  # a byte-order mark from some editors
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    deals: list[DealRecord] = []
    cur: DealRecord | None = None
    last = 0  # rank of the last line kept in the current deal
    for n, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("["):
            m = _TAG_RE.match(stripped)
            if not m:
                raise InvalidRecord(f'bad tag line {stripped!r}: write [Name "value"]', n)
            if deals:
                raise InvalidRecord(f"tag {m.group(1)} after the deals: tags come first", n)
            if m.group(1) in tags:
                raise InvalidRecord(f"tag {m.group(1)} given twice", n)
            tags[m.group(1)] = _unescape(m.group(2))
            tag_lines[m.group(1)] = n
            continue
        line = _strip_comment(raw)
        if not line:
            continue
        if line.startswith("{"):
            m = _HEADER_RE.match(line)
            if not m:
                raise InvalidRecord(f"bad deal header {line!r}: write {{Deal 1}} Dealer W", n)
            if cur is not None:
                _close(cur, last, n)
            cur = DealRecord(
                int(m.group(1)), _seat(m.group(3), n, "dealer"), [], int(m.group(2) or 1)
            )
            cur.where["header"] = n
            deals.append(cur)
            last = 0
            continue
        keyword = line.split(None, 1)[0]
        rest = line[len(keyword) :].strip()
        if _TRICK_RE.match(line):
            kind = "trick"
        elif keyword in ("Hands", "Turned", "Trump", "Announce", "Score", "End"):
            kind = keyword.lower()
        else:
            raise InvalidRecord(f"unknown line {line!r}", n)
        if cur is None:
            raise InvalidRecord(f"{keyword} line before the first {{Deal n}} header", n)
        rank = _ORDER[kind]
        if rank < last or (rank == last and kind != "trick"):
            raise InvalidRecord(f"{keyword} line out of place in deal {cur.number}", n)
        if kind != "hands" and last == 0:
            raise InvalidRecord(f"deal {cur.number}: the Hands line must come first", n)
        last = rank
        if kind == "hands":
            cur.hands = _parse_hands(rest, n)
            cur.where["hands"] = n
        elif kind == "turned":
            cur.turned = _card(rest, n)
            cur.where["turned"] = n
        elif kind == "trump":
            cur.bidding = _parse_trump(rest.split(), n)
            cur.where["trump"] = n
        elif kind == "announce":
            cur.announcements = []
            for tok in rest.split():
                seat, _, call = tok.partition(":")
                if call not in (MEE, TEGEN, PASS):
                    raise InvalidRecord(
                        f"bad announcement {tok!r}: write E:mee, S:tegen or W:pass", n
                    )
                cur.announcements.append((_seat(seat, n), call))
            if not cur.announcements:
                raise InvalidRecord("empty Announce line", n)
            cur.where["announce"] = n
        elif kind == "trick":
            m = _TRICK_RE.match(line)
            assert m is not None
            number = int(m.group(1))
            if number != len(cur.tricks) + 1:
                raise InvalidRecord(
                    f"trick {number} where trick {len(cur.tricks) + 1} was expected", n
                )
            if cur.tricks and len(cur.tricks[-1].cards) < 4:
                raise InvalidRecord(
                    f"trick {number - 1} has fewer than four cards", cur.where[f"trick{number - 1}"]
                )
            cards = []
            for tok in m.group(2).split():
                seat, sep, card = tok.partition(":")
                if not sep:
                    raise InvalidRecord(
                        f"bad card {tok!r} in a trick: write seat:card, e.g. W:KS", n
                    )
                cards.append((_seat(seat, n), _card(card, n)))
            if not 1 <= len(cards) <= 4:
                raise InvalidRecord(f"a trick has one to four cards, got {len(cards)}", n)
            if number > 8:
                raise InvalidRecord("a deal has eight tricks", n)
            cur.tricks.append(TrickRecord(cards[0][0], cards))
            cur.where[f"trick{number}"] = n
        elif kind == "score":
            m = _SCORE_RE.match(line)
            if not m:
                raise InvalidRecord(
                    f"bad Score line {line!r}: write Score 38-22 x1 written 8-0 total 40-12", n
                )
            v = [int(x) for x in m.groups()]
            cur.score = ScoreRecord((v[0], v[1]), v[2], (v[3], v[4]), (v[5], v[6]))
            cur.where["score"] = n
        elif kind == "end":
            m = _END_RE.match(line)
            if not m:
                raise InvalidRecord(
                    f"bad End line {line!r}: write End 104-61 boom (or deal_limit, deals)", n
                )
            cur.end = ((int(m.group(1)), int(m.group(2))), m.group(3))
            cur.where["end"] = n
    if cur is not None:
        _close(cur, last, len(text.splitlines()) + 1)
    # Where a missing tag is reported: the first deal, or the end of the text.
    all_lines = text.splitlines()
    tag_lines["__end__"] = deals[0].where["header"] if deals else len(all_lines) + 1
    # The last line that holds something: where a record cut short stops.
    tag_lines["__last__"] = next(
        (k for k in range(len(all_lines), 0, -1) if _strip_comment(all_lines[k - 1])),
        len(all_lines) + 1,
    )
    return GameRecord(tags, deals, tag_lines)


def _close(cur: DealRecord, last: int, n: int) -> None:
    if last == 0:
        raise InvalidRecord(f"deal {cur.number} has no Hands line", cur.where["header"])


def _parse_hands(rest: str, n: int) -> list[list[str]]:
    hands: dict[int, list[str]] = {}
    seat = None
    for tok in rest.split():
        if ":" in tok:
            letter, _, tok = tok.partition(":")
            seat = _seat(letter, n)
            if seat in hands:
                raise InvalidRecord(f"seat {letter} has two hands", n)
            hands[seat] = []
            if not tok:
                continue
        if seat is None:
            raise InvalidRecord("Hands: start each hand with its seat, e.g. S:TS AS ...", n)
        hands[seat].append(_card(tok, n))
    missing = [SEAT_LETTERS[s] for s in range(4) if s not in hands]
    if missing:
        raise InvalidRecord(f"Hands: no hand for {' '.join(missing)}", n)
    return [hands[s] for s in range(4)]


def _parse_trump(tokens: list[str], where) -> list[str]:
    acts = []
    for tok in tokens:
        t = tok if tok in (LOOK, BLIND) else tok.upper()
        if t in (LOOK, BLIND):
            acts.append(t)
        elif t in ("S", "H", "D", "C"):
            acts.append("trump:" + t)
        elif t == "NONE":
            acts.append(NO_TRUMP_ACTION)
        else:
            raise _err(
                f"bad trump {tok!r}: write S, H, D, C, none"
                " (and look/blind where the rules have them)",
                where,
            )
    if not acts:
        raise _err("empty Trump line", where)
    return acts


def read_text(text: str, *, verify: bool = True) -> GameRecord:
    """Parse a text record and (by default) verify it by replaying it."""
    rec = _parse_text(text)
    if verify:
        _verify(rec)
    return rec


def split_text(text: str) -> list[tuple[int, str]]:
    """Cut a file holding several text records one after another (a tournament's games)
    into its records, as (first line number in the file, text) pairs.

    A record starts with its tags; a tag line that follows a record's body starts the
    next one, and the comments and blank lines just before it go with it. A file with
    one record gives one pair; one with nothing but comments and blank lines, none.
    """
    text = text.removeprefix("\ufeff")
    parts: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start, pending_from = 1, None  # pending: comments/blank lines after a body
    in_body = False
    for line in text.splitlines(keepends=True):
        content = _strip_comment(line)
        if content.startswith("[") and in_body:
            cut = len(cur) if pending_from is None else pending_from
            parts.append((start, cur[:cut]))
            start += cut
            cur, in_body = cur[cut:], False
        if content and not content.startswith("["):
            in_body, pending_from = True, None
        elif not content and in_body and pending_from is None:
            pending_from = len(cur)
        cur.append(line)
    if any(_strip_comment(line) for line in cur):
        parts.append((start, cur))
    return [(first, "".join(lines)) for first, lines in parts]


def read_many(text: str, *, verify: bool = True) -> list[GameRecord]:
    """Every record of a multi-record text file (see ``split_text``), each verified by
    default; an error names the game and the line in the whole file."""
    records = []
    parts = split_text(text)
    for k, (first, part) in enumerate(parts, 1):
        try:
            records.append(read_text(part, verify=verify))
        except InvalidRecord as exc:
            line = None if exc.line is None else exc.line + first - 1
            prefix = f"game {k} of {len(parts)}: " if len(parts) > 1 else ""
            raise InvalidRecord(prefix + exc.reason, line) from None
    return records


# --------------------------------------------------------------------------- verification
def _where(d: DealRecord, key: str, fallback: str | None = None):
    if key in d.where:
        return d.where[key]
    if fallback is not None and fallback in d.where:
        return d.where[fallback]
    return d.where.get("header")


def _check_tags(rec: GameRecord) -> tuple[str, Any]:
    tl = rec.tag_lines
    end = tl.get("__end__", "tags")
    if "Seed" not in rec.tags:
        raise _err("missing Seed tag: a record is replayed from its seed", end)
    seed = rec.tags["Seed"]
    for name in REQUIRED_TAGS:
        if name not in rec.tags:
            raise _err(
                f"missing {name} tag: every record has {', '.join(REQUIRED_TAGS)}"
                ' ("?" where unknown); was it cut short?',
                end,
            )
    rules_name = rec.tags["Rules"]
    if rules_name not in PRESETS:
        raise _err(
            f"unknown Rules {rules_name!r}: choose one of {', '.join(PRESETS)}",
            tl.get("Rules", "tags.Rules"),
        )
    rules = get_rules(rules_name)
    if "Options" in rec.tags:
        try:
            rules = rules.with_options(**parse_options(rec.tags["Options"]))
        except ValueError as e:
            raise _err(f"bad Options: {e}", tl.get("Options", "tags.Options")) from None
    if rules.is_match and "Games" not in rec.tags:
        raise _err(f"missing Games tag: a {rules_name} record has one (was it cut short?)", end)
    if rec.tags["Commitment"].strip().lower() != commitment(seed):
        raise _err("Commitment does not match the Seed", tl.get("Commitment", "tags.Commitment"))
    if "Date" in rec.tags and not valid_date(rec.tags["Date"]):
        raise _err(
            f"bad Date {rec.tags['Date']!r}: a real date written YYYY.MM.DD (?? for unknown parts)",
            tl.get("Date", "tags.Date"),
        )
    result = rec.tags["Result"]
    if result != "*" and not _RESULT_RE.match(result):
        raise _err(
            f"bad Result {result!r}: write wij-zij like 104-61, or *",
            tl.get("Result", "tags.Result"),
        )
    if "Actions" in rec.tags and not re.fullmatch(r"\d{1,6}", rec.tags["Actions"]):
        raise _err(
            f"bad Actions {rec.tags['Actions']!r}: the number of actions, like 330",
            tl.get("Actions", "tags.Actions"),
        )
    if "Digest" in rec.tags and not re.fullmatch(r"[0-9a-f]{64}", rec.tags["Digest"]):
        raise _err(
            f"bad Digest {rec.tags['Digest']!r}: 64 hexadecimal digits",
            tl.get("Digest", "tags.Digest"),
        )
    if ("Actions" in rec.tags) != ("Digest" in rec.tags):
        have, lack = ("Actions", "Digest") if "Actions" in rec.tags else ("Digest", "Actions")
        article = {"Actions": "an", "Digest": "a"}
        raise _err(
            f"a record with {article[have]} {have} tag has {article[lack]} {lack} tag too",
            tl.get(have, end),
        )
    return seed, rules


def _verify(rec: GameRecord) -> Game:
    """Check the record against its seed, its Actions count and its Digest.

    A record that fails only because its Rules tag was changed (it reads back whole under
    another preset) is reported as such, at the Rules line.
    """
    written = [[(t.winner, t.points) for t in dr.tricks] for dr in rec.deals]
    try:
        return _verify_counted(rec)
    except InvalidRecord as exc:
        given = rec.tags.get("Rules")
        if given in PRESETS and "Seed" in rec.tags:
            for other in PRESETS:
                if other == given:
                    continue
                _restore_tricks(rec, written)  # verifying fills them in from its replay
                alt = GameRecord({**rec.tags, "Rules": other}, rec.deals, rec.tag_lines)
                try:
                    _verify_counted(alt)
                except (InvalidRecord, IllegalMove, ValueError):
                    continue
                raise _err(
                    f"Rules is {given!r} but this is a game of {other!r} rules:"
                    " the Rules tag was changed",
                    rec.tag_lines.get("Rules", "tags.Rules"),
                ) from None
        raise exc from None


def _restore_tricks(rec: GameRecord, written: list[list[tuple]]) -> None:
    for dr, tricks in zip(rec.deals, written, strict=True):
        for t, (winner, points) in zip(dr.tricks, tricks, strict=True):
            t.winner, t.points = winner, points


def _verify_counted(rec: GameRecord) -> Game:
    tl = rec.tag_lines
    acts = rec.actions
    want = (
        int(rec.tags["Actions"]) if re.fullmatch(r"\d{1,6}", rec.tags.get("Actions", "")) else None
    )
    last = tl.get("__last__", "deals")

    def cut_short() -> InvalidRecord:
        return _err(
            f"the record stops here after {len(acts)} of its {want} actions"
            " (Actions tag): it was cut short, or lines are missing",
            last,
        )

    try:
        g = _verify_replay(rec)
    except InvalidRecord as exc:
        tag_line = isinstance(exc.line, int) and exc.line in {
            v for k, v in tl.items() if not k.startswith("__")
        }
        at_end = isinstance(exc.line, int) and isinstance(last, int) and exc.line >= last
        if (
            want is not None
            and len(acts) < want
            and "Seed" in rec.tags
            and (tag_line or at_end or exc.line is None)
        ):
            raise cut_short() from None
        raise
    if want is not None:
        if len(acts) < want:
            raise cut_short()
        if len(acts) > want:
            raise _err(
                f"Actions is {want} but the record holds {len(acts)} actions",
                tl.get("Actions", "tags.Actions"),
            )
        if digest(get_rules(rec.rules).spec, rec.tags["Seed"], acts) != rec.tags["Digest"]:
            raise _err(
                "the plays do not match the Digest: a card or call was changed or swapped"
                " after the record was written",
                tl.get("Digest", "tags.Digest"),
            )
    return g


def _verify_replay(rec: GameRecord) -> Game:
    seed, rules = _check_tags(rec)
    tl = rec.tag_lines
    g = Game(seed, rules)
    for i, dr in enumerate(rec.deals):
        head = _where(dr, "header")
        if g.is_terminal():
            raise _err(f"deal {dr.number} after the end of the game", head)
        if dr.number != g.deal_number:
            raise _err(f"deal {dr.number} where deal {g.deal_number} was expected", head)
        if rules.is_match and dr.game != g.game_index + 1:
            raise _err(f"deal {dr.number} belongs to game {g.game_index + 1}, not {dr.game}", head)
        if not rules.is_match and dr.game != 1:
            raise _err(f"these rules play one game, not game {dr.game}", head)
        d = g.deal
        games_before = len(g.games)
        if dr.dealer != d.dealer:
            raise _err(
                f"deal {dr.number}: the dealer is {SEAT_LETTERS[d.dealer]} for this seed,"
                f" not {SEAT_LETTERS[dr.dealer]}",
                head,
            )
        _check_hands(dr, g)
        if (dr.turned is None) != (d.turned is None) or (
            dr.turned is not None and dr.turned != str(d.turned)
        ):
            want = "no turned card" if d.turned is None else f"turned card {d.turned}"
            raise _err(f"deal {dr.number}: the seed gives {want}", _where(dr, "turned", "hands"))
        played: set[str] = set()
        last_deal = i == len(rec.deals) - 1
        # Trump
        for a in dr.bidding:
            if d.phase not in (BLIND, TRUMP):
                raise _err(
                    f"no trump choice in this deal: the turned card sets trump ({a})",
                    _where(dr, "trump"),
                )
            _apply(g, a, _where(dr, "trump"))
        # Only an unfinished game's last deal may stop there (the dealer looked, say).
        goes_on = not last_deal or dr.announcements or dr.tricks or dr.score or dr.end
        if dr.bidding and d.phase in (BLIND, TRUMP) and goes_on:
            raise _err("the Trump line stops before trump is chosen", _where(dr, "trump"))
        for seat, call in dr.announcements:
            if d.phase != "announce":
                raise _err(
                    f"announcement {SEAT_LETTERS[seat]}:{call} when no announcement is open",
                    _where(dr, "announce"),
                )
            if seat != d.to_move:
                raise _err(
                    f"announcement by {SEAT_LETTERS[seat]}"
                    f" but {SEAT_LETTERS[d.to_move]} speaks now",
                    _where(dr, "announce"),
                )
            _apply(g, call, _where(dr, "announce"))
        for k, t in enumerate(dr.tricks, 1):
            w = _where(dr, f"trick{k}")
            if d.phase in (BLIND, TRUMP):
                raise _err(
                    f"deal {dr.number}: cards played before trump was chosen (missing Trump line)",
                    w,
                )
            if d.phase == "announce":
                raise _err(f"deal {dr.number}: cards played before the announcements are done", w)
            for seat, card in t.cards:
                if card in played:
                    raise _err(f"card {card} is played twice in deal {dr.number}", w)
                if seat != d.to_move:
                    raise _err(
                        f"{SEAT_LETTERS[seat]}:{card} but it is {SEAT_LETTERS[d.to_move]}'s turn", w
                    )
                holder = next(s for s in range(4) if card in dr.hands[s])
                if holder != seat:
                    raise _err(
                        f"{SEAT_LETTERS[seat]} plays {card}, which {SEAT_LETTERS[holder]} holds", w
                    )
                played.add(card)
                _apply(g, card, w, f"illegal card {SEAT_LETTERS[seat]}:{card}: ")
            if len(t.cards) < 4 and not (last_deal and k == len(dr.tricks)):
                raise _err(f"trick {k} has fewer than four cards", w)
            if len(t.cards) == 4:
                real = d.tricks[k - 1]
                if t.winner is not None and t.winner != real.winner:
                    raise _err(
                        f"trick {k} is won by {SEAT_LETTERS[real.winner]},"
                        f" not {SEAT_LETTERS[t.winner]}",
                        w,
                    )
                if t.points is not None and t.points != real.points:
                    raise _err(f"trick {k} holds {real.points} points, not {t.points}", w)
                t.winner, t.points = real.winner, real.points
        if d.phase != DONE:
            if not last_deal:
                raise _err(
                    f"deal {dr.number} is unfinished but more deals follow",
                    _where(dr, "score", "header"),
                )
            if dr.score is not None:
                raise _err(f"a Score line for the unfinished deal {dr.number}", _where(dr, "score"))
            if dr.end is not None:
                raise _err(f"an End line for the unfinished deal {dr.number}", _where(dr, "end"))
            break
        _check_score(dr, d, g, games_before)
    # The result
    result = rec.tags["Result"]
    rline = tl.get("Result", "tags.Result")
    if g.outcome is not None:
        want = _pair(g.outcome.scores)
        if result != want:
            raise _err(f"Result is {result!r} but the game ends {want}", rline)
        if "Games" in rec.tags and rec.tags["Games"] != _pair(g.games_won):
            raise _err(
                f"Games is {rec.tags['Games']!r} but the match ends {_pair(g.games_won)}",
                tl.get("Games", "tags.Games"),
            )
        term = rec.tags.get("Termination")
        if term is not None and term != g.outcome.reason:
            raise _err(
                f"Termination is {term!r} but the game ended by {g.outcome.reason}",
                tl.get("Termination", "tags.Termination"),
            )
    elif result != "*":
        raise _err(f"Result is {result!r} but the game is not finished: write *", rline)
    return g


def _check_hands(dr: DealRecord, g: Game) -> None:
    w = _where(dr, "hands")
    seen: set[str] = set()
    for s, hand in enumerate(dr.hands):
        if len(hand) != 8:
            raise _err(f"{SEAT_LETTERS[s]} holds {len(hand)} cards, not 8", w)
        for c in hand:
            if c in seen:
                raise _err(f"card {c} is dealt twice", w)
            seen.add(c)
    spec = g.spec(dr.number)
    for s in range(4):
        if sorted(dr.hands[s]) != sorted(str(c) for c in spec.hands[s]):
            raise _err(
                f"deal {dr.number}: the hands do not match the seed"
                f" ({SEAT_LETTERS[s]} holds {' '.join(sort_hand(spec.hands[s]))})",
                w,
            )


def _apply(g: Game, action: str, where, prefix: str = "") -> None:
    try:
        g.apply_action(action)
    except IllegalMove as e:
        raise _err(prefix + explain(e, "en"), where) from None


def _check_score(dr: DealRecord, d: Deal, g: Game, games_before: int) -> None:
    res = d.result
    w = _where(dr, "score")
    if dr.score is None:
        raise _err(
            f"deal {dr.number} is complete but has no Score line",
            _where(dr, f"trick{len(dr.tricks)}", "header"),
        )
    sc = dr.score
    assert res is not None
    game_ended = len(g.games) > games_before
    summary = g.games[-1] if game_ended else None
    total = summary.scores if summary else (g.scores[0], g.scores[1])
    checks = [
        ("card points", _pair(sc.card_points), _pair(res.card_points)),
        ("multiplier", f"x{sc.multiplier}", f"x{res.multiplier}"),
        ("written", _pair(sc.written), _pair(res.written)),
        ("total", _pair(sc.total), _pair(total)),
    ]
    for name, got, want in checks:
        if got != want:
            raise _err(f"deal {dr.number}: {name} {got} in the record, {want} in the replay", w)
    if summary is not None:
        if dr.end is None:
            raise _err(
                f"the game ends after deal {dr.number} ({_pair(total)}): an End line is missing", w
            )
        if tuple(dr.end[0]) != tuple(total) or dr.end[1] != summary.reason:
            raise _err(
                f"End {_pair(dr.end[0])} {dr.end[1]}"
                f" but the game ended {_pair(total)} {summary.reason}",
                _where(dr, "end"),
            )
    elif dr.end is not None:
        raise _err(f"End line after deal {dr.number} but the game goes on", _where(dr, "end"))


# --------------------------------------------------------------------------- JSON
def _to_json(rec: GameRecord) -> dict:
    deals = []
    for d in rec.deals:
        item: dict[str, Any] = {
            "deal": d.number,
            "game": d.game,
            "dealer": SEAT_LETTERS[d.dealer],
            "hands": {SEAT_LETTERS[s]: list(d.hands[s]) for s in range(4)},
            "turned": d.turned,
            "trump": list(d.bidding),
            "announcements": [[SEAT_LETTERS[s], c] for s, c in d.announcements],
            "tricks": [
                {
                    "leader": SEAT_LETTERS[t.leader],
                    "cards": [[SEAT_LETTERS[s], c] for s, c in t.cards],
                    "winner": None if t.winner is None else SEAT_LETTERS[t.winner],
                    "points": t.points,
                }
                for t in d.tricks
            ],
            "score": None
            if d.score is None
            else {
                "card_points": list(d.score.card_points),
                "multiplier": d.score.multiplier,
                "written": list(d.score.written),
                "total": list(d.score.total),
            },
            "end": None if d.end is None else {"scores": list(d.end[0]), "reason": d.end[1]},
        }
        deals.append(item)
    return {"format": FORMAT, "tags": dict(rec.tags), "deals": deals, "actions": rec.actions}


def write_json(
    game: Game, tags: dict | None = None, *, as_string: bool = False, indent: int | None = 1
):
    """The game as a JSON record: a dict, or its text with ``as_string=True``."""
    data = _from_game(game, tags).to_json()
    return dumps_json(data, indent) if as_string else data


def dumps_json(data, indent: int | None = 1, width: int = 110) -> str:
    """JSON text: compact values on one line, long lists of strings wrapped at ``width``."""
    if indent is None:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"

    def one(v) -> str:
        return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))

    def fmt(v, level: int) -> str:
        flat = one(v)
        pad = " " * (indent * level)
        if len(flat) + len(pad) <= width or not isinstance(v, (dict, list)) or not v:
            return flat
        inner = " " * (indent * (level + 1))
        if isinstance(v, dict):
            items = [f"{inner}{one(str(k))}: {fmt(x, level + 1)}" for k, x in v.items()]
            return "{\n" + ",\n".join(items) + "\n" + pad + "}"
        if all(not isinstance(x, (dict, list)) for x in v):
            rows, row = [], ""
            for x in v:
                piece = one(x)
                if row and len(inner) + len(row) + len(piece) + 2 > width:
                    rows.append(row + ",")
                    row = ""
                row = piece if not row else row + ", " + piece
            rows.append(row)
            return "[\n" + "\n".join(inner + r for r in rows) + "\n" + pad + "]"
        return "[\n" + ",\n".join(inner + fmt(x, level + 1) for x in v) + "\n" + pad + "]"

    return fmt(data, 0) + "\n"


def _need(obj, key, kind, where):
    if not isinstance(obj, dict) or key not in obj:
        raise _err(f"missing {key!r}", where)
    v = obj[key]
    if kind is not None and not isinstance(v, kind) or isinstance(v, bool):
        raise _err(f"{key!r} must be {getattr(kind, '__name__', kind)}", where)
    return v


def _ints2(v, name, where) -> tuple[int, int]:
    if not (
        isinstance(v, list)
        and len(v) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
    ):
        raise _err(f"{name} must be two integers", where)
    return (v[0], v[1])


def _list_of(item: dict, key: str, where) -> list:
    """``item[key]`` when it is a list, ``[]`` when absent; anything else (``null`` too,
    which the schema does not allow) is refused."""
    v = item.get(key, [])
    if not isinstance(v, list):
        raise _err(f"{key!r} must be a list", where)
    return v


def _shown(v) -> str:
    """A JSON value as JSON shows it (``null``, ``3``), for error messages."""
    try:
        return json.dumps(v)
    except (TypeError, ValueError):
        return repr(v)


def decode_text(data: bytes) -> str:
    """Record bytes as text: UTF-8 (a byte-order mark allowed), else an InvalidRecord."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidRecord(
            f"not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start} (a record is UTF-8)"
        ) from None


def _parse_json(data) -> GameRecord:
    if isinstance(data, bytes):
        data = decode_text(data)
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise InvalidRecord(f"not JSON: {e.msg}", e.lineno) from None
        except RecursionError:
            raise InvalidRecord("not a record: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise InvalidRecord("a JSON record is an object")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise InvalidRecord(f"unknown format {fmt!r}: expected {FORMAT!r}")
    tags = _need(data, "tags", dict, "record")
    for k, v in tags.items():
        if not isinstance(v, str) or not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", k):
            raise _err(f"bad tag {k!r}: names are words, values strings", f"tags.{k}")
    deals = []
    for i, item in enumerate(_need(data, "deals", list, "record"), 1):
        w = f"deals[{i - 1}]"
        number = _need(item, "deal", int, w)
        wd = f"deal {number}"
        hands_obj = _need(item, "hands", dict, wd)
        hands = []
        for s in SEAT_LETTERS:
            h = hands_obj.get(s)
            if not isinstance(h, list):
                raise _err(f"hands: no hand for {s}", wd)
            hands.append([_card(c if isinstance(c, str) else repr(c), f"{wd}, hands") for c in h])
        dr = DealRecord(
            number, _seat(_need(item, "dealer", str, wd), wd, "dealer"), hands, item.get("game", 1)
        )
        if not isinstance(dr.game, int):
            raise _err("'game' must be int", wd)
        dr.where = {"header": wd, "announce": f"{wd}, announcements"}
        for key in ("hands", "turned", "trump", "score", "end"):
            dr.where[key] = f"{wd}, {key}"
        turned = item.get("turned")
        dr.turned = None if turned is None else _card(str(turned), f"{wd}, turned")
        trump = item.get("trump", [])
        if not isinstance(trump, list) or not all(isinstance(a, str) for a in trump):
            raise _err("trump must be a list of action strings", f"{wd}, trump")
        for a in trump:
            if a not in (LOOK, BLIND, NO_TRUMP_ACTION, "trump:S", "trump:H", "trump:D", "trump:C"):
                raise _err(f"bad trump action {a!r}", f"{wd}, trump")
        dr.bidding = list(trump)
        for a in _list_of(item, "announcements", f"{wd}, announcements"):
            if not (isinstance(a, list) and len(a) == 2 and a[1] in (MEE, TEGEN, PASS)):
                raise _err(f'bad announcement {a!r}: write ["E", "mee"]', f"{wd}, announcements")
            dr.announcements.append((_seat(str(a[0]), f"{wd}, announcements"), a[1]))
        for k, t in enumerate(_list_of(item, "tricks", f"{wd}, tricks"), 1):
            wt = f"{wd}, trick {k}"
            dr.where[f"trick{k}"] = wt
            cards = _need(t, "cards", list, wt)
            parsed = []
            for c in cards:
                if not (
                    isinstance(c, list)
                    and len(c) == 2
                    and isinstance(c[0], str)
                    and isinstance(c[1], str)
                ):
                    raise _err(f'bad card {c!r}: write ["W", "KS"]', wt)
                parsed.append((_seat(c[0], wt), _card(c[1], wt)))
            if not 1 <= len(parsed) <= 4:
                raise _err(f"a trick has one to four cards, got {len(parsed)}", wt)
            if k > 8:
                raise _err("a deal has eight tricks", wt)
            # leader is optional but, when given, a seat (null is not one); winner and
            # points may be null (an unfinished trick).
            if "leader" in t:
                leader = t["leader"]
                if not isinstance(leader, str):
                    raise _err(f"leader must be a seat S W N E, got {_shown(leader)}", wt)
                if _seat(leader, wt) != parsed[0][0]:
                    raise _err("leader is not the first card's seat", wt)
            winner = t.get("winner")
            if winner is not None and not isinstance(winner, str):
                raise _err(f"winner must be a seat S W N E or null, got {_shown(winner)}", wt)
            points = t.get("points")
            if points is not None and (not isinstance(points, int) or isinstance(points, bool)):
                raise _err("points must be an integer", wt)
            dr.tricks.append(
                TrickRecord(
                    parsed[0][0], parsed, None if winner is None else _seat(str(winner), wt), points
                )
            )
        sc = item.get("score")
        if sc is not None:
            ws = f"{wd}, score"
            mult = _need(sc, "multiplier", int, ws)
            dr.score = ScoreRecord(
                _ints2(sc.get("card_points"), "card_points", ws), mult,
                _ints2(sc.get("written"), "written", ws), _ints2(sc.get("total"), "total", ws),
            )  # fmt: skip
        end = item.get("end")
        if end is not None:
            we = f"{wd}, end"
            reason = _need(end, "reason", str, we)
            dr.end = (_ints2(end.get("scores"), "scores", we), reason)
        deals.append(dr)
    rec = GameRecord(dict(tags), deals, {k: f"tags.{k}" for k in tags})
    if "actions" in data:
        acts = data["actions"]
        if not isinstance(acts, list) or not all(isinstance(a, str) for a in acts):
            raise InvalidRecord("actions: a list of action strings")
        rec._json_actions = acts  # type: ignore[attr-defined]
    return rec


def read_json(data, *, verify: bool = True) -> GameRecord:
    """Parse a JSON record (dict or text) and (by default) verify it by replaying it."""
    rec = _parse_json(data)
    if verify:
        _verify(rec)
        acts = getattr(rec, "_json_actions", None)
        if acts is not None and acts != rec.actions:
            k = next(
                (i for i, (a, b) in enumerate(zip(acts, rec.actions, strict=False)) if a != b),
                min(len(acts), len(rec.actions)),
            )
            raise InvalidRecord(f"actions: entry {k + 1} disagrees with the deals")
    return rec


def read_record(data) -> GameRecord:
    """A text or JSON record, whichever ``data`` is (dict, JSON text or record text)."""
    if isinstance(data, dict):
        return read_json(data)
    if isinstance(data, bytes):
        data = decode_text(data)
    s = data.lstrip()
    if s.startswith("{") and not s.startswith("{Deal"):
        return read_json(data)
    return read_text(data)


__all__ = [
    "FORMAT", "GameRecord", "DealRecord", "TrickRecord", "ScoreRecord", "write_text", "read_text",
    "write_json", "read_json", "read_record", "dumps_json", "sort_hand", "split_text", "read_many",
    "digest", "one_line", "is_one_line", "valid_date", "decode_text",
]  # fmt: skip
