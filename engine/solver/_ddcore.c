/* Double-dummy core for Manillen: alpha-beta on card points with a transposition
 * table at trick boundaries, equivalent-card pruning, move ordering and MTD(f)
 * zero-window drivers.  Mirrors engine/solver/_pysolver.py (which also tries an
 * enhanced transposition cutoff; here its extra cache misses cost more than it saved).
 * The values (never the node counts) are the contract; tests pin them against a
 * naive minimax over engine.deal.Deal.
 *
 * Cards are 0..31 = suit * 8 + rank, rank 0..7 = 7 8 9 J Q K A T (T highest).
 * Values returned to Python are card points (plus the preset's trick bonuses) that
 * the side to move secures for the rest of the deal, the cards on the table included.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_rules.h" /* tables, legal moves and the trick winner, shared with _ismcts.c */

typedef struct {
    uint32_t h[4];
    uint32_t gen;
    int8_t lo, hi;
    uint8_t leader, best;
} Entry;

/* 2^16 entries (1.5 MB): small enough to stay in cache, which measured faster
 * than 2^19 with fewer collisions; values never depend on the size. */
#define TT_BITS 16
#define TT_SIZE (1u << TT_BITS)
/* Per thread: the search runs without the GIL (see py_move_values), so threads of one
 * process (a Celery worker's thread pool) solve at once, each in its own table. */
static _Thread_local Entry *tt = NULL;
static _Thread_local uint32_t tt_gen = 0;

typedef struct {
    uint32_t hand[4];
    int trump, dir, beat_partner, under, tbonus, lbonus;
    int n, led, win_card, win_seat, tpts;
    uint32_t live; /* cards in hands or on the table */
    long long nodes;
    /* this thread's table, its generation and the node bound (see OVER_LIMIT below),
     * copied here at the start of a call: read at every node, where a thread-local
     * variable of a shared library costs a call to __tls_get_addr */
    Entry *tt;
    uint32_t gen;
    long long limit;
} S;

/* S.limit: a bound on the nodes of one move_values_limited() call (0: none).  Past it
 * every search returns at once and the call reports "not solved": the values that are
 * returned are always exact, and whether a position is solved within the bound is a
 * fixed function of the position (the node counts do not depend on call history). */
#define OVER_LIMIT(s) ((s)->limit && (s)->nodes > (s)->limit)

static inline uint32_t legal(const S *s, int p) {
    return rules_legal(s->hand[p], p, s->n, s->led, s->win_card, s->win_seat, s->trump, s->beat_partner, s->under);
}

/* Drop cards equivalent to a lower card of the same hand: both 0 points (7 8 9) and no
 * live card of another hand (or on the table) between them. The lowest one stays. */
static uint32_t reduce_equiv(uint32_t lm, uint32_t hand, uint32_t live) {
    uint32_t out = lm;
    if (!(lm & 0x06060606u)) return lm;
    for (int s = 0; s < 4; s++) {
        int base = s * 8;
        for (int r = 1; r <= 2; r++) {
            int c = base + r;
            if (!((lm >> c) & 1)) continue;
            /* highest live card below c in the suit */
            uint32_t below = live & SUITM(s) & ((1u << c) - 1);
            if (!below) continue;
            int b = top_bit(below);
            if (((hand >> b) & 1) && ((lm >> b) & 1)) out &= ~(1u << c);
        }
    }
    return out;
}

static inline int can_beat(const S *s, int q, int led, int wc) {
    uint32_t h = s->hand[q];
    uint32_t hs = h & SUITM(led);
    if (hs) return ((wc >> 3) == led) && (hs & ABOVE[wc]);
    if (s->trump < 0) return 0;
    uint32_t ht = h & SUITM(s->trump);
    if (!ht) return 0;
    if ((wc >> 3) == s->trump) return (ht & ABOVE[wc]) != 0;
    return 1;
}

