/* The search bot's steps (king.bots.search), in the engine so that CPython and the
 * browser run one search, bit for bit: a chunk of worlds dealt to fit what the seat
 * knows, weighted by how likely the others' plays were in each and resampled, every
 * candidate played out in each; the choice between the rule bot's card and the best one;
 * and what each choice is worth, with its standard error, for hints and analysis.
 *
 * A search's worlds come in chunks of at most SEARCH_MOST_WORLDS; each chunk is dealt
 * from its own seed and resampled at its own offset `u`, both drawn by the bot, so the
 * values do not depend on how many threads run the chunks. */
#include <math.h>

#include "api.h"
#include "engine.h"

#define SEARCH_MOST_WORLDS 1024

/* What the seat knows and how it searches: the words at `setup_at`, at the K_ offsets
 * of tables.h (generated from king.bots.engine.steps.SETUP_FIELDS). */
enum { POLICY_RULE = 0, POLICY_NET = 1 };

typedef struct {
    int me, contract, trump, flags, tail, lookahead, inner, everyone, alike, model, rollout;
    int n_plays, leader, n_candidates;
    i64 unseen, my_hand, counts[4], forbidden[4], played_by[4];
    const i64 *base, *plays, *candidates;
    Net net;
} Search;

static i64 pool[4 * 2 * SEARCH_MOST_WORLDS];
static double weights[2 * SEARCH_MOST_WORLDS];

/* -- reading and checking the setup ------------------------------------------------ */

static int setup_ok(const i64 *k) {
    if (!seat_ok((int)k[K_ME]) || !seat_ok((int)k[K_LEADER])) return 0;
    if (!game_ok((int)k[K_CONTRACT], (int)k[K_TRUMP], (int)k[K_FLAGS])) return 0;
    if ((k[K_UNSEEN] | k[K_MY_HAND]) & ~FULL || k[K_UNSEEN] & k[K_MY_HAND]) return 0;
    i64 held = 0;
    for (int seat = 0; seat < 4; seat++) {
        if (!in_range(k[K_COUNTS + seat], 0, 13)) return 0;
        if (seat != k[K_ME]) held += k[K_COUNTS + seat];
    }
    if (held != popcount(k[K_UNSEEN])) return 0; /* the unseen cards fill the others' hands */
    return in_range(k[K_TAIL], 0, 13) && in_range(k[K_LOOKAHEAD], 0, 13) &&
           in_range(k[K_INNER], 0, 64) && in_range(k[K_EVERYONE], 0, 1) &&
           in_range(k[K_ALIKE], 0, 1) && in_range(k[K_MODEL], 0, 1) &&
           in_range(k[K_ROLLOUT], 0, 1) && in_range(k[K_PLAYS], 0, 52) &&
           in_range(k[K_CANDIDATES], 1, 13);
}

static void setup_read(const i64 *k, Search *s) {
    s->me = (int)k[K_ME];
    s->unseen = k[K_UNSEEN];
    s->my_hand = k[K_MY_HAND];
    for (int seat = 0; seat < 4; seat++) {
        s->counts[seat] = k[K_COUNTS + seat];
        s->forbidden[seat] = k[K_FORBIDDEN + seat];
        s->played_by[seat] = k[K_PLAYED_BY + seat];
    }
    s->contract = (int)k[K_CONTRACT];
    s->trump = (int)k[K_TRUMP];
    s->flags = (int)k[K_FLAGS];
    s->tail = (int)k[K_TAIL];
    s->lookahead = (int)k[K_LOOKAHEAD];
    s->inner = (int)k[K_INNER];
    s->everyone = (int)k[K_EVERYONE];
    s->alike = (int)k[K_ALIKE];
    s->model = (int)k[K_MODEL];
    s->rollout = (int)k[K_ROLLOUT];
    s->n_plays = (int)k[K_PLAYS];
    s->leader = (int)k[K_LEADER];
    s->n_candidates = (int)k[K_CANDIDATES];
}

/* Read the setup and its arrays: 0, or the KING_E_ code of what is wrong. */
static int search_from(int setup_at, int base_at, int plays_at, int candidates_at, int net_at,
                       Search *s) {
    const i64 *k = area(setup_at, SETUP_WORDS);
    if (!k) return KING_E_BOUNDS;
    if (!setup_ok(k)) return KING_E_GAME;
    setup_read(k, s);
    s->base = area(base_at, STATE_SIZE);
    s->plays = area(plays_at, s->n_plays);
    s->candidates = area(candidates_at, s->n_candidates);
    if (!s->base || !s->plays || !s->candidates) return KING_E_BOUNDS;
    int uses_net = s->model == POLICY_NET || s->rollout == POLICY_NET;
    if (uses_net) return net_from(net_at, &s->net);
    return 0;
}

