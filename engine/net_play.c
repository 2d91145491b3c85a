/* The learned policy's card play: a port of king.bots.net.play (the input of the seat
 * to move, the network's forward pass, its card and its probabilities), and the entry
 * points of king.bots.compiled that run it (net_rollouts, net_likelihoods,
 * net_declaration_values) with a single-position net_card.
 *
 * The float32 arithmetic is the reference's, operation for operation and in its order
 * (no reassociation; built without contraction into fused multiply-adds), so the
 * engine's logits are numba's to the bit and it plays the same card.  Only the loops
 * are arranged differently: each unit's sum runs over the inputs set (or the positive
 * units) in the reference's order, in a register rather than through memory. */
#include <math.h>

#include "api.h"
#include "engine.h"

/* The cards of the seat to move, those it has not seen, the current trick's, and the
 * cards of its hand that would take the trick now (net_play._encode_cards). */
static void encode_cards(const i64 *state, int me, int contract, int trump, float *out) {
    i64 hand = state[me];
    i64 unseen = FULL & ~hand & ~state[S_PLAYED];
    int count = (int)state[S_COUNT];
    i64 trick = count ? state[S_TRICK] : 0;
    int top = count ? (int)state[S_TOP] : -1;
    int top_suit = count ? top / 13 : -1;
    for (int card = 0; card < 52; card++) {
        i64 bit = BIT(card);
        if (hand & bit) {
            out[I_HAND + card] = 1.0f;
            if (count) {
                int suit = card / 13;
                if (suit == top_suit) {
                    if (card > top) out[I_WINS + card] = 1.0f;
                } else if (contract == TRUMPS && suit == trump) {
                    out[I_WINS + card] = 1.0f;
                }
            }
        } else if (unseen & bit) {
            out[I_UNSEEN + card] = 1.0f;
        } else if (trick & bit) {
            out[I_TRICK + card] = 1.0f;
        }
    }
}

/* The suits each other seat (next, across, previous) has shown void. */
static void encode_voids(const i64 *state, int me, float *out) {
    for (int k = 0; k < 3; k++) {
        i64 voids = state[S_VOIDS + ((me + k + 1) & 3)];
        for (int suit = 0; suit < 4; suit++) {
            if ((voids >> suit) & 1) out[I_VOIDS + 4 * k + suit] = 1.0f;
        }
    }
}

/* |value| as a double, as numba's abs of an int64 then converted (without the C
 * overflow of llabs on the most negative value). */
static double magnitude(i64 value) { return value < 0 ? -(double)value : (double)value; }

/* The input of the seat to move (net_play.encode); `rule` is the rule policy's card. */
static void encode(const i64 *state, int contract, int trump, int flags, int rule, float *out) {
    static const int flag_bits[4] = {F_FORCED, F_EARLY, F_OVERRUFF, F_TRUMP_LEAD};
    int me = (int)state[S_TURN];
    for (int i = 0; i < INPUTS; i++) out[i] = 0.0f;
    encode_cards(state, me, contract, trump, out);
    int count = (int)state[S_COUNT];
    out[I_RULE + rule] = 1.0f;
    out[I_COUNT + count] = 1.0f;
    if (count) {
        out[I_TOP_SEAT + ((state[S_TOP_SEAT] - me) & 3)] = 1.0f;
        out[I_LED + state[S_LED]] = 1.0f;
    }
    encode_voids(state, me, out);
    out[I_CONTRACT + contract] = 1.0f;
    if (trump >= 0) out[I_TRUMP + trump] = 1.0f;
    double unit = magnitude(POINTS_PER_UNIT[contract]);
    for (int k = 0; k < 4; k++) {
        out[I_POINTS + k] = (float)(magnitude(state[S_POINTS + ((me + k) & 3)]) / (13.0 * unit));
    }
    out[I_TRICKS] = (float)((double)state[S_TRICKS] / 13.0);
    for (int k = 0; k < 4; k++) {
        if (flags & flag_bits[k]) out[I_FLAGS + k] = 1.0f;
    }
}

/* The inputs that are set (most are zero): their rows of a weight matrix are added in
 * the order of the inputs, as the reference adds them. */
