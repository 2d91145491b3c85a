/* The exact solver for the end of a deal: a port of king.bots.search.solver, function for
 * function and in the same order (paranoid alpha-beta, one seat against the other
 * three, MTD(f) over a transposition table), so that it visits the same nodes in the
 * same order: tests/bots/test_engine_solver.py holds the two to the same value AND the
 * same node count on thousands of endings, the proof that the port is faithful.
 *
 * Its memory is static (the stack of positions and the table), as the module has no
 * allocator; the table is MOST_ROWS rows, 8 MiB, of the module's fixed 32 MiB. */
#include "api.h"
#include "engine.h"

#define NEG_INF (-(((i64)1) << 40))
#define POS_INF (((i64)1) << 40)

/* -- a fast policy ---------------------------------------------------------------- */

static int rank_of(int card) { return card % 13; }

/* The cards of `card`'s suit above it that have not been seen (`gone` holds the cards
 * played and in one's own hand). */
static i64 outstanding_above(int card, i64 gone) {
    i64 above = SUITS[card / 13] & ~((((i64)2) << card) - 1);
    return above & ~gone;
}

/* Following suit in a negative contract: duck under the top as high as possible, else
 * take the trick with the highest card. */
static int policy_follow_negative(i64 legal_cards, i64 trick, int led, int top, int count,
                                  int contract, i64 penalty, int tricks_done) {
    i64 follow = legal_cards & SUITS[led];
    i64 below = top / 13 == led ? follow & (BIT(top) - 1) : follow;
    int last_tricks = contract == NO_LAST_TWO && tricks_done >= 11;
    int clean = penalty == 0 || (trick & penalty) == 0;
    if (count == 3 && contract != NO_TRICKS && !last_tricks && clean &&
        (contract == NO_LAST_TWO || (follow & penalty) == 0)) {
        /* Last to play to a trick with nothing in it: take it with the highest card. */
        return highest(follow);
    }
    if (below != 0) return highest(below); /* duck as high as possible */
    if (count == 3) return highest(follow); /* taking it anyway: shed the highest */
    /* Cannot duck and others still to play: play the highest unless it is a penalty
     * card that someone else might still be forced to take. */
    int high = highest(follow);
    i64 spare = follow & ~penalty;
    if ((BIT(high) & penalty) && spare != 0) return highest(spare);
    return high;
}

/* Void in the led suit in a negative contract: shed the most dangerous card. */
static int policy_discard_negative(i64 hand, i64 legal_cards, i64 gone, int contract,
                                   i64 penalty) {
    i64 danger = legal_cards & penalty;
    if (danger != 0) return highest(danger);
    int best = -1;
    int best_score = -1000;
    for (int suit = 0; suit < 4; suit++) {
        i64 field = legal_cards & SUITS[suit];
        if (field == 0) continue;
        int card = highest(field);
        int length = popcount(hand & SUITS[suit]);
        int score = rank_of(card) * 4 - length * 3;
        if (contract == NO_BOYS || contract == NO_QUEENS || contract == NO_KING) {
            /* Protect against being forced to take a penalty card of this suit later. */
            if (SUITS[suit] & penalty & ~gone) score += 6;
        }
        if (score > best_score) {
            best_score = score;
            best = card;
        }
    }
    return best;
}

static int policy_lead_negative(i64 hand, i64 legal_cards, i64 gone, i64 penalty) {
    int best = -1;
    int best_score = 1 << 30;
    for (int suit = 0; suit < 4; suit++) {
        i64 field = legal_cards & SUITS[suit];
        if (field == 0) continue;
        int card = lowest(field);
        int others_above = popcount(outstanding_above(card, gone));
        int others_below = popcount(SUITS[suit] & ~gone & (BIT(card) - 1));
        /* Prefer a low card that many unseen cards beat and few unseen cards duck under. */
        int score = others_below * 10 - others_above * 3;
        if (others_above == 0) score += 100; /* everything else is below: this lead wins */
        if (penalty != 0) {
            if (BIT(card) & penalty) {
                score += 60;
            } else if ((SUITS[suit] & penalty & ~gone) &&
                       popcount(SUITS[suit] & penalty & hand) == 0) {
                score -= 8; /* flush out a penalty card someone else holds */
            }
        }
        if (score < best_score) {
            best_score = score;
            best = card;
        }
    }
    return best;
}

/* Leading in Trumps: cash a sure winner (trumps first while others may hold trumps),
 * else lead low from the longest side suit. */
static int policy_lead_trumps(i64 legal_cards, i64 gone, int trump) {
    i64 trump_suit = SUITS[trump];
    i64 trumps = legal_cards & trump_suit;
    if (trumps != 0) {
        int high = highest(trumps);
        if (outstanding_above(high, gone) == 0 && (trump_suit & ~gone) != 0) return high;
    }
    for (int suit = 0; suit < 4; suit++) {
        i64 field = legal_cards & SUITS[suit];
        if (field != 0 && suit != trump) {
            int high = highest(field);
            if (outstanding_above(high, gone) == 0) return high;
        }
    }
    int best = -1;
    int best_len = -1;
    for (int suit = 0; suit < 4; suit++) {
        i64 field = legal_cards & SUITS[suit];
        if (field != 0 && suit != trump) {
            int length = popcount(field);
            if (length > best_len) {
                best_len = length;
                best = lowest(field);
            }
        }
    }
    if (best >= 0) return best;
    return lowest(legal_cards);
}

