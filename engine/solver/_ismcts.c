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
 * obligations and the trick winner are engine/solver/_rules.h, shared with _ddcore.c.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_rules.h" /* tables, legal moves and the trick winner, shared with _ddcore.c */

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
/* x % n, n a count of cards (1..32): each case a constant divisor, which the compiler
 * turns into a multiplication (the same result as the 64-bit division, much faster) */
static inline uint32_t mod_small(uint64_t x, uint32_t n) {
    switch (n) {
#define C(k) \
    case k: return (uint32_t)(x % k);
        C(1) C(2) C(3) C(4) C(5) C(6) C(7) C(8)
        C(9) C(10) C(11) C(12) C(13) C(14) C(15) C(16)
        C(17) C(18) C(19) C(20) C(21) C(22) C(23) C(24)
        C(25) C(26) C(27) C(28) C(29) C(30) C(31) C(32)
#undef C
    default: return (uint32_t)(x % n);
    }
}
/* uniform in [0, n) (n small: the modulo bias is below 2^-58) */
static inline uint32_t rng_below(Rng *r, uint32_t n) { return mod_small(rng_next(r), n); }
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
    int ts[3], tc[3]; /* seats and cards on the table (the first n) */
} G;

static inline uint32_t legal(const G *s, int p) {
    return rules_legal(s->hand[p], p, s->n, s->led, s->win_card, s->win_seat, s->trump, s->beat_partner, s->under);
}

