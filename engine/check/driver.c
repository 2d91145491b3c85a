/* A native driver for the engine's sources, built with the undefined-behaviour
 * sanitizer by tests/bots/test_engine_build.py: random whole deals under every contract
 * and rule toggle (the rule policy, a small random learned policy, the duel), every
 * entry point asked properly about positions some cards into a deal (the solver about
 * endings of a few cards, its answers checked against each other and plain
 * enumeration), then every entry point fed random offsets, settings and positions of
 * random words.  Any undefined behaviour stops it with a trap; it prints what it ran
 * when it finishes. */
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
int king_net_card(int state_at, int contract, int trump, int flags, int net_at);
int king_net_rollouts(int worlds_at, int n_worlds, int base_at, int candidates_at,
                      int n_candidates, int me, int contract, int trump, int flags, int net_at,
                      int values_at);
int king_net_likelihoods(int dealt_at, int n_worlds, int plays_at, int n_plays, int leader,
                         int me, int contract, int trump, int flags, double noise, int net_at,
                         int out_at);
int king_net_declaration_values(int worlds_at, int n_worlds, int declarer, int contract,
                                int trump, int flags, int net_at, int out_at);
int king_lookahead_card(int state_at, int contract, int trump, int flags, int tricks,
                        int worlds, int seed_at);
int king_lookahead_rollouts(int worlds_at, int n_worlds, int base_at, int candidates_at,
                            int n_candidates, int me, int contract, int trump, int flags,
                            int tricks, int inner, int everyone, int values_at);
int king_solve_sized(int state_at, int me, int contract, int trump, int flags, int first_rows,
                     int most_rows, int out_at);
int king_solve(int state_at, int me, int contract, int trump, int flags, int out_at);
int king_solve_moves(int state_at, int me, int contract, int trump, int flags, int out_at);
int king_enumerate_value(int state_at, int me, int contract, int trump, int flags, int out_at);
int king_duel(int deals_at, int n, i64 first, int flags, int player, int tricks, int inner,
              int out_at);
int king_search_chunk(int setup_at, int base_at, int plays_at, int candidates_at, int net_at,
                      double noise, double u, int seed_at, int count, int values_at);
int king_choose(int values_at, int n, int c, int prior, double margin);
int king_summary(int values_at, int n, int c, int offsets_at, int out_at);
int king_declare_values(int setup_at, int choices_at, int n_choices, int seed_at, int count,
                        int values_at);
int king_batch_reset(int copies_at, int n, int options_at, int results_at, int seeds_at);
int king_batch_play(int copies_at, int n, int options_at, int results_at, int actions_at,
                    int bad_at);
int king_batch_observe(int copies_at, int n, int options_at, int results_at, int who, int size,
                       int obs_at, int masks_at);
i64 *king_io(void);

/* Where the words of each call lie in the exchange area: the learned policy (its
 * description, then its weights) far above the rest, which the nonsense overwrites. */
enum {
    NET_ABOUT = 190000,   /* 21 words: offset, rows and columns of each array */
    NET_SPOILED = 190040, /* a copy of the description, one word spoiled */
    NET_WEIGHTS = 190100, /* the float32 arrays, two to a word */
    PLAYED = 300,         /* a deal played from its start, and its plays */
    PLAYS = 330,
    ENDING = 500,         /* a few cards a hand, for the solver */
    SOLVED = 530,         /* the solver's answers: value, nodes; then 53 words */
    DEALS = 620,          /* a deal of a duel: four hands, leader, contract, trump */
    DUEL_OUT = 640,       /* its gains, four words */
    SEED = 660,
    OUT = 700,            /* the answers of the other sound calls */
    SETUP = 2000,         /* a search step's setup (tables.h's K_ words), its choices */
    CHOICES = 2040,
    VALUES = 3000,        /* a search step's values, and the summary of them */
    SUMMARY = 60000,
};

