/* A policy against the rule policy on duplicate deals (scripts/policy_duel.py): each
 * deal is played once by the rule policy at every seat, then once for each seat with
 * the challenger in that seat and the rule policy in the other three; the challenger's
 * gain is its points less the rule policy's in the same seat of the same deal.
 *
 * The challenger is the rule policy with lookahead in the last tricks, or, in a build
 * of a variant of rule_play.c (engine/build.py's build_variant, which compiles the
 * variant with its entry points renamed variant_*), that variant.  In the engine as
 * shipped, the "variant" is the rule policy itself, whose gains are all zero. */
#include "api.h"
#include "engine.h"

#ifdef KING_VARIANT
int variant_rule_card(const i64 *state, int contract, int trump, int flags);
#define CHALLENGER_CARD variant_rule_card
#else
#define CHALLENGER_CARD rule_card
#endif

enum { DUEL_VARIANT = 0, DUEL_LOOKAHEAD = 1 };

static int challenger(const i64 *state, int contract, int trump, int flags, int player,
                      int tricks, int inner, i64 *seed) {
    if (player == DUEL_LOOKAHEAD) {
        return lookahead_card(state, contract, trump, flags, tricks, inner, seed);
    }
    return CHALLENGER_CARD(state, contract, trump, flags);
}

/* The challenger's gain in each seat of one deal, at `gains[0..3]`. */
static void duel_deal(const i64 *hands, int leader, int contract, int trump, int flags,
                      int player, int tricks, int inner, i64 number, i64 *gains) {
    i64 reference[STATE_SIZE];
    i64 state[STATE_SIZE];
    new_state(reference, hands, leader);
    rule_playout(reference, contract, trump, flags);
    for (int seat = 0; seat < 4; seat++) {
        i64 seed = (i64)((u64)(number * 4 + seat) * 2654435761ULL + 1);
        new_state(state, hands, leader);
        while (!state[S_OVER]) {
            int card = state[S_TURN] == seat
                           ? challenger(state, contract, trump, flags, player, tricks, inner,
                                        &seed)
                           : rule_card(state, contract, trump, flags);
            play(state, card, contract, trump, flags);
        }
        gains[seat] = state[S_POINTS + seat] - reference[S_POINTS + seat];
    }
}

/* Deals `first` .. `first + n - 1` of a duel: four hands, the leader, the contract and
 * the trump (-1 for none) of each (seven words a deal at `deals_at`); the gains, four a
 * deal, at `out_at`.
 * `player` is DUEL_VARIANT or DUEL_LOOKAHEAD (with `tricks` and `inner`). */
EXPORT(king_duel)
int king_duel(int deals_at, int n, i64 first, int flags, int player, int tricks, int inner,
              int out_at) {
    if (n < 0 || first < 0 || first > ((i64)1 << 40)) return KING_E_COUNT;
    const i64 *deals = area(deals_at, 7 * (i64)n);
    i64 *out = area(out_at, 4 * (i64)n);
    if (!deals || !out) return KING_E_BOUNDS;
    if (player != DUEL_VARIANT && player != DUEL_LOOKAHEAD) return KING_E_GAME;
    if (player == DUEL_LOOKAHEAD && (!in_range(tricks, 1, 13) || !in_range(inner, 1, 64))) {
        return KING_E_GAME;
    }
    for (int d = 0; d < n; d++) {
        const i64 *deal = deals + 7 * d;
        if (!deal_ok(deal) || !in_range(deal[4], 0, 3)) return KING_E_POSITION;
        if (!in_range(deal[5], 0, CONTRACTS - 1) || !in_range(deal[6], -1, 3)) return KING_E_GAME;
        int leader = (int)deal[4], contract = (int)deal[5], trump = (int)deal[6];
        if (!game_ok(contract, trump, flags)) return KING_E_GAME;
        duel_deal(deal, leader, contract, trump, flags, player, tricks, inner, first + d,
                  out + 4 * d);
    }
    return 0;
}
