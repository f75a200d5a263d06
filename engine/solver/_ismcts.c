/* Single-observer information-set Monte Carlo tree search (SO-ISMCTS) for Manillen.
 *
 * Cowling, Powley & Whitehouse (2012), "Information Set Monte Carlo Tree Search":
 * one tree over the observer's information sets (a node is the sequence of cards
 * played from the root), a fresh determinisation of the hidden cards per iteration,
 * selection restricted to the moves legal in that determinisation, and UCB1 with
 * availability counts (a child's "parent visits" is how often it was available).
 *
 * Determinisations are drawn uniformly among the deals that agree with the hard facts
 * the Python sampler derives (engine/bots/sampler.py: cards each seat cannot hold,
 * how many unknown cards each seat holds, the cards known to be in a hand).  The
 * counting is the sampler's own dynamic programme over groups of cards that the same
 * set of seats may hold, so the draw is exact (no rejection).
 *
 * Everything is a pure function of the inputs and the 64-bit seed: no clock, no
 * global state carried between calls.  The search runs without the GIL.
 *
 * Cards are 0..31 = suit * 8 + rank, rank 0..7 = 7 8 9 J Q K A T (T highest); the
 * obligations mirror engine/solver/_ddcore.c (legal()).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UT_FORBIDDEN 0
#define UT_ALLOWED 1
#define UT_FORCED 2
#define SUITM(s) (0xFFu << ((s) * 8))

static const int RANK_PTS[8] = {0, 0, 0, 1, 2, 3, 4, 5};
static int CARD_PTS[32];
static uint32_t ABOVE[32];

static inline int popc(uint32_t x) { return __builtin_popcount(x); }
static inline int mask_pts(uint32_t m) {
    int t = 0;
    while (m) {
        t += CARD_PTS[__builtin_ctz(m)];
        m &= m - 1;
    }
    return t;
}

/* ------------------------------------------------------------------ RNG */
typedef struct {
    uint64_t s[4];
} Rng;

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static void rng_seed(Rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix(&seed);
}
static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t rng_next(Rng *r) { /* xoshiro256** */
    uint64_t *s = r->s;
    uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}
/* uniform in [0, n) (n small: the modulo bias is below 2^-58) */
static inline uint32_t rng_below(Rng *r, uint32_t n) { return (uint32_t)(rng_next(r) % n); }
static inline double rng_unit(Rng *r) { return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static inline int nth_bit(uint32_t m, int k) {
    while (k--) m &= m - 1;
    return __builtin_ctz(m);
}
static inline int random_card(Rng *r, uint32_t m) { return nth_bit(m, (int)rng_below(r, popc(m))); }

/* ------------------------------------------------------------------ rules */
typedef struct {
    uint32_t hand[4];
    int trump, dir, beat_partner, under, tbonus, lbonus;
    int n, led, win_card, win_seat, tpts, to_move;
    int pts0; /* team-0 points won from the root on (table cards of the root trick included) */
} G;

static uint32_t legal(const G *s, int p) {
    uint32_t h = s->hand[p];
    if (s->n == 0) return h;
    int w = s->win_card, trump = s->trump;
    int trumped = trump >= 0 && s->led != trump && (w >> 3) == trump;
    int opp = s->beat_partner || ((s->win_seat ^ p) & 1);
    uint32_t hs = h & SUITM(s->led);
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
        if (s->under == UT_FORBIDDEN) return (h & ~ht) ? (h & ~ht) : h;
        if (s->under == UT_ALLOWED) return h;
        return ht;
    }
    if (trumped && s->under == UT_FORBIDDEN) {
        uint32_t x = h & ~(ht & ~higher_t);
        return x ? x : h;
    }
    return h;
}

/* Play card c for the seat to move; returns 1 when the deal is over. */
static int play(G *s, int c) {
    int p = s->to_move;
    s->hand[p] &= ~(1u << c);
    if (s->n == 0) {
        s->led = c >> 3;
        s->win_card = c;
        s->win_seat = p;
    } else {
        int w = s->win_card;
        if ((c >> 3) == (w >> 3)) {
            if (c > w) {
                s->win_card = c;
                s->win_seat = p;
            }
        } else if ((c >> 3) == s->trump) {
            s->win_card = c;
            s->win_seat = p;
        }
    }
    s->tpts += CARD_PTS[c];
    s->n++;
    if (s->n < 4) {
        s->to_move = (p + s->dir) & 3;
        return 0;
    }
    int over = !(s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3]);
    int pts = s->tpts + s->tbonus + (over ? s->lbonus : 0);
    if (!(s->win_seat & 1)) s->pts0 += pts;
    s->n = 0;
    s->tpts = 0;
    s->to_move = s->win_seat;
    return over;
}