/* The small learned policy's widths. */
enum { HIDDEN_1 = 16, HIDDEN_2 = 8 };

static i64 rng_state = 0x2545F4914F6CDD1DLL;

static i64 draw(i64 bound) { return next_random(&rng_state) % bound; }

/* One of the cards of a mask, at random. */
static int random_card(i64 cards) {
    for (int skip = (int)draw(popcount(cards)); skip > 0; skip--) cards &= cards - 1;
    return lowest(cards);
}

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

/* A random learned policy (weights uniform in [-1, 1)) at NET_WEIGHTS, described at
 * NET_ABOUT as the host describes one: w0, w1, b1, w2, b2, w3, b3. */
static void make_net(void) {
    i64 *io = king_io();
    const i64 shapes[7][2] = {{INPUTS, 52},         {INPUTS, HIDDEN_1}, {HIDDEN_1, 1},
                              {HIDDEN_1, HIDDEN_2}, {HIDDEN_2, 1},      {52, HIDDEN_2},
                              {52, 1}};
    int at = NET_WEIGHTS;
    for (int a = 0; a < 7; a++) {
        i64 count = shapes[a][0] * shapes[a][1];
        float *values = (float *)(io + at);
        for (i64 i = 0; i < count; i++) values[i] = (float)draw(2000) / 1000.0f - 1.0f;
        if (count % 2) values[count] = 0.0f;
        io[NET_ABOUT + 3 * a] = at;
        io[NET_ABOUT + 3 * a + 1] = shapes[a][0];
        io[NET_ABOUT + 3 * a + 2] = shapes[a][1];
        at += (int)((count + 1) / 2);
    }
}

/* A position of `cards` cards a hand (or up to three cards more, inside a trick) at
 * `state`, the rule policy and random cards playing from a random deal; 0 when the deal
 * ended before. */
static int ending(i64 *state, int cards, int contract, int trump, int flags) {
    i64 hands[4];
    deal(hands);
    new_state(state, hands, (int)draw(4));
    int plays = 52 - 4 * cards + (int)draw(4);
    for (int i = 0; i < plays && !state[S_OVER]; i++) {
        i64 cards_now = legal_now(state, contract, trump, flags);
        int card = draw(2) ? rule_card(state, contract, trump, flags) : random_card(cards_now);
        play(state, card, contract, trump, flags);
    }
    return !state[S_OVER];
}

static int whole_deals(int rounds) {
    i64 *io = king_io();
    int done = 0;
    for (int r = 0; r < rounds; r++) {
        int contract = r % CONTRACTS;
        int trump = contract == TRUMPS ? (int)draw(4) : -1;
        int flags = (int)draw(16);
        deal(io);
        int declarer = (int)draw(4);
        int status = king_rule_declaration_values(0, 1, declarer, contract, trump, flags, 8);
        if (!status) status = king_net_declaration_values(0, 1, declarer, contract, trump, flags,
                                                          NET_ABOUT, 9);
        if (!status) { /* the same deal dueled: the rule policy, or with lookahead */
            for (int i = 0; i < 4; i++) io[DEALS + i] = io[i];
            io[DEALS + 4] = declarer;
            io[DEALS + 5] = contract;
            io[DEALS + 6] = trump;
            int player = (int)draw(2);
            status = king_duel(DEALS, 1, r, flags, player, 1 + (int)draw(4), 1 + (int)draw(4),
                               DUEL_OUT);
            for (int seat = 0; seat < 4 && !status && player == 0; seat++) {
                if (io[DUEL_OUT + seat] != 0) { /* the rule policy against itself */
                    fprintf(stderr, "the rule policy gained on itself in a duel\n");
                    exit(1);
                }
            }
        }
        if (status != 0) {
            fprintf(stderr, "a whole deal was refused: %d\n", status);
            exit(1);
        }
        done += 1;
    }
    return done;
}

/* The learned policy and the lookahead asked properly about sound_calls' position (at
 * 4, its world at 100 and base at 110, its `k` legal cards at 140) and its plays; how
 * many answered. */
