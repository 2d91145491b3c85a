/* Many single deals stepped at once, for the batched environment (king.env.batch): each
 * copy is one deal, its contract declared, one seat the learner's; the other seats are
 * the rule policy, uniform random legal cards, or the caller's (a frozen snapshot).  A
 * finished deal is scored and the copy dealt again in the same call, and observations
 * are written as king.env.observation encodes them (the deal's fixed fields come from
 * templates the host computes with that encoder, so each fact is written once).
 *
 * A copy is COPY_WORDS int64 words in the exchange area (B_ offsets below); the host
 * sets the options once (O_ offsets) and reads the results (R_ offsets). */
#include "api.h"
#include "engine.h"

enum { /* a copy, after its position (22 words) */
       B_CONTRACT = STATE_SIZE, B_TRUMP, B_DECLARATION, B_DECLARER, B_LEARNER, B_EPISODE,
       B_SEED, B_PLAYED_BY, B_TAKEN = B_PLAYED_BY + 4, B_WON = B_TAKEN + 4,
       B_ORDER = B_WON + 4, B_SEQUENCE = B_ORDER + 4, COPY_WORDS = B_SEQUENCE + 52 };
enum { /* the options */
       O_FLAGS, O_TWO_OF_DIAMONDS, O_LEARNER, O_OPPONENTS, O_SCHEDULE, O_CYCLE,
       CYCLE = 28, O_TEMPLATES = O_CYCLE + CYCLE, OPTION_WORDS };
enum { /* a copy's results: a deal that ended since they were cleared */
       R_ENDED, R_POINTS, R_DECLARATION = R_POINTS + 4, R_DECLARER, R_LEARNER, RESULT_WORDS };
enum { RULE = 0, RANDOM = 1, CALLER = 2 };
enum { OBS = 602, INFORMATION = 3718, ACTIONS = 62, DECLARATIONS = 10 };
/* Where each field of the observation starts (king.env.observation.LAYOUT). */
enum { F_HAND = 0, F_WINNING = 52, F_ABOVE = 104, F_PLAYED = 156, F_TRICK = 364,
       F_LED = 520, F_VOIDS = 524, F_LEADER = 557, F_TO_ACT = 561, F_DONE = 565,
       F_WON = 566, F_PENALTY = 570, F_POINTS = 574 };
/* ... and of the information state's history (king.env.information.INFORMATION_LAYOUT). */
enum { H_CARDS = 602, H_LEADERS = 3306 };

typedef struct {
    i64 *copies, *options, *results;
    int n;
} Batch;

static int batch_of(int copies_at, int n, int options_at, int results_at, Batch *out) {
    if (n < 1 || n > IO_WORDS / COPY_WORDS) return KING_E_COUNT;
    out->copies = area(copies_at, (i64)n * COPY_WORDS);
    out->options = area(options_at, OPTION_WORDS);
    out->results = area(results_at, (i64)n * RESULT_WORDS);
    out->n = n;
    if (!out->copies || !out->options || !out->results) return KING_E_BOUNDS;
    i64 *o = out->options;
    if (!in_range(o[O_FLAGS], 0, F_FORCED | F_EARLY | F_OVERRUFF | F_TRUMP_LEAD)) return KING_E_GAME;
    if (!in_range(o[O_LEARNER], -1, 3) || !in_range(o[O_OPPONENTS], RULE, CALLER)) return KING_E_GAME;
    if (!in_range(o[O_SCHEDULE], -2, DECLARATIONS - 1)) return KING_E_GAME;
    for (int i = 0; i < CYCLE; i++) {
        if (!in_range(o[O_CYCLE + i], 0, DECLARATIONS - 1)) return KING_E_GAME;
    }
    if (!area((int)o[O_TEMPLATES], DECLARATIONS * 4 * OBS / 2)) return KING_E_BOUNDS;
    return 0;
}