/* Following suit in Trumps: win as cheaply as is sure, else play low. */
static int policy_follow_trumps(i64 legal_cards, int led, int top, int count, i64 gone,
                                int top_is_trump) {
    i64 follow = legal_cards & SUITS[led];
    if (top_is_trump) return lowest(follow);
    i64 winners = follow & ~((((i64)2) << top) - 1);
    if (winners == 0) return lowest(follow);
    if (count == 3) return lowest(winners);
    int high = highest(winners);
    if (outstanding_above(high, gone) == 0) return high;
    return lowest(follow);
}

static int policy_trumps(i64 hand, i64 legal_cards, int led, int top, int count, i64 gone,
                         int trump) {
    i64 trump_suit = SUITS[trump];
    if (led < 0) return policy_lead_trumps(legal_cards, gone, trump);
    int top_is_trump = top / 13 == trump && led != trump;
    if ((legal_cards & SUITS[led]) != 0) {
        return policy_follow_trumps(legal_cards, led, top, count, gone, top_is_trump);
    }
    i64 trumps = legal_cards & trump_suit;
    if (trumps != 0) {
        if (top_is_trump) {
            i64 over = trumps & ~((((i64)2) << top) - 1);
            if (over != 0) return lowest(over);
        }
        return lowest(trumps);
    }
    /* Discard: the lowest card of the shortest side suit. */
    int best = -1;
    int best_len = 99;
    for (int suit = 0; suit < 4; suit++) {
        i64 field = legal_cards & SUITS[suit];
        if (field != 0) {
            int length = popcount(hand & SUITS[suit]);
            if (length < best_len) {
                best_len = length;
                best = lowest(field);
            }
        }
    }
    return best;
}

/* A quick heuristic card choice from what the player knows (its hand, the trick, the
 * cards played): the solver's first guess of the value plays it. */
static int policy(i64 hand, i64 legal_cards, i64 trick, int led, int top, int count,
                  i64 played, int tricks_done, int contract, int trump) {
    if (popcount(legal_cards) == 1) return lowest(legal_cards);
    i64 gone = played | hand;
    if (contract == TRUMPS) return policy_trumps(hand, legal_cards, led, top, count, gone, trump);
    i64 penalty = PENALTY[contract];
    if (led < 0) return policy_lead_negative(hand, legal_cards, gone, penalty);
    if ((legal_cards & SUITS[led]) != 0) {
        return policy_follow_negative(legal_cards, trick, led, top, count, contract, penalty,
                                      tricks_done);
    }
    return policy_discard_negative(hand, legal_cards, gone, contract, penalty);
}

/* The policy's card for the seat to move in `state`. */
static int policy_move(const i64 *state, int contract, int trump, int flags) {
    i64 legal_cards = legal_now(state, contract, trump, flags);
    return policy(state[state[S_TURN]], legal_cards, state[S_TRICK], (int)state[S_LED],
                  (int)state[S_TOP], (int)state[S_COUNT], state[S_PLAYED], (int)state[S_TRICKS],
                  contract, trump);
}

/* The card of lowest rank, whatever its suit (of equal ranks, the earlier suit). */
static int lowest_rank(i64 cards) {
    int best = -1;
    while (cards != 0) {
        int card = lowest(cards);
        cards &= ~BIT(card);
        if (best < 0 || card % 13 < best % 13) best = card;
    }
    return best;
}

/* The card of highest rank, whatever its suit (of equal ranks, the later suit). */
static int highest_rank(i64 cards) {
    int best = -1;
    while (cards != 0) {
        int card = lowest(cards);
        cards &= ~BIT(card);
        if (best < 0 || card % 13 >= best % 13) best = card;
    }
    return best;
}

/* The highest of `cards` in the suit where `hand` is shortest (of equal lengths, the
 * suit whose highest card ranks higher). */
static int highest_of_shortest(i64 cards, i64 hand) {
    int best = -1;
    int best_length = 99;
    for (int suit = 0; suit < 4; suit++) {
        i64 field = cards & SUITS[suit];
        if (field != 0) {
            int length = popcount(hand & SUITS[suit]);
            if (length < best_length ||
                (length == best_length && highest(field) % 13 > best % 13)) {
                best_length = length;
                best = highest(field);
            }
        }
    }
    return best;
}

/* The next card to try for the seat the solver plays for (`row`, its position): its
 * high cards first, which make its proofs of a score smallest (see seat_move in
 * solver.py for the figures). */
static int seat_move(const i64 *row, i64 moves, int contract) {
    int leading = row[S_COUNT] == 0;
    int following = !leading && (moves & SUITS[row[S_LED]]) != 0;
    if (contract == TRUMPS) return leading || following ? highest_rank(moves) : lowest_rank(moves);
    if (leading) return highest_rank(moves);
    if (following) return highest(moves);
    i64 danger = moves & PENALTY[contract];
    if (danger != 0) return highest(danger);
    return highest_of_shortest(moves, row[row[S_TURN]]);
}

/* The first card to try for one of the three against `me`: what hurts `me` most at a
 * glance (in a negative contract, let `me` win the trick and feed it penalty cards; in
 * Trumps, take the trick from it). */