static int order_moves(const S *s, int p, uint32_t lm, int hint, int *moves) {
    int scores[8], nm = 0;
    int partner_win = s->n > 0 && !((s->win_seat ^ p) & 1);
    while (lm) {
        int c = __builtin_ctz(lm);
        lm &= lm - 1;
        int r = c & 7, su = c >> 3, pts = CARD_PTS[c], sc;
        if (c == hint) {
            sc = 100000;
        } else if (s->n == 0) {
            int o1 = (p + s->dir) & 3, o2 = (p + 3 * s->dir) & 3;
            if (!can_beat(s, o1, su, c) && !can_beat(s, o2, su, c))
                sc = 300 + pts * 4 - (su == s->trump ? 50 : 0);
            else if (c == __builtin_ctz(s->hand[p] & SUITM(su))) {
                uint32_t others = (s->hand[o1] | s->hand[o2] | s->hand[(p + 2) & 3]) & SUITM(su);
                int pm = others && ((s->hand[(p + 2) & 3] >> top_bit(others)) & 1);
                sc = 200 + pm * 60 - r - (su == s->trump ? 30 : 0);
            }
            else
                sc = 100 - pts * 4 - r;
        } else {
            int w = s->win_card;
            int beats = rules_beats(c, w, s->trump);
            int tr = (su == s->trump);
            if (s->n == 3) {
                if (partner_win)
                    sc = 300 + pts * 8 + r - tr * 40;
                else if (beats)
                    sc = 300 - pts * 8 - r - tr * 20;
                else
                    sc = 100 - pts * 8 - r - tr * 20;
            } else {
                int q4 = (s->n == 2) ? ((p + s->dir) & 3) : ((p + 3 * s->dir) & 3);
                int nwc = beats ? c : w;
                int ours = beats || partner_win;
                int safe = ours && !can_beat(s, q4, s->led, nwc);
                if (safe && !beats)
                    sc = 300 + pts * 8 + r - tr * 40;
                else if (safe)
                    sc = 300 - pts * 4 - r - tr * 20;
                else if (beats)
                    sc = 150 - pts * 8 - r - tr * 20;
                else
                    sc = 100 - pts * 8 - r - tr * 20;
            }
        }
        /* insertion sort, descending score, ties by card number */
        int i = nm++;
        while (i > 0 && scores[i - 1] < sc) {
            scores[i] = scores[i - 1];
            moves[i] = moves[i - 1];
            i--;
        }
        scores[i] = sc;
        moves[i] = c;
    }
    return nm;
}

static int search(S *s, int p, int alpha, int beta);


/* Play card c for p, search the rest; team-0 value including the current trick. */
static int child(S *s, int p, int c, int alpha, int beta) {
    int sn = s->n, sled = s->led, swc = s->win_card, sws = s->win_seat, stp = s->tpts;
    s->hand[p] &= ~(1u << c);
    rules_add_card(sn, c, p, s->trump, &s->led, &s->win_card, &s->win_seat);
    s->tpts += CARD_PTS[c];
    s->n = sn + 1;
    int v;
    if (s->n == 4) {
        uint32_t all = s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3];
        int pts = s->tpts + s->tbonus + (all ? 0 : s->lbonus);
        int ws = s->win_seat;
        int gain = (ws & 1) ? 0 : pts;
        uint32_t slive = s->live;
        s->live = all;
        s->n = 0;
        s->tpts = 0;
        v = gain + search(s, ws, alpha - gain, beta - gain);
        s->live = slive;
    } else {
        v = search(s, (p + s->dir) & 3, alpha, beta);
    }
    s->n = sn;
    s->led = sled;
    s->win_card = swc;
    s->win_seat = sws;
    s->tpts = stp;
    s->hand[p] |= 1u << c;
    return v;
}

static inline uint32_t tt_index(const S *s, int p) {
    uint64_t a = ((uint64_t)s->hand[0] << 32) | s->hand[1];
    uint64_t b = ((uint64_t)s->hand[2] << 32) | s->hand[3];
    uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (uint64_t)p);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 32;
    return (uint32_t)(x & (TT_SIZE - 1));
}

/* One card each: the play is forced. Team-0 points of that trick. */
static int last_trick(S *s, int p) {
    int c = __builtin_ctz(s->hand[p]);
    int wc = c, ws = p, pts = CARD_PTS[c];
    for (int k = 1; k < 4; k++) {
        p = (p + s->dir) & 3;
        c = __builtin_ctz(s->hand[p]);
        pts += CARD_PTS[c];
        if (rules_beats(c, wc, s->trump)) {
            wc = c;
            ws = p;
        }
    }
    return (ws & 1) ? 0 : pts + s->tbonus + s->lbonus;
}

