"""The draw of tables for tournaments with rounds: pure functions, no database.

A *seating* is a tuple of four entries in the engine's seat order (0 South, 1 West,
2 North, 3 East): seats 0 + 2 and 1 + 3 are partners. An entry is any hashable player
id, or ``BOT`` (None) for a seat a bot fills when the number of players is not a
multiple of four. A draw is a list of seatings, one per table.

Movements:
- ``random_draw``: the first round, or a redraw "at random" after a cut;
- ``rotating_sets``: a table's three sets in which each player partners each other
  player of the table once (AB-CD, AC-BD, AD-BC);
- ``writer_stays``: one player per table stays, the three others move to three other
  tables, chosen so that players meet as few people again as possible;
- ``mixed_draw``: a new draw of everyone avoiding repeats (rotating partners between
  rounds), and ``standing_draw``: tables by standing (1-4, 5-8, ...);
- ``draw_pairs`` / ``fixed_pairs`` / ``pair_tables``: fixed pairs (the team cup) drawn
  once (``draw_pairs``, the tournament's first set) and kept to the end (``fixed_pairs``:
  a player whose partner left partners another such player, else a bot), each set seated
  two pairs a table (``pair_tables``); with an odd number of pairs, who meets the bot
  pair rotates.

Bots are spread one a table as far as the count allows (the random draw, the draw by
standing; the searches weigh a second bot at a table heavily): a table of one person
and three bots only when there is one person. Fixed pairs have the bot pair (two bots
together) when the number of pairs is odd, against a whole pair while there is one.

Every function is deterministic given its arguments: randomness comes from
``random.Random`` seeded with a string (SHA-512 based, independent of PYTHONHASHSEED),
and the searches run a fixed number of steps, never a time budget.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

BOT = None

PARTNER_SEATS = ((0, 2), (1, 3))
OPPONENT_SEATS = ((0, 1), (0, 3), (2, 1), (2, 3))

# How a table's four players can be split into two partnerships, as seat orders:
# (a, b, c, d) seated S W N E gives a+c against b+d.
_PARTNERINGS = ((0, 1, 2, 3), (0, 2, 1, 3), (0, 1, 3, 2))

# Weights of the search: a repeated partnership costs more than meeting someone again as
# an opponent, and two bots at one table (when one each would do) costs more than both.
_W_MET = 1
_W_PARTNER = 3
_W_EXTRA_BOT = 1000


def _pair(a, b) -> tuple:
    return (a, b) if repr(a) <= repr(b) else (b, a)


@dataclass
class History:
    """Who has met whom so far, and how: the input of every draw after the first."""

    partners: Counter = field(default_factory=Counter)
    opponents: Counter = field(default_factory=Counter)
    stays: Counter = field(default_factory=Counter)
    bot_pairs: Counter = field(default_factory=Counter)  # times a player faced two bots
    tables: int = 0

    @classmethod
    def of(cls, seatings: Iterable[Sequence]) -> History:
        history = cls()
        for seating in seatings:
            history.add(seating)
        return history

    def add(self, seating: Sequence) -> None:
        self.tables += 1
        for i, j in PARTNER_SEATS:
            if seating[i] is not BOT and seating[j] is not BOT:
                self.partners[_pair(seating[i], seating[j])] += 1
        for i, j in OPPONENT_SEATS:
            if seating[i] is not BOT and seating[j] is not BOT:
                self.opponents[_pair(seating[i], seating[j])] += 1
        for (i, j), (k, m) in zip(PARTNER_SEATS, PARTNER_SEATS[::-1], strict=True):
            if seating[i] is BOT and seating[j] is BOT:  # k and m face a bot pair
                for p in (seating[k], seating[m]):
                    if p is not BOT:
                        self.bot_pairs[p] += 1

    def met(self, a, b) -> int:
        key = _pair(a, b)
        return self.partners[key] + self.opponents[key]


def rng_for(seed: str, *parts) -> random.Random:
    return random.Random(":".join(str(p) for p in (seed, *parts)))


def table_count(players: int) -> int:
    return max(1, math.ceil(players / 4))


def random_draw(players: Sequence[Hashable], seed: str) -> list[tuple]:
    """Shuffle the players onto tables of four; the bots, if any, spread one a table
    (as far as the count allows), so no table has more of them than needed."""
    order = list(players)
    _check_players(order)
    rng_for(seed, "random").shuffle(order)
    return _fill_tables(order)


def standing_draw(players_by_rank: Sequence[Hashable], history: History, seed: str) -> list[tuple]:
    """Tables by standing: the first four together, the next four, ...; the bots spread
    one a table over the last tables as in the random draw (10 players: 4 + 3 + 3, never
    4 + 4 + 2), so the last tables take three by standing. Within a table the partnering
    that repeats least is chosen."""
    order = list(players_by_rank)
    _check_players(order)
    tables = _fill_tables(order)
    rng = rng_for(seed, "standing")
    return [_best_partnering(t, history, rng) for t in tables]


def rotating_sets(seating: Sequence) -> list[tuple]:
    """The three sets of a rotating-partners round at one table: each player partners
    each other player once. South keeps their seat."""
    a, b, c, d = seating
    return [(a, b, c, d), (a, c, b, d), (a, b, d, c)]


def mixed_draw(players: Sequence[Hashable], history: History, seed: str) -> list[tuple]:
    """A new draw of everyone that meets earlier partners and opponents as little as a
    fixed-length local search finds (used between rounds of rotating partners)."""
    order = list(players)
    _check_players(order)
    rng = rng_for(seed, "mixed")
    rng.shuffle(order)
    tables = [list(t) for t in _fill_tables(order)]
    _improve(tables, history, rng, movable=None)
    return [_best_partnering(t, history, rng) for t in tables]


def writer_stays(previous: Sequence[Sequence], history: History, seed: str) -> list[tuple]:
    """The next round after ``previous`` (the tables of the round just played): at each
    table one player stays (the one who has stayed least; ties to the seat order), the
    three others move to three different tables (as far as there are enough tables),
    chosen to keep repeated meetings few. The player who stays keeps South's seat.
    ``history`` must include ``previous``; it is not changed (call ``note_stays``)."""
    tables_before = [tuple(t) for t in previous]
    count = len(tables_before)
    rng = rng_for(seed, "writer-stays", history.tables)
    if count == 1:
        return [_best_partnering(list(tables_before[0]), history, rng)]
    stayers, movers = [], []  # movers: (player, origin table)
    for t, seating in enumerate(tables_before):
        humans = [(i, p) for i, p in enumerate(seating) if p is not BOT]
        if humans:
            stay_index = min(humans, key=lambda ip: (history.stays[ip[1]], ip[0]))[0]
        else:
            stay_index = 0
        stayers.append(seating[stay_index])
        movers.extend((p, t) for i, p in enumerate(seating) if i != stay_index)
    # Start from three distinct offsets: the k-th mover of every table goes the same
    # number of tables on, so each table receives exactly three movers.
    offsets = _distinct_offsets(count, rng)
    tables: list[list] = [[stayers[t]] for t in range(count)]
    origin: dict[int, int] = {}  # index in tables' flat slots -> origin table
    by_table: dict[int, list] = {t: [] for t in range(count)}
    for t in range(count):
        own = [m for m in movers if m[1] == t]
        for k, (player, _) in enumerate(own):
            by_table[(t + offsets[k]) % count].append((player, t))
    for t in range(count):
        for player, o in by_table[t]:
            origin[t * 4 + len(tables[t])] = o
            tables[t].append(player)
    cap = math.ceil(3 / (count - 1))
    _improve(tables, history, rng, movable=origin, cap=cap)
    return [_best_partnering(t, history, rng, keep_south=True) for t in tables]


def note_stays(history: History, before: Sequence[Sequence], after: Sequence[Sequence]) -> None:
    """Count who stayed at their table (same table index, South of the new seating)."""
    for old, new in zip(before, after, strict=True):
        if new[0] is not BOT and new[0] in old:
            history.stays[new[0]] += 1


def draw_pairs(players: Sequence[Hashable], history: History, seed: str) -> list[tuple]:
    """The draw of partnerships (the team cup's, once at its start; ``fixed_pairs`` for
    the players left without a partner): pairs that have not played together yet where
    possible. An odd player is partnered by a bot."""
    order = list(players)
    _check_players(order)
    rng = rng_for(seed, "pairs", history.tables)
    rng.shuffle(order)
    if len(order) % 2:
        order.append(BOT)
    pairs = [order[i : i + 2] for i in range(0, len(order), 2)]

    known: dict[tuple, int] = {}  # the search asks for the same pairs many times

    def cost(pair) -> int:
        a, b = pair
        if a is BOT or b is BOT:
            return 0
        key = (a, b)
        if key not in known:
            known[key] = history.partners[_pair(a, b)]
        return known[key]

    total = sum(cost(p) for p in pairs)  # repeated partnerships left
    for _ in range(200 * len(pairs)):
        if len(pairs) < 2 or total == 0:
            break  # nothing left to improve (260 players: usually at once)
        i, j = rng.sample(range(len(pairs)), 2)
        x, y = rng.randrange(2), rng.randrange(2)
        before = cost(pairs[i]) + cost(pairs[j])
        pairs[i][x], pairs[j][y] = pairs[j][y], pairs[i][x]
        after = cost(pairs[i]) + cost(pairs[j])
        if after > before:
            pairs[i][x], pairs[j][y] = pairs[j][y], pairs[i][x]
        else:
            total += after - before
    return [tuple(p) for p in pairs]


def partnerships(players: Sequence[Hashable], seating: Sequence[Sequence]) -> list[tuple]:
    """The partnerships of ``players`` in one set's ``seating`` (its tables), in the order
    of ``players`` (by standing: a pair ranks by its better player). A player whose
    partner there is not among ``players`` (cut, removed), a bot or missing, is a
    "pair" of one: ``(player,)``."""
    order = {p: k for k, p in enumerate(players)}
    if len(order) != len(players):
        raise ValueError("a player appears twice in the draw")
    partner: dict = {}
    for table in seating:
        for i, j in PARTNER_SEATS:
            a, b = table[i], table[j]
            if a is not BOT and b is not BOT and a in order and b in order:
                partner[a], partner[b] = b, a
    groups, seen = [], set()
    for p in players:
        if p in seen:
            continue
        group = (p, partner[p]) if p in partner else (p,)
        seen.update(group)
        groups.append(group)
    return groups


def fixed_pairs(
    players: Sequence[Hashable], seating: Sequence[Sequence], history: History, seed: str
) -> list[tuple]:
    """The team cup's pairs for the next set: those of the last set (``seating``) kept,
    whoever is still in (``players``, by standing). The players left without a partner
    (theirs cut or removed, or a bot's partner) partner each other (``draw_pairs``: not
    an earlier partner where possible), an odd one a bot. In the order of ``players``
    (a pair by its better player)."""
    order = list(players)
    _check_players(order)
    groups = partnerships(order, seating)
    alone = [g[0] for g in groups if len(g) == 1]
    pairs = [g for g in groups if len(g) == 2]
    if alone:
        pairs += draw_pairs(alone, history, seed)
    rank = {p: k for k, p in enumerate(order)}
    return sorted(pairs, key=lambda pair: min(rank[p] for p in pair if p is not BOT))


def pair_tables(
    pairs: Sequence[tuple], history: History, seed: str, by_standing: bool = False
) -> list[tuple]:
    """Seat fixed pairs two a table (pair one South/North, pair two West/East). At random
    avoiding pairs that met before, or by standing (``pairs`` in rank order, each pair
    against the next one that it has not met, Swiss style). An odd pair meets a bot pair
    at the last table: the pair that met it least (by standing the lowest of them, else
    one at random), never a player with a bot partner while a whole pair can (that would
    seat one person with three bots)."""
    pairs = [tuple(p) for p in pairs]
    rng = rng_for(seed, "pair-tables", history.tables)

    known: dict[tuple, int] = {}  # the search asks for the same two pairs many times

    def met(p, q) -> int:
        key = (p, q)
        if key not in known:
            known[key] = sum(
                history.met(a, b) for a in p for b in q if a is not BOT and b is not BOT
            )
        return known[key]

    if not by_standing:
        rng.shuffle(pairs)
    bye = None  # the pair that meets the bot pair
    if len(pairs) % 2:

        def bye_cost(k: int):
            pair = pairs[k]
            faced = sum(history.bot_pairs[p] for p in pair if p is not BOT)
            # A bot's partner last; then who met the bot pair least; by standing the
            # lowest (at random: the shuffle's order).
            return (BOT in pair, faced, -k if by_standing else k)

        bye = pairs.pop(min(range(len(pairs)), key=bye_cost))
    if by_standing:
        pairs = _swiss(pairs, met)
    else:
        total = sum(met(pairs[k], pairs[k + 1]) for k in range(0, len(pairs), 2))
        for _ in range(100 * len(pairs)):
            if len(pairs) < 4 or total == 0:
                break  # no two pairs at a table have met: nothing left to improve
            i, j = rng.sample(range(len(pairs)), 2)
            i_mate, j_mate = i ^ 1, j ^ 1
            if i_mate == j:
                continue
            before = met(pairs[i], pairs[i_mate]) + met(pairs[j], pairs[j_mate])
            after = met(pairs[j], pairs[i_mate]) + met(pairs[i], pairs[j_mate])
            if after <= before:
                pairs[i], pairs[j] = pairs[j], pairs[i]
                total += after - before
    if bye is not None:
        pairs += [bye, (BOT, BOT)]
    return [
        (pairs[k][0], pairs[k + 1][0], pairs[k][1], pairs[k + 1][1])
        for k in range(0, len(pairs), 2)
    ]


def _swiss(pairs: list, met, budget: int = 5000) -> list:
    """Pairs in rank order, each against the best-ranked one below it that it has not
    met, going back on an earlier choice (a fixed number of steps) where it would leave
    two pairs that met; failing that, each against the next one not met (greedy)."""
    steps = 0

    def match(waiting: list) -> list | None:
        nonlocal steps
        if not waiting:
            return []
        first, rest = waiting[0], waiting[1:]
        for k, other in enumerate(rest):
            if met(first, other):
                continue
            steps += 1
            if steps > budget:
                return None
            tail = match(rest[:k] + rest[k + 1 :])
            if tail is not None:
                return [first, other, *tail]
        return None

    found = match(list(pairs))
    if found is not None:
        return found
    waiting, order = list(pairs), []
    while waiting:
        first = waiting.pop(0)
        best = min(range(len(waiting)), key=lambda k: (met(first, waiting[k]) > 0, k))
        order += [first, waiting.pop(best)]
    return order


@dataclass(frozen=True)
class MeetingReport:
    """How close a series of draws gets to "everyone meets everyone"."""

    players: int
    rounds: int
    distinct_met: float  # mean over players of the distinct people met
    possible: float  # mean of the most one could have met: min(3 x tables, players - 1)
    partner_repeats: int  # pairs that partnered more than once (counted per extra time)
    opponent_repeats: int  # pairs that met again in any role, per extra time
    most_met: int  # the most times any two players met

    @property
    def coverage(self) -> float:
        return self.distinct_met / self.possible if self.possible else 1.0


def meeting_report(
    players: Sequence[Hashable], rounds: Sequence[Sequence[Sequence]]
) -> MeetingReport:
    """Figures for the draws of ``rounds`` (each a list of seatings, one set each)."""
    history = History()
    played = Counter()
    for draw in rounds:
        for seating in draw:
            history.add(seating)
            for p in seating:
                if p is not BOT:
                    played[p] += 1
    met_by = {p: set() for p in players}
    total = Counter()
    for counter in (history.partners, history.opponents):
        for (a, b), n in counter.items():
            met_by[a].add(b)
            met_by[b].add(a)
            total[(a, b)] += n
    n = len(players)
    distinct = sum(len(v) for v in met_by.values()) / n if n else 0.0
    possible = sum(min(3 * played[p], n - 1) for p in players) / n if n else 0.0
    return MeetingReport(
        players=n,
        rounds=len(rounds),
        distinct_met=distinct,
        possible=possible,
        partner_repeats=sum(c - 1 for c in history.partners.values() if c > 1),
        opponent_repeats=sum(c - 1 for c in total.values() if c > 1),
        most_met=max(total.values(), default=0),
    )


# --- internals ------------------------------------------------------------------------


def _check_players(players: list) -> None:
    if any(p is BOT for p in players):
        raise ValueError("a player id may not be None (that marks a bot seat)")
    if len(set(players)) != len(players):
        raise ValueError("a player appears twice in the draw")
    if not players:
        raise ValueError("a draw needs at least one player")


def _fill_tables(order: list) -> list[tuple]:
    """Deal players onto tables in order, bots where seats are left over: spread one a
    table from the last table backwards (two at a table only with 5 players: 3 + 2)."""
    count = table_count(len(order))
    bots = 4 * count - len(order)
    bot_tables = Counter(count - 1 - (k % count) for k in range(bots))
    tables, it = [], iter(order)
    for t in range(count):
        humans = 4 - bot_tables[t]
        seating = [next(it) for _ in range(humans)] + [BOT] * bot_tables[t]
        # The bot takes the last seat (East); a second one the seat opposite, so that two
        # bots at a table are partners rather than splitting two teams.
        if bot_tables[t] == 2:
            seating = [seating[0], seating[2], seating[1], seating[3]]
        tables.append(tuple(seating))
    return tables


def _distinct_offsets(count: int, rng: random.Random) -> list[int]:
    choices = list(range(1, count))
    if len(choices) >= 3:
        return rng.sample(choices, 3)
    return [choices[k % len(choices)] for k in range(3)]


def _table_cost(table: Sequence, history: History) -> int:
    humans = [p for p in table if p is not BOT]
    cost = _W_EXTRA_BOT * max(0, len(table) - len(humans) - 1)
    for i in range(len(humans)):
        for j in range(i + 1, len(humans)):
            cost += _W_MET * history.met(humans[i], humans[j])
    if len(table) == 4:
        cost += _W_PARTNER * min(_partner_repeats(table, order, history) for order in _PARTNERINGS)
    return cost


def _partner_repeats(table: Sequence, order: Sequence[int], history: History) -> int:
    a, b, c, d = (table[i] for i in order)
    total = 0
    for x, y in ((a, c), (b, d)):
        if x is not BOT and y is not BOT:
            total += history.partners[_pair(x, y)]
    return total


def _best_partnering(table: Sequence, history: History, rng: random.Random, keep_south=False):
    """Seat a table's four players so that the partnerships repeat least (ties at random,
    from the seeded generator). South stays South when ``keep_south``."""
    table = list(table)
    options = [tuple(table[i] for i in order) for order in _PARTNERINGS]
    if not keep_south:
        rng.shuffle(options)
    best = min(options, key=lambda s: _partner_repeats(s, (0, 1, 2, 3), history))
    # Bots are partners of each other where there are two (see _fill_tables).
    if best.count(BOT) == 2 and (best[0] is BOT) != (best[2] is BOT):
        for s in options:
            if (s[0] is BOT) == (s[2] is BOT):
                return s
    return best


def _improve(tables: list[list], history: History, rng: random.Random, movable, cap: int = 3):
    """Local search by swapping two players of different tables, a fixed number of steps.
    ``movable``: None (everyone may move anywhere), or a map from slot (table * 4 + seat)
    to the mover's origin table (slots not in it stay; a mover may not go back to its own
    table nor join more than ``cap`` movers of its origin at one table)."""
    count = len(tables)
    if count < 2:
        return
    slots = [t * 4 + s for t in range(count) for s in range(len(tables[t]))]
    if movable is not None:
        slots = [k for k in slots if k in movable]
    if len(slots) < 2:
        return
    costs = [_table_cost(t, history) for t in tables]

    def fits(table: int) -> bool:
        origins = Counter(
            movable[table * 4 + s] for s in range(len(tables[table])) if table * 4 + s in movable
        )
        return table not in origins and max(origins.values(), default=0) <= cap

    steps = 400 * count + 2000
    for _ in range(steps):
        if not any(costs):
            break  # nobody meets anyone again: nothing left to improve
        k1, k2 = rng.sample(slots, 2)
        t1, s1, t2, s2 = k1 // 4, k1 % 4, k2 // 4, k2 % 4
        if t1 == t2:
            continue
        if movable is not None:
            o1, o2 = movable[k1], movable[k2]
            if o1 != o2:
                movable[k1], movable[k2] = o2, o1
                ok = fits(t1) and fits(t2)
                movable[k1], movable[k2] = o1, o2
                if not ok:
                    continue
        a, b = tables[t1][s1], tables[t2][s2]
        if a is b:
            continue
        tables[t1][s1], tables[t2][s2] = b, a
        c1, c2 = _table_cost(tables[t1], history), _table_cost(tables[t2], history)
        delta = c1 + c2 - costs[t1] - costs[t2]
        if delta < 0 or (delta == 0 and rng.random() < 0.5):
            costs[t1], costs[t2] = c1, c2
            if movable is not None:
                movable[k1], movable[k2] = movable[k2], movable[k1]
        else:
            tables[t1][s1], tables[t2][s2] = a, b