static int coalition_move(const i64 *row, i64 moves, int me, int contract, int trump) {
    int count = (int)row[S_COUNT];
    int top = (int)row[S_TOP];
    int me_played = ((me - row[S_LEADER]) & 3) < count;
    int winning_me = me_played && row[S_TOP_SEAT] == me;
    i64 penalty = PENALTY[contract];
    if (count == 0) return contract == TRUMPS ? highest(moves) : lowest_rank(moves);
    /* The cards that would not take the trick from the card on top: all but its suit's
     * higher ones and, unless it is a trump itself, the trumps. */
    int top_suit = top / 13;
    i64 beating = SUITS[top_suit] & ~((((i64)2) << top) - 1);
    if (trump >= 0 && trump != top_suit) beating |= SUITS[trump];
    i64 under = moves & ~beating;
    if (contract == TRUMPS) {
        if (winning_me && under != moves) return lowest(moves & ~under); /* cheapest taker */
        return me_played ? lowest(moves) : highest(moves);
    }
    if (winning_me) {
        if (under & penalty) return highest(under & penalty); /* a penalty card on my trick */
        return under ? highest(under) : highest(moves);
    }
    if (me_played) return highest(moves); /* one of us takes it: shed a high card */
    if (under) {
        if (highest(under) / 13 != row[S_LED]) { /* not following: shed a safe high card */
            i64 safe = under & ~penalty;
            return safe ? highest(safe) : highest(under);
        }
        return highest(under); /* duck as high as still ducks, so that I may take it */
    }
    return lowest(moves);
}

/* -- the exact solver ------------------------------------------------------------- */

/* The 64-bit finaliser of MurmurHash3, on the bits as unsigned (the reference masks
 * its arithmetic shifts to the same logical ones, and its products wrap). */
static i64 mix(i64 value) {
    u64 x = (u64)value;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 32;
    return (i64)x;
}

/* SQUEEZE[out << 7 | bits]: the bits of the 7-bit `bits` where `out` is set, packed
 * down (king.bots.position's table, made on first use: a bit extract in two lookups,
 * as wasm has no such instruction). */
static unsigned char SQUEEZE[1 << 14];
static int squeeze_made;

static void make_squeeze(void) {
    for (int out = 0; out < (1 << 7); out++) {
        for (int bits = 0; bits < (1 << 7); bits++) {
            int packed = 0;
            int i = 0;
            for (int rank = 0; rank < 7; rank++) {
                if (!((out >> rank) & 1)) continue;
                packed |= ((bits >> rank) & 1) << i++;
            }
            SQUEEZE[out << 7 | bits] = (unsigned char)packed;
        }
    }
    squeeze_made = 1;
}

/* The bits of the 13-bit `bits` where the 13-bit `out` is set, packed down (a card's
 * rank among the cards still out). */
static i64 squeezed(i64 bits, i64 out) {
    i64 low = SQUEEZE[(out & 0x7F) << 7 | (bits & 0x7F)];
    i64 high = SQUEEZE[(out >> 7) << 7 | (bits >> 7)];
    return low | high << popcount(out & 0x7F);
}

/* Frame of the iterative search at each depth, in the row of its position, after it. */
enum {
    F_ALPHA = STATE_SIZE,
    F_BETA,
    F_ALPHA0,
    F_BETA0,
    F_BEST,
    F_MOVES,
    F_FIRST,
    F_KEY,
    F_NODES,
    F_START,
    F_MAX,
    F_SO_FAR,
    F_LAST,
    F_BEST_CARD,
    ROW,
};
/* Rows of the search's stack: a position and its frame for each card still to play. */
#define STACK_ROWS 60

/* A table row is two words: the key, and T_DATA packing the bounds on the future
 * points (16 bits each, offset by BOUND_ZERO; the ends of the range mean no bound),
 * the best card last time (suit and rank among the cards left, plus one; 7 bits) and
 * above them the nodes spent on it (saturating).  A key lives in the bucket of BUCKET
 * rows its low bits name (one 64-byte cache line). */
enum { T_KEY = 0, T_DATA = 1, TABLE_ROW = 2 };
#define BOUND_ZERO (((i64)1) << 15)
#define BOUND_MASK ((((i64)1) << 16) - 1)
#define NO_LOW 0
#define NO_HIGH BOUND_MASK
#define HIGH_SHIFT 16
#define MOVE_SHIFT 32
#define MOVE_BITS 7
#define MOVE_MASK ((1 << MOVE_BITS) - 1)
#define WORK_SHIFT (MOVE_SHIFT + MOVE_BITS)
#define MOST_WORK ((((i64)1) << 24) - 1)
#define EMPTY_DATA (NO_HIGH << HIGH_SHIFT)
#define BUCKET 4
/* The table starts small and doubles whenever the search has spent GROW_AFTER nodes a
 * row, up to MOST_ROWS (8 MiB). */
#define FIRST_ROWS (1 << 9)
#define MOST_ROWS (1 << 19)
#define GROW_AFTER 4

typedef i64 Row[ROW];
typedef i64 Slot[TABLE_ROW];

/* The table in use: the first `rows` rows of `space`, which may grow to `most`. */
typedef struct {
    Slot *space;
    i64 rows;
    i64 most;
} Table;

static _Alignas(64) Row stack_memory[STACK_ROWS];
static _Alignas(64) Slot space_memory[MOST_ROWS];

/* A position up to equivalent ranks: for each suit, where each card still in play is
 * (which hand, or on the table), in rank order, and which are penalty cards; the
 * trick's leader, its cards so far, the suit led and who is winning it (solver.py's
 * _key says why these and no more). */