static int search(S *s, int p, int alpha, int beta) {
    s->nodes++;
    if (OVER_LIMIT(s)) return 0;
    Entry *e = NULL;
    int boundary = (s->n == 0);
    int hint = -1, lo = 0, hi = 0;
    if (boundary) {
        uint32_t all = s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3];
        if (!all) return 0;
        if (popc(all) == 4) return last_trick(s, p);
        int R = mask_pts(all) + s->tbonus * (popc(all) / 4) + s->lbonus;
        if (R <= alpha) return R;
        if (beta <= 0) return 0;
        e = &s->tt[tt_index(s, p)];
        if (e->gen == s->gen && e->leader == p && e->h[0] == s->hand[0] && e->h[1] == s->hand[1] &&
            e->h[2] == s->hand[2] && e->h[3] == s->hand[3]) {
            lo = e->lo;
            hi = e->hi;
            if (lo >= beta) return lo;
            if (hi <= alpha) return hi;
            if (lo > alpha) alpha = lo;
            if (hi < beta) beta = hi;
            hint = e->best;
        } else {
            e->gen = s->gen;
            e->leader = (uint8_t)p;
            memcpy(e->h, s->hand, sizeof e->h);
            e->lo = 0;
            e->hi = (int8_t)R;
            e->best = 0xFF;
            lo = 0;
            hi = R;
        }
    }
    uint32_t lm = legal(s, p);
    lm = reduce_equiv(lm, s->hand[p], s->live);
    int moves[8];
    int nm;
    if (!(lm & (lm - 1))) {
        moves[0] = __builtin_ctz(lm);
        nm = 1;
    } else
        nm = order_moves(s, p, lm, hint, moves);
    int maxi = !(p & 1);
    int best = maxi ? -1000 : 1000, bestc = moves[0];
    int a = alpha, b = beta;
    for (int i = 0; i < nm; i++) {
        int v = child(s, p, moves[i], a, b);
        if (maxi) {
            if (v > best) {
                best = v;
                bestc = moves[i];
                if (best > a) a = best;
            }
        } else {
            if (v < best) {
                best = v;
                bestc = moves[i];
                if (best < b) b = best;
            }
        }
        if (a >= b) break;
    }
    if (boundary) {
        /* the slot may have been reused by a deeper position: re-check the key */
        if (!(e->gen == s->gen && e->leader == p && e->h[0] == s->hand[0] && e->h[1] == s->hand[1] &&
              e->h[2] == s->hand[2] && e->h[3] == s->hand[3])) {
            e->gen = s->gen;
            e->leader = (uint8_t)p;
            memcpy(e->h, s->hand, sizeof e->h);
            e->lo = (int8_t)lo;
            e->hi = (int8_t)hi;
        }
        if (best <= alpha) {
            if (best < e->hi) e->hi = (int8_t)best;
        } else if (best >= beta) {
            if (best > e->lo) e->lo = (int8_t)best;
        } else {
            e->lo = e->hi = (int8_t)best;
        }
        e->best = (uint8_t)bestc;
    }
    return best;
}

/* Exact team-0 value of playing c (or of the node when c < 0) by MTD(f). */
static _Thread_local long long mtd_iters = 0;
static int mtd(S *s, int p, int c, int guess, int lower, int upper) {
    int g = guess;
    if (g < lower) g = lower;
    if (g > upper) g = upper;
    int first = 1;
    while (lower < upper) {
        int beta;
        if (first) {
            beta = (g == lower) ? g + 1 : g;
            first = 0;
        } else {
            beta = (lower + upper + 1) / 2;
        }
        if (OVER_LIMIT(s)) break;
        mtd_iters++;
        g = (c >= 0) ? child(s, p, c, beta - 1, beta) : search(s, p, beta - 1, beta);
        if (g < beta)
            upper = g;
        else
            lower = g;
    }
    return lower;
}

static int parse_state(PyObject *args, S *s, int *p, int *root_total) {
    unsigned int h0, h1, h2, h3;
    int trump, to_move, dir, bp, under, tb, lb;
    PyObject *trick;
    if (!PyArg_ParseTuple(args, "IIIIiiOiiiii", &h0, &h1, &h2, &h3, &trump, &to_move, &trick, &dir, &bp,
                          &under, &tb, &lb))
        return -1;
    memset(s, 0, sizeof *s);
    s->hand[0] = h0;
    s->hand[1] = h1;
    s->hand[2] = h2;
    s->hand[3] = h3;
    s->trump = trump;
    s->dir = dir;
    s->beat_partner = bp;
    s->under = under;
    s->tbonus = tb;
    s->lbonus = lb;
    uint32_t table = 0;
    int n = rules_parse_trick(trick, trump, &s->led, &s->win_card, &s->win_seat, &s->tpts, &table);
    if (n < 0) return -1;
    s->n = n;
    uint32_t all = h0 | h1 | h2 | h3;
    s->live = all | table;
    *root_total = rules_points_left(mask_pts(s->live), popc(all) + s->n, tb, lb);
    *p = to_move & 3;
    if (!tt) {
        tt = (Entry *)calloc(TT_SIZE, sizeof(Entry));
        if (!tt) {
            PyErr_NoMemory();
            return -1;
        }
    }
    tt_gen++;
    if (tt_gen == 0) {
        memset(tt, 0, TT_SIZE * sizeof(Entry));
        tt_gen = 1;
    }
    s->tt = tt;
    s->gen = tt_gen;
    return 0;
}

