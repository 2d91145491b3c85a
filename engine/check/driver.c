/* A native driver for the engine's sources, built with the undefined-behaviour and
 * address sanitizers by tests/bots/test_engine_build.py: random whole deals under every
 * contract and rule toggle, then every entry point fed random offsets, settings and
 * positions of random words.  Any undefined behaviour stops it with a trap; it prints
 * what it ran when it finishes. */
#include <stdio.h>
#include <stdlib.h>

#include "../api.h"

int king_rule_card(int state_at, int contract, int trump, int flags);
int king_rule_rollouts(int worlds_at, int n_worlds, int base_at, int candidates_at,
                       int n_candidates, int me, int contract, int trump, int flags, int tail,
                       int values_at);
int king_rule_likelihoods(int dealt_at, int n_worlds, int plays_at, int n_plays, int leader,
                          int me, int contract, int trump, int flags, double noise, int alike,
                          int out_at);
int king_rule_declaration_values(int worlds_at, int n_worlds, int declarer, int contract,
                                 int trump, int flags, int out_at);
int king_sample_worlds(i64 unseen, int counts_at, int forbidden_at, int me, i64 my_hand,
                       int seed_at, int out_at, int n_worlds);
i64 *king_io(void);

static i64 rng_state = 0x2545F4914F6CDD1DLL;

static i64 draw(i64 bound) { return next_random(&rng_state) % bound; }

/* Four hands of a shuffled deck at `hands`. */
static void deal(i64 *hands) {
    int deck[52];
    for (int i = 0; i < 52; i++) deck[i] = i;
    for (int i = 51; i > 0; i--) {
        int j = (int)draw(i + 1);
        int t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    for (int seat = 0; seat < 4; seat++) hands[seat] = 0;
    for (int i = 0; i < 52; i++) hands[i / 13] |= BIT(deck[i]);
}

static int whole_deals(int rounds) {
    i64 *io = king_io();
    int done = 0;
    for (int r = 0; r < rounds; r++) {
        int contract = r % CONTRACTS;
        int trump = contract == TRUMPS ? (int)draw(4) : -1;
        int flags = (int)draw(16);
        deal(io);
        int status = king_rule_declaration_values(0, 1, (int)draw(4), contract, trump, flags, 8);
        if (status != 0) {
            fprintf(stderr, "a whole deal was refused: %d\n", status);
            exit(1);
        }
        done += 1;
    }
    return done;
}

/* A position some cards into a deal, and every entry point asked about it properly. */
static int sound_calls(int rounds) {
    i64 *io = king_io();
    int answered = 0;
    for (int r = 0; r < rounds; r++) {
        int contract = r % CONTRACTS;
        int trump = contract == TRUMPS ? (int)draw(4) : -1;
        int flags = (int)draw(16);
        i64 *hands = io, *state = io + 4, *plays = io + 32, *world = io + 100;
        i64 *base = io + 110, *cards = io + 140, *meta = io + 160;
        deal(hands);
        new_state(state, hands, 0);
        int n = (int)draw(48);
        for (int i = 0; i < n && !state[S_OVER]; i++) {
            plays[i] = rule_card(state, contract, trump, flags);
            play(state, (int)plays[i], contract, trump, flags);
        }
        answered += king_rule_likelihoods(0, 1, 32, n, 0, (int)draw(4), contract, trump,
                                          flags, 0.3, (int)draw(2), 200) == 0;
        if (state[S_OVER]) continue;
        int me = (int)state[S_TURN];
        for (int i = 0; i < STATE_SIZE; i++) base[i] = i < 4 ? 0 : state[i];
        for (int seat = 0; seat < 4; seat++) world[seat] = state[seat];
        i64 legal_cards = legal_now(state, contract, trump, flags);
        int k = 0;
        for (i64 rest = legal_cards; rest; rest &= rest - 1) cards[k++] = lowest(rest);
        answered += king_rule_rollouts(100, 1, 110, 140, k, me, contract, trump, flags,
                                       (int)draw(6), 200) == 0;
        answered += king_rule_card(4, contract, trump, flags) >= 0;
        for (int seat = 0; seat < 4; seat++) meta[seat] = popcount(state[seat]);
        meta[me] = 0;
        for (int seat = 4; seat < 8; seat++) meta[seat] = 0;
        meta[8] = 1 + (i64)draw(1000);
        i64 unseen = FULL & ~state[me] & ~state[S_PLAYED];
        answered += king_sample_worlds(unseen, 160, 164, me, state[me], 168, 200, 8) >= 0;
    }
    return answered;
}

static i64 random_word(void) {
    switch (draw(4)) {
        case 0: return draw(64) - 8;
        case 1: return (i64)next_random(&rng_state) * (draw(2) ? 1 : -1);
        case 2: return (i64)((u64)1 << draw(64));
        default: return next_random(&rng_state) & FULL;
    }
}

/* Entry points fed nonsense: each must refuse it or answer, never misbehave. */
static int nonsense(int rounds) {
    i64 *io = king_io();
    int refused = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 200; i++) io[i] = random_word();
        if (draw(2)) {  /* a real start, a few fields spoiled */
            deal(io);
            new_state(io, io, (int)draw(4));
            for (int k = 0; k < 3; k++) io[draw(STATE_SIZE)] = random_word();
        }
        int at = draw(8) ? (int)draw(64) : (int)random_word();
        int n = draw(4) ? (int)draw(8) : (int)random_word();
        int contract = (int)draw(10) - 1, trump = (int)draw(6) - 1, flags = (int)draw(20);
        int seat = (int)draw(6) - 1;
        int results[5] = {
            king_rule_card(at, contract, trump, flags),
            king_rule_rollouts(at, n, (int)draw(100), (int)draw(100), (int)draw(15), seat,
                               contract, trump, flags, (int)draw(15) - 1, 150),
            king_rule_likelihoods(at, n, (int)draw(100), (int)draw(60), seat, (int)draw(4),
                                  contract, trump, flags, 0.3, (int)draw(2), 150),
            king_rule_declaration_values(at, n, seat, contract, trump, flags, 150),
            king_sample_worlds(random_word(), (int)draw(100), (int)draw(100), seat,
                               random_word(), (int)draw(100), 150, n),
        };
        for (int k = 0; k < 5; k++) refused += results[k] < 0;
    }
    return refused;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    int deals = whole_deals(rounds);
    int answered = sound_calls(rounds);
    int refused = nonsense(rounds);
    printf("deals %d answered %d nonsense %d refused %d\n", deals, answered, rounds, refused);
    return 0;
}