/* Play card c for the seat to move; returns 1 when the deal is over. */
static int play(G *s, int c) {
    int p = s->to_move;
    s->hand[p] &= ~(1u << c);
    if (s->n < 3) {
        s->ts[s->n] = p;
        s->tc[s->n] = c;
    }
    rules_add_card(s->n, c, p, s->trump, &s->led, &s->win_card, &s->win_seat);
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
/* log(n) for the small counts of the UCB term: the same values as log() (filled by it
 * at import), without its cost in the selection's inner loop */
#define NLOG 4096
static double LOGN[NLOG];
static inline double log_count(uint32_t n) { return n < NLOG ? LOGN[n] : log((double)n); }

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
/* 32 bytes, aligned: a node never straddles two cache lines.  The card of the move and
 * the seat that made it live apart, one byte per node (card | (mover + 1) << 5), where
 * the selection's walk over the siblings finds them in a small, hot array. */
typedef struct {
    int parent, child, sibling;
    uint32_t visits, avail;
    uint32_t children; /* mask of the cards of the children */
    double reward;     /* sum of rewards for the team of the seat that made the move */
} Node;

typedef struct {
    Node *nodes;
    uint8_t *move; /* per node: card | (mover + 1) << 5 */
    int n, cap;
} Tree;

#define CARD(t, i) ((int)((t)->move[i] & 31))
#define MOVER(t, i) ((int)((t)->move[i] >> 5) - 1)

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
    t->move[i] = (uint8_t)(card | (mover + 1) << 5);
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

/* A weighted set of whole deals to draw the determinisations from instead of the
 * uniform sampler (the expert's inference: search_pool()); cum[i] = weights of 0..i. */
typedef struct {
    const uint32_t *hands; /* 4 per deal */
    const double *cum;
    long n;
} Pool;

static void pool_draw(const Pool *pl, Rng *r, uint32_t hands[4]) {
    double u = rng_unit(r) * pl->cum[pl->n - 1];
    long lo = 0, hi = pl->n - 1;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (u < pl->cum[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    memcpy(hands, pl->hands + 4 * lo, 4 * sizeof(uint32_t));
}

static int rule_card(uint32_t hand, uint32_t unseen, int trump, uint32_t legal_m, int seat, const int *tseat,
                     const int *tcard, int n);

/* The playouts: peps < 0, uniformly random cards (the SO-ISMCTS of the benchmark);
 * else each seat plays the rule-based player's card (rule_card, from what that seat can
 * see in the determinisation), a uniformly random one with probability peps. */
static int run_search(const Sampler *sp, const Pool *pl, const G *root, int observer, long iterations,
                      uint64_t seed, double cexp, double peps, Result *res) {
    Tree t;
    t.cap = (int)iterations + 2;
    t.n = 0;
    t.nodes = (Node *)aligned_alloc(64, ((size_t)t.cap * sizeof(Node) + 63) / 64 * 64);
    t.move = (uint8_t *)malloc((size_t)t.cap);
    if (!t.nodes || !t.move) {
        free(t.nodes);
        free(t.move);
        return -2;
    }
    Rng r;
    rng_seed(&r, seed);
    new_node(&t, -1, 0, -1);
    int total = 0;
    double root_sum = 0;
    int obs_team = observer & 1;
    for (long it = 0; it < iterations; it++) {
        G s = *root;
        if (pl)
            pool_draw(pl, &r, s.hand);
        else
            sampler_draw(sp, &r, s.hand);
        if (it == 0) {
            uint32_t all = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3];
            total = rules_points_left(root->tpts + mask_pts(all), popc(all) + s.n, s.tbonus, s.lbonus);
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
                    if ((lm >> CARD(&t, ch)) & 1) t.nodes[ch].avail++;
                node = new_node(&t, node, c, p);
                over = play(&s, c);
                break;
            }
            int bestc = -1;
            double bestv = -1e300;
            for (int ch = nd->child; ch >= 0; ch = t.nodes[ch].sibling) {
                Node *x = &t.nodes[ch];
                if (!((lm >> CARD(&t, ch)) & 1)) continue;
                x->avail++;
                double v = x->reward / x->visits + cexp * sqrt(log_count(x->avail) / x->visits);
                if (v > bestv || (v == bestv && CARD(&t, ch) < CARD(&t, bestc))) {
                    bestv = v;
                    bestc = ch;
                }
            }
            node = bestc;
            over = play(&s, CARD(&t, node));
        }
        if (peps < 0) /* random playout */
            while (!over) over = play(&s, random_card(&r, legal(&s, s.to_move)));
        while (!over) { /* rule-based playout */
            int p = s.to_move, c;
            uint32_t lm = legal(&s, p);
            if (!(lm & (lm - 1)))
                c = __builtin_ctz(lm);
            else if (peps > 0 && rng_unit(&r) < peps)
                c = random_card(&r, lm);
            else {
                uint32_t unseen = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[p];
                c = rule_card(s.hand[p], unseen, s.trump, lm, p, s.ts, s.tc, s.n);
            }
            over = play(&s, c);
        }
        double r0 = total > 0 ? (double)s.pts0 / total : 0.5;
        root_sum += obs_team ? 1.0 - r0 : r0;
        for (int x = node; x >= 0; x = t.nodes[x].parent) {
            Node *nd = &t.nodes[x];
            nd->visits++;
            int mv = MOVER(&t, x);
            if (mv >= 0) nd->reward += (mv & 1) ? 1.0 - r0 : r0;
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
        int mv = MOVER(&t, ch);
        if (mv >= 0 && (mv & 1) != obs_team) m = 1.0 - m;
        res->cards[i] = CARD(&t, ch);
        res->visits[i] = x->visits;
        res->mean[i] = m * total;
        if (x->visits > bv || (x->visits == bv && (m > bm || (m == bm && CARD(&t, ch) < res->best)))) {
            bv = x->visits;
            bm = m;
            res->best = CARD(&t, ch);
        }
    }
    if (res->ncards > 8) res->ncards = 8;
    res->root_mean = iterations > 0 ? root_sum / iterations * total : 0;
    free(t.nodes);
    free(t.move);
    return 0;
}

/* ------------------------------------------------------------------ inference
 * The expert's deal weighting (engine/bots/policy.py, engine/bots/pimc.py): draw
 * `draw` deals uniformly, weight each by the plausibility of the other seats' earlier
 * plays under a fitted softmax policy (and of the dealer's trump under the heuristic
 * rule and the fitted trump table), keep `keep` by systematic resampling.  Mirrors
 * engine/bots/policy.py features() operation for operation. */
#define NFEAT 37
static int parse4u(PyObject *o, uint32_t out[4], const char *what);
static int parse_hidden(PyObject *known_o, PyObject *need_o, PyObject *forbid_o, unsigned int unseen, Sampler *sp);
static const double HONOUR[8] = {0, 0, 0, 0.3, 0.6, 1.0, 2.0, 3.0};

static void policy_features(uint32_t hand, const int *tseat, const int *tcard, int n, int trump,
                            uint32_t unseen, int seat, int c, double *f) {
    int suit = c >> 3, r = c & 7;
    double pts = CARD_PTS[c] / 5.0;
    double tr = (trump >= 0 && suit == trump) ? 1.0 : 0.0;
    uint32_t hs = hand & SUITM(suit);
    int length = popc(hs);
    int higher = popc(unseen & ABOVE[c]);
    double master = higher == 0 ? 1.0 : 0.0;
    double lowest = (hs & (~hs + 1)) == (1u << c) ? 1.0 : 0.0;
    double highest = top_bit(hs) == c ? 1.0 : 0.0;
    double trumps_held = trump >= 0 ? popc(hand & SUITM(trump)) / 8.0 : 0.0;
    memset(f, 0, NFEAT * sizeof(double));
    f[0] = pts;
    f[1] = r / 7.0;
    f[2] = tr;
    f[3] = master;
    f[4] = lowest;
    f[5] = highest;
    f[6] = length / 8.0;
    f[7] = higher / 8.0;
    f[8] = tr * (r == 7);
    f[9] = tr * trumps_held;
    if (n == 0) {
        double *l = f + 10;
        l[0] = 1.0;
        l[1] = pts;
        l[2] = tr;
        l[3] = master;
        l[4] = length / 8.0;
        l[5] = master * pts;
        l[6] = lowest;
        l[7] = popc(unseen & SUITM(suit)) / 8.0;
        l[8] = tr * master;
        l[9] = length == 1 ? 1.0 : 0.0;
        return;
    }
    int led = 0, w_seat = 0, w = 0;
    for (int i = 0; i < n; i++) rules_add_card(i, tcard[i], tseat[i], trump, &led, &w, &w_seat);
    double partner = ((w_seat ^ seat) & 1) == 0 ? 1.0 : 0.0;
    double beats = rules_beats(c, w, trump) ? 1.0 : 0.0;
    double follows = suit == led ? 1.0 : 0.0;
    double last = n == 3 ? 1.0 : 0.0;
    double safe = beats * ((n == 3 || (master != 0.0 && follows != 0.0)) ? 1.0 : 0.0);
    int tp = 0;
    for (int i = 0; i < n; i++) tp += CARD_PTS[tcard[i]];
    double table = tp / 10.0;
    double *g = f + 20;
    g[0] = 1.0;
    g[1] = partner * pts;
    g[2] = partner * beats;
    g[3] = (1 - partner) * beats;
    g[4] = beats * pts;
    g[5] = (1 - partner) * (1 - beats) * pts;
    g[6] = last * beats;
    g[7] = last * partner * pts;
    g[8] = safe;
    g[9] = tr * (1 - follows);
    g[10] = tr * partner;
    g[11] = table * beats;
    g[12] = (1 - follows) * (1 - tr) * pts;
    g[13] = (1 - follows) * (length == 1 ? 1.0 : 0.0);
    g[14] = (n == 1) * beats;
    g[15] = (n == 2) * beats;
    g[16] = (n == 1) * pts;
}

static double dot(const double *a, const double *b, int n) {
    double t = 0;
    for (int i = 0; i < n; i++) t += a[i] * b[i];
    return t;
}

/* engine/bots/trump_table.py features() */
static int trump_features(uint32_t hand, int trump, double *f) {
    if (trump < 0) {
        int tens = 0, aces = 0, kings = 0, queens = 0, jacks = 0, ta = 0, tak = 0, longest = 0, voids = 0,
            singles = 0;
        for (int s = 0; s < 4; s++) {
            uint32_t m = (hand >> (8 * s)) & 0xFF;
            int n = popc(m), t = (m >> 7) & 1, a = (m >> 6) & 1, k = (m >> 5) & 1;
            tens += t;
            aces += a;
            kings += k;
            queens += (m >> 4) & 1;
            jacks += (m >> 3) & 1;
            ta += t & a;
            tak += t & a & k;
            if (n > longest) longest = n;
            voids += n == 0;
            singles += n == 1 && !t;
        }
        double v[11] = {1.0, tens, aces, kings, queens, jacks, ta, tak, longest, voids, singles};
        memcpy(f, v, sizeof v);
        return 11;
    }
    uint32_t m = (hand >> (8 * trump)) & 0xFF;
    int nt = popc(m), st = 0, sa = 0, sk = 0, sta = 0, voids = 0, singles = 0;
    for (int s = 0; s < 4; s++) {
        if (s == trump) continue;
        uint32_t x = (hand >> (8 * s)) & 0xFF;
        int n = popc(x), t = (x >> 7) & 1, a = (x >> 6) & 1;
        st += t;
        sa += a;
        sk += (x >> 5) & 1;
        sta += t & a;
        voids += n == 0;
        singles += n == 1;
    }
    double v[14] = {1.0, nt, (double)nt * nt, (m >> 7) & 1, (m >> 6) & 1, (m >> 5) & 1, (m >> 4) & 1,
                    (m >> 3) & 1, st, sa, sk, sta, voids, singles};
    memcpy(f, v, sizeof v);
    return 14;
}

typedef struct {
    int dealer, option; /* option 0..3 suit, 4 no trump */
    uint32_t later;
    int allow_none, nt_mult;
    double suit_coef[14], none_coef[11];
} TrumpInfo;

/* Is the dealer's option one a sensible dealer names with `hand`?  (inference.py
 * model_trump: the heuristic's rule or the fitted table's best.) */
static int trump_plausible(const TrumpInfo *ti, uint32_t hand) {
    int tens = 0, aces = 0;
    for (int s = 0; s < 4; s++) {
        tens += (hand >> (s * 8 + 7)) & 1;
        aces += (hand >> (s * 8 + 6)) & 1;
    }
    int h;
    if (ti->allow_none && tens >= 3 && tens + aces >= 5)
        h = 4;
    else {
        double best = -1e300;
        h = 0;
        for (int s = 0; s < 4; s++) {
            uint32_t m = (hand >> (8 * s)) & 0xFF;
            double st = 1.5 * popc(m);
            double hon = 0;
            for (int r = 0; r < 8; r++)
                if ((m >> r) & 1) hon += HONOUR[r];
            st += hon;
            if (st > best) {
                best = st;
                h = s;
            }
        }
    }
    if (h == ti->option) return 1;
    double f[14];
    int nopt = ti->allow_none ? 5 : 4, t = 0;
    double best = -1e300;
    for (int o = 0; o < nopt; o++) {
        double pts;
        if (o == 4) {
            trump_features(hand, -1, f);
            pts = 0;
            for (int i = 0; i < 11; i++) pts += ti->none_coef[i] * f[i];
        } else {
            trump_features(hand, o, f);
            pts = 0;
            for (int i = 0; i < 14; i++) pts += ti->suit_coef[i] * f[i];
        }
        double est = (o == 4 ? ti->nt_mult : 1) * (pts - 30);
        if (est > best) {
            best = est;
            t = o;
        }
    }
    return t == ti->option;
}

typedef struct {
    int seat, card, n, cls;
    uint32_t before, later;
    int tseat[3], tcard[3];
} Event;

/* The rule-based player of engine/bots/heuristic.py (its _lead and _follow), the same
 * card for the same hand, trick and unseen cards (tests compare the two): a mixture
 * component that recognises a simple, rule-following player exactly. */
static int h_is_trump(int c, int trump) { return trump >= 0 && (c >> 3) == trump; }

/* Python's tuple order on four ints: < 0, 0 or > 0 (the rule player's sort keys). */
static int lex4(const int a[4], const int b[4]) {
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

static int h_cheapest(uint32_t cards, int trump) { /* min (is trump, points, rank, card) */
    int best = -1, bk[4] = {0, 0, 0, 0};
    for (uint32_t m = cards; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        int k[4] = {h_is_trump(c, trump), CARD_PTS[c], c & 7, c};
        if (best < 0 || lex4(k, bk) < 0) {
            best = c;
            memcpy(bk, k, sizeof k);
        }
    }
    return best;
}

static int h_fattest(uint32_t cards, int trump) { /* max (not trump, points, -rank, -card) */
    int best = -1, bk[4] = {0, 0, 0, 0};
    for (uint32_t m = cards; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        int k[4] = {!h_is_trump(c, trump), CARD_PTS[c], -(c & 7), -c};
        if (best < 0 || lex4(k, bk) > 0) {
            best = c;
            memcpy(bk, k, sizeof k);
        }
    }
    return best;
}

static int h_lead(uint32_t hand, uint32_t unseen, int trump, uint32_t legal_m) {
    for (int rank = 7; rank >= 5; rank--)
        for (int su = 0; su < 4; su++) {
            if (su == trump) continue;
            int c = su * 8 + rank;
            if ((legal_m >> c & 1) && !(unseen & ABOVE[c]))
                if (trump < 0 || popc(unseen & SUITM(trump)) == 0 || popc(unseen & SUITM(su)) >= 2) return c;
        }
    if (trump >= 0) {
        uint32_t mine = legal_m & SUITM(trump);
        if (popc(mine) >= 4 && (unseen & SUITM(trump))) {
            uint32_t low = mine & ~(1u << (trump * 8 + 7));
            if (!low) low = mine;
            return __builtin_ctz(low);
        }
    }
    int best = -1, bk[4] = {0, 0, 0, 0}; /* min (is trump, points, -length, rank) */
    for (uint32_t m = legal_m; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        int k[4] = {(c >> 3) == trump, CARD_PTS[c], -popc(hand & SUITM(c >> 3)), c & 7};
        if (best < 0 || lex4(k, bk) < 0) {
            best = c;
            memcpy(bk, k, sizeof k);
        }
    }
    return best;
}

static int h_safe(int card, int last, int n, uint32_t unseen, int trump) {
    if (last) return 1;
    int su = card >> 3;
    if (trump >= 0 && su != trump && !(unseen & SUITM(su)) && (unseen & SUITM(trump))) return 0;
    if (trump >= 0 && su != trump && (unseen & SUITM(trump)) && n == 1)
        return !(unseen & ABOVE[card]) && popc(unseen & SUITM(su)) >= 2;
    return !(unseen & ABOVE[card]);
}

static int h_follow(int seat, uint32_t unseen, int trump, uint32_t legal_m, const int *tseat, const int *tcard,
                    int n) {
    int w_seat = tseat[0], w = tcard[0];
    for (int i = 1; i < n; i++)
        if (rules_beats(tcard[i], w, trump)) {
            w_seat = tseat[i];
            w = tcard[i];
        }
    int last = n == 3, partner = ((w_seat ^ seat) & 1) == 0;
    if (partner && h_safe(w, last, n, unseen, trump)) return h_fattest(legal_m, trump);
    uint32_t winners = 0, safe_w = 0;
    for (uint32_t m = legal_m; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        if (rules_beats(c, w, trump)) {
            winners |= 1u << c;
            if (h_safe(c, last, n, unseen, trump)) safe_w |= 1u << c;
        }
    }
    if (winners) {
        int tp = 0;
        for (int i = 0; i < n; i++) tp += CARD_PTS[tcard[i]];
        uint32_t pool = safe_w ? safe_w : ((last || tp >= 4) ? winners : 0);
        if (pool) { /* min (is trump, is the trump ten, points, rank); the first on ties */
            int best = -1, bk[4] = {0, 0, 0, 0};
            for (uint32_t m = pool; m; m &= m - 1) {
                int c = __builtin_ctz(m);
                int k[4] = {h_is_trump(c, trump), (c & 7) == 7 && (c >> 3) == trump, CARD_PTS[c], c & 7};
                if (best < 0 || lex4(k, bk) < 0) {
                    best = c;
                    memcpy(bk, k, sizeof k);
                }
            }
            return best;
        }
    }
    return h_cheapest(legal_m, trump);
}

static int rule_card(uint32_t hand, uint32_t unseen, int trump, uint32_t legal_m, int seat, const int *tseat,
                     const int *tcard, int n) {
    return n ? h_follow(seat, unseen, trump, legal_m, tseat, tcard, n) : h_lead(hand, unseen, trump, legal_m);
}

/* The policy models of a play: one, or a mixture of up to MAXMODELS (each seat's plays
 * are all explained by one model, which one is not known: a deal's weight for a seat is
 * sum_k prior_k * prod_events P_k(card), see deal_logw). */
#define MAXMODELS 3

typedef struct {
    int trump, dir, beat_partner, under;
    double mix, alpha[2], eps_trump;
    int nmodels;
    int rules[MAXMODELS]; /* 1: the rule-based player (rule_card), else the softmax coef */
    double coef[MAXMODELS][NFEAT];
    double logprior[MAXMODELS];
    int has_loc; /* a card-location table (engine/bots/locnet.py): loc[4 * card + seat] */
    double loc[128];
} InferCfg;

/* log-weight of one event under each model: out[k] = alpha * log P_k(card); returns 0
 * for a forced play (out untouched), else 1. */
static int event_logw(const InferCfg *ic, const Event *e, const uint32_t hands[4], double *out) {
    uint32_t hand = hands[e->seat] | e->later;
    G s;
    memset(&s, 0, sizeof s);
    s.hand[e->seat] = hand;
    s.trump = ic->trump;
    s.beat_partner = ic->beat_partner;
    s.under = ic->under;
    s.n = e->n;
    for (int i = 0; i < e->n; i++)
        rules_add_card(i, e->tcard[i], e->tseat[i], ic->trump, &s.led, &s.win_card, &s.win_seat);
    uint32_t lm = legal(&s, e->seat);
    int nl = popc(lm);
    if (nl <= 1) return 0;
    uint32_t unseen = 0xFFFFFFFFu & ~e->before & ~hand;
    double f[8][NFEAT];
    int i = 0, chosen_i = 0, softmax = 0;
    for (int k = 0; k < ic->nmodels; k++) softmax |= !ic->rules[k];
    for (uint32_t m = lm; softmax && m; m &= m - 1, i++) {
        int c = __builtin_ctz(m);
        policy_features(hand, e->tseat, e->tcard, e->n, ic->trump, unseen, e->seat, c, f[i]);
        if (c == e->card) chosen_i = i;
    }
    int rc = -1;
    for (int k = 0; k < ic->nmodels; k++) {
        if (ic->rules[k]) {
            if (rc < 0) rc = rule_card(hand, unseen, ic->trump, lm, e->seat, e->tseat, e->tcard, e->n);
            double p = ic->mix / nl + (1 - ic->mix) * (rc == e->card ? 1.0 : 0.0);
            out[k] = ic->alpha[e->cls] * log(p);
            continue;
        }
        double sc[8], mx = -1e300, tot = 0;
        for (int j = 0; j < nl; j++) {
            sc[j] = dot(ic->coef[k], f[j], NFEAT);
            if (sc[j] > mx) mx = sc[j];
        }
        for (int j = 0; j < nl; j++) tot += exp(sc[j] - mx);
        double p = ic->mix / nl + (1 - ic->mix) * (exp(sc[chosen_i] - mx) / tot);
        out[k] = ic->alpha[e->cls] * log(p);
    }
    return 1;
}

static int parse_doubles(PyObject *o, double *out, int n, const char *what) {
    PyObject *seq = PySequence_Fast(o, what);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: %d values", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* A trick as flat (seat, card, seat, card...) into seats and cards (at most 3). */
static int parse_flat_trick(PyObject *trick_o, int ts[3], int tc[3], int *n) {
    PyObject *seq = PySequence_Fast(trick_o, "trick: flat seat, card pairs");
    if (!seq) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    *n = 0;
    for (Py_ssize_t i = 0; i + 1 < len && *n < 3; i += 2, (*n)++) {
        ts[*n] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        tc[*n] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i + 1));
    }
    Py_DECREF(seq);
    return PyErr_Occurred() ? -1 : 0;
}

/* rule_card(hand, (s, c, s, c...), trump, unseen, seat, legal) -> the rule-based card */
static PyObject *py_rule_card(PyObject *self, PyObject *args) {
    unsigned int hand, unseen, legal_m;
    int trump, seat;
    PyObject *trick_o;
    if (!PyArg_ParseTuple(args, "IOiIiI", &hand, &trick_o, &trump, &unseen, &seat, &legal_m)) return NULL;
    if (!legal_m) {
        PyErr_SetString(PyExc_ValueError, "no legal card");
        return NULL;
    }
    int ts[3], tc[3], n;
    if (parse_flat_trick(trick_o, ts, tc, &n) < 0) return NULL;
    return PyLong_FromLong(rule_card(hand, unseen, trump, legal_m, seat, ts, tc, n));
}

static PyObject *py_policy_features(PyObject *self, PyObject *args) {
    unsigned int hand, unseen;
    int trump, seat, c;
    PyObject *trick_o;
    if (!PyArg_ParseTuple(args, "IOiIii", &hand, &trick_o, &trump, &unseen, &seat, &c)) return NULL;
    int ts[3], tc[3], n;
    if (parse_flat_trick(trick_o, ts, tc, &n) < 0) return NULL;
    double f[NFEAT];
    policy_features(hand, ts, tc, n, trump, unseen, seat, c, f);
    PyObject *out = PyList_New(NFEAT);
    for (int i = 0; i < NFEAT; i++) PyList_SET_ITEM(out, i, PyFloat_FromDouble(f[i]));
    return out;
}

/* infer(known, need, forbid, unseen, events, coef, trump_info, trump, beat_partner, under,
 *       keep, draw, seed, mix, alpha_opp, alpha_partner, eps_trump[, priors])
 * events: ((seat, card, before, later, (s, c, s, c...), cls), ...); trump_info: None or
 * (dealer, option 0..4, later, allow_none, nt_mult, suit_coef[14], none_coef[11]).
 * -> [(h0, h1, h2, h3, times kept)] */
static int parse_trump_info(PyObject *ti_o, TrumpInfo *ti) {
    PyObject *sc, *nc;
    unsigned int later;
    if (!PyArg_ParseTuple(ti_o, "iiIiiOO", &ti->dealer, &ti->option, &later, &ti->allow_none, &ti->nt_mult, &sc, &nc))
        return -1;
    ti->later = later;
    if (parse_doubles(sc, ti->suit_coef, 14, "suit coef") < 0 || parse_doubles(nc, ti->none_coef, 11, "none coef") < 0)
        return -1;
    return 0;
}

/* events: ((seat, card, before, later, (s, c, s, c...), cls), ...) -> malloc'ed array */
static Event *parse_events(PyObject *events_o, Py_ssize_t *count) {
    PyObject *eseq = PySequence_Fast(events_o, "events");
    if (!eseq) return NULL;
    Py_ssize_t ne = PySequence_Fast_GET_SIZE(eseq);
    Event *ev = (Event *)calloc(ne ? ne : 1, sizeof(Event));
    if (!ev) {
        Py_DECREF(eseq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < ne; i++) {
        PyObject *tr;
        unsigned int before, later;
        Event *e = &ev[i];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(eseq, i), "iiIIOi", &e->seat, &e->card, &before, &later, &tr,
                              &e->cls))
            goto fail;
        e->before = before;
        e->later = later;
        e->cls = e->cls ? 1 : 0;
        PyObject *ts = PySequence_Fast(tr, "event trick");
        if (!ts) goto fail;
        Py_ssize_t tl = PySequence_Fast_GET_SIZE(ts);
        for (Py_ssize_t j = 0; j + 1 < tl && e->n < 3; j += 2, e->n++) {
            e->tseat[e->n] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(ts, j));
            e->tcard[e->n] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(ts, j + 1));
        }
        Py_DECREF(ts);
        if (PyErr_Occurred()) goto fail;
    }
    Py_DECREF(eseq);
    *count = ne;
    return ev;
