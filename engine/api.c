/* The engine's entry points: what the host (king.bots.engine under wasmtime, the
 * offline game's worker in a browser) calls.
 *
 * The host writes its arrays into the engine's own exchange area (`king_io`, int64
 * words) and names them by their word offset there, so every array an entry point reads
 * or writes is checked to lie inside that area.  Every input is checked before it is
 * used, and an entry point returns a negative KING_E_ code for what it refused; it
 * never traps, allocates nor grows the memory. */
#include <math.h>

#include "api.h"
#include "engine.h"

static i64 io[IO_WORDS];

EXPORT(king_io) i64 *king_io(void) { return io; }
EXPORT(king_io_words) int king_io_words(void) { return IO_WORDS; }
EXPORT(king_version) int king_version(void) { return KING_ENGINE_VERSION; }

/* The `words` int64 words at `offset` of the exchange area, or NULL when they do not
 * all lie inside it. */
i64 *area(int offset, i64 words) {
    if (offset < 0 || words < 0 || (i64)offset + words > IO_WORDS) return 0;
    return io + offset;
}

int game_ok(int contract, int trump, int flags) {
    if (contract < 0 || contract >= CONTRACTS) return 0;
    if (flags < 0 || flags > (F_FORCED | F_EARLY | F_OVERRUFF | F_TRUMP_LEAD)) return 0;
    if (contract == TRUMPS) return trump >= 0 && trump < 4;
    return trump >= -1 && trump < 4;
}

int seat_ok(int seat) { return seat >= 0 && seat < 4; }

/* Whether four hands are 52-card masks with no card twice and none of `played`. */
static int hands_ok(const i64 *hands, i64 played) {
    i64 seen = played;
    for (int seat = 0; seat < 4; seat++) {
        if (hands[seat] & ~FULL || hands[seat] & seen) return 0;
        seen |= hands[seat];
    }
    return 1;
}

int in_range(i64 value, i64 low, i64 high) { return value >= low && value <= high; }

/* Whether `state` is a position the rules could reach: its fields in range, no card in
 * two places, and (before the end) each hand as long as the tricks played leave it, or,
 * unless `whole`, empty for a seat other than the one to move (a hand not seen). */
int position_ok(const i64 *state, int whole) {
    if (!in_range(state[S_TURN], 0, 3) || !in_range(state[S_LEADER], 0, 3)) return 0;
    if (!in_range(state[S_COUNT], 0, 3) || !in_range(state[S_TRICKS], 0, 13)) return 0;
    if (!in_range(state[S_LED], -1, 3) || !in_range(state[S_TOP], -1, 51)) return 0;
    if (!in_range(state[S_TOP_SEAT], 0, 3) || !in_range(state[S_OVER], 0, 1)) return 0;
    if (state[S_PLAYED] & ~FULL || state[S_TRICK] & ~state[S_PLAYED]) return 0;
    if (!hands_ok(state, state[S_PLAYED])) return 0;
    for (int seat = 0; seat < 4; seat++) {
        if (!in_range(state[S_VOIDS + seat], 0, 15)) return 0;
    }
    if (state[S_OVER]) return 1;
    int count = (int)state[S_COUNT];
    if (popcount(state[S_TRICK]) != count || (state[S_LED] < 0) != (count == 0)) return 0;
    if (state[S_TURN] != ((state[S_LEADER] + count) & 3)) return 0;
    for (int seat = 0; seat < 4; seat++) {
        int played_now = ((seat - state[S_LEADER]) & 3) < count;
        int held = popcount(state[seat]);
        int hidden = !whole && held == 0 && seat != state[S_TURN];
        if (held != 13 - state[S_TRICKS] - played_now && !hidden) return 0;
    }
    return 1;
}

/* Whether four dealt hands are 13 cards each, no card twice. */
int deal_ok(const i64 *hands) {
    if (!hands_ok(hands, 0)) return 0;
    for (int seat = 0; seat < 4; seat++) {
        if (popcount(hands[seat]) != 13) return 0;
    }
    return 1;
}