/* Whether a copy holds a position the rules could reach and fields in range. */
static int copy_ok(const i64 *copy) {
    if (!position_ok(copy, 1) || copy[S_OVER]) return 0;
    if (!in_range(copy[B_DECLARATION], 0, DECLARATIONS - 1)) return 0;
    if (!game_ok((int)copy[B_CONTRACT], (int)copy[B_TRUMP], 0)) return 0;
    if (!seat_ok((int)copy[B_DECLARER]) || !seat_ok((int)copy[B_LEARNER])) return 0;
    for (int i = 0; i < 4; i++) {
        if (!in_range(copy[B_ORDER + i], 0, 51) || !in_range(copy[B_WON + i], 0, 13)) return 0;
        if ((copy[B_PLAYED_BY + i] | copy[B_TAKEN + i]) & ~FULL) return 0;
    }
    int played = popcount(copy[S_PLAYED]);
    for (int i = 0; i < played; i++) {
        if (!in_range(copy[B_SEQUENCE + i], 0, 51)) return 0;
    }
    return 1;
}

/* The declaration of the copy's next deal: fixed, the arena's cycle, or drawn from it. */
static int next_declaration(i64 *copy, const i64 *options) {
    i64 schedule = options[O_SCHEDULE];
    if (schedule >= 0) return (int)schedule;
    i64 index = schedule == -1 ? copy[B_EPISODE] % CYCLE : next_random(&copy[B_SEED]) % CYCLE;
    return (int)options[O_CYCLE + index];
}

/* Deal the copy a new deal: shuffled hands, its declarer (drawn, or the holder of the
 * two of diamonds), the next declaration, the learner's seat. */
static void deal(i64 *copy, const i64 *options) {
    int cards[52];
    for (int i = 0; i < 52; i++) cards[i] = i;
    for (int i = 51; i > 0; i--) {
        int j = (int)(next_random(&copy[B_SEED]) % (i + 1));
        int swap = cards[i];
        cards[i] = cards[j];
        cards[j] = swap;
    }
    i64 hands[4] = {0, 0, 0, 0};
    for (int i = 0; i < 52; i++) hands[i / 13] |= BIT(cards[i]);
    int declarer = (int)(next_random(&copy[B_SEED]) % 4);
    if (options[O_TWO_OF_DIAMONDS]) {
        for (int seat = 0; seat < 4; seat++) {
            if (hands[seat] & BIT(26)) declarer = seat;
        }
    }
    int declaration = next_declaration(copy, options);
    new_state(copy, hands, declarer);
    copy[B_DECLARATION] = declaration;
    copy[B_CONTRACT] = declaration < 6 ? declaration + 1 : TRUMPS;
    copy[B_TRUMP] = declaration < 6 ? -1 : declaration - 6;
    copy[B_DECLARER] = declarer;
    i64 learner = options[O_LEARNER];
    copy[B_LEARNER] = learner >= 0 ? learner : next_random(&copy[B_SEED]) % 4;
    copy[B_EPISODE] += 1;
    for (int i = B_PLAYED_BY; i < COPY_WORDS; i++) copy[i] = 0;
}

static i64 legal_of(const i64 *copy, int flags) {
    return legal_now(copy, (int)copy[B_CONTRACT], (int)copy[B_TRUMP], flags);
}

/* Play `card` for the seat to move, keeping what the observation needs; a finished
 * deal is written to `result` and the copy dealt again. */
static void play_card(i64 *copy, int card, const i64 *options, i64 *result) {
    int flags = (int)options[O_FLAGS];
    int turn = (int)copy[S_TURN];
    i64 trick = copy[S_TRICK] | BIT(card);
    copy[B_ORDER + copy[S_COUNT]] = card;
    copy[B_SEQUENCE + popcount(copy[S_PLAYED])] = card;
    copy[B_PLAYED_BY + turn] |= BIT(card);
    play(copy, card, (int)copy[B_CONTRACT], (int)copy[B_TRUMP], flags);
    if (copy[S_COUNT] == 0) { /* the trick closed: its winner leads next */
        int winner = (int)copy[S_LEADER];
        copy[B_TAKEN + winner] |= trick;
        copy[B_WON + winner] += 1;
    }
    if (!copy[S_OVER]) return;
    result[R_ENDED] = 1;
    for (int seat = 0; seat < 4; seat++) result[R_POINTS + seat] = copy[S_POINTS + seat];
    result[R_DECLARATION] = copy[B_DECLARATION];
    result[R_DECLARER] = copy[B_DECLARER];
    result[R_LEARNER] = copy[B_LEARNER];
    deal(copy, options);
}

/* A uniformly random legal card. */
static int random_card(i64 *copy, i64 legal) {
    int pick = (int)(next_random(&copy[B_SEED]) % popcount(legal));
    for (int i = 0; i < pick; i++) legal &= legal - 1;
    return lowest(legal);
}