static int sound_policies(int me, int k, int contract, int trump, int flags) {
    i64 *io = king_io();
    int answered = 0;
    int n = (int)draw(48);
    answered += king_net_card(4, contract, trump, flags, NET_ABOUT) >= 0;
    answered += king_net_rollouts(100, 1, 110, 140, k < 2 ? k : 2, me, contract, trump, flags,
                                  NET_ABOUT, OUT) == 0;
    answered += king_lookahead_rollouts(100, 1, 110, 140, k < 3 ? k : 3, me, contract, trump,
                                        flags, 1 + (int)draw(4), 1 + (int)draw(4), (int)draw(2),
                                        OUT) == 0;
    io[SEED] = 1 + 2 * (i64)draw(1000);
    answered += king_lookahead_card(4, contract, trump, flags, (int)draw(14), 1 + (int)draw(4),
                                    SEED) >= 0;
    /* Plays of the deal from its start (the dealt hands at 0), for the likelihoods. */
    i64 *start = io + PLAYED;
    i64 *plays = io + PLAYS;
    new_state(start, io, 0);
    int made = 0;
    for (; made < n && !start[S_OVER]; made++) {
        i64 cards = legal_now(start, contract, trump, flags);
        plays[made] = draw(2) ? rule_card(start, contract, trump, flags) : random_card(cards);
        play(start, (int)plays[made], contract, trump, flags);
    }
    answered += king_net_likelihoods(0, 1, PLAYS, made, 0, (int)draw(4), contract, trump, flags,
                                     0.3, NET_ABOUT, OUT) == 0;
    return answered;
}

/* The search bot's steps asked properly: the seat to move at `state` (io + 4), the
 * others' hands unseen, the deal's plays so far at 32 (`n` of them, led by seat 0),
 * its `k` legal cards at 140; a chunk of worlds, the choice and the summary of its
 * values, and the declarations' values; how many answered. */
static int sound_search(const i64 *state, int n, int k, int contract, int trump, int flags) {
    i64 *io = king_io();
    i64 *setup = io + SETUP;
    int me = (int)state[S_TURN];
    for (int i = 0; i < SETUP_WORDS; i++) setup[i] = 0;
    setup[K_ME] = me;
    setup[K_MY_HAND] = state[me];
    setup[K_UNSEEN] = FULL & ~state[me] & ~state[S_PLAYED];
    for (int seat = 0; seat < 4; seat++) {
        setup[K_COUNTS + seat] = seat == me ? 0 : popcount(state[seat]);
    }
    i64 replay[STATE_SIZE];
    i64 none[4] = {0, 0, 0, 0};
    new_state(replay, none, 0);
    for (int i = 0; i < n; i++) {
        int seat = (int)replay[S_TURN];
        setup[K_PLAYED_BY + seat] |= BIT(io[32 + i]);
        replay[seat] |= BIT(io[32 + i]);
        play(replay, (int)io[32 + i], contract, trump, flags);
    }
    setup[K_CONTRACT] = contract;
    setup[K_TRUMP] = trump;
    setup[K_FLAGS] = flags;
    setup[K_TAIL] = draw(3);
    setup[K_LOOKAHEAD] = draw(3) ? 0 : 1 + draw(3);
    if (setup[K_LOOKAHEAD]) setup[K_TAIL] = 0;
    setup[K_INNER] = 1 + draw(4);
    setup[K_EVERYONE] = draw(2);
    setup[K_ALIKE] = draw(2);
    setup[K_MODEL] = draw(4) == 0;
    setup[K_PLAYS] = n;
    setup[K_LEADER] = 0;
    setup[K_CANDIDATES] = k;
    io[SEED] = 1 + 2 * (i64)draw(1000);
    int count = 1 + (int)draw(40);
    int answered = king_search_chunk(SETUP, 110, 32, 140, NET_ABOUT, draw(4) ? 0.35 : 1.0,
                                     (double)draw(1000) / 1000, SEED, count, VALUES) == 0;
    answered += king_choose(VALUES, count, k, (int)draw(k), 2.0) >= 0;
    answered += king_summary(VALUES, count, k, -1, SUMMARY) == 0;
    return answered;
}