static void with_world(i64 *state, const i64 *base, const i64 *hands) {
    for (int i = 0; i < STATE_SIZE; i++) state[i] = base[i];
    for (int seat = 0; seat < 4; seat++) state[seat] = hands[seat];
}

EXPORT(king_rule_card)
int king_rule_card(int state_at, int contract, int trump, int flags) {
    const i64 *state = area(state_at, STATE_SIZE);
    if (!state) return KING_E_BOUNDS;
    if (!game_ok(contract, trump, flags)) return KING_E_GAME;
    if (!position_ok(state, 0) || state[S_OVER]) return KING_E_POSITION;
    return rule_card(state, contract, trump, flags);
}

/* Whether every candidate is a legal card of the seat to move, which is `me`. */
static int candidates_ok(const i64 *state, const i64 *candidates, int n, int me, int contract,
                         int trump, int flags) {
    if (state[S_OVER] || state[S_TURN] != me) return 0;
    i64 cards = legal_now(state, contract, trump, flags);
    for (int i = 0; i < n; i++) {
        if (!in_range(candidates[i], 0, 51) || !((cards >> candidates[i]) & 1)) return 0;
    }
    return 1;
}

int rollout_world(i64 *state, const i64 *base, const i64 *hands, const i64 *candidates,
                  int n_candidates, int me, int contract, int trump, int flags) {
    with_world(state, base, hands);
    if (!position_ok(state, 1)) return KING_E_POSITION;
    if (!candidates_ok(state, candidates, n_candidates, me, contract, trump, flags)) {
        return KING_E_CARD;
    }
    return 0;
}

int rollout_arrays(int worlds_at, int n_worlds, int base_at, int candidates_at,
                   int n_candidates, int values_at, Rollouts *out) {
    if (n_worlds < 0 || n_candidates < 1 || n_candidates > 13) return KING_E_COUNT;
    out->worlds = area(worlds_at, 4 * (i64)n_worlds);
    out->base = area(base_at, STATE_SIZE);
    out->candidates = area(candidates_at, n_candidates);
    out->values = area(values_at, (i64)n_worlds * n_candidates);
    if (!out->worlds || !out->base || !out->candidates || !out->values) return KING_E_BOUNDS;
    return 0;
}

EXPORT(king_rule_rollouts)
int king_rule_rollouts(int worlds_at, int n_worlds, int base_at, int candidates_at,
                       int n_candidates, int me, int contract, int trump, int flags, int tail,
                       int values_at) {
    Rollouts r;
    int status = rollout_arrays(worlds_at, n_worlds, base_at, candidates_at, n_candidates,
                                values_at, &r);
    if (status) return status;
    if (!game_ok(contract, trump, flags) || !seat_ok(me) || !in_range(tail, 0, 13)) {
        return KING_E_GAME;
    }
    i64 state[STATE_SIZE];
    i64 child[STATE_SIZE];
    i64 stack[15 * STATE_SIZE];
    for (int w = 0; w < n_worlds; w++) {
        status = rollout_world(state, r.base, r.worlds + 4 * w, r.candidates, n_candidates, me,
                               contract, trump, flags);
        if (status) return status;
        for (int i = 0; i < n_candidates; i++) {
            for (int k = 0; k < STATE_SIZE; k++) child[k] = state[k];
            play(child, (int)r.candidates[i], contract, trump, flags);
            while (!child[S_OVER] && (13 - child[S_TRICKS] > tail || child[S_COUNT] != 0)) {
                play(child, rule_card(child, contract, trump, flags), contract, trump, flags);
            }
            r.values[(i64)w * n_candidates + i] =
                child[S_OVER] ? child[S_POINTS + me]
                              : best_reply(child, me, contract, trump, flags, stack);
        }
    }
    return 0;
}

/* The log-probability of the other seats' plays in one dealt world (see
 * king_rule_likelihoods); KING_E_CARD when a play is not legal there. */
