/* The engine's shared declarations: a position as 22 int64 (the layout of
 * king.bots.position), the rules on it, and the rule policy.  Every function here is a
 * port of the Python reference of the same name; tests/bots/test_engine.py holds the
 * two to the same answers. */
#ifndef KING_ENGINE_H
#define KING_ENGINE_H

#include <stdint.h>

#include "tables.h"

typedef int64_t i64;
typedef uint64_t u64;

/* The layout of a position (king.bots.position's S_ offsets): the four hands at 0-3. */
enum {
    S_PLAYED = 4,
    S_TRICK = 5,
    S_LEADER = 6,
    S_TURN = 7,
    S_COUNT = 8,
    S_TRICKS = 9,
    S_TOP = 10,
    S_TOP_SEAT = 11,
    S_LED = 12,
    S_OVER = 13,
    S_POINTS = 14,
    S_VOIDS = 18,
    STATE_SIZE = 22,
};

#define FULL ((((i64)1) << 52) - 1)
#define BIT(card) (((i64)1) << (card))

static inline int popcount(i64 mask) { return __builtin_popcountll((u64)mask); }

/* The highest / lowest card id in mask, -1 when empty. */
static inline int highest(i64 mask) { return mask ? 63 - __builtin_clzll((u64)mask) : -1; }
static inline int lowest(i64 mask) { return mask ? __builtin_ctzll((u64)mask) : -1; }

/* position.c */
i64 legal(i64 hand, i64 trick, int led, i64 played, int contract, int trump, int flags);
void new_state(i64 *state, const i64 *hands, int leader);
i64 legal_now(const i64 *state, int contract, int trump, int flags);
void play(i64 *state, int card, int contract, int trump, int flags);
i64 distinct(i64 cards, i64 earlier, i64 penalty);
i64 equal_cards(i64 hand, int card, i64 earlier, i64 penalty);

/* rule_play.c */
int rule_card(const i64 *state, int contract, int trump, int flags);
void rule_playout(i64 *state, int contract, int trump, int flags);
i64 best_reply(i64 *state, int me, int contract, int trump, int flags, i64 *stack);

/* worlds.c */
i64 next_random(i64 *seed);
int sample_worlds(i64 unseen, const i64 *counts, const i64 *forbidden, int me, i64 my_hand,
                  i64 *seed, i64 *out, int n_worlds);

/* net_play.c: the learned policy's weights (float32, C order; king.bots.net.play) and
 * its hidden layers' widths. */
#define NET_MOST_HIDDEN 1024
typedef struct {
    int n1, n2;
    const float *w0, *w1, *b1, *w2, *b2, *w3, *b3;
} Net;
int net_card(const i64 *state, int contract, int trump, int flags, const Net *net);
i64 net_probabilities(const i64 *state, int contract, int trump, int flags, const Net *net,
                      double *out);
/* `state` set to `base` with a world's four `hands`, checked as a whole position where
 * `me` is to move and every candidate is legal: 0, or a KING_E_ code (api.c; for every
 * entry point that plays candidates out in worlds). */
int rollout_world(i64 *state, const i64 *base, const i64 *hands, const i64 *candidates,
                  int n_candidates, int me, int contract, int trump, int flags);

/* The log-probability of the other seats' plays in one dealt world, under the rule
 * policy (api.c) or the learned one (net_play.c), mixed with `noise` of a uniform legal
 * card: 0, or KING_E_CARD when a play is not legal there. */
int rule_world_likelihood(const i64 *hands, const i64 *plays, int n_plays, int leader, int me,
                          int contract, int trump, int flags, double noise, int alike,
                          double *total_out);
int net_world_likelihood(const i64 *hands, const i64 *plays, int n_plays, int leader, int me,
                         int contract, int trump, int flags, double noise, const Net *net,
                         double *total_out);
/* The net described at `net_at` in the exchange area: 0, or a KING_E_ code. */
int net_from(int net_at, Net *net);

/* lookahead.c */
/* The seed of the lookahead's deals after candidate `i` in a world (its hands mixed). */
i64 world_seed(const i64 *hands, int i);
#define LOOKAHEAD_MOST_WORLDS 1024
int lookahead_card(const i64 *state, int contract, int trump, int flags, int tricks, int worlds,
                   i64 *seed);

#endif