/* The declarations' values for seat 0 of a fresh deal (its hand at `hand`). */
static int sound_declaring(i64 hand, int flags) {
    i64 *io = king_io();
    i64 *setup = io + SETUP;
    for (int i = 0; i < SETUP_WORDS; i++) setup[i] = 0;
    setup[K_MY_HAND] = hand;
    setup[K_UNSEEN] = FULL & ~hand;
    for (int seat = 1; seat < 4; seat++) setup[K_COUNTS + seat] = 13;
    setup[K_CONTRACT] = NO_TRICKS;
    setup[K_TRUMP] = -1;
    setup[K_FLAGS] = flags;
    setup[K_CANDIDATES] = 1;
    for (int c = 0; c < CONTRACTS; c++) {
        io[CHOICES + 2 * c] = c;
        io[CHOICES + 2 * c + 1] = c == TRUMPS ? (int)draw(4) : -1;
    }
    io[SEED] = 1 + 2 * (i64)draw(1000);
    int count = 1 + (int)draw(16);
    return king_declare_values(SETUP, CHOICES, CONTRACTS, SEED, count, VALUES) == 0;
}

/* The solver asked properly about an ending of one to five cards a hand: the value of
 * solve_sized is solve's whatever the table, solve_moves's best card gives it for the
 * seat to move, and plain enumeration gives it too on three cards or fewer; how many
 * answered. */