int rule_world_likelihood(const i64 *hands, const i64 *plays, int n_plays, int leader, int me,
                          int contract, int trump, int flags, double noise, int alike,
                          double *total_out) {
    i64 penalty = PENALTY[contract];
    i64 state[STATE_SIZE];
    new_state(state, hands, leader);
    double total = 0.0;
    for (int i = 0; i < n_plays; i++) {
        int card = (int)plays[i];
        i64 cards = legal_now(state, contract, trump, flags);
        if (!in_range(card, 0, 51) || !((cards >> card) & 1)) return KING_E_CARD;
        int turn = (int)state[S_TURN];
        int choices = popcount(cards);
        if (turn != me && choices > 1) {
            double p = noise / choices;
            int rule = rule_card(state, contract, trump, flags);
            if (!alike) {
                if (rule == card) p += 1.0 - noise;
            } else {
                i64 earlier = state[S_PLAYED] & ~state[S_TRICK];
                i64 same = equal_cards(state[turn], rule, earlier, penalty);
                if ((same >> card) & 1) p += (1.0 - noise) / popcount(same);
            }
            total += log(p);
        }
        play(state, card, contract, trump, flags);
    }
    *total_out = total;
    return 0;
}

EXPORT(king_rule_likelihoods)
int king_rule_likelihoods(int dealt_at, int n_worlds, int plays_at, int n_plays, int leader,
                          int me, int contract, int trump, int flags, double noise, int alike,
                          int out_at) {
    if (n_worlds < 0 || n_plays < 0 || n_plays > 52) return KING_E_COUNT;
    const i64 *dealt = area(dealt_at, 4 * (i64)n_worlds);
    const i64 *plays = area(plays_at, n_plays);
    double *out = (double *)area(out_at, n_worlds);
    if (!dealt || !plays || !out) return KING_E_BOUNDS;
    if (!game_ok(contract, trump, flags) || !seat_ok(me) || !seat_ok(leader)) return KING_E_GAME;
    if (!(noise >= 0.0 && noise <= 1.0)) return KING_E_GAME;
    for (int w = 0; w < n_worlds; w++) {
        if (!deal_ok(dealt + 4 * w)) return KING_E_POSITION;
        int status = rule_world_likelihood(dealt + 4 * w, plays, n_plays, leader, me, contract, trump,
                                      flags, noise, alike, out + w);
        if (status) return status;
    }
    return 0;
}

EXPORT(king_rule_declaration_values)
int king_rule_declaration_values(int worlds_at, int n_worlds, int declarer, int contract,
                                 int trump, int flags, int out_at) {
    if (n_worlds < 0) return KING_E_COUNT;
    const i64 *worlds = area(worlds_at, 4 * (i64)n_worlds);
    i64 *out = area(out_at, n_worlds);
    if (!worlds || !out) return KING_E_BOUNDS;
    if (!game_ok(contract, trump, flags) || !seat_ok(declarer)) return KING_E_GAME;
    i64 state[STATE_SIZE];
    for (int w = 0; w < n_worlds; w++) {
        if (!deal_ok(worlds + 4 * w)) return KING_E_POSITION;
        new_state(state, worlds + 4 * w, declarer);
        rule_playout(state, contract, trump, flags);
        out[w] = state[S_POINTS + declarer];
    }
    return 0;
}

EXPORT(king_sample_worlds)
int king_sample_worlds(i64 unseen, int counts_at, int forbidden_at, int me, i64 my_hand,
                       int seed_at, int out_at, int n_worlds) {
    if (n_worlds < 0) return KING_E_COUNT;
    const i64 *counts = area(counts_at, 4);
    const i64 *forbidden = area(forbidden_at, 4);
    i64 *seed = area(seed_at, 1);
    i64 *out = area(out_at, 4 * (i64)n_worlds);
    if (!counts || !forbidden || !seed || !out) return KING_E_BOUNDS;
    if (!seat_ok(me) || unseen & ~FULL || my_hand & ~FULL || unseen & my_hand) {
        return KING_E_POSITION;
    }
    for (int seat = 0; seat < 4; seat++) {
        if (!in_range(counts[seat], 0, 13)) return KING_E_COUNT;
    }
    return sample_worlds(unseen, counts, forbidden, me, my_hand, seed, out, n_worlds);
}