typedef struct {
    int n;
    int index[INPUTS];
    float value[INPUTS];
} SetInputs;

static void set_inputs(const float *x, SetInputs *set) {
    set->n = 0;
    for (int i = 0; i < INPUTS; i++) {
        if (x[i] != 0.0f) {
            set->index[set->n] = i;
            set->value[set->n] = x[i];
            set->n += 1;
        }
    }
}

/* Built with -DKING_SIMD, the layers' sums use WebAssembly's 128-bit SIMD (the same
 * operations lane by lane, so the same bits; rollouts about 1.3 times as fast, but a
 * module that runtimes without SIMD, such as Safari before 16.4, refuse whole). */
#ifdef KING_SIMD
#define LAYER_SUMS __attribute__((target("simd128")))
#else
#define LAYER_SUMS
#endif

/* out[j] = start[j] + sum of value[t] * rows[index[t]][j] over t in order, for each of
 * the `width` columns: the reference's loop over rows, turned inside out so that each
 * sum stays in a register (every out[j] sees the same operations in the same order). */
LAYER_SUMS
static void add_rows(const float *start, const float *rows, int width, const int *index,
                     const float *value, int n, float *out) {
    int j = 0;
    for (; j + 8 <= width; j += 8) {
        float a[8];
        for (int u = 0; u < 8; u++) a[u] = start[j + u];
        for (int t = 0; t < n; t++) {
            const float *row = rows + (i64)index[t] * width + j;
            float v = value[t];
#ifndef KING_SIMD
            if (v == 1.0f) { /* 1 * w is w, exactly: most inputs are 1 (scalar code) */
                for (int u = 0; u < 8; u++) a[u] += row[u];
                continue;
            }
#endif
            for (int u = 0; u < 8; u++) a[u] += v * row[u];
        }
        for (int u = 0; u < 8; u++) out[j + u] = a[u];
    }
    for (; j < width; j++) {
        float a = start[j];
        for (int t = 0; t < n; t++) a += value[t] * rows[(i64)index[t] * width + j];
        out[j] = a;
    }
}

/* The first hidden layer's sums (before its ReLU, which the next layer applies by
 * skipping the units at or below zero), adding the rows of the inputs that are set. */
static void first_layer(const SetInputs *set, const Net *net, float *h1) {
    add_rows(net->b1, net->w1, net->n1, set->index, set->value, set->n, h1);
}

/* The second hidden layer, after its ReLU, from the first layer's positive units. */
static void second_layer(const float *h1, const Net *net, float *h2) {
    int positive[NET_MOST_HIDDEN];
    float value[NET_MOST_HIDDEN];
    int n = 0;
    for (int j = 0; j < net->n1; j++) {
        if (h1[j] > 0.0f) {
            positive[n] = j;
            value[n] = h1[j];
            n += 1;
        }
    }
    add_rows(net->b2, net->w2, net->n2, positive, value, n, h2);
    /* Python's max(h2, 0.0): h2 unless 0.0 is greater. */
    for (int k = 0; k < net->n2; k++) {
        if (0.0f > h2[k]) h2[k] = 0.0f;
    }
}

/* The logit of each `legal` card: the output layer's, plus the linear path from the
 * inputs that are set (added to the card's logit in the inputs' order). */
static void card_logits(const SetInputs *set, i64 legal, const Net *net, const float *h2,
                        float *logits) {
    int n2 = net->n2;
    for (int card = 0; card < 52; card++) {
        if ((legal >> card) & 1) {
            const float *row = net->w3 + (i64)card * n2;
            float total = net->b3[card];
            for (int k = 0; k < n2; k++) total += h2[k] * row[k];
            for (int t = 0; t < set->n; t++) {
                total += set->value[t] * net->w0[(i64)set->index[t] * 52 + card];
            }
            logits[card] = total;
        }
    }
}

/* The network's logits of the legal cards of the seat to move (the others left
 * as they are); the legal cards. */