static i64 key_of(const i64 *row, int contract) {
    i64 penalty = PENALTY[contract];
    i64 trick = row[S_TRICK];
    i64 out = row[0] | row[1] | row[2] | row[3] | trick;
    i64 key = mix(row[S_LEADER] + 0x9E3779B97F4A7C1LL);
    if (trick != 0) key = mix(key ^ (row[S_COUNT] + 8 * row[S_LED] + 64 * row[S_TOP_SEAT]));
    for (int suit = 0; suit < 4; suit++) {
        int shift = 13 * suit;
        i64 field = (out >> shift) & 0x1FFF;
        /* How many cards of the suit are out, and which of them (in rank order) seats
         * 1-3 hold and which are penalty cards; seat 0 holds the rest. */
        i64 code = popcount(field) | squeezed((row[1] >> shift) & 0x1FFF, field) << 4 |
                   squeezed((row[2] >> shift) & 0x1FFF, field) << 17 |
                   squeezed((row[3] >> shift) & 0x1FFF, field) << 30 |
                   squeezed((penalty >> shift) & 0x1FFF, field) << 43;
        key = mix(key ^ (code + (suit + 1) * 0x9E3779B1LL));
        if (trick != 0) { /* which of them are on the table */
            key = mix(key ^ (squeezed((trick >> shift) & 0x1FFF, field) + 0x5851F42D));
        }
    }
    return key != 0 ? key : 1; /* 0 marks an empty row */
}

/* A card as its suit and its rank among that suit's cards still out (16 apart). */
static int relative(const i64 *row, int card) {
    i64 out = row[0] | row[1] | row[2] | row[3];
    int suit = card / 13;
    return suit * 16 + popcount(out & SUITS[suit] & (BIT(card) - 1));
}

/* The card that relative() wrote as `code` in this position (-1: none). */
static int card_of(const i64 *row, int code) {
    i64 out = row[0] | row[1] | row[2] | row[3];
    i64 field = out & SUITS[(code / 16) & 3];
    int rank = code % 16;
    while (field != 0) {
        int card = lowest(field);
        if (rank == 0) return card;
        rank -= 1;
        field &= ~BIT(card);
    }
    return -1;
}

/* The row holding `key` (-1: none), in the bucket its low bits name. */
static i64 find(const Table *table, i64 key) {
    i64 base = key & (table->rows - BUCKET);
    for (i64 slot = base; slot < base + BUCKET; slot++) {
        if (table->space[slot][T_KEY] == key) return slot;
    }
    return -1;
}

/* The row for `key`: its own, else an empty one of its bucket, else the one of its
 * bucket that cost the fewest nodes (the work sits in T_DATA's high bits), emptied. */
static i64 place(Slot *space, i64 rows, i64 key) {
    i64 base = key & (rows - BUCKET);
    i64 victim = base;
    for (i64 slot = base; slot < base + BUCKET; slot++) {
        i64 row_key = space[slot][T_KEY];
        if (row_key == key) return slot;
        if (row_key == 0) {
            victim = slot;
            break;
        }
        if (space[slot][T_DATA] < space[victim][T_DATA]) victim = slot;
    }
    space[victim][T_KEY] = key;
    space[victim][T_DATA] = EMPTY_DATA;
    return victim;
}

/* Double the table, every row moved to its bucket in the larger one, as the
 * reference's grow does (each row placed in slot order into a cleared table of twice
 * the rows).  Done in place, bucket by bucket: a bucket's rows go to the same bucket or
 * the one `rows` above it, at most four to either, so each lands in the first free
 * slot there, in its old order, and no row is ever evicted. */
static void grow(Table *table) {
    i64 rows = table->rows;
    Slot *space = table->space;
    for (i64 base = 0; base < rows; base += BUCKET) {
        Slot old[BUCKET];
        for (int i = 0; i < BUCKET; i++) {
            old[i][T_KEY] = space[base + i][T_KEY];
            old[i][T_DATA] = space[base + i][T_DATA];
            space[base + i][T_KEY] = space[base + i][T_DATA] = 0;
            space[base + rows + i][T_KEY] = space[base + rows + i][T_DATA] = 0;
        }
        i64 filled[2] = {0, 0};
        for (int i = 0; i < BUCKET; i++) {
            if (old[i][T_KEY] == 0) continue;
            int upper = (old[i][T_KEY] & rows) != 0;
            i64 slot = base + upper * rows + filled[upper]++;
            space[slot][T_KEY] = old[i][T_KEY];
            space[slot][T_DATA] = old[i][T_DATA];
        }
    }
    table->rows = 2 * rows;
}

/* The position at `depth` copied into the row after it; that row. */
static i64 *copied(Row *stack, int depth) {
    for (int field = 0; field < STATE_SIZE; field++) stack[depth + 1][field] = stack[depth][field];
    return stack[depth + 1];
}

/* The value of a position in the last trick, where every card is forced: played out
 * in the row after `depth`. */
static i64 last_trick(Row *stack, int depth, int me, int contract, int trump, int flags) {
    i64 *last = copied(stack, depth);
    while (!last[S_OVER]) play(last, lowest(last[last[S_TURN]]), contract, trump, flags);
    return last[S_POINTS + me];
}

/* Quick bounds on the value at `row` (`me` has `so_far`): what is still to be won or
 * lost caps it either way.  Equal when nothing is left to lose. */
static void bounds(const i64 *row, i64 so_far, int contract, i64 *low, i64 *high) {
    i64 left = 13 - row[S_TRICKS];
    *low = so_far;
    *high = so_far;
    if (contract == TRUMPS) {
        *high = so_far + 50 * left;
    } else if (contract == NO_TRICKS) {
        *low = so_far - 50 * left;
    } else if (contract == NO_LAST_TWO) {
        *low = so_far - 180 * (left < 2 ? left : 2);
    } else {
        i64 remaining = PENALTY[contract] & ~(row[S_PLAYED] & ~row[S_TRICK]);
        *low = so_far + POINTS_PER_UNIT[contract] * popcount(remaining);
    }
}

/* What a table probe found: settled (with `value`), or the window narrowed and the
 * card that was best here last time (-1: none). */