/* -- dealing ----------------------------------------------------------------------- */

/* A systematic (backtracking) deal of cards `order[from..n)` to the seats with room, for
 * the rare world the random deal gave up on (king.bots.search.sampler's _search_deal). */
static int deal_from(const int *order, int from, int n, const Search *s, i64 *room,
                     i64 *hands) {
    if (from == n) return 1;
    int card = order[from];
    for (int seat = 0; seat < 4; seat++) {
        if (seat == s->me || !room[seat] || (s->forbidden[seat] >> card) & 1) continue;
        room[seat] -= 1;
        hands[seat] |= BIT(card);
        if (deal_from(order, from + 1, n, s, room, hands)) return 1;
        room[seat] += 1;
        hands[seat] ^= BIT(card);
    }
    return 0;
}

/* How many other seats may hold `card`. */
static int takers(const Search *s, int card) {
    int count = 0;
    for (int seat = 0; seat < 4; seat++) {
        count += seat != s->me && !((s->forbidden[seat] >> card) & 1);
    }
    return count;
}

static int search_deal(const Search *s, i64 *hands) {
    int order[52];
    int n = 0;
    for (int allowed = 0; allowed < 4; allowed++) { /* the most constrained cards first */
        for (i64 rest = s->unseen; rest; rest &= rest - 1) {
            if (takers(s, lowest(rest)) == allowed) order[n++] = lowest(rest);
        }
    }
    i64 room[4];
    for (int seat = 0; seat < 4; seat++) {
        room[seat] = seat == s->me ? 0 : s->counts[seat];
        hands[seat] = 0;
    }
    hands[s->me] = s->my_hand;
    return deal_from(order, 0, n, s, room, hands);
}

/* `n` worlds at `out`, dealt at random from `seed`, the rare one the random deal gives
 * up on dealt systematically; 0, or KING_E_POSITION when no deal fits. */
static int deal_worlds(const Search *s, i64 *seed, int n, i64 *out) {
    int failures = sample_worlds(s->unseen, s->counts, s->forbidden, s->me, s->my_hand, seed,
                                 out, n);
    for (int w = 0; failures && w < n; w++) {
        if (out[4 * w + s->me] == 0 && s->my_hand && !search_deal(s, out + 4 * w)) {
            return KING_E_POSITION;
        }
    }
    return 0;
}

/* -- weighting by the others' plays ---------------------------------------------- */

/* Whether a seat other than `me` has played this deal (the seats of the plays follow
 * from the cards alone: who leads each trick is who took the last). */
static int others_played(const Search *s) {
    i64 state[STATE_SIZE];
    i64 none[4] = {0, 0, 0, 0};
    new_state(state, none, s->leader);
    for (int i = 0; i < s->n_plays; i++) {
        if (state[S_TURN] != s->me) return 1;
        state[state[S_TURN]] |= BIT(s->plays[i]);
        play(state, (int)s->plays[i], s->contract, s->trump, s->flags);
    }
    return 0;
}

/* The log-probability of the others' plays in world `hands` (current hands). */
static int log_likelihood(const Search *s, const i64 *hands, double noise, double *out) {
    i64 dealt[4];
    for (int seat = 0; seat < 4; seat++) dealt[seat] = hands[seat] | s->played_by[seat];
    if (!deal_ok(dealt)) return KING_E_POSITION;
    if (s->model == POLICY_NET) {
        return net_world_likelihood(dealt, s->plays, s->n_plays, s->leader, s->me, s->contract,
                                    s->trump, s->flags, noise, &s->net, out);
    }
    return rule_world_likelihood(dealt, s->plays, s->n_plays, s->leader, s->me, s->contract,
                                 s->trump, s->flags, noise, s->alike, out);
}

/* `count` worlds of the `2 * count` at `pool`, drawn in proportion to their likelihood
 * by systematic resampling at offset `u` (0 <= u < 1), into `out`. */
static int resample(const Search *s, double noise, double u, int count, i64 *out) {
    int n = 2 * count;
    double most = -INFINITY;
    for (int w = 0; w < n; w++) {
        int status = log_likelihood(s, pool + 4 * w, noise, &weights[w]);
        if (status) return status;
        if (weights[w] > most) most = weights[w];
    }
    double total = 0.0;
    for (int w = 0; w < n; w++) {
        weights[w] = exp(weights[w] - most);
        total += weights[w];
    }
    double running = 0.0;
    int pick = 0;
    for (int i = 0; i < count; i++) {
        double position = (u + i) / count * total;
        while (pick < n - 1 && running + weights[pick] < position) running += weights[pick++];
        for (int seat = 0; seat < 4; seat++) out[4 * i + seat] = pool[4 * pick + seat];
    }
    return 0;
}