fail:
    free(ev);
    Py_DECREF(eseq);
    return NULL;
}

/* With a mixture (nmodels >= 2) a seat's term of a deal's log-weight,
 * log sum_k prior_k exp(sum of its events' log P_k), depends on that seat's hidden
 * cards alone: SeatCache keeps it per (seat, hand) over the deals of one call, so a
 * hand drawn again (most of them, late in the deal) costs one lookup.  The terms are
 * added in the same order as without it, so the weights are bit-identical. */
typedef struct {
    uint32_t *keys;
    double *vals; /* the term; NAN: the seat made no unforced play */
    unsigned char *used;
    uint32_t mask;
    long filled;
} SeatCache;

static int seat_cache_init(SeatCache c[4], long draws) {
    uint32_t cap = 1024;
    while (cap < 2 * (uint64_t)draws && cap < (1u << 16)) cap <<= 1;
    for (int p = 0; p < 4; p++) {
        c[p].keys = (uint32_t *)malloc(cap * sizeof(uint32_t));
        c[p].vals = (double *)malloc(cap * sizeof(double));
        c[p].used = (unsigned char *)calloc(cap, 1);
        c[p].mask = cap - 1;
        c[p].filled = 0;
        if (!c[p].keys || !c[p].vals || !c[p].used) return -1;
    }
    return 0;
}

