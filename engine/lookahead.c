/* The rule policy with one step of lookahead in the last tricks: a port of
 * king.bots.search.lookahead (lookahead_card, _deal_unseen, _playout_totals), and the entry
 * points that run it: king.bots.compiled's lookahead_rollouts, and a single-position
 * lookahead_card.  The deals are drawn from a seed the caller owns, so a rollout is
 * repeatable, and its values are numba's. */
#include "api.h"
#include "engine.h"

/* `worlds` deals of the cards `me` has not seen to the other seats (each as many as it
 * holds, none of a suit it has shown void), four hands a row of `dealt`. */
static void deal_unseen(const i64 *state, int me, i64 hand, int worlds, i64 *seed,
                        i64 *dealt) {
    i64 counts[4] = {0, 0, 0, 0};
    i64 forbidden[4] = {0, 0, 0, 0};
    for (int seat = 0; seat < 4; seat++) {
        if (seat != me) {
            counts[seat] = popcount(state[seat]);
            for (int suit = 0; suit < 4; suit++) {
                if ((state[S_VOIDS + seat] >> suit) & 1) forbidden[seat] |= SUITS[suit];
            }
        }
    }
    i64 unseen = FULL & ~hand & ~state[S_PLAYED];
    sample_worlds(unseen, counts, forbidden, me, hand, seed, dealt, worlds);
}

/* `me`'s points summed over the deals, for each card of `ids` played in every deal and
 * the rule policy playing all four seats after it. */
static void playout_totals(const i64 *state, const i64 *dealt, int worlds, const int *ids,
                           int count, int me, int contract, int trump, int flags,
                           i64 *totals) {
    i64 hand = state[me];
    i64 child[STATE_SIZE];
    for (int i = 0; i < count; i++) totals[i] = 0;
    for (int w = 0; w < worlds; w++) {
        if (dealt[4 * w + me] != hand) continue; /* a deal the sampler gave up on */
        for (int i = 0; i < count; i++) {
            for (int k = 0; k < STATE_SIZE; k++) child[k] = state[k];
            for (int seat = 0; seat < 4; seat++) child[seat] = dealt[4 * w + seat];
            play(child, ids[i], contract, trump, flags);
            rule_playout(child, contract, trump, flags);
            totals[i] += child[S_POINTS + me];
        }
    }
}

int lookahead_card(const i64 *state, int contract, int trump, int flags, int tricks, int worlds,
                   i64 *seed) {
    int me = (int)state[S_TURN];
    i64 hand = state[me];
    int card = rule_card(state, contract, trump, flags);
    if (popcount(hand) > tricks) return card;
    i64 earlier = state[S_PLAYED] & ~state[S_TRICK];
    i64 penalty = PENALTY[contract];
    i64 choices = distinct(legal_now(state, contract, trump, flags), earlier, penalty);
    int count = popcount(choices);
    if (count <= 1) return card;
    i64 same = equal_cards(hand, card, earlier, penalty);
    int ids[13];
    int kept = 0;
    for (int i = 0; i < count; i++) {
        ids[i] = lowest(choices);
        choices &= choices - 1;
        if ((same >> ids[i]) & 1) kept = i;
    }
    static i64 dealt[4 * LOOKAHEAD_MOST_WORLDS];
    i64 totals[13];
    deal_unseen(state, me, hand, worlds, seed, dealt);
    playout_totals(state, dealt, worlds, ids, count, me, contract, trump, flags, totals);
    int best = kept;
    for (int i = 0; i < count; i++) {
        if (totals[i] > totals[best]) best = i;
    }
    return ids[best];
}

/* -- the entry points ----------------------------------------------------------------- */

static int lookahead_ok(int tricks, int worlds) {
    return in_range(tricks, 0, 13) && in_range(worlds, 0, LOOKAHEAD_MOST_WORLDS);
}

EXPORT(king_lookahead_card)
int king_lookahead_card(int state_at, int contract, int trump, int flags, int tricks,
                        int worlds, int seed_at) {
    const i64 *state = area(state_at, STATE_SIZE);
    i64 *seed = area(seed_at, 1);
    if (!state || !seed) return KING_E_BOUNDS;
    if (!game_ok(contract, trump, flags) || !lookahead_ok(tricks, worlds)) return KING_E_GAME;
    if (!position_ok(state, 1) || state[S_OVER]) return KING_E_POSITION;
    return lookahead_card(state, contract, trump, flags, tricks, worlds, seed);
}

/* The seed of the deals after candidate `i` in a world: its hands mixed (FNV-1a over
 * the four words) with the candidate, odd, so that values do not depend on threads. */
i64 world_seed(const i64 *hands, int i) {
    u64 mixed = 1469598103934665603ULL;
    for (int seat = 0; seat < 4; seat++) mixed = (mixed ^ (u64)hands[seat]) * 1099511628211ULL;
    return (i64)((mixed ^ (u64)((i64)i * 2654435761LL)) | 1);
}

EXPORT(king_lookahead_rollouts)
int king_lookahead_rollouts(int worlds_at, int n_worlds, int base_at, int candidates_at,
                            int n_candidates, int me, int contract, int trump, int flags,
                            int tricks, int inner, int everyone, int values_at) {
    Rollouts r;
    int status = rollout_arrays(worlds_at, n_worlds, base_at, candidates_at, n_candidates,
                                values_at, &r);
    if (status) return status;
    if (!game_ok(contract, trump, flags) || !seat_ok(me) || !lookahead_ok(tricks, inner) ||
        !in_range(everyone, 0, 1)) {
        return KING_E_GAME;
    }
    i64 state[STATE_SIZE];
    i64 child[STATE_SIZE];
    for (int w = 0; w < n_worlds; w++) {
        const i64 *hands = r.worlds + 4 * w;
        status = rollout_world(state, r.base, hands, r.candidates, n_candidates, me, contract,
                               trump, flags);
        if (status) return status;
        for (int i = 0; i < n_candidates; i++) {
            i64 seed = world_seed(hands, i);
            for (int k = 0; k < STATE_SIZE; k++) child[k] = state[k];
            play(child, (int)r.candidates[i], contract, trump, flags);
            while (!child[S_OVER]) {
                int card = everyone || child[S_TURN] == me
                               ? lookahead_card(child, contract, trump, flags, tricks, inner,
                                                &seed)
                               : rule_card(child, contract, trump, flags);
                play(child, card, contract, trump, flags);
            }
            r.values[(i64)w * n_candidates + i] = child[S_POINTS + me];
        }
    }
    return 0;
}