static i64 net_logits(const i64 *state, int contract, int trump, int flags, const Net *net,
                      float *logits) {
    float x[INPUTS];
    float h1[NET_MOST_HIDDEN];
    float h2[NET_MOST_HIDDEN];
    SetInputs set;
    i64 legal = legal_now(state, contract, trump, flags);
    encode(state, contract, trump, flags, rule_card(state, contract, trump, flags), x);
    set_inputs(x, &set);
    first_layer(&set, net, h1);
    second_layer(h1, net, h2);
    card_logits(&set, legal, net, h2, logits);
    return legal;
}

int net_card(const i64 *state, int contract, int trump, int flags, const Net *net) {
    i64 legal = legal_now(state, contract, trump, flags);
    if (!(legal & (legal - 1))) return highest(legal);
    float logits[52];
    net_logits(state, contract, trump, flags, net, logits);
    int best = -1;
    for (int card = 0; card < 52; card++) {
        if ((legal >> card) & 1 && (best < 0 || logits[card] > logits[best])) best = card;
    }
    return best;
}

/* -- the exponential of the probabilities ---------------------------------------------
 * numba's np.exp is the platform's libm exp: on x86-64 Linux, glibc's, the algorithm of
 * ARM's optimized routines (musl's too) built with fused multiply-adds where GCC
 * contracts a product into a sum.  The same steps here, each fused multiply-add by C's
 * fma (exact, in software in WebAssembly), give glibc's exp to the bit; the table
 * (EXP_TABLE, 2^(k/128)) is generated, the constants are the routine's. */

typedef union {
    double value;
    u64 bits;
} Word;

static u64 bits_of(double value) { return (Word){.value = value}.bits; }
static double double_of(u64 bits) { return (Word){.bits = bits}.value; }
static unsigned top12(double x) { return (unsigned)(bits_of(x) >> 52); }

#define EXP_N 128
static const double EXP_INV_LN2_N = 0x1.71547652b82fep0 * EXP_N;
static const double EXP_NEG_LN2_HI_N = -0x1.62e42fefa0000p-8;
static const double EXP_NEG_LN2_LO_N = -0x1.cf79abc9e3b3ap-47;
static const double EXP_SHIFT = 0x1.8p52;
static const double EXP_C2 = 0x1.ffffffffffdbdp-2;
static const double EXP_C3 = 0x1.555555555543cp-3;
static const double EXP_C4 = 0x1.55555cf172b91p-5;
static const double EXP_C5 = 0x1.1111167a4d017p-7;

/* exp when 2^(k/128) alone would overflow or underflow (|x| > 512). */
static double exp_scaled(double tmp, u64 sbits, u64 ki) {
    if ((ki & 0x80000000) == 0) {
        double scale = double_of(sbits - (1009ULL << 52));
        return 0x1p1009 * fma(scale, tmp, scale);
    }
    /* (Not fused in glibc: the product has a use in another block.) */
    double scale = double_of(sbits + (1022ULL << 52));
    double product = scale * tmp;
    double y = scale + product;
    if (y < 1.0) {
        double lo = scale - y + product;
        double hi = 1.0 + y;
        lo = 1.0 - hi + y + lo;
        y = (hi + lo) - 1.0;
        if (y == 0.0) y = 0.0;
    }
    return 0x1p-1022 * y;
}

static double exp_libm(double x) {
    unsigned abstop = top12(x) & 0x7ff;
    if (abstop - top12(0x1p-54) >= top12(512.0) - top12(0x1p-54)) {
        if (abstop - top12(0x1p-54) >= 0x80000000) return 1.0 + x; /* tiny x, and 0 */
        if (abstop >= top12(1024.0)) {
            if (bits_of(x) == bits_of(-INFINITY)) return 0.0;
            if (abstop >= top12(INFINITY)) return 1.0 + x;
            return bits_of(x) >> 63 ? 0.0 : INFINITY;
        }
        abstop = 0; /* large |x|: scaled below */
    }
    /* x = k ln2/128 + r, exp(x) = 2^(k/128) exp(r), 2^(k/128) = scale (1 + tail). */
    double kd = fma(EXP_INV_LN2_N, x, EXP_SHIFT);
    u64 ki = bits_of(kd);
    kd -= EXP_SHIFT;
    double r = fma(kd, EXP_NEG_LN2_LO_N, fma(kd, EXP_NEG_LN2_HI_N, x));
    u64 idx = 2 * (ki % EXP_N);
    double tail = double_of(EXP_TABLE[idx]);
    u64 sbits = EXP_TABLE[idx + 1] + (ki << 45);
    double r2 = r * r;
    double tmp = fma(r2 * r2, fma(r, EXP_C5, EXP_C4), fma(r2, fma(r, EXP_C3, EXP_C2), tail + r));
    if (abstop == 0) return exp_scaled(tmp, sbits, ki);
    double scale = double_of(sbits);
    return fma(scale, tmp, scale);
}

