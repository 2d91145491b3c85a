/* The rules on a position: the legal cards, playing a card, equivalent cards.
 * A port of king.bots.position (which mirrors king.deal); same names, same order. */
#include "engine.h"

static i64 legal_lead(i64 hand, i64 played, int contract, int trump, int flags) {
    const i64 hearts = SUITS[1];
    if (contract == NO_HEARTS || contract == NO_KING) {
        if ((played & hearts) == 0 && (hand & ~hearts) != 0) return hand & ~hearts;
    } else if (contract == TRUMPS && (flags & F_TRUMP_LEAD)) {
        i64 trumps = SUITS[trump];
        if ((played & trumps) == 0 && (hand & ~trumps) != 0) return hand & ~trumps;
    }
    return hand;
}

static i64 legal_follow(i64 follow, i64 trick, i64 suit, int contract, int flags) {
    if ((flags & F_FORCED) &&
        (contract == NO_QUEENS || contract == NO_BOYS || contract == NO_KING)) {
        int top = highest(trick & suit);
        i64 forced = follow & PENALTY[contract] & (BIT(top) - 1);
        if (forced != 0) return forced;
    }
    return follow;
}

static i64 legal_void(i64 hand, i64 trick, int contract, int trump, int flags) {
    if (contract == TRUMPS) {
        i64 trump_suit = SUITS[trump];
        i64 trumps = hand & trump_suit;
        if (trumps == 0) return hand;
        if (flags & F_OVERRUFF) {
            int top = highest(trick & trump_suit) + 1;
            i64 higher = (i64)(((u64)trumps >> top) << top);
            if (higher != 0) return higher;
        }
        return trumps;
    }
    if ((flags & F_FORCED) && contract >= NO_HEARTS && contract <= NO_KING) {
        i64 penalty = hand & PENALTY[contract];
        if (penalty != 0) return penalty;
    }
    return hand;
}

i64 legal(i64 hand, i64 trick, int led, i64 played, int contract, int trump, int flags) {
    if (led < 0) return legal_lead(hand, played, contract, trump, flags);
    i64 suit = SUITS[led];
    i64 follow = hand & suit;
    if (follow != 0) return legal_follow(follow, trick, suit, contract, flags);
    return legal_void(hand, trick, contract, trump, flags);
}

void new_state(i64 *state, const i64 *hands, int leader) {
    for (int i = 0; i < STATE_SIZE; i++) state[i] = 0;
    for (int seat = 0; seat < 4; seat++) state[seat] = hands[seat];
    state[S_LEADER] = leader;
    state[S_TURN] = leader;
    state[S_LED] = -1;
    state[S_TOP] = -1;
}

i64 legal_now(const i64 *state, int contract, int trump, int flags) {
    if (state[S_OVER]) return 0;
    return legal(state[state[S_TURN]], state[S_TRICK], (int)state[S_LED], state[S_PLAYED],
                 contract, trump, flags);
}

static void follow(i64 *state, int card, int turn, int contract, int trump) {
    int suit = card / 13;
    int led = (int)state[S_LED];
    if (suit != led) {
        state[S_VOIDS + turn] |= 1 << led;
        if (trump >= 0 && suit != trump) state[S_VOIDS + turn] |= 1 << trump;
    }
    int top = (int)state[S_TOP];
    if (suit == top / 13) {
        if (card > top) {
            state[S_TOP] = card;
            state[S_TOP_SEAT] = turn;
        }
    } else if (contract == TRUMPS && suit == trump) {
        state[S_TOP] = card;
        state[S_TOP_SEAT] = turn;
    }
}

static void close_trick(i64 *state, int contract, int flags) {
    int winner = (int)state[S_TOP_SEAT];
    i64 tricks = state[S_TRICKS] + 1;
    state[S_TRICKS] = tricks;
    i64 unit = POINTS_PER_UNIT[contract];
    if (contract == TRUMPS || contract == NO_TRICKS) {
        state[S_POINTS + winner] += unit;
    } else if (contract == NO_LAST_TWO) {
        if (tricks >= 12) state[S_POINTS + winner] += unit;
    } else {
        state[S_POINTS + winner] += unit * popcount(state[S_TRICK] & PENALTY[contract]);
    }
    state[S_TRICK] = 0;
    state[S_COUNT] = 0;
    state[S_LED] = -1;
    state[S_TOP] = -1;
    state[S_LEADER] = winner;
    state[S_TURN] = winner;
    if (tricks == 13) {
        state[S_OVER] = 1;
    } else if ((flags & F_EARLY) && contract >= NO_HEARTS && contract <= NO_KING) {
        i64 penalty = PENALTY[contract];
        if ((state[S_PLAYED] & penalty) == penalty) state[S_OVER] = 1;
    }
}

void play(i64 *state, int card, int contract, int trump, int flags) {
    i64 bit = BIT(card);
    int turn = (int)state[S_TURN];
    state[turn] ^= bit;
    state[S_PLAYED] |= bit;
    state[S_TRICK] |= bit;
    i64 count = state[S_COUNT];
    if (count == 0) {
        state[S_LED] = card / 13;
        state[S_TOP] = card;
        state[S_TOP_SEAT] = turn;
    } else {
        follow(state, card, turn, contract, trump);
    }
    if (count < 3) {
        state[S_COUNT] = count + 1;
        state[S_TURN] = (turn + 1) & 3;
        return;
    }
    close_trick(state, contract, flags);
}

/* The bits of the 13-bit `bits` where `out` is set, packed down (bit extract). */
static i64 squeezed(i64 bits, i64 out) {
    i64 result = 0;
    int i = 0;
    while (out) {
        int rank = lowest(out);
        out &= out - 1;
        result |= ((bits >> rank) & 1) << i++;
    }
    return result;
}

/* The low bits of `bits` put back on the set bits of `out` (bit deposit). */
static i64 deposited(i64 bits, i64 out) {
    i64 result = 0;
    int i = 0;
    while (out) {
        int rank = lowest(out);
        out &= out - 1;
        result |= ((bits >> i++) & 1) << rank;
    }
    return result;
}

i64 distinct(i64 cards, i64 earlier, i64 penalty) {
    i64 kept = 0;
    for (int suit = 0; suit < 4; suit++) {
        int shift = 13 * suit;
        i64 around = ~(earlier >> shift) & 0x1FFF;
        i64 mine = squeezed((cards >> shift) & 0x1FFF, around);
        i64 marks = squeezed((penalty >> shift) & 0x1FFF, around);
        i64 dropped = mine & (mine >> 1) & ~(marks ^ (marks >> 1));
        kept |= deposited(mine & ~dropped, around) << shift;
    }
    return kept;
}

i64 equal_cards(i64 hand, int card, i64 earlier, i64 penalty) {
    i64 suit = hand & SUITS[card / 13];
    i64 kept = distinct(suit, earlier, penalty);
    i64 below = BIT(card) - 1;
    int top = lowest(kept & ~below);
    i64 lower = kept & below;
    i64 same = suit & ((((i64)2) << top) - 1);
    if (lower != 0) same &= ~((((i64)2) << highest(lower)) - 1);
    return same;
}