/* Let the bots move until the learner must (a deal that ends is dealt again). */
static void bots(i64 *copy, const i64 *options, i64 *result) {
    int flags = (int)options[O_FLAGS];
    while (copy[S_TURN] != copy[B_LEARNER]) {
        i64 legal = legal_of(copy, flags);
        int card = options[O_OPPONENTS] == RULE
                       ? rule_card(copy, (int)copy[B_CONTRACT], (int)copy[B_TRUMP], flags)
                       : random_card(copy, legal);
        play_card(copy, card, options, result);
    }
}

/* Deal every copy afresh from `seeds` (one a copy), episodes counted from 0, and let the
 * bots move until the learners must. */
EXPORT(king_batch_reset)
int king_batch_reset(int copies_at, int n, int options_at, int results_at, int seeds_at) {
    Batch b;
    int refused = batch_of(copies_at, n, options_at, results_at, &b);
    if (refused) return refused;
    const i64 *seeds = area(seeds_at, n);
    if (!seeds) return KING_E_BOUNDS;
    for (int i = 0; i < n; i++) {
        i64 *copy = b.copies + (i64)i * COPY_WORDS;
        copy[B_EPISODE] = 0;
        copy[B_SEED] = seeds[i] ? seeds[i] : 1; /* xorshift never leaves zero */
        deal(copy, b.options);
        i64 *result = b.results + (i64)i * RESULT_WORDS;
        if (b.options[O_OPPONENTS] != CALLER) bots(copy, b.options, result);
    }
    return 0;
}

/* Play actions[i] in copy i (none when negative) for the seat to move: every action is
 * checked first, and a card that is not legal there refuses the whole call (nothing
 * played), its copy's index written to `bad[0]`.  Then, unless the other seats are the
 * caller's, the bots move until the learners must. */
EXPORT(king_batch_play)
int king_batch_play(int copies_at, int n, int options_at, int results_at, int actions_at,
                    int bad_at) {
    Batch b;
    int refused = batch_of(copies_at, n, options_at, results_at, &b);
    if (refused) return refused;
    const i64 *actions = area(actions_at, n);
    i64 *bad = area(bad_at, 1);
    if (!actions || !bad) return KING_E_BOUNDS;
    int flags = (int)b.options[O_FLAGS];
    for (int i = 0; i < n; i++) {
        const i64 *copy = b.copies + (i64)i * COPY_WORDS;
        if (!copy_ok(copy)) return KING_E_POSITION;
        if (actions[i] < 0) continue;
        if (actions[i] > 51 || !(legal_of(copy, flags) & BIT(actions[i]))) {
            bad[0] = i;
            return KING_E_CARD;
        }
    }
    for (int i = 0; i < n; i++) {
        i64 *copy = b.copies + (i64)i * COPY_WORDS;
        i64 *result = b.results + (i64)i * RESULT_WORDS;
        if (actions[i] >= 0) play_card(copy, (int)actions[i], b.options, result);
        if (b.options[O_OPPONENTS] != CALLER) bots(copy, b.options, result);
    }
    return 0;
}

/* The winning cards of the hand now (king.env.observation._winning_mask). */
static i64 winning(const i64 *copy, i64 hand) {
    if (copy[S_COUNT] == 0) return hand;
    int best = (int)copy[S_TOP];
    int trump = (int)copy[B_TRUMP];
    i64 above = SUITS[best / 13] & ~((((i64)2) << best) - 1);
    i64 winners = hand & above;
    if (trump >= 0 && best / 13 != trump) winners |= hand & SUITS[trump];
    return winners;
}

static void planes(float *out, const i64 *copy, int me) {
    i64 hand = copy[me];
    i64 win = winning(copy, hand);
    i64 seen = hand | copy[S_PLAYED];
    for (int card = 0; card < 52; card++) {
        if (!(hand & BIT(card))) continue;
        out[F_HAND + card] = 1.0f;
        if (win & BIT(card)) out[F_WINNING + card] = 1.0f;
        i64 above = SUITS[card / 13] & ~((((i64)2) << card) - 1) & ~seen;
        if (above) out[F_ABOVE + card] = (float)popcount(above) / 12.0f;
    }
    for (int seat = 0; seat < 4; seat++) {
        int rel = (seat - me) & 3;
        i64 mine = copy[B_PLAYED_BY + seat];
        while (mine) {
            out[F_PLAYED + 52 * rel + lowest(mine)] = 1.0f;
            mine &= mine - 1;
        }
    }
    for (int position = 0; position < copy[S_COUNT]; position++) {
        out[F_TRICK + 52 * position + copy[B_ORDER + position]] = 1.0f;
    }
}