/* ------------------------------------------------------------------ sampler */
typedef struct {
    uint32_t known[4];
    int seats[3], nseats;
    int ngroups;
    int gsig[8], gsize[8];
    int gcards[8][32];
    int need[3];
    double *ways; /* [(ngroups + 1) * 729] */
} Sampler;

static double FACT[33];

static inline int cap_index(int a, int b, int c) { return a * 81 + b * 9 + c; }

/* Every split of k cards over the seats of sig within caps: calls f for each. */
#define FOR_SPLITS(sig, k, caps, BODY)                                             \
    for (int x0 = 0; x0 <= ((sig) & 1 ? (k) : 0) && x0 <= (caps)[0]; x0++)        \
        for (int x1 = 0; x1 <= ((sig) & 2 ? (k) - x0 : 0) && x1 <= (caps)[1]; x1++) { \
            int x2 = (k) - x0 - x1;                                                \
            if (x2 < 0 || x2 > (caps)[2] || (x2 && !((sig) & 4))) continue;        \
            BODY                                                                   \
        }

static int sampler_init(Sampler *sp, const uint32_t known[4], const int need[4], const uint32_t forbid[4],
                        uint32_t unseen) {
    memset(sp, 0, sizeof *sp);
    memcpy(sp->known, known, sizeof sp->known);
    int total_need = 0;
    for (int s = 0; s < 4; s++) {
        if (need[s] < 0 || need[s] > 8) return -1;
        if (need[s] > 0) {
            sp->need[sp->nseats] = need[s];
            sp->seats[sp->nseats++] = s;
            total_need += need[s];
        }
    }
    if (total_need != popc(unseen)) return -1;
    int sig_of[32];
    for (int c = 0; c < 32; c++) {
        sig_of[c] = -1;
        if (!((unseen >> c) & 1)) continue;
        int sig = 0;
        for (int i = 0; i < sp->nseats; i++)
            if (!((forbid[sp->seats[i]] >> c) & 1)) sig |= 1 << i;
        sig_of[c] = sig;
    }
    /* groups in increasing signature order, cards in increasing order (fixed) */
    for (int sig = 0; sig < 8; sig++) {
        int g = sp->ngroups, n = 0;
        for (int c = 0; c < 32; c++)
            if (sig_of[c] == sig) sp->gcards[g][n++] = c;
        if (n) {
            sp->gsig[g] = sig;
            sp->gsize[g] = n;
            sp->ngroups++;
        }
    }
    int ng = sp->ngroups;
    sp->ways = (double *)calloc((size_t)(ng + 1) * 729, sizeof(double));
    if (!sp->ways) return -2;
    sp->ways[ng * 729 + 0] = 1.0;
    for (int g = ng - 1; g >= 0; g--) {
        int sig = sp->gsig[g], k = sp->gsize[g];
        for (int a = 0; a <= 8; a++)
            for (int b = 0; b <= 8; b++)
                for (int c = 0; c <= 8; c++) {
                    int caps[3] = {a, b, c};
                    double t = 0;
                    FOR_SPLITS(sig, k, caps, {
                        double sub = sp->ways[(g + 1) * 729 + cap_index(a - x0, b - x1, c - x2)];
                        if (sub > 0) t += FACT[k] / (FACT[x0] * FACT[x1] * FACT[x2]) * sub;
                    })
                    sp->ways[g * 729 + cap_index(a, b, c)] = t;
                }
    }
    return 0;
}

static double sampler_count(const Sampler *sp) {
    return sp->ways[cap_index(sp->need[0], sp->need[1], sp->need[2])];
}

