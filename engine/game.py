"""The game to 101 (and the matches of the table and French presets), or of fixed deals.

>>> g = Game("doc-seed")
>>> from engine.bots import get_bot
>>> bot = get_bot("random")
>>> while not g.is_terminal():
...     g.apply_action(bot.act(g.observation(g.to_move), b"doc"))
>>> g.outcome.reason in ("boom", "deal_limit")
True
>>> g.score_for(0) == -g.score_for(1)
True
>>> Game.replay("doc-seed", "flemish", g.actions).board == g.board
True
>>> g = Game("doc-seed", "flemish deals=3 tie=own")
>>> while not g.is_terminal():
...     g.apply_action(bot.act(g.observation(g.to_move), b"doc"))
>>> g.deal_number, g.outcome.reason
(3, 'deals')
"""

from __future__ import annotations

from dataclasses import dataclass

from .deal import PLAY, Deal, DealResult
from .dealing import DealSpec, deal_for
from .errors import IllegalMove
from .frozen import EMPTY, FrozenList, freeze
from .rules import RuleSet, get_rules

SEAT_NAMES = ("South", "West", "North", "East")


@dataclass(frozen=True)
class Outcome:
    winner: int | None  # team 0 (WIJ), 1 (ZIJ) or None for a draw
    scores: tuple[int, int]  # totals of the last game
    reason: str  # "boom", "deal_limit", "match" or "deals" (the last of fixed deals)
    games_won: tuple[int, int] = (0, 0)

    def to_dict(self) -> dict:
        return {
            "winner": self.winner,
            "scores": list(self.scores),
            "reason": self.reason,
            "games_won": list(self.games_won),
        }


@dataclass(frozen=True)
class GameSummary:
    """One finished game (boom) of a match."""

    index: int
    scores: tuple[int, int]
    winner: int | None
    deals: int
    reason: str