typedef struct {
    int settled;
    i64 value;
    i64 alpha;
    i64 beta;
    int hinted;
} Probe;

/* Look the trick start at `depth` up in the table (its key kept in the frame). */
static Probe probe(Row *stack, int depth, int contract, const Table *table, i64 so_far,
                   i64 alpha, i64 beta) {
    Probe found = {0, 0, alpha, beta, -1};
    i64 key = key_of(stack[depth], contract);
    stack[depth][F_KEY] = key;
    i64 slot = find(table, key);
    if (slot < 0) return found;
    i64 data = table->space[slot][T_DATA];
    i64 low = NEG_INF;
    if ((data & BOUND_MASK) != NO_LOW) low = (data & BOUND_MASK) - BOUND_ZERO + so_far;
    i64 high = POS_INF;
    if (((data >> HIGH_SHIFT) & BOUND_MASK) != NO_HIGH) {
        high = ((data >> HIGH_SHIFT) & BOUND_MASK) - BOUND_ZERO + so_far;
    }
    found.settled = 1;
    if (low >= beta) {
        found.value = low;
        return found;
    }
    if (high <= alpha) {
        found.value = high;
        return found;
    }
    if (low > alpha) alpha = low;
    if (high < beta) beta = high;
    found.alpha = alpha;
    found.beta = beta;
    if (alpha >= beta) {
        found.value = alpha;
        return found;
    }
    found.settled = 0;
    int move = (int)((data >> MOVE_SHIFT) & MOVE_MASK) - 1;
    found.hinted = move >= 0 ? card_of(stack[depth], move) : -1;
    return found;
}

/* The same cards as position.c's distinct (each card equivalent to the next one up
 * kept only once): a card goes when the next card of its suit not played in an earlier
 * trick is also one of `cards`, of the same penalty status.  Found card by card rather
 * than by packing the ranks down and back, which was a third of the solver's time. */
static i64 distinct_moves(i64 cards, i64 earlier, i64 penalty) {
    i64 around = ~earlier & FULL;
    i64 kept = cards & around;
    for (i64 left = kept; left != 0; left &= left - 1) {
        int card = lowest(left);
        i64 higher = around & SUITS[card / 13] & ~((((i64)2) << card) - 1);
        if (higher == 0) continue;
        int next = lowest(higher);
        if (((cards >> next) & 1) && ((penalty >> card) & 1) == ((penalty >> next) & 1)) {
            kept &= ~BIT(card);
        }
    }
    return kept;
}

/* Set up the move loop of the node at `depth`: its moves (equivalent cards once),
 * whose side it is, and the card to try first (the one best here last time; else the
 * seat's high cards for me, what hurts me most for the others). */
static void open_moves(Row *stack, int depth, int me, int contract, int trump, int flags,
                       int hinted) {
    i64 *row = stack[depth];
    int turn = (int)row[S_TURN];
    i64 trick = row[S_TRICK];
    i64 played = row[S_PLAYED];
    i64 legal_cards = legal(row[turn], trick, (int)row[S_LED], played, contract, trump, flags);
    i64 earlier = played & ~trick;
    i64 moves = legal_cards;
    if ((legal_cards & (legal_cards - 1)) != 0) {
        moves = distinct_moves(legal_cards, earlier, PENALTY[contract]);
    }
    int maximizing = turn == me;
    row[F_MAX] = maximizing;
    row[F_BEST] = maximizing ? NEG_INF : POS_INF;
    row[F_BEST_CARD] = -1;
    int first;
    if ((moves & (moves - 1)) == 0) { /* one card to play */
        first = lowest(moves);
    } else if (hinted >= 0 && ((moves >> hinted) & 1)) {
        first = hinted;
    } else if (maximizing) {
        first = seat_move(row, moves, contract);
    } else {
        first = coalition_move(row, moves, me, contract, trump);
    }
    if (first >= 0 && ((moves >> first) & 1)) {
        moves &= ~BIT(first);
    } else {
        first = -1;
    }
    row[F_FIRST] = first;
    row[F_MOVES] = moves;
}

/* Whether `me`'s cards of a suit (`held`) never win a trick the others lead in it
 * (`against`): all of them below the others' lowest when `strict`, else the k lowest,
 * k the fewer of the two sides' cards. */
static int stays_under(i64 held, i64 against, int strict) {
    if (highest(held) <= lowest(against)) return 1;
    if (strict) return 0;
    i64 guarded = held;
    for (int i = popcount(held) - popcount(against); i > 0; i--) guarded &= ~BIT(highest(guarded));
    return highest(guarded) <= lowest(against);
}

/* Whether `me` can be made to take no more tricks in a negative contract (solver.py's
 * _takes_no_more gives the argument): in every suit both sides hold, `me`'s cards stay
 * under theirs, and `me` does not take this trick. */
static int takes_no_more(const i64 *row, int me, int contract, int flags) {
    i64 mine = row[me];
    i64 others = (row[0] | row[1] | row[2] | row[3]) & ~mine;
    int count = (int)row[S_COUNT];
    int strict = flags & F_FORCED;
    int played = ((me - row[S_LEADER]) & 3) < count; /* already, to this trick */
    i64 following = 0;
    if (count > 0) {
        if (row[S_TOP_SEAT] == me) return 0;
        if (!played) {
            following = mine & SUITS[row[S_LED]];
            if (following != 0 && !strict) mine &= ~BIT(lowest(following)); /* it follows */
        }
    }
    i64 both = 0; /* the suits both sides hold */
    for (int suit = 0; suit < 4; suit++) {
        i64 held = mine & SUITS[suit];
        i64 against = others & SUITS[suit];
        if (held != 0 && against != 0) {
            both |= SUITS[suit];
            if (!stays_under(held, against, strict)) return 0;
        }
    }
    if (count == 0) {
        if (row[S_LEADER] != me) return 1;
        i64 leads = legal(mine, 0, -1, row[S_PLAYED], contract, -1, flags);
        return (leads & both) != 0;
    }
    if (played) return 1; /* not on top: it only sinks as the trick goes on */
    return following == 0 || lowest(following) < row[S_TOP];
}

