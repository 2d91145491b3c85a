/* Dealing the hidden cards: a port of king.bots.search.worlds (xorshift64*, the most
 * constrained cards first, each card to a seat in proportion to its room). */
#include "engine.h"

i64 next_random(i64 *seed) {
    u64 x = (u64)seed[0];
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    seed[0] = (i64)x;
    return (i64)((x * 2685821657736338717ULL) & 0x7FFFFFFFFFFFFFFFULL);
}

static i64 random_below(i64 *seed, i64 bound) { return next_random(seed) % bound; }

static int listed(i64 bits, int *cards) {
    int n = 0;
    while (bits != 0) {
        int card = lowest(bits);
        bits &= ~BIT(card);
        cards[n++] = card;
    }
    return n;
}

static void shuffle(int *cards, int n, i64 *seed) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)random_below(seed, i + 1);
        int t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
}

static void most_constrained_first(const int *cards, int n, const i64 *forbidden, int me,
                                   int *order) {
    int k = 0;
    for (int allowed_seats = 0; allowed_seats < 4; allowed_seats++) {
        for (int i = 0; i < n; i++) {
            int card = cards[i];
            int choices = 0;
            for (int seat = 0; seat < 4; seat++) {
                if (seat != me && !((forbidden[seat] >> card) & 1)) choices += 1;
            }
            if (choices == allowed_seats) order[k++] = card;
        }
    }
}

/* One try at world `w` (four hands at `hand`); 0 when it ran into a dead end. */
static int deal_once(const int *order, int n, const i64 *counts, const i64 *forbidden, int me,
                     i64 my_hand, i64 *seed, i64 *hand) {
    i64 room[4];
    for (int seat = 0; seat < 4; seat++) {
        room[seat] = seat == me ? 0 : counts[seat];
        hand[seat] = 0;
    }
    hand[me] = my_hand;
    for (int i = 0; i < n; i++) {
        int card = order[i];
        i64 total = 0;
        for (int seat = 0; seat < 4; seat++) {
            if (room[seat] > 0 && !((forbidden[seat] >> card) & 1)) total += room[seat];
        }
        if (total == 0) return 0;
        i64 pick = random_below(seed, total);
        for (int seat = 0; seat < 4; seat++) {
            if (room[seat] > 0 && !((forbidden[seat] >> card) & 1)) {
                pick -= room[seat];
                if (pick < 0) {
                    hand[seat] |= BIT(card);
                    room[seat] -= 1;
                    break;
                }
            }
        }
    }
    return 1;
}

int sample_worlds(i64 unseen, const i64 *counts, const i64 *forbidden, int me, i64 my_hand,
                  i64 *seed, i64 *out, int n_worlds) {
    int cards[52];
    int order[52];
    int n = listed(unseen, cards);
    int failures = 0;
    for (int w = 0; w < n_worlds; w++) {
        i64 *hand = out + 4 * w;
        int dealt = 0;
        for (int attempt = 0; attempt < 200 && !dealt; attempt++) {
            shuffle(cards, n, seed);
            most_constrained_first(cards, n, forbidden, me, order);
            dealt = deal_once(order, n, counts, forbidden, me, my_hand, seed, hand);
        }
        if (!dealt) {
            for (int seat = 0; seat < 4; seat++) hand[seat] = 0;
            failures += 1;
        }
    }
    return failures;
}