static void sampler_draw(const Sampler *sp, Rng *r, uint32_t hands[4]) {
    memcpy(hands, sp->known, 4 * sizeof(uint32_t));
    int caps[3] = {sp->need[0], sp->need[1], sp->need[2]};
    for (int g = 0; g < sp->ngroups; g++) {
        int sig = sp->gsig[g], k = sp->gsize[g];
        double total = sp->ways[g * 729 + cap_index(caps[0], caps[1], caps[2])];
        double u = rng_unit(r) * total;
        int pick[3] = {-1, -1, -1}, last[3] = {-1, -1, -1};
        FOR_SPLITS(sig, k, caps, {
            double sub = sp->ways[(g + 1) * 729 + cap_index(caps[0] - x0, caps[1] - x1, caps[2] - x2)];
            if (sub > 0) {
                double w = FACT[k] / (FACT[x0] * FACT[x1] * FACT[x2]) * sub;
                last[0] = x0;
                last[1] = x1;
                last[2] = x2;
                if (pick[0] < 0) {
                    if (u < w) {
                        pick[0] = x0;
                        pick[1] = x1;
                        pick[2] = x2;
                    } else
                        u -= w;
                }
            }
        })
        if (pick[0] < 0) memcpy(pick, last, sizeof pick); /* rounding at the very end */
        int pool[32];
        memcpy(pool, sp->gcards[g], k * sizeof(int));
        for (int i = k - 1; i > 0; i--) {
            int j = (int)rng_below(r, (uint32_t)(i + 1));
            int t = pool[i];
            pool[i] = pool[j];
            pool[j] = t;
        }
        int pos = 0;
        for (int i = 0; i < 3; i++) {
            for (int x = 0; x < pick[i]; x++) hands[sp->seats[i]] |= 1u << pool[pos++];
            caps[i] -= pick[i];
        }
    }
}

/* ------------------------------------------------------------------ tree */
typedef struct {
    int parent, child, sibling;
    uint32_t visits, avail;
    double reward; /* sum of rewards for the team of the seat that made the move */
    uint32_t children; /* mask of the cards of the children */
    int8_t card, mover;
} Node;

typedef struct {
    Node *nodes;
    int n, cap;
} Tree;

static int new_node(Tree *t, int parent, int card, int mover) {
    int i = t->n++;
    Node *x = &t->nodes[i];
    x->parent = parent;
    x->child = -1;
    x->sibling = -1;
    x->visits = 0;
    x->avail = 1;
    x->reward = 0;
    x->children = 0;
    x->card = (int8_t)card;
    x->mover = (int8_t)mover;
    if (parent >= 0) {
        Node *p = &t->nodes[parent];
        x->sibling = p->child;
        p->child = i;
        p->children |= 1u << card;
    }
    return i;
}

typedef struct {
    int best;
    int cards[8], ncards;
    uint32_t visits[8];
    double mean[8];     /* points for the observer's side, per root card */
    double root_mean;   /* points for the observer's side, over all iterations */
    double count;       /* consistent deals */
} Result;