/* Open the node at `depth`: settle it at once from bounds or the table (1, its value
 * in *value), or set up its frame for the move loop (0). */
static int enter(Row *stack, int depth, int me, int contract, int trump, int flags,
                 const Table *table, i64 *value) {
    i64 *row = stack[depth];
    if (row[S_OVER]) {
        *value = row[S_POINTS + me];
        return 1;
    }
    if (row[S_TRICKS] == 12) { /* the last trick: every card is forced */
        *value = last_trick(stack, depth, me, contract, trump, flags);
        return 1;
    }
    i64 alpha = row[F_ALPHA];
    i64 beta = row[F_BETA];
    i64 so_far = row[S_POINTS + me];
    i64 low_bound, high_bound;
    bounds(row, so_far, contract, &low_bound, &high_bound);
    if (low_bound == high_bound) { /* nothing left to win or lose */
        *value = so_far;
        return 1;
    }
    if (low_bound >= beta) {
        *value = low_bound;
        return 1;
    }
    if (high_bound <= alpha) {
        *value = high_bound;
        return 1;
    }
    int at_start = row[S_COUNT] == 0;
    row[F_START] = at_start;
    row[F_SO_FAR] = so_far;
    int hinted = -1;
    /* The table first: most trick starts the search comes back to are settled there. */
    if (at_start) {
        Probe found = probe(stack, depth, contract, table, so_far, alpha, beta);
        if (found.settled) {
            *value = found.value;
            return 1;
        }
        alpha = found.alpha;
        beta = found.beta;
        hinted = found.hinted;
    }
    if (contract != TRUMPS && takes_no_more(row, me, contract, flags)) {
        *value = so_far;
        return 1;
    }
    row[F_ALPHA] = alpha;
    row[F_BETA] = beta;
    row[F_ALPHA0] = alpha;
    row[F_BETA0] = beta;
    open_moves(stack, depth, me, contract, trump, flags, hinted);
    return 0;
}

/* Close the node at `depth`, its moves done: store its bound and best card in the
 * table, adding the nodes spent under it (`nodes`: the count so far); its value. */
static i64 leave(Row *stack, int depth, Table *table, i64 nodes) {
    i64 *row = stack[depth];
    i64 best = row[F_BEST];
    if (row[F_START]) {
        i64 slot = place(table->space, table->rows, row[F_KEY]);
        i64 data = table->space[slot][T_DATA];
        i64 work = (data >> WORK_SHIFT) + nodes - row[F_NODES];
        if (work > MOST_WORK) work = MOST_WORK;
        data = (data & ((((i64)1) << WORK_SHIFT) - 1)) | (work << WORK_SHIFT);
        i64 bound = best - row[F_SO_FAR] + BOUND_ZERO; /* inside the 16 bits */
        if (best <= row[F_ALPHA0]) {
            data = (data & ~(BOUND_MASK << HIGH_SHIFT)) | (bound << HIGH_SHIFT);
        } else if (best >= row[F_BETA0]) {
            data = (data & ~BOUND_MASK) | bound;
        } else {
            i64 both = BOUND_MASK | BOUND_MASK << HIGH_SHIFT;
            data = (data & ~both) | bound | (bound << HIGH_SHIFT);
        }
        int card = (int)row[F_BEST_CARD];
        if (card >= 0) {
            i64 move = relative(row, card) + 1;
            data = (data & ~((i64)MOVE_MASK << MOVE_SHIFT)) | (move << MOVE_SHIFT);
        }
        table->space[slot][T_DATA] = data;
    }
    return best;
}

/* Take a child's value into the frame at `depth`: the best so far and the window. */
static void absorb(Row *stack, int depth, i64 value) {
    i64 *row = stack[depth];
    if (row[F_MAX]) {
        if (value > row[F_BEST]) {
            row[F_BEST] = value;
            row[F_BEST_CARD] = row[F_LAST];
        }
        if (row[F_BEST] > row[F_ALPHA]) row[F_ALPHA] = row[F_BEST];
    } else {
        if (value < row[F_BEST]) {
            row[F_BEST] = value;
            row[F_BEST_CARD] = row[F_LAST];
        }
        if (row[F_BEST] < row[F_BETA]) row[F_BETA] = row[F_BEST];
    }
}

/* The next of the moves left at `depth` (after the first), taken out of them: the
 * killer (the card that last cut the search off at this depth; -1: none) while it is
 * one of them, else for me seat_move, for the others the lowest. */
static int later_card(Row *stack, int depth, int killer, int contract) {
    i64 *row = stack[depth];
    i64 moves = row[F_MOVES];
    int card;
    if (killer >= 0 && ((moves >> killer) & 1)) {
        card = killer;
    } else if (row[F_MAX]) {
        card = seat_move(row, moves, contract);
    } else {
        card = lowest(moves);
    }
    row[F_MOVES] = moves & ~BIT(card);
    return card;
}

/* Alpha-beta from stack[0] for `me` (maximising) against the other three
 * (minimising), with the table at trick starts; iterative, over the explicit stack of
 * positions and their frames.  `counter` counts the nodes. */
