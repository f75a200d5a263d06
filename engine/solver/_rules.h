/* Card rules shared by the compiled cores: the double-dummy solver (_ddcore.c) and the
 * information-set MCTS with its inference (_ismcts.c).  One translation unit each, so
 * everything here is static: each core gets its own copy of the tables and calls
 * rules_init() once from its module init.
 *
 * Cards are 0..31 = suit * 8 + rank, rank 0..7 = 7 8 9 J Q K A T (T highest); a hand
 * is a 32-bit mask.  The functions take plain arguments (hand, trick state, trump,
 * flags) so that each core can call them from its own state struct.  The obligations
 * mirror engine/deal.py (legal_moves) and engine/solver/_pysolver.py (legal_mask).
 */
#ifndef MANILLEN_RULES_H
#define MANILLEN_RULES_H

#include <stdint.h>

/* Undertrumping: what a seat that cannot overtrump must do (engine.solver.UNDER_CODE). */
#define UT_FORBIDDEN 0 /* play another suit when it can */
#define UT_ALLOWED 1   /* anything */
#define UT_FORCED 2    /* trump all the same */

#define SUITM(s) (0xFFu << ((s) * 8))

static const int RANK_PTS[8] = {0, 0, 0, 1, 2, 3, 4, 5};
static int CARD_PTS[32];
static uint32_t ABOVE[32];       /* the higher cards of the same suit */
static int BYTE_PTS[4][256];     /* points of the cards of one suit byte */

static inline void rules_init(void) {
    for (int c = 0; c < 32; c++) {
        CARD_PTS[c] = RANK_PTS[c & 7];
        ABOVE[c] = SUITM(c >> 3) & ~((c == 31) ? 0xFFFFFFFFu : ((1u << (c + 1)) - 1));
    }
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < 256; b++) {
            int t = 0;
            for (int r = 0; r < 8; r++)
                if ((b >> r) & 1) t += RANK_PTS[r];
            BYTE_PTS[s][b] = t;
        }
}

static inline int popc(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

/* Card points of the cards of m. */
static inline int mask_pts(uint32_t m) {
    return BYTE_PTS[0][m & 0xFF] + BYTE_PTS[1][(m >> 8) & 0xFF] + BYTE_PTS[2][(m >> 16) & 0xFF] +
           BYTE_PTS[3][m >> 24];
}

static inline int top_bit(uint32_t x) { return 31 - __builtin_clz(x); }

/* Points still at stake: `card_pts` of the cards in the hands and on the table, `cards`
 * of them, plus the bonus of each trick left and of the last one. */
static inline int rules_points_left(int card_pts, int cards, int tbonus, int lbonus) {
    int tricks = (cards + 3) / 4;
    return card_pts + tbonus * tricks + (tricks ? lbonus : 0);
}

/* Does card c take the trick from w, the card winning it so far?  (trump < 0: none) */
static inline int rules_beats(int c, int w, int trump) {
    return ((c >> 3) == (w >> 3)) ? (c > w) : ((c >> 3) == trump);
}

/* Seat `seat` adds card c to a trick of n cards: the suit led and who wins it so far. */
static inline void rules_add_card(int n, int c, int seat, int trump, int *led, int *win_card, int *win_seat) {
    if (n == 0) {
        *led = c >> 3;
        *win_card = c;
        *win_seat = seat;
    } else if (rules_beats(c, *win_card, trump)) {
        *win_card = c;
        *win_seat = seat;
    }
}

/* Legal cards of hand h for seat p, n cards on the table (suit led, winning card and
 * seat); beat_partner: overtake the partner too; under: UT_*. */
static inline uint32_t rules_legal(uint32_t h, int p, int n, int led, int w, int win_seat, int trump,
                                   int beat_partner, int under) {
    if (n == 0) return h;
    int trumped = trump >= 0 && led != trump && (w >> 3) == trump;
    int opp = beat_partner || ((win_seat ^ p) & 1);
    uint32_t hs = h & SUITM(led);
    if (hs) {
        if (opp && !trumped) {
            uint32_t higher = hs & ABOVE[w];
            if (higher) return higher;
        }
        return hs;
    }
    if (trump < 0) return h;
    uint32_t ht = h & SUITM(trump);
    if (!ht) return h;
    uint32_t higher_t = trumped ? (ht & ABOVE[w]) : ht;
    if (opp) {
        if (higher_t) return higher_t;
        if (under == UT_FORBIDDEN) return (h & ~ht) ? (h & ~ht) : h;
        if (under == UT_ALLOWED) return h;
        return ht;
    }
    if (trumped && under == UT_FORBIDDEN) {
        uint32_t x = h & ~(ht & ~higher_t);
        return x ? x : h;
    }
    return h;
}

#ifdef Py_PYTHON_H
/* The `trick` argument of the Python API: flat (seat, card) pairs, at most 3 cards.
 * Fills the suit led, the winning card and seat, adds the table's card points to *tpts
 * and its cards to *table.  The number of cards, or -1 with a Python error set. */
static inline int rules_parse_trick(PyObject *o, int trump, int *led, int *win_card, int *win_seat, int *tpts,
                                    uint32_t *table) {
    PyObject *seq = PySequence_Fast(o, "trick must be a sequence of seat, card ints");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n % 2 || n > 6) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "trick: flat (seat, card) pairs, at most 3 cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i += 2) {
        long seat = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i + 1));
        if (PyErr_Occurred() || seat < 0 || seat > 3 || c < 0 || c > 31) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad seat or card in trick");
            return -1;
        }
        rules_add_card((int)(i / 2), (int)c, (int)seat, trump, led, win_card, win_seat);
        *tpts += CARD_PTS[c];
        *table |= 1u << c;
    }
    Py_DECREF(seq);
    return (int)(n / 2);
}
#endif

#endif