static int run_search(const Sampler *sp, const G *root, int observer, long iterations, uint64_t seed,
                      double cexp, Result *res) {
    Tree t;
    t.cap = (int)iterations + 2;
    t.n = 0;
    t.nodes = (Node *)malloc((size_t)t.cap * sizeof(Node));
    if (!t.nodes) return -2;
    Rng r;
    rng_seed(&r, seed);
    new_node(&t, -1, 0, -1);
    int total = 0;
    double root_sum = 0;
    int obs_team = observer & 1;
    for (long it = 0; it < iterations; it++) {
        G s = *root;
        sampler_draw(sp, &r, s.hand);
        if (it == 0) {
            uint32_t all = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3];
            int cards = popc(all) + s.n;
            int tricks = (cards + 3) / 4;
            total = root->tpts + mask_pts(all) + s.tbonus * tricks + (tricks ? s.lbonus : 0);
        }
        int node = 0, over = 0;
        /* selection / expansion */
        while (!over) {
            int p = s.to_move;
            uint32_t lm = legal(&s, p);
            Node *nd = &t.nodes[node];
            uint32_t untried = lm & ~nd->children;
            if (untried) {
                int c = random_card(&r, untried);
                /* availability of the tried compatible siblings counts this visit too */
                for (int ch = nd->child; ch >= 0; ch = t.nodes[ch].sibling)
                    if ((lm >> t.nodes[ch].card) & 1) t.nodes[ch].avail++;
                node = new_node(&t, node, c, p);
                over = play(&s, c);
                break;
            }
            int bestc = -1;
            double bestv = -1e300;
            for (int ch = nd->child; ch >= 0; ch = t.nodes[ch].sibling) {
                Node *x = &t.nodes[ch];
                if (!((lm >> x->card) & 1)) continue;
                x->avail++;
                double v = x->reward / x->visits + cexp * sqrt(log((double)x->avail) / x->visits);
                if (v > bestv || (v == bestv && x->card < t.nodes[bestc].card)) {
                    bestv = v;
                    bestc = ch;
                }
            }
            node = bestc;
            over = play(&s, t.nodes[node].card);
        }
        /* random playout */
        while (!over) over = play(&s, random_card(&r, legal(&s, s.to_move)));
        double r0 = total > 0 ? (double)s.pts0 / total : 0.5;
        root_sum += obs_team ? 1.0 - r0 : r0;
        for (int x = node; x >= 0; x = t.nodes[x].parent) {
            Node *nd = &t.nodes[x];
            nd->visits++;
            if (nd->mover >= 0) nd->reward += (nd->mover & 1) ? 1.0 - r0 : r0;
        }
    }
    /* root children: most visited wins, ties by better mean, then the lower card */
    res->ncards = 0;
    res->best = -1;
    uint32_t bv = 0;
    double bm = -1;
    for (int ch = t.nodes[0].child; ch >= 0; ch = t.nodes[ch].sibling) {
        Node *x = &t.nodes[ch];
        int i = res->ncards++;
        if (i >= 8) break;
        double m = x->visits ? x->reward / x->visits : 0;
        if (x->mover >= 0 && (x->mover & 1) != obs_team) m = 1.0 - m;
        res->cards[i] = x->card;
        res->visits[i] = x->visits;
        res->mean[i] = m * total;
        if (x->visits > bv || (x->visits == bv && (m > bm || (m == bm && x->card < res->best)))) {
            bv = x->visits;
            bm = m;
            res->best = x->card;
        }
    }
    if (res->ncards > 8) res->ncards = 8;
    res->root_mean = iterations > 0 ? root_sum / iterations * total : 0;
    free(t.nodes);
    return 0;
}

/* ------------------------------------------------------------------ Python */
static int parse4u(PyObject *o, uint32_t out[4], const char *what) {
    PyObject *seq = PySequence_Fast(o, what);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 4) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: four values", what);
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (uint32_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

static int parse_trick(PyObject *o, G *s) {
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
        if (i == 0) {
            s->led = (int)(c >> 3);
            s->win_card = (int)c;
            s->win_seat = (int)seat;
        } else {
            int w = s->win_card;
            if ((c >> 3) == (w >> 3)) {
                if (c > w) {
                    s->win_card = (int)c;
                    s->win_seat = (int)seat;
                }
            } else if ((c >> 3) == s->trump) {
                s->win_card = (int)c;
                s->win_seat = (int)seat;
            }
        }
        s->tpts += CARD_PTS[c];
    }
    s->n = (int)(n / 2);
    Py_DECREF(seq);
    return 0;
}

/* Arguments shared by search() and sample(): the hidden-card problem. */
static int parse_hidden(PyObject *known_o, PyObject *need_o, PyObject *forbid_o, unsigned int unseen,
                        Sampler *sp) {
    uint32_t known[4], forbid[4], needu[4];
    int need[4];
    if (parse4u(known_o, known, "known") < 0 || parse4u(need_o, needu, "need") < 0 ||
        parse4u(forbid_o, forbid, "forbid") < 0)
        return -1;
    for (int i = 0; i < 4; i++) need[i] = (int)needu[i];
    int rc = sampler_init(sp, known, need, forbid, unseen);
    if (rc == -2) {
        PyErr_NoMemory();
        return -1;
    }
    if (rc < 0 || sampler_count(sp) <= 0) {
        free(sp->ways);
        PyErr_SetString(PyExc_ValueError, "no deal agrees with the hidden-card constraints");
        return -1;
    }
    return 0;
}