static i64 search(Row *stack, int me, int contract, int trump, int flags, i64 alpha, i64 beta,
                  Table *table, i64 *counter) {
    int depth = 0;
    int killers[64];
    for (int i = 0; i < 64; i++) killers[i] = -1;
    stack[0][F_ALPHA] = alpha;
    stack[0][F_BETA] = beta;
    i64 value = 0;
    int entering = 1;
    for (;;) {
        /* A node is settled on entering it, or closed once its moves are done; either
         * way its value goes back to its parent, whose moves go on. */
        int settled = 0;
        if (entering) {
            *counter += 1;
            settled = enter(stack, depth, me, contract, trump, flags, table, &value);
            if (!settled) stack[depth][F_NODES] = *counter;
        }
        if (!settled) {
            i64 *row = stack[depth];
            int card = -1;
            if (row[F_ALPHA] < row[F_BETA]) {
                if (row[F_FIRST] >= 0) {
                    card = (int)row[F_FIRST];
                    row[F_FIRST] = -1;
                } else if (row[F_MOVES] != 0) {
                    card = later_card(stack, depth, killers[depth], contract);
                }
            }
            if (card >= 0) {
                row[F_LAST] = card;
                play(copied(stack, depth), card, contract, trump, flags);
                stack[depth + 1][F_ALPHA] = row[F_ALPHA];
                stack[depth + 1][F_BETA] = row[F_BETA];
                depth += 1;
                entering = 1;
                continue;
            }
            value = leave(stack, depth, table, *counter);
            if (*counter > GROW_AFTER * table->rows && table->rows < table->most) grow(table);
        }
        if (depth == 0) return value;
        depth -= 1;
        absorb(stack, depth, value);
        if (stack[depth][F_ALPHA] >= stack[depth][F_BETA]) {
            killers[depth] = (int)stack[depth][F_LAST]; /* it cut the search off */
        }
        entering = 0;
    }
}

/* A first guess of the value: `me` playing the quick policy to the end, the others
 * what hurts `me` most at a glance. */
static i64 guess_of(const i64 *state, int me, int contract, int trump, int flags) {
    i64 child[STATE_SIZE];
    for (int i = 0; i < STATE_SIZE; i++) child[i] = state[i];
    while (!child[S_OVER]) {
        int card;
        if (child[S_TURN] == me) {
            card = policy_move(child, contract, trump, flags);
        } else {
            i64 legal_cards = legal_now(child, contract, trump, flags);
            card = coalition_move(child, legal_cards, me, contract, trump);
        }
        play(child, card, contract, trump, flags);
    }
    return child[S_POINTS + me];
}

/* The exact value of stack[0] by zero-window searches that close in on it from `guess`
 * (MTD(f)): each window one point wide, the table keeping what each search learnt. */
static i64 mtdf(Row *stack, int me, int contract, int trump, int flags, i64 guess,
                Table *table, i64 *counter) {
    i64 lower = NEG_INF;
    i64 upper = POS_INF;
    i64 value = guess;
    while (lower < upper) {
        i64 beta = value == lower ? value + 1 : value;
        value = search(stack, me, contract, trump, flags, beta - 1, beta, table, counter);
        if (value < beta) {
            upper = value;
        } else {
            lower = value;
        }
    }
    return value;
}

static void clear_rows(Slot *space, i64 rows) {
    for (i64 slot = 0; slot < rows; slot++) space[slot][T_KEY] = space[slot][T_DATA] = 0;
}

/* The exact value of `state` for `me` (its final points in the deal) against the
 * three others as one side, with a table of `first_rows` rows that may grow to
 * `most_rows`; the nodes searched in *nodes. */
static i64 solve_sized(const i64 *state, int me, int contract, int trump, int flags,
                       i64 first_rows, i64 most_rows, i64 *nodes) {
    if (!squeeze_made) make_squeeze();
    Row *stack = stack_memory;
    for (int i = 0; i < STATE_SIZE; i++) stack[0][i] = state[i];
    Table table = {space_memory, first_rows, most_rows};
    clear_rows(table.space, first_rows);
    i64 counter = 0;
    i64 guess = guess_of(state, me, contract, trump, flags);
    i64 value = mtdf(stack, me, contract, trump, flags, guess, &table, &counter);
    *nodes = counter;
    return value;
}

/* Solve every legal card of the seat to move: out[card] gets the exact value for `me`
 * after playing it (the other words untouched); the nodes searched. */
static i64 solve_moves(const i64 *state, int me, int contract, int trump, int flags,
                       i64 *out) {
    if (!squeeze_made) make_squeeze();
    Row *stack = stack_memory;
    Table table = {space_memory, FIRST_ROWS, MOST_ROWS};
    clear_rows(table.space, FIRST_ROWS);
    i64 counter = 0;
    i64 cards = legal_now(state, contract, trump, flags);
    while (cards != 0) {
        int card = lowest(cards);
        cards &= ~BIT(card);
        for (int i = 0; i < STATE_SIZE; i++) stack[0][i] = state[i];
        play(stack[0], card, contract, trump, flags);
        i64 guess = guess_of(stack[0], me, contract, trump, flags);
        out[card] = mtdf(stack, me, contract, trump, flags, guess, &table, &counter);
    }
    return counter;
}

/* The same value as solve by plain enumeration: every legal card at every node, no
 * bounds, no table, no ordering (the reference the solver is checked against; only
 * for small endings). */