class Game:
    """Deals from a seed until the preset's end; a whole game is ``(seed, rules, actions)``."""

    def __init__(
        self, seed: str | bytes | int, rules: str | RuleSet | None = None, *, deals=None
    ) -> None:
        """``deals``: optional callable ``number -> DealSpec`` replacing :func:`deal_for`."""
        self.seed = seed
        self.rules = get_rules(rules)
        self._deals = deals
        self.actions: list[str] = []
        self.deal_number = 0  # 1-based number of the current deal across the match
        self.game_index = 0
        self.deals_in_game = 0
        self.scores = [0, 0]
        self.games_won = [0, 0]
        self.tie_factor = 1
        self.results: list[DealResult] = []  # every finished deal of the match
        self.game_results: list[list[DealResult]] = [[]]  # per game of the match
        self.games: list[GameSummary] = []
        self.outcome: Outcome | None = None
        self._board_view: tuple[int, FrozenList] = (1, EMPTY)  # (games, rows of the last)
        self.deal: Deal = self._next_deal()

    # ----------------------------------------------------------------- construction
    def spec(self, number: int) -> DealSpec:
        if self._deals is not None:
            return self._deals(number)
        return deal_for(self.seed, number, self.rules)

    def _next_deal(self) -> Deal:
        self.deal_number += 1
        self.deals_in_game += 1
        return Deal.from_spec(self.spec(self.deal_number), self.rules, tie_factor=self.tie_factor)

    @classmethod
    def replay(cls, seed, rules, actions, *, deals=None) -> Game:
        """Rebuild a game from its actions; IllegalMove names the first bad one."""
        g = cls(seed, rules, deals=deals)
        for i, a in enumerate(actions):
            try:
                g.apply_action(a)
            except IllegalMove as e:
                raise IllegalMove(e.code, f"action {i + 1} ({a}): {e}", **e.params) from None
        return g

    def clone(self) -> Game:
        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.actions = list(self.actions)
        new.scores = list(self.scores)
        new.games_won = list(self.games_won)
        new.results = list(self.results)
        new.game_results = [list(r) for r in self.game_results]
        new.games = list(self.games)
        new.deal = self.deal.clone()
        return new

    # ----------------------------------------------------------------- state
    @property
    def to_move(self) -> int | None:
        return None if self.outcome else self.deal.to_move

    @property
    def phase(self) -> str:
        return "game_over" if self.outcome else self.deal.phase

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def legal_actions(self) -> list[str]:
        return [] if self.outcome else self.deal.legal_actions()

    def legal_moves(self):
        return [] if self.outcome else self.deal.legal_moves()

    @property
    def board(self) -> list[dict]:
        """The current game's deals, as the score board shows them (read-only rows,
        each built once: results are only ever appended)."""
        games, view = self._board_view
        rows = self.game_results[-1]
        if games != len(self.game_results) or len(view) > len(rows):
            games, view = len(self.game_results), EMPTY
        if len(view) != len(rows):
            view = FrozenList([*view, *(freeze(r.to_dict()) for r in rows[len(view) :])])
            self._board_view = (games, view)
        return view

    def score_for(self, seat: int) -> int:
        """Own team's total minus the opponents' (summed over the games of a match)."""
        own = seat & 1
        diff = 0
        for g in self.games:
            diff += g.scores[own] - g.scores[own ^ 1]
        if not self.outcome:
            diff += self.scores[own] - self.scores[own ^ 1]
        return diff

    def returns(self) -> list[int]:
        return [self.score_for(s) for s in range(4)]

    # ----------------------------------------------------------------- actions
    def apply_action(self, action, seat: int | None = None) -> None:
        """Apply ``action`` for the player to move (``seat`` checks whose turn it is)."""
        if self.outcome:
            raise IllegalMove("game_over", "the game is over")
        deal = self.deal
        if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
            # True, 4, -1 or "0" is no seat (True would pass for East as 1).
            raise IllegalMove(
                "bad_seat",
                f"{seat!r} is not a seat: 0 South, 1 West, 2 North, 3 East",
                seat=repr(seat),
            )
        if seat is not None and seat != deal.to_move:
            raise IllegalMove(
                "not_your_turn",
                f"it is {SEAT_NAMES[deal.to_move or 0]}'s turn, not yours",
                to_move=deal.to_move,
            )
        if deal.phase == PLAY:
            deal.play(action)
        else:
            deal.apply_action(action)
        self.actions.append(deal.actions[-1])  # canonical text: "TS", never "10♠" or "ts"
        if deal.result is not None:
            self._deal_done(deal.result)

    def play(self, card) -> None:
        self.apply_action(card)

    def _deal_done(self, res: DealResult) -> None:
        rs = self.rules
        self.results.append(res)
        self.game_results[-1].append(res)
        self.scores[0] += res.written[0]
        self.scores[1] += res.written[1]
        self.tie_factor = rs.next_tie_factor(res.tied, self.tie_factor)
        target = rs.target(self.game_index, self.games_won)
        a, b = self.scores
        if rs.deals:
            # Fixed deals: everybody plays deals 1..N; no boom, no match.
            if self.deals_in_game >= rs.deals:
                self._game_done(0 if a > b else 1 if b > a else None, "deals")
        elif a >= target or b >= target:
            self._game_done(0 if a > b else 1 if b > a else None, "boom")
        elif self.deals_in_game >= rs.max_deals:
            self._game_done(0 if a > b else 1 if b > a else None, "deal_limit")
        if not self.outcome:
            self.deal = self._next_deal()

    def _game_done(self, winner: int | None, reason: str) -> None:
        rs = self.rules
        self.games.append(
            GameSummary(
                self.game_index,
                (self.scores[0], self.scores[1]),
                winner,
                self.deals_in_game,
                reason,
            )
        )
        if winner is not None:
            self.games_won[winner] += 1
        won = self.games_won
        single = not rs.is_match
        if single or max(won) >= rs.games_to_win or len(self.games) >= rs.max_games:
            overall = (
                winner if single else (0 if won[0] > won[1] else 1 if won[1] > won[0] else None)
            )
            self.outcome = Outcome(
                overall,
                (self.scores[0], self.scores[1]),
                reason if single else "match",
                (won[0], won[1]),
            )
            return
        self.game_index += 1
        self.deals_in_game = 0
        self.scores = [0, 0]
        self.tie_factor = 1
        self.game_results.append([])

    # ----------------------------------------------------------------- views
    def observation(self, seat: int) -> dict:
        """What ``seat`` may see: its deal view plus the public game state."""
        obs = self.deal.observation(seat)
        if self.outcome:
            obs["phase"] = "game_over"
            obs["to_move"] = None
            obs["legal"] = []
        obs.update(
            {
                "seat": seat,
                "rules": self.rules.name,
                "options": self.rules.options,
                # Whether a tied deal doubles the next one (the preset's rule or the
                # tie option): the table says so after a 30-30.
                "tie_doubles_next": self.rules.tie_doubles_next,
                "deal_number": self.deal_number,
                "game_index": self.game_index,
                "target": None
                if self.rules.deals
                else self.rules.target(self.game_index, self.games_won),
                "deals": self.rules.deals,
                "scores": list(self.scores),
                "games_won": list(self.games_won),
                # The finished games' totals (a match: one per game; the one game once over).
                "game_scores": [list(g.scores) for g in self.games],
                "board": self.board,
                "game_over": self.outcome is not None,
                "outcome": self.outcome.to_dict() if self.outcome else None,
                "score_for_seat": self.score_for(seat),
            }
        )
        return obs

    def __repr__(self) -> str:
        return (
            f"<Game seed={self.seed!r} rules={self.rules.spec} "
            f"deal={self.deal_number} scores={self.scores}>"
        )