static void seat_cache_free(SeatCache c[4]) {
    for (int p = 0; p < 4; p++) {
        free(c[p].keys);
        free(c[p].vals);
        free(c[p].used);
    }
}

/* The slot of hand in c: its own or the free one where it goes (-1: full). */
static long seat_cache_slot(const SeatCache *c, uint32_t hand) {
    uint32_t i = (hand * 0x9E3779B1u) >> 7;
    for (uint32_t probe = 0; probe <= c->mask; probe++, i++) {
        i &= c->mask;
        if (!c->used[i] || c->keys[i] == hand) return (long)i;
    }
    return -1;
}

/* One seat's mixture term (NAN when none of its plays was a choice). */
static double seat_term(const InferCfg *ic, const Event *ev, Py_ssize_t ne, int p, const uint32_t h[4]) {
    double per[MAXMODELS], ev_w[MAXMODELS];
    int seen = 0;
    for (int k = 0; k < ic->nmodels; k++) per[k] = 0;
    for (Py_ssize_t i = 0; i < ne; i++) {
        if ((ev[i].seat & 3) != p || !event_logw(ic, &ev[i], h, ev_w)) continue;
        seen = 1;
        for (int k = 0; k < ic->nmodels; k++) per[k] += ev_w[k];
    }
    if (!seen) return NAN;
    /* log sum_k prior_k exp(per[k]) */
    double mx = -1e300, tot = 0;
    for (int k = 0; k < ic->nmodels; k++)
        if (ic->logprior[k] + per[k] > mx) mx = ic->logprior[k] + per[k];
    for (int k = 0; k < ic->nmodels; k++) tot += exp(ic->logprior[k] + per[k] - mx);
    return mx + log(tot);
}