static int sound_solves(int contract, int trump, int flags) {
    i64 *io = king_io();
    i64 *state = io + ENDING;
    int cards = 1 + (int)draw(5);
    if (!ending(state, cards, contract, trump, flags)) return 0;
    int me = (int)draw(4);
    int answered = king_solve(ENDING, me, contract, trump, flags, SOLVED) == 0;
    i64 value = io[SOLVED];
    int first = 4 << draw(5);
    int most = first << draw(6);
    answered += king_solve_sized(ENDING, me, contract, trump, flags, first, most, SOLVED) == 0;
    if (io[SOLVED] != value) {
        fprintf(stderr, "solve_sized(%d, %d) differs from solve\n", first, most);
        exit(1);
    }
    int turn = (int)state[S_TURN];
    answered += king_solve(ENDING, turn, contract, trump, flags, SOLVED) == 0;
    i64 mine = io[SOLVED];
    for (int card = 0; card < 52; card++) io[SOLVED + 2 + card] = -(1LL << 50);
    answered += king_solve_moves(ENDING, turn, contract, trump, flags, SOLVED + 2) == 0;
    i64 best = -(1LL << 50);
    for (int card = 0; card < 52; card++) {
        if (io[SOLVED + 2 + card] > best) best = io[SOLVED + 2 + card];
    }
    if (best != mine) {
        fprintf(stderr, "solve_moves' best card is not solve's value\n");
        exit(1);
    }
    if (cards <= 3) {
        answered += king_enumerate_value(ENDING, me, contract, trump, flags, SOLVED) == 0;
        if (io[SOLVED] != value) {
            fprintf(stderr, "plain enumeration differs from solve\n");
            exit(1);
        }
    }
    return answered;
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
        answered += sound_policies(me, k, contract, trump, flags);
        answered += sound_search(state, n, k, contract, trump, flags);
        answered += sound_declaring(hands[0], flags);
        answered += sound_solves(contract, trump, flags);
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

/* The solver's offset in nonsense: mostly its ending, sometimes off by a word or
 * anywhere, but never the whole deal at 0 (a real start: a search of every card). */
static int solver_at(void) {
    int at = draw(4) ? ENDING + (draw(4) ? 0 : (int)draw(5) - 2) : (int)random_word();
    return at == 0 ? ENDING : at;
}

/* The learned policy's description in nonsense: mostly the real one, else one with a
 * word spoiled, or random words. */
static int net_at(void) {
    i64 *io = king_io();
    for (int w = 0; w < 21; w++) io[NET_SPOILED + w] = io[NET_ABOUT + w];
    int w = (int)draw(21);
    io[NET_SPOILED + w] = draw(2) ? io[NET_SPOILED + w] + (i64)draw(3) - 1 : random_word();
    switch (draw(4)) {
        case 0: return NET_SPOILED;
        case 1: return (int)draw(200);
        default: return NET_ABOUT;
    }
}

/* Entry points fed nonsense: each must refuse it or answer, never misbehave. */
enum { NONSENSE_CALLS = 20 };

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
        for (int i = 200; i < DEALS; i++) io[i] = random_word();
        int contract = (int)draw(10) - 1, trump = (int)draw(6) - 1, flags = (int)draw(20);
        /* An ending of up to three cards a hand, a field or two sometimes spoiled. */
        if (contract >= 0 && contract < CONTRACTS && trump < 4 && flags < 16 &&
            (contract != TRUMPS || trump >= 0) &&
            ending(io + ENDING, 1 + (int)draw(3), contract, trump, flags)) {
            for (int k = (int)draw(3); k > 0; k--) io[ENDING + draw(STATE_SIZE)] = random_word();
        }
        int at = draw(8) ? (int)draw(64) : (int)random_word();
        int n = draw(4) ? (int)draw(8) : (int)random_word();
        int seat = (int)draw(6) - 1;
        int tricks = (int)draw(16) - 1, inner = draw(8) ? (int)draw(12) - 2 : (int)random_word();
        double noise = draw(4) ? 0.3 : (double)random_word() / 1e18;
        int sat = solver_at();
        int first = draw(4) ? 4 << draw(6) : (int)random_word();
        int most = draw(4) ? 4 << draw(18) : (int)random_word();
        int results[NONSENSE_CALLS] = {
            king_rule_card(at, contract, trump, flags),
            king_rule_rollouts(at, n, (int)draw(100), (int)draw(100), (int)draw(15), seat,
                               contract, trump, flags, (int)draw(15) - 1, 150),
            king_rule_likelihoods(at, n, (int)draw(100), (int)draw(60), seat, (int)draw(4),
                                  contract, trump, flags, 0.3, (int)draw(2), 150),
            king_rule_declaration_values(at, n, seat, contract, trump, flags, 150),
            king_sample_worlds(random_word(), (int)draw(100), (int)draw(100), seat,
                               random_word(), (int)draw(100), 150, n),
            king_net_card(at, contract, trump, flags, net_at()),
            king_net_rollouts(at, n, (int)draw(100), (int)draw(100), (int)draw(15), seat,
                              contract, trump, flags, net_at(), 150),
            king_net_likelihoods(at, n, (int)draw(100), (int)draw(60), seat, (int)draw(4),
                                 contract, trump, flags, noise, net_at(), 150),
            king_net_declaration_values(at, n, seat, contract, trump, flags, net_at(), 150),
            king_lookahead_card(at, contract, trump, flags, tricks, inner, (int)draw(200)),
            king_lookahead_rollouts(at, n, (int)draw(100), (int)draw(100), (int)draw(15), seat,
                                    contract, trump, flags, tricks, inner, (int)draw(3) - 1,
                                    150),
            king_solve(sat, seat, contract, trump, flags, draw(8) ? SOLVED : (int)random_word()),
            king_solve_sized(sat, seat, contract, trump, flags, first, most, SOLVED),
            king_solve_moves(sat, seat, contract, trump, flags,
                             draw(8) ? SOLVED : (int)random_word()),
            king_enumerate_value(sat, seat, contract, trump, flags, SOLVED),
            king_duel(at, n, draw(8) ? (i64)draw(1000) : random_word(), flags, (int)draw(4) - 1,
                      tricks, inner, 150),
            king_search_chunk(at, (int)draw(100), (int)draw(100), (int)draw(100), net_at(),
                              noise, (double)draw(1200) / 1000, (int)draw(200), n, 150),
            king_choose(at, n, (int)draw(15) - 1, (int)draw(15) - 1, noise),
            king_summary(at, n, (int)draw(15) - 1, (int)draw(200) - 1, 150),
            king_declare_values(at, (int)draw(100), (int)draw(20) - 1, (int)draw(200), n, 150),
        };
        for (int k = 0; k < NONSENSE_CALLS; k++) refused += results[k] < 0;
    }
    return refused;
}