/* -- playing out ------------------------------------------------------------------ */

/* The seat's points after candidate `i` in the world `state` (hands filled in). */
static i64 playout(const Search *s, const i64 *state, int i) {
    i64 child[STATE_SIZE];
    i64 stack[15 * STATE_SIZE];
    for (int k = 0; k < STATE_SIZE; k++) child[k] = state[k];
    int contract = s->contract, trump = s->trump, flags = s->flags;
    i64 seed = world_seed(state, i);
    play(child, (int)s->candidates[i], contract, trump, flags);
    while (!child[S_OVER]) {
        int mine = s->everyone || child[S_TURN] == s->me;
        if (s->rollout == POLICY_NET) {
            play(child, net_card(child, contract, trump, flags, &s->net), contract, trump, flags);
        } else if (s->lookahead && mine) {
            play(child, lookahead_card(child, contract, trump, flags, s->lookahead, s->inner, &seed),
                 contract, trump, flags);
        } else if (!s->lookahead && 13 - child[S_TRICKS] <= s->tail && child[S_COUNT] == 0) {
            return best_reply(child, s->me, contract, trump, flags, stack);
        } else {
            play(child, rule_card(child, contract, trump, flags), contract, trump, flags);
        }
    }
    return child[S_POINTS + s->me];
}

static int play_out(const Search *s, const i64 *worlds, int count, i64 *values) {
    i64 state[STATE_SIZE];
    for (int w = 0; w < count; w++) {
        int status = rollout_world(state, s->base, worlds + 4 * w, s->candidates,
                                   s->n_candidates, s->me, s->contract, s->trump, s->flags);
        if (status) return status;
        for (int i = 0; i < s->n_candidates; i++) {
            values[(i64)w * s->n_candidates + i] = playout(s, state, i);
        }
    }
    return 0;
}

/* A chunk of the search: `count` worlds (at most SEARCH_MOST_WORLDS) dealt from `seed`
 * (advanced), weighted by the others' plays and resampled at `u` when they have played
 * and `noise` < 1, and each candidate's value in each at `values_at` (`count` rows of
 * one value a candidate). */
EXPORT(king_search_chunk)
int king_search_chunk(int setup_at, int base_at, int plays_at, int candidates_at, int net_at,
                      double noise, double u, int seed_at, int count, int values_at) {
    Search s;
    int status = search_from(setup_at, base_at, plays_at, candidates_at, net_at, &s);
    if (status) return status;
    i64 *seed = area(seed_at, 1);
    if (!in_range(count, 1, SEARCH_MOST_WORLDS)) return KING_E_COUNT;
    i64 *values = area(values_at, (i64)count * s.n_candidates);
    if (!seed || !values) return KING_E_BOUNDS;
    if (!(noise >= 0.0 && noise <= 1.0) || !(u >= 0.0 && u < 1.0)) return KING_E_GAME;
    static i64 chosen[4 * SEARCH_MOST_WORLDS];
    const i64 *worlds = pool;
    if (noise < 1.0 && others_played(&s)) {
        status = deal_worlds(&s, seed, 2 * count, pool);
        if (!status) status = resample(&s, noise, u, count, chosen);
        worlds = chosen;
    } else {
        status = deal_worlds(&s, seed, count, pool);
    }
    if (status) return status;
    return play_out(&s, worlds, count, values);
}

/* -- choosing ----------------------------------------------------------------------- */

/* Column `a` of the `n` x `c` table less column `b` (or nothing, for `b` < 0) in world
 * `w`. */
static double gap(const i64 *values, int c, int w, int a, int b) {
    i64 row = (i64)w * c;
    return (double)values[row + a] - (b < 0 ? 0.0 : (double)values[row + b]);
}

/* The mean over the worlds of column `a` less column `b` (`b` < 0: of column `a`), and
 * the standard error of that mean (0 with fewer than two worlds). */
static void spread(const i64 *values, int n, int c, int a, int b, double *mean, double *error) {
    double total = 0.0;
    for (int w = 0; w < n; w++) total += gap(values, c, w, a, b);
    *mean = total / n;
    double squares = 0.0;
    for (int w = 0; w < n; w++) {
        double off = gap(values, c, w, a, b) - *mean;
        squares += off * off;
    }
    *error = n > 1 ? sqrt(squares / (n - 1)) / sqrt((double)n) : 0.0;
}

static double offset_of(const double *offsets, int j) { return offsets ? offsets[j] : 0.0; }