/* cache: NULL, or SeatCache[4] (read with a mixture only: unset without one) */
static double deal_logw(const InferCfg *ic, const TrumpInfo *ti, const Event *ev, Py_ssize_t ne,
                        const uint32_t h[4], SeatCache *cache) {
    double w = 0;
    if (ti && !trump_plausible(ti, h[ti->dealer] | ti->later)) w += log(ic->eps_trump);
    if (ic->nmodels == 1) { /* one model: summed in event order, as ever */
        double ev_w[MAXMODELS];
        for (Py_ssize_t i = 0; i < ne; i++)
            if (event_logw(ic, &ev[i], h, ev_w)) w += ev_w[0];
    } else {
        for (int p = 0; p < 4; p++) {
            double term;
            long slot = cache ? seat_cache_slot(&cache[p], h[p]) : -1;
            if (slot >= 0 && cache[p].used[slot]) {
                term = cache[p].vals[slot];
            } else {
                term = seat_term(ic, ev, ne, p, h);
                /* at most 3/4 full, so probes stay short */
                if (slot >= 0 && 4 * (cache[p].filled + 1) <= 3 * ((long)cache[p].mask + 1)) {
                    cache[p].used[slot] = 1;
                    cache[p].keys[slot] = h[p];
                    cache[p].vals[slot] = term;
                    cache[p].filled++;
                }
            }
            if (!isnan(term)) w += term;
        }
    }
    if (ic->has_loc)
        for (int p = 0; p < 4; p++)
            for (uint32_t m = h[p]; m; m &= m - 1) w += ic->loc[4 * __builtin_ctz(m) + p];
    return w;
}