/* The probability of each legal card of the seat to move into `out` (52, zero for
 * the others; float64 from the float32 logits, as numba promotes them). */
i64 net_probabilities(const i64 *state, int contract, int trump, int flags, const Net *net,
                      double *out) {
    float logits[52];
    i64 legal = net_logits(state, contract, trump, flags, net, logits);
    for (int card = 0; card < 52; card++) out[card] = 0.0;
    double top = -1e30;
    for (int card = 0; card < 52; card++) {
        if ((legal >> card) & 1 && (double)logits[card] > top) top = logits[card];
    }
    double total = 0.0;
    for (int card = 0; card < 52; card++) {
        if ((legal >> card) & 1) {
            out[card] = exp_libm((double)logits[card] - top);
            total += out[card];
        }
    }
    for (int card = 0; card < 52; card++) out[card] /= total;
    return legal;
}

/* -- the entry points ----------------------------------------------------------------- */

/* Words of a net's description at `net_at`: for each of w0, w1, b1, w2, b2, w3, b3 (in
 * that order) its offset in the exchange area, its rows and its columns (a vector: its
 * length and 1).  Each array is float32, C order, two to a word. */
#define NET_WORDS 21

/* The net described at `net_at`, its shapes checked against one another and against
 * the input; 0, or the KING_E_ code of what is wrong. */
int net_from(int net_at, Net *net) {
    const i64 *about = area(net_at, NET_WORDS);
    if (!about) return KING_E_BOUNDS;
    i64 n1 = about[3 * 1 + 2];
    i64 n2 = about[3 * 3 + 2];
    if (!in_range(n1, 1, NET_MOST_HIDDEN) || !in_range(n2, 1, NET_MOST_HIDDEN)) {
        return KING_E_COUNT;
    }
    const i64 shapes[7][2] = {{INPUTS, 52}, {INPUTS, n1}, {n1, 1}, {n1, n2},
                              {n2, 1},      {52, n2},     {52, 1}};
    const float *arrays[7];
    for (int a = 0; a < 7; a++) {
        const i64 *at = about + 3 * a;
        if (at[1] != shapes[a][0] || at[2] != shapes[a][1]) return KING_E_COUNT;
        if (!in_range(at[0], 0, IO_WORDS)) return KING_E_BOUNDS;
        const i64 *words = area((int)at[0], (shapes[a][0] * shapes[a][1] + 1) / 2);
        if (!words) return KING_E_BOUNDS;
        arrays[a] = (const float *)words;
    }
    net->n1 = (int)n1;
    net->n2 = (int)n2;
    net->w0 = arrays[0];
    net->w1 = arrays[1];
    net->b1 = arrays[2];
    net->w2 = arrays[3];
    net->b2 = arrays[4];
    net->w3 = arrays[5];
    net->b3 = arrays[6];
    return 0;
}

EXPORT(king_net_card)
int king_net_card(int state_at, int contract, int trump, int flags, int net_at) {
    const i64 *state = area(state_at, STATE_SIZE);
    if (!state) return KING_E_BOUNDS;
    Net net;
    int status = net_from(net_at, &net);
    if (status) return status;
    if (!game_ok(contract, trump, flags)) return KING_E_GAME;
    if (!position_ok(state, 0) || state[S_OVER]) return KING_E_POSITION;
    return net_card(state, contract, trump, flags, &net);
}