static PyObject *py_search(PyObject *self, PyObject *args) {
    PyObject *known_o, *need_o, *forbid_o, *trick_o;
    unsigned int unseen;
    int trump, to_move, observer, dir, bp, under, tb, lb;
    long iterations;
    unsigned long long seed;
    double cexp;
    if (!PyArg_ParseTuple(args, "OOOIiiiOiiiiilKd", &known_o, &need_o, &forbid_o, &unseen, &trump, &to_move,
                          &observer, &trick_o, &dir, &bp, &under, &tb, &lb, &iterations, &seed, &cexp))
        return NULL;
    if (iterations < 1 || iterations > 10000000) {
        PyErr_SetString(PyExc_ValueError, "iterations: 1 .. 10,000,000");
        return NULL;
    }
    G g;
    memset(&g, 0, sizeof g);
    g.trump = trump;
    g.dir = dir;
    g.beat_partner = bp;
    g.under = under;
    g.tbonus = tb;
    g.lbonus = lb;
    g.to_move = to_move & 3;
    if (parse_trick(trick_o, &g) < 0) return NULL;
    /* the table cards of the root trick count for whoever wins it (play()) */
    Sampler sp;
    if (parse_hidden(known_o, need_o, forbid_o, unseen, &sp) < 0) return NULL;
    Result res;
    memset(&res, 0, sizeof res);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_search(&sp, &g, observer & 3, iterations, seed, cexp, &res);
    Py_END_ALLOW_THREADS
    free(sp.ways);
    if (rc < 0) return PyErr_NoMemory();
    PyObject *lst = PyList_New(res.ncards);
    if (!lst) return NULL;
    for (int i = 0; i < res.ncards; i++) {
        PyObject *item = Py_BuildValue("(ikd)", res.cards[i], (unsigned long)res.visits[i], res.mean[i]);
        if (!item) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, i, item);
    }
    return Py_BuildValue("(iNd)", res.best, lst, res.root_mean);
}

static PyObject *py_count(PyObject *self, PyObject *args) {
    PyObject *known_o, *need_o, *forbid_o;
    unsigned int unseen;
    if (!PyArg_ParseTuple(args, "OOOI", &known_o, &need_o, &forbid_o, &unseen)) return NULL;
    Sampler sp;
    if (parse_hidden(known_o, need_o, forbid_o, unseen, &sp) < 0) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            return PyFloat_FromDouble(0.0);
        }
        return NULL;
    }
    double c = sampler_count(&sp);
    free(sp.ways);
    return PyFloat_FromDouble(c);
}

static PyObject *py_sample(PyObject *self, PyObject *args) {
    PyObject *known_o, *need_o, *forbid_o;
    unsigned int unseen;
    long n;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OOOIlK", &known_o, &need_o, &forbid_o, &unseen, &n, &seed)) return NULL;
    if (n < 0 || n > 10000000) {
        PyErr_SetString(PyExc_ValueError, "n: 0 .. 10,000,000");
        return NULL;
    }
    Sampler sp;
    if (parse_hidden(known_o, need_o, forbid_o, unseen, &sp) < 0) return NULL;
    Rng r;
    rng_seed(&r, seed);
    PyObject *out = PyList_New(n);
    if (!out) {
        free(sp.ways);
        return NULL;
    }
    for (long i = 0; i < n; i++) {
        uint32_t h[4];
        sampler_draw(&sp, &r, h);
        PyObject *item = Py_BuildValue("[kkkk]", (unsigned long)h[0], (unsigned long)h[1], (unsigned long)h[2],
                                       (unsigned long)h[3]);
        if (!item) {
            Py_DECREF(out);
            free(sp.ways);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    free(sp.ways);
    return out;
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS,
     "search(known, need, forbid, unseen, trump, to_move, observer, trick, dir, beat_partner, under, "
     "tbonus, lbonus, iterations, seed, c) -> (best card, [(card, visits, mean points)], root mean points)"},
    {"count", py_count, METH_VARARGS, "count(known, need, forbid, unseen) -> consistent deals (float)"},
    {"sample", py_sample, METH_VARARGS, "sample(known, need, forbid, unseen, n, seed) -> [[h0, h1, h2, h3]]"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_ismcts", "Manillen SO-ISMCTS core", -1, methods};

PyMODINIT_FUNC PyInit__ismcts(void) {
    for (int c = 0; c < 32; c++) {
        CARD_PTS[c] = RANK_PTS[c & 7];
        ABOVE[c] = SUITM(c >> 3) & ~((c == 31) ? 0xFFFFFFFFu : ((1u << (c + 1)) - 1));
    }
    FACT[0] = 1;
    for (int i = 1; i <= 32; i++) FACT[i] = FACT[i - 1] * i;
    return PyModule_Create(&moddef);
}