static void seats(float *out, const i64 *copy, int me) {
    int contract = (int)copy[B_CONTRACT];
    i64 penalty = PENALTY[contract];
    int penalty_count = popcount(penalty);
    if (copy[S_COUNT]) out[F_LED + copy[S_LED]] = 1.0f;
    out[F_LEADER + ((copy[S_LEADER] - me) & 3)] = 1.0f;
    out[F_TO_ACT + ((copy[S_TURN] - me) & 3)] = 1.0f;
    out[F_DONE] = (float)copy[S_TRICKS] / 13.0f;
    for (int seat = 0; seat < 4; seat++) {
        int rel = (seat - me) & 3;
        for (int suit = 0; suit < 4; suit++) {
            if ((copy[S_VOIDS + seat] >> suit) & 1) out[F_VOIDS + 4 * rel + suit] = 1.0f;
        }
        out[F_WON + rel] = (float)copy[B_WON + seat] / 13.0f;
        out[F_POINTS + rel] = (float)copy[S_POINTS + seat] / 650.0f;
        if (penalty_count) {
            out[F_PENALTY + rel] =
                (float)popcount(copy[B_TAKEN + seat] & penalty) / (float)penalty_count;
        }
    }
}

/* The deal's cards in the order played, by trick and position, and each trick's
 * leader (the information state's history; a single deal has no finished deals). */
static void history(float *out, const i64 *copy, int me) {
    int played = popcount(copy[S_PLAYED]);
    for (int i = 0; i < played; i++) {
        int card = (int)copy[B_SEQUENCE + i];
        out[H_CARDS + 208 * (i / 4) + 52 * (i % 4) + card] = 1.0f;
        if (i % 4) continue;
        for (int seat = 0; seat < 4; seat++) {
            if (!(copy[B_PLAYED_BY + seat] & BIT(card))) continue;
            out[H_LEADERS + 4 * (i / 4) + ((seat - me) & 3)] = 1.0f;
        }
    }
}

/* The observation (`size` OBS, or INFORMATION with the history) and the action mask of
 * each copy for its learner (`who` 0) or for the seat to move (`who` 1). */
EXPORT(king_batch_observe)
int king_batch_observe(int copies_at, int n, int options_at, int results_at, int who,
                       int size, int obs_at, int masks_at) {
    Batch b;
    int refused = batch_of(copies_at, n, options_at, results_at, &b);
    if (refused) return refused;
    if (size != OBS && size != INFORMATION) return KING_E_GAME;
    float *obs = (float *)area(obs_at, (i64)n * size / 2);
    i64 *mask_words = area(masks_at, ((i64)n * ACTIONS + 7) / 8);
    if (!obs || !mask_words) return KING_E_BOUNDS;
    if (who < 0 || who > 1) return KING_E_GAME;
    const float *templates = (const float *)area((int)b.options[O_TEMPLATES], 1);
    signed char *masks = (signed char *)mask_words;
    int flags = (int)b.options[O_FLAGS];
    for (int i = 0; i < n; i++) {
        if (!copy_ok(b.copies + (i64)i * COPY_WORDS)) return KING_E_POSITION;
    }
    for (int i = 0; i < n; i++) {
        const i64 *copy = b.copies + (i64)i * COPY_WORDS;
        int me = (int)(who ? copy[S_TURN] : copy[B_LEARNER]);
        int rel = (int)((copy[B_DECLARER] - me) & 3);
        const float *fixed = templates + ((i64)copy[B_DECLARATION] * 4 + rel) * OBS;
        float *out = obs + (i64)i * size;
        for (int k = 0; k < OBS; k++) out[k] = fixed[k];
        for (int k = OBS; k < size; k++) out[k] = 0.0f;
        planes(out, copy, me);
        seats(out, copy, me);
        if (size == INFORMATION) history(out, copy, me);
        i64 legal = copy[S_TURN] == me ? legal_of(copy, flags) : 0;
        for (int a = 0; a < ACTIONS; a++) masks[(i64)i * ACTIONS + a] = a < 52 && ((legal >> a) & 1);
    }
    return 0;
}