/* loc: None or 128 numbers, added to a deal's log-weight per card at its seat */
static int parse_loc(PyObject *loc_o, InferCfg *ic) {
    ic->has_loc = loc_o && loc_o != Py_None;
    if (!ic->has_loc) return 0;
    return parse_doubles(loc_o, ic->loc, 128, "loc");
}

/* coef: NFEAT numbers (one model) or a sequence of up to MAXMODELS models, each NFEAT
 * numbers or the string "rules" (the rule-based player, P = mix/n + (1 - mix) [its card]);
 * priors: None (equal) or one positive number per model. */
static int parse_models(PyObject *coef_o, PyObject *priors_o, InferCfg *ic) {
    PyObject *seq = PySequence_Fast(coef_o, "coef");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int nested = n > 0 && PySequence_Check(PySequence_Fast_GET_ITEM(seq, 0));
    if (!nested) {
        Py_DECREF(seq);
        ic->nmodels = 1;
        ic->rules[0] = 0;
        ic->logprior[0] = 0;
        return parse_doubles(coef_o, ic->coef[0], NFEAT, "coef");
    }
    if (n < 1 || n > MAXMODELS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "coef: 1 to %d models", MAXMODELS);
        return -1;
    }
    ic->nmodels = (int)n;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, k);
        ic->rules[k] = PyUnicode_Check(item) && PyUnicode_CompareWithASCIIString(item, "rules") == 0;
        if (ic->rules[k]) continue;
        if (parse_doubles(item, ic->coef[k], NFEAT, "coef") < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    double pr[MAXMODELS], tot = 0;
    for (int k = 0; k < ic->nmodels; k++) pr[k] = 1.0;
    if (priors_o && priors_o != Py_None && parse_doubles(priors_o, pr, ic->nmodels, "priors") < 0) return -1;
    for (int k = 0; k < ic->nmodels; k++) {
        if (!(pr[k] > 0)) {
            PyErr_SetString(PyExc_ValueError, "priors: positive numbers");
            return -1;
        }
        tot += pr[k];
    }
    for (int k = 0; k < ic->nmodels; k++) ic->logprior[k] = log(pr[k] / tot);
    return 0;
}

/* weights(deals, events, coef, trump_info, trump, beat_partner, under, mix, alpha_opp,
 *         alpha_partner, eps_trump[, priors[, loc]]) -> [log-weight per deal]; coef and
 * priors as parse_models reads them, loc as parse_loc */