/* The column with the highest mean, offsets added (the first of equals). */
static int best_column(const i64 *values, int n, int c, const double *offsets) {
    int best = 0;
    double top = -INFINITY;
    for (int j = 0; j < c; j++) {
        double mean, error;
        spread(values, n, c, j, -1, &mean, &error);
        if (mean + offset_of(offsets, j) > top) {
            best = j;
            top = mean + offset_of(offsets, j);
        }
    }
    return best;
}

static int table_from(int values_at, int n, int c, const i64 **values) {
    if (!in_range(n, 1, IO_WORDS) || !in_range(c, 1, 64)) return KING_E_COUNT;
    *values = area(values_at, (i64)n * c);
    return *values ? 0 : KING_E_BOUNDS;
}

/* The search bot's card among `c` candidates valued in `n` worlds (`values_at`): the
 * rule bot's (column `prior`) unless the best column beats it by more than `margin`
 * standard errors of their paired difference; its column. */
EXPORT(king_choose)
int king_choose(int values_at, int n, int c, int prior, double margin) {
    const i64 *values;
    int status = table_from(values_at, n, c, &values);
    if (status) return status;
    if (!in_range(prior, 0, c - 1) || !(margin >= 0.0)) return KING_E_GAME;
    int best = best_column(values, n, c, 0);
    if (best == prior || n < 2) return prior;
    double mean, error;
    spread(values, n, c, best, prior, &mean, &error);
    return mean > margin * error ? best : prior;
}

/* What each of `c` choices valued in `n` worlds is worth (`offsets_at`: a double a
 * choice added to its values, or -1 for none): at `out_at`, as doubles, the best choice,
 * then for each choice its mean, the standard error of that mean, and the mean and
 * standard error of what it gives up against the best over the same worlds. */
EXPORT(king_summary)
int king_summary(int values_at, int n, int c, int offsets_at, int out_at) {
    const i64 *values;
    int status = table_from(values_at, n, c, &values);
    if (status) return status;
    const double *offsets = offsets_at < 0 ? 0 : (const double *)area(offsets_at, c);
    double *out = (double *)area(out_at, 1 + 4 * (i64)c);
    if ((offsets_at >= 0 && !offsets) || !out) return KING_E_BOUNDS;
    int best = best_column(values, n, c, offsets);
    out[0] = best;
    for (int j = 0; j < c; j++) {
        spread(values, n, c, j, -1, &out[1 + j], &out[1 + c + j]);
        out[1 + j] += offset_of(offsets, j);
        spread(values, n, c, best, j, &out[1 + 2 * c + j], &out[1 + 3 * c + j]);
        out[1 + 2 * c + j] += offset_of(offsets, best) - offset_of(offsets, j);
    }
    return 0;
}

/* -- declaring ---------------------------------------------------------------------- */

/* What each of `n_choices` declarations (`choices_at`: a contract and a trump, -1 for
 * none, each) is worth to the seat about to declare, in `count` deals of the others'
 * hands drawn from `seed` (advanced) to fit what it knows (`setup_at`: its first words,
 * up to the cards each seat played, and the rules' flags at K_FLAGS), every seat then
 * playing the rule policy: its points, one row a deal, at `values_at`. */
EXPORT(king_declare_values)
int king_declare_values(int setup_at, int choices_at, int n_choices, int seed_at, int count,
                        int values_at) {
    const i64 *k = area(setup_at, SETUP_WORDS);
    if (!k) return KING_E_BOUNDS;
    if (!in_range(n_choices, 1, 16) || !in_range(count, 1, 2 * SEARCH_MOST_WORLDS)) {
        return KING_E_COUNT;
    }
    const i64 *choices = area(choices_at, 2 * (i64)n_choices);
    i64 *seed = area(seed_at, 1);
    i64 *values = area(values_at, (i64)count * n_choices);
    if (!choices || !seed || !values) return KING_E_BOUNDS;
    if (!setup_ok(k)) return KING_E_GAME;
    for (int i = 0; i < n_choices; i++) {
        if (!game_ok((int)choices[2 * i], (int)choices[2 * i + 1], (int)k[K_FLAGS])) {
            return KING_E_GAME;
        }
    }
    Search s;
    setup_read(k, &s);
    int status = deal_worlds(&s, seed, count, pool);
    if (status) return status;
    i64 state[STATE_SIZE];
    for (int w = 0; w < count; w++) {
        if (!deal_ok(pool + 4 * w)) return KING_E_POSITION;
        for (int i = 0; i < n_choices; i++) {
            new_state(state, pool + 4 * w, s.me);
            rule_playout(state, (int)choices[2 * i], (int)choices[2 * i + 1], s.flags);
            values[(i64)w * n_choices + i] = state[S_POINTS + s.me];
        }
    }
    return 0;
}