EXPORT(king_net_rollouts)
int king_net_rollouts(int worlds_at, int n_worlds, int base_at, int candidates_at,
                      int n_candidates, int me, int contract, int trump, int flags, int net_at,
                      int values_at) {
    Rollouts r;
    int status = rollout_arrays(worlds_at, n_worlds, base_at, candidates_at, n_candidates,
                                values_at, &r);
    if (status) return status;
    Net net;
    status = net_from(net_at, &net);
    if (status) return status;
    if (!game_ok(contract, trump, flags) || !seat_ok(me)) return KING_E_GAME;
    i64 state[STATE_SIZE];
    i64 child[STATE_SIZE];
    for (int w = 0; w < n_worlds; w++) {
        status = rollout_world(state, r.base, r.worlds + 4 * w, r.candidates, n_candidates, me,
                               contract, trump, flags);
        if (status) return status;
        for (int i = 0; i < n_candidates; i++) {
            for (int k = 0; k < STATE_SIZE; k++) child[k] = state[k];
            play(child, (int)r.candidates[i], contract, trump, flags);
            while (!child[S_OVER]) {
                play(child, net_card(child, contract, trump, flags, &net), contract, trump,
                     flags);
            }
            r.values[(i64)w * n_candidates + i] = child[S_POINTS + me];
        }
    }
    return 0;
}

int net_world_likelihood(const i64 *hands, const i64 *plays, int n_plays, int leader, int me,
                         int contract, int trump, int flags, double noise, const Net *net,
                         double *total_out) {
    i64 state[STATE_SIZE];
    double probs[52];
    new_state(state, hands, leader);
    double total = 0.0;
    for (int i = 0; i < n_plays; i++) {
        int card = (int)plays[i];
        i64 cards = legal_now(state, contract, trump, flags);
        if (!in_range(plays[i], 0, 51) || !((cards >> card) & 1)) return KING_E_CARD;
        int choices = popcount(cards);
        if (state[S_TURN] != me && choices > 1) {
            net_probabilities(state, contract, trump, flags, net, probs);
            total += log(noise / choices + (1.0 - noise) * probs[card]);
        }
        play(state, card, contract, trump, flags);
    }
    *total_out = total;
    return 0;
}

EXPORT(king_net_likelihoods)
int king_net_likelihoods(int dealt_at, int n_worlds, int plays_at, int n_plays, int leader,
                         int me, int contract, int trump, int flags, double noise, int net_at,
                         int out_at) {
    if (n_worlds < 0 || n_plays < 0 || n_plays > 52) return KING_E_COUNT;
    const i64 *dealt = area(dealt_at, 4 * (i64)n_worlds);
    const i64 *plays = area(plays_at, n_plays);
    double *out = (double *)area(out_at, n_worlds);
    if (!dealt || !plays || !out) return KING_E_BOUNDS;
    Net net;
    int status = net_from(net_at, &net);
    if (status) return status;
    if (!game_ok(contract, trump, flags) || !seat_ok(me) || !seat_ok(leader)) return KING_E_GAME;
    if (!(noise >= 0.0 && noise <= 1.0)) return KING_E_GAME;
    for (int w = 0; w < n_worlds; w++) {
        if (!deal_ok(dealt + 4 * w)) return KING_E_POSITION;
        status = net_world_likelihood(dealt + 4 * w, plays, n_plays, leader, me, contract, trump,
                                      flags, noise, &net, out + w);
        if (status) return status;
    }
    return 0;
}

EXPORT(king_net_declaration_values)
int king_net_declaration_values(int worlds_at, int n_worlds, int declarer, int contract,
                                int trump, int flags, int net_at, int out_at) {
    if (n_worlds < 0) return KING_E_COUNT;
    const i64 *worlds = area(worlds_at, 4 * (i64)n_worlds);
    i64 *out = area(out_at, n_worlds);
    if (!worlds || !out) return KING_E_BOUNDS;
    Net net;
    int status = net_from(net_at, &net);
    if (status) return status;
    if (!game_ok(contract, trump, flags) || !seat_ok(declarer)) return KING_E_GAME;
    i64 state[STATE_SIZE];
    for (int w = 0; w < n_worlds; w++) {
        if (!deal_ok(worlds + 4 * w)) return KING_E_POSITION;
        new_state(state, worlds + 4 * w, declarer);
        while (!state[S_OVER]) {
            play(state, net_card(state, contract, trump, flags, &net), contract, trump, flags);
        }
        out[w] = state[S_POINTS + declarer];
    }
    return 0;
}