static PyObject *py_weights(PyObject *self, PyObject *args) {
    PyObject *deals_o, *events_o, *coef_o, *ti_o, *priors_o = NULL, *loc_o = NULL;
    int trump, bp, under;
    double mix, a_opp, a_par, eps_trump;
    if (!PyArg_ParseTuple(args, "OOOOiiidddd|OO", &deals_o, &events_o, &coef_o, &ti_o, &trump, &bp, &under, &mix,
                          &a_opp, &a_par, &eps_trump, &priors_o, &loc_o))
        return NULL;
    InferCfg ic = {trump, 1, bp, under, mix, {a_opp, a_par}, eps_trump};
    if (parse_models(coef_o, priors_o, &ic) < 0 || parse_loc(loc_o, &ic) < 0) return NULL;
    TrumpInfo ti;
    int has_ti = ti_o != Py_None;
    if (has_ti && parse_trump_info(ti_o, &ti) < 0) return NULL;
    Py_ssize_t ne;
    Event *ev = parse_events(events_o, &ne);
    if (!ev) return NULL;
    PyObject *dseq = PySequence_Fast(deals_o, "deals");
    if (!dseq) {
        free(ev);
        return NULL;
    }
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(dseq);
    SeatCache cache[4];
    memset(cache, 0, sizeof cache);
    if (ic.nmodels > 1 && seat_cache_init(cache, (long)nd) < 0) {
        seat_cache_free(cache);
        Py_DECREF(dseq);
        free(ev);
        return PyErr_NoMemory();
    }
    PyObject *out = PyList_New(nd);
    for (Py_ssize_t k = 0; out && k < nd; k++) {
        uint32_t h[4];
        if (parse4u(PySequence_Fast_GET_ITEM(dseq, k), h, "deal") < 0) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, k, PyFloat_FromDouble(deal_logw(&ic, has_ti ? &ti : NULL, ev, ne, h, cache)));
    }
    seat_cache_free(cache);
    Py_DECREF(dseq);
    free(ev);
    return out;
}