/* The batched environment (batch.c): eight deals stepped soundly under random options,
 * observed both ways, then its entry points fed spoiled copies and offsets. */
enum { B_OPTIONS = 100000, B_TEMPLATES = 100100, B_COPIES = 112200, B_RESULTS = 113000,
       B_ACTIONS = 113100, B_SEEDS = 113200, B_BAD = 113300, B_OBS = 113400, B_MASKS = 128400,
       B_N = 8 };

static int batch_step(int who, int size) {
    i64 *io = king_io();
    int answered = king_batch_observe(B_COPIES, B_N, B_OPTIONS, B_RESULTS, who, size, B_OBS,
                                      B_MASKS) == 0;
    const signed char *masks = (const signed char *)(io + B_MASKS);
    for (int i = 0; i < B_N; i++) {
        io[B_ACTIONS + i] = -1;
        for (int a = 0; a < 52; a++) {
            if (masks[i * 62 + a] && draw(3) == 0) io[B_ACTIONS + i] = a;
        }
        for (int a = 0; a < 52 && io[B_ACTIONS + i] < 0; a++) {
            if (masks[i * 62 + a]) io[B_ACTIONS + i] = a;
        }
    }
    return answered + (king_batch_play(B_COPIES, B_N, B_OPTIONS, B_RESULTS, B_ACTIONS, B_BAD) == 0);
}

static int batched(int rounds) {
    i64 *io = king_io();
    int answered = 0;
    for (int r = 0; r < rounds / 10; r++) {
        i64 *o = io + B_OPTIONS;
        o[0] = draw(16), o[1] = draw(2), o[2] = draw(5) - 1, o[3] = draw(3), o[4] = draw(12) - 2;
        for (int i = 0; i < 28; i++) o[5 + i] = draw(10);
        o[33] = B_TEMPLATES;
        for (int i = 0; i < B_N; i++) io[B_SEEDS + i] = random_word();
        answered += king_batch_reset(B_COPIES, B_N, B_OPTIONS, B_RESULTS, B_SEEDS) == 0;
        int who = o[3] == 2, size = draw(2) ? 602 : 3718;
        for (int step = 0; step < 60; step++) answered += batch_step(who, size);
        for (int k = (int)draw(4); k > 0; k--) io[B_COPIES + draw(B_N * 97)] = random_word();
        if (draw(4) == 0) o[draw(34)] = random_word();
        batch_step(who, draw(4) ? size : (int)random_word());
        int at = draw(4) ? B_COPIES : (int)random_word();
        king_batch_play(at, (int)draw(600) - 10, B_OPTIONS, B_RESULTS, B_ACTIONS, B_BAD);
        king_batch_observe(at, (int)draw(600) - 10, B_OPTIONS, B_RESULTS, (int)draw(4) - 1, 602,
                           draw(4) ? B_OBS : (int)random_word(), B_MASKS);
    }
    return answered;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    make_net();
    int deals = whole_deals(rounds);
    int answered = sound_calls(rounds);
    int refused = nonsense(rounds);
    int stepped = batched(rounds);
    printf("deals %d answered %d nonsense %d refused %d batched %d\n", deals, answered, rounds,
           refused, stepped);
    return 0;
}