static i64 enumerate_value(const i64 *state, int me, int contract, int trump, int flags) {
    static i64 states[STACK_ROWS][STATE_SIZE];
    i64 moves[STACK_ROWS];
    i64 best[STACK_ROWS];
    for (int i = 0; i < STATE_SIZE; i++) states[0][i] = state[i];
    int depth = 0;
    int fresh = 1;
    for (;;) {
        i64 *here = states[depth];
        int over = here[S_OVER] != 0;
        if (fresh && !over) {
            moves[depth] = legal_now(here, contract, trump, flags);
            best[depth] = here[S_TURN] == me ? NEG_INF : POS_INF;
        }
        fresh = 0;
        if (!over && moves[depth] != 0) {
            int card = lowest(moves[depth]);
            moves[depth] &= ~BIT(card);
            for (int i = 0; i < STATE_SIZE; i++) states[depth + 1][i] = here[i];
            play(states[depth + 1], card, contract, trump, flags);
            depth += 1;
            fresh = 1;
            continue;
        }
        i64 value = over ? here[S_POINTS + me] : best[depth];
        if (depth == 0) return value;
        depth -= 1;
        if (states[depth][S_TURN] == me) {
            if (value > best[depth]) best[depth] = value;
        } else {
            if (value < best[depth]) best[depth] = value;
        }
    }
}

/* -- entry points ----------------------------------------------------------------- */

/* Whether the solver may search `state`: a position the rules reach (position_ok),
 * whose trick is whole (its top card, the suit led and the seat on top among the cards
 * on the table), not past its last trick, and whose points are of a deal's size (the
 * search's infinities are 2^40). */
static int solvable(const i64 *state) {
    if (!position_ok(state, 1)) return 0;
    for (int seat = 0; seat < 4; seat++) {
        if (!in_range(state[S_POINTS + seat], -(1 << 20), 1 << 20)) return 0;
    }
    if (state[S_OVER]) return 1;
    if (state[S_TRICKS] >= 13) return 0;
    if (state[S_COUNT] == 0) return 1;
    if (state[S_TOP] < 0 || !((state[S_TRICK] >> state[S_TOP]) & 1)) return 0;
    if (!(state[S_TRICK] & SUITS[state[S_LED]])) return 0;
    return ((state[S_TOP_SEAT] - state[S_LEADER]) & 3) < state[S_COUNT];
}

/* The most tricks left that an entry point solves: an ending, not a whole deal (whose
 * exact search would not end in any time a caller waits; at 8 tricks left a hard ending
 * takes a tenth of a second, each trick more about ten times as long). */
#define SOLVER_MOST_TRICKS 10

/* The checks every solver entry point makes; 0 or a KING_E_ code. */
static int solver_input_ok(const i64 *state, int me, int contract, int trump, int flags) {
    if (!game_ok(contract, trump, flags) || !seat_ok(me)) return KING_E_GAME;
    if (!solvable(state)) return KING_E_POSITION;
    if (!state[S_OVER] && 13 - state[S_TRICKS] > SOLVER_MOST_TRICKS) return KING_E_COUNT;
    return 0;
}

/* out[0]: the value of `state` for `me`; out[1]: the nodes searched (solve_sized with
 * the table starting at `first_rows` rows and growing to `most_rows`, powers of two
 * from BUCKET to MOST_ROWS). */
EXPORT(king_solve_sized)
int king_solve_sized(int state_at, int me, int contract, int trump, int flags, int first_rows,
                     int most_rows, int out_at) {
    const i64 *state = area(state_at, STATE_SIZE);
    i64 *out = area(out_at, 2);
    if (!state || !out) return KING_E_BOUNDS;
    int refused = solver_input_ok(state, me, contract, trump, flags);
    if (refused) return refused;
    if (!in_range(first_rows, BUCKET, MOST_ROWS) || (first_rows & (first_rows - 1)) ||
        !in_range(most_rows, first_rows, MOST_ROWS) || (most_rows & (most_rows - 1))) {
        return KING_E_GAME;
    }
    i64 nodes = 0;
    i64 value = solve_sized(state, me, contract, trump, flags, first_rows, most_rows, &nodes);
    out[0] = value;
    out[1] = nodes;
    return 0;
}

/* out[0]: the exact value of `state` for `me`; out[1]: the nodes searched. */
EXPORT(king_solve)
int king_solve(int state_at, int me, int contract, int trump, int flags, int out_at) {
    return king_solve_sized(state_at, me, contract, trump, flags, FIRST_ROWS, MOST_ROWS, out_at);
}

/* out[card] (52 words): the value for `me` after each legal card of the seat to move
 * (the other words as they were); out[52]: the nodes searched. */
EXPORT(king_solve_moves)
int king_solve_moves(int state_at, int me, int contract, int trump, int flags, int out_at) {
    const i64 *state = area(state_at, STATE_SIZE);
    i64 *out = area(out_at, 53);
    if (!state || !out) return KING_E_BOUNDS;
    int refused = solver_input_ok(state, me, contract, trump, flags);
    if (refused) return refused;
    out[52] = solve_moves(state, me, contract, trump, flags, out);
    return 0;
}

/* out[0]: the value of `state` for `me` by plain enumeration (small endings only). */
EXPORT(king_enumerate_value)
int king_enumerate_value(int state_at, int me, int contract, int trump, int flags, int out_at) {
    const i64 *state = area(state_at, STATE_SIZE);
    i64 *out = area(out_at, 1);
    if (!state || !out) return KING_E_BOUNDS;
    int refused = solver_input_ok(state, me, contract, trump, flags);
    if (refused) return refused;
    out[0] = enumerate_value(state, me, contract, trump, flags);
    return 0;
}