static PyObject *py_infer(PyObject *self, PyObject *args) {
    PyObject *known_o, *need_o, *forbid_o, *events_o, *coef_o, *ti_o, *priors_o = NULL, *loc_o = NULL;
    unsigned int unseen;
    int trump, bp, under;
    long keep, draw;
    unsigned long long seed;
    double mix, a_opp, a_par, eps_trump;
    if (!PyArg_ParseTuple(args, "OOOIOOOiiillKdddd|OO", &known_o, &need_o, &forbid_o, &unseen, &events_o, &coef_o,
                          &ti_o, &trump, &bp, &under, &keep, &draw, &seed, &mix, &a_opp, &a_par, &eps_trump,
                          &priors_o, &loc_o))
        return NULL;
    if (keep < 1 || draw < 1 || draw > 1000000) {
        PyErr_SetString(PyExc_ValueError, "keep >= 1, 1 <= draw <= 1,000,000");
        return NULL;
    }
    InferCfg ic = {trump, 1, bp, under, mix, {a_opp, a_par}, eps_trump};
    if (parse_models(coef_o, priors_o, &ic) < 0 || parse_loc(loc_o, &ic) < 0) return NULL;
    TrumpInfo ti;
    int has_ti = ti_o != Py_None;
    if (has_ti && parse_trump_info(ti_o, &ti) < 0) return NULL;
    Py_ssize_t ne;
    Event *ev = parse_events(events_o, &ne);
    if (!ev) return NULL;
    Sampler sp;
    if (parse_hidden(known_o, need_o, forbid_o, unseen, &sp) < 0) {
        free(ev);
        return NULL;
    }
    uint32_t *hands = (uint32_t *)malloc((size_t)draw * 4 * sizeof(uint32_t));
    double *lw = (double *)malloc((size_t)draw * sizeof(double));
    long *kept = (long *)calloc((size_t)draw, sizeof(long));
    SeatCache cache[4];
    memset(cache, 0, sizeof cache);
    if (!hands || !lw || !kept || (ic.nmodels > 1 && seat_cache_init(cache, draw) < 0)) {
        seat_cache_free(cache);
        free(hands);
        free(lw);
        free(kept);
        free(ev);
        free(sp.ways);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    Rng r;
    rng_seed(&r, seed);
    double mx = -1e300;
    for (long k = 0; k < draw; k++) {
        uint32_t *h = hands + 4 * k;
        sampler_draw(&sp, &r, h);
        double w = deal_logw(&ic, has_ti ? &ti : NULL, ev, ne, h, cache);
        lw[k] = w;
        if (w > mx) mx = w;
    }
    double total = 0;
    for (long k = 0; k < draw; k++) {
        lw[k] = exp(lw[k] - mx);
        total += lw[k];
    }
    double step = total / keep, u = rng_unit(&r) * step, acc = 0;
    for (long k = 0; k < draw; k++) {
        acc += lw[k];
        while (u < acc) {
            kept[k]++;
            u += step;
        }
    }
    Py_END_ALLOW_THREADS
    seat_cache_free(cache);
    PyObject *out = PyList_New(0);
    for (long k = 0; out && k < draw; k++) {
        if (!kept[k]) continue;
        uint32_t *h = hands + 4 * k;
        PyObject *item = Py_BuildValue("(kkkkl)", (unsigned long)h[0], (unsigned long)h[1], (unsigned long)h[2],
                                       (unsigned long)h[3], kept[k]);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(item);
    }
    free(hands);
    free(lw);
    free(kept);
    free(ev);
    free(sp.ways);
    return out;
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
    uint32_t table = 0;
    int n = rules_parse_trick(o, s->trump, &s->led, &s->win_card, &s->win_seat, &s->tpts, &table);
    if (n < 0) return -1;
    s->n = n;
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

static PyObject *result_tuple(const Result *res);

/* The root of a search: the rules, the seat to move and the cards on the table (they
 * count for whoever wins the trick, play()); checks the iteration count. */
static int root_state(G *g, int trump, int to_move, PyObject *trick_o, int dir, int bp, int under, int tb, int lb,
                      long iterations) {
    if (iterations < 1 || iterations > 10000000) {
        PyErr_SetString(PyExc_ValueError, "iterations: 1 .. 10,000,000");
        return -1;
    }
    memset(g, 0, sizeof *g);
    g->trump = trump;
    g->dir = dir;
    g->beat_partner = bp;
    g->under = under;
    g->tbonus = tb;
    g->lbonus = lb;
    g->to_move = to_move & 3;
    if (parse_trick(trick_o, g) < 0) return -1;
    int n;
    return parse_flat_trick(trick_o, g->ts, g->tc, &n);
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
    G g;
    if (root_state(&g, trump, to_move, trick_o, dir, bp, under, tb, lb, iterations) < 0) return NULL;
    Sampler sp;
    if (parse_hidden(known_o, need_o, forbid_o, unseen, &sp) < 0) return NULL;
    Result res;
    memset(&res, 0, sizeof res);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_search(&sp, NULL, &g, observer & 3, iterations, seed, cexp, -1.0, &res);
    Py_END_ALLOW_THREADS
    free(sp.ways);
    if (rc < 0) return PyErr_NoMemory();
    return result_tuple(&res);
}

/* search_pool(deals, weights, trump, to_move, observer, trick, dir, beat_partner, under,
 *             tbonus, lbonus, iterations, seed, c[, playout]): search() with each
 * iteration's determinisation drawn from `deals` (whole hands h0..h3) with probability
 * by weight; playout >= 0: rule-based playouts, that share of cards random (run_search). */
static PyObject *py_search_pool(PyObject *self, PyObject *args) {
    PyObject *deals_o, *weights_o, *trick_o;
    int trump, to_move, observer, dir, bp, under, tb, lb;
    long iterations;
    unsigned long long seed;
    double cexp, peps = -1.0;
    if (!PyArg_ParseTuple(args, "OOiiiOiiiiilKd|d", &deals_o, &weights_o, &trump, &to_move, &observer, &trick_o,
                          &dir, &bp, &under, &tb, &lb, &iterations, &seed, &cexp, &peps))
        return NULL;
    G g;
    if (root_state(&g, trump, to_move, trick_o, dir, bp, under, tb, lb, iterations) < 0) return NULL;
    PyObject *dseq = PySequence_Fast(deals_o, "deals");
    if (!dseq) return NULL;
    PyObject *wseq = PySequence_Fast(weights_o, "weights");
    if (!wseq) {
        Py_DECREF(dseq);
        return NULL;
    }
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(dseq);
    if (nd < 1 || PySequence_Fast_GET_SIZE(wseq) != nd) {
        Py_DECREF(dseq);
        Py_DECREF(wseq);
        PyErr_SetString(PyExc_ValueError, "deals and weights: the same length, at least one");
        return NULL;
    }
    uint32_t *hands = (uint32_t *)malloc((size_t)nd * 4 * sizeof(uint32_t));
    double *cum = (double *)malloc((size_t)nd * sizeof(double));
    if (!hands || !cum) {
        free(hands);
        free(cum);
        Py_DECREF(dseq);
        Py_DECREF(wseq);
        return PyErr_NoMemory();
    }
    double acc = 0;
    for (Py_ssize_t k = 0; k < nd; k++) {
        double w = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(wseq, k));
        if (parse4u(PySequence_Fast_GET_ITEM(dseq, k), hands + 4 * k, "deal") < 0 || PyErr_Occurred() || !(w >= 0)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "weights must be >= 0");
            free(hands);
            free(cum);
            Py_DECREF(dseq);
            Py_DECREF(wseq);
            return NULL;
        }
        acc += w;
        cum[k] = acc;
    }
    Py_DECREF(dseq);
    Py_DECREF(wseq);
    if (!(acc > 0)) {
        free(hands);
        free(cum);
        PyErr_SetString(PyExc_ValueError, "weights: at least one above 0");
        return NULL;
    }
    Pool pl = {hands, cum, (long)nd};
    Result res;
    memset(&res, 0, sizeof res);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_search(NULL, &pl, &g, observer & 3, iterations, seed, cexp, peps, &res);
    Py_END_ALLOW_THREADS
    free(hands);
    free(cum);
    if (rc < 0) return PyErr_NoMemory();
    return result_tuple(&res);
}

static PyObject *result_tuple(const Result *res_) {
    Result res = *res_;
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
    {"search_pool", py_search_pool, METH_VARARGS,
     "search_pool(deals, weights, trump, to_move, observer, trick, dir, beat_partner, under, tbonus, lbonus, "
     "iterations, seed, c[, playout]) -> search() with the determinisations drawn from the weighted deals "
     "(playout >= 0: rule-based playouts with that share of random cards)"},
    {"count", py_count, METH_VARARGS, "count(known, need, forbid, unseen) -> consistent deals (float)"},
    {"sample", py_sample, METH_VARARGS, "sample(known, need, forbid, unseen, n, seed) -> [[h0, h1, h2, h3]]"},
    {"policy_features", py_policy_features, METH_VARARGS,
     "policy_features(hand, trick, trump, unseen, seat, card) -> features (engine/bots/policy.py)"},
    {"rule_card", py_rule_card, METH_VARARGS,
     "rule_card(hand, trick, trump, unseen, seat, legal) -> the rule-based player's card (heuristic.py)"},
    {"weights", py_weights, METH_VARARGS, "weights(deals, events, ...) -> [log-weight per deal]"},
    {"infer", py_infer, METH_VARARGS, "infer(...) -> [(h0, h1, h2, h3, times kept)]: the expert's weighted deals"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_ismcts", "Manillen SO-ISMCTS core", -1, methods};

PyMODINIT_FUNC PyInit__ismcts(void) {
    rules_init();
    FACT[0] = 1;
    for (int i = 1; i <= 32; i++) FACT[i] = FACT[i - 1] * i;
    LOGN[0] = -INFINITY;
    for (int i = 1; i < NLOG; i++) LOGN[i] = log((double)i);
    return PyModule_Create(&moddef);
}