static _Thread_local long long last_nodes = 0;

static PyObject *move_values_impl(PyObject *args, long long limit) {
    S s;
    int p, total;
    if (parse_state(args, &s, &p, &total) < 0) return NULL;
    uint32_t lm_all = legal(&s, p);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    if (!lm_all) return out;
    uint32_t lm = reduce_equiv(lm_all, s.hand[p], s.live);
    int moves[8];
    int nm = order_moves(&s, p, lm, -1, moves);
    int vals[32];
    int guess = total / 2;
    /* Pure C from here to the results: other Python threads may run meanwhile. */
    int over = 0;
    Py_BEGIN_ALLOW_THREADS
    s.limit = limit;
    for (int i = 0; i < nm; i++) {
        int v = mtd(&s, p, moves[i], guess, 0, total);
        if (OVER_LIMIT(&s)) {
            over = 1;
            break;
        }
        vals[moves[i]] = v;
        guess = v;
    }
    Py_END_ALLOW_THREADS
    if (over) {
        last_nodes = s.nodes;
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    /* equivalent cards share the value of the lowest one */
    for (int c = 0; c < 32; c++) {
        if (!((lm_all >> c) & 1)) continue;
        int rep = c;
        while (!((lm >> rep) & 1)) {
            uint32_t below = s.live & SUITM(rep >> 3) & ((1u << rep) - 1);
            rep = top_bit(below);
        }
        int v = vals[rep];
        if (p & 1) v = total - v;
        PyObject *item = Py_BuildValue("(ii)", c, v);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    last_nodes = s.nodes;
    return out;
}

static PyObject *py_move_values(PyObject *self, PyObject *args) { return move_values_impl(args, 0); }

/* move_values_limited(limit, h0, ..., lbonus): the same, or None past `limit` nodes */
static PyObject *py_move_values_limited(PyObject *self, PyObject *args) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n < 1) {
        PyErr_SetString(PyExc_TypeError, "move_values_limited(limit, ...)");
        return NULL;
    }
    long long limit = PyLong_AsLongLong(PyTuple_GET_ITEM(args, 0));
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "limit: at least 1 node");
        return NULL;
    }
    PyObject *rest = PyTuple_GetSlice(args, 1, n);
    if (!rest) return NULL;
    PyObject *out = move_values_impl(rest, limit);
    Py_DECREF(rest);
    return out;
}

static PyObject *py_value(PyObject *self, PyObject *args) {
    S s;
    int p, total;
    if (parse_state(args, &s, &p, &total) < 0) return NULL;
    int v;
    Py_BEGIN_ALLOW_THREADS
    v = mtd(&s, p, -1, total / 2, 0, total);
    Py_END_ALLOW_THREADS
    last_nodes = s.nodes;
    if (p & 1) v = total - v;
    return PyLong_FromLong(v);
}

static PyObject *py_legal(PyObject *self, PyObject *args) {
    S s;
    int p, total;
    if (parse_state(args, &s, &p, &total) < 0) return NULL;
    tt_gen--; /* nothing searched */
    return PyLong_FromUnsignedLong(legal(&s, p));
}

static PyObject *py_nodes(PyObject *self, PyObject *noargs) { return PyLong_FromLongLong(last_nodes); }
static PyObject *py_iters(PyObject *self, PyObject *noargs) { long long x = mtd_iters; mtd_iters = 0; return PyLong_FromLongLong(x); }

static PyMethodDef methods[] = {
    {"move_values", py_move_values, METH_VARARGS,
     "move_values(h0,h1,h2,h3,trump,to_move,trick,dir,beat_partner,under,tbonus,lbonus) -> [(card, points)]"},
    {"move_values_limited", py_move_values_limited, METH_VARARGS,
     "move_values_limited(limit, ...) -> the same as move_values, or None past limit nodes"},
    {"value", py_value, METH_VARARGS, "value(...) -> points the side to move secures"},
    {"legal", py_legal, METH_VARARGS, "legal(...) -> legal mask of the side to move"},
    {"nodes", py_nodes, METH_NOARGS, "nodes searched by the last call"},
    {"iters", py_iters, METH_NOARGS, "zero-window searches since the last call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_ddcore", "Manillen double-dummy core", -1, methods};

PyMODINIT_FUNC PyInit__ddcore(void) {
    rules_init();
    return PyModule_Create(&moddef);
}
