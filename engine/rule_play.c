/* The rule bot's card play: a port of king.bots.rule.play, function for function and
 * expression for expression (the floating-point operations in the reference's order, so
 * the two give the same bits; built without contraction into fused multiply-adds). */
#include <math.h>

#include "engine.h"

static const i64 KH = BIT(24);
static const i64 AH = BIT(25);

static i64 above(int card) { return SUITS[card / 13] & ~((((i64)2) << card) - 1); }
static i64 below(int card) { return SUITS[card / 13] & (BIT(card) - 1); }
static i64 unit_of(int code) { return POINTS_PER_UNIT[code] < 0 ? -POINTS_PER_UNIT[code] : POINTS_PER_UNIT[code]; }

static i64 queens(void) {
    i64 mask = 0;
    for (int s = 0; s < 4; s++) mask |= BIT(13 * s + 10);
    return mask;
}

static i64 boys(void) {
    i64 mask = 0;
    for (int s = 0; s < 4; s++) mask |= BIT(13 * s + 11) | BIT(13 * s + 9);
    return mask;
}

/* What the seat to move knows, as plain numbers (the reference's arguments). */
typedef struct {
    i64 hand;
    i64 unseen;
    i64 voids;   /* four bits a seat */
    i64 opp_out; /* four bits a suit */
    int me;
    int n_later;
} Seen;

static int seat_voids(i64 voids, int seat) { return (int)((voids >> (4 * seat)) & 15); }
static int later_seat(int me, int i) { return (me + i + 1) & 3; }
static int holders(i64 opp_out, int suit) { return (int)((opp_out >> (4 * suit)) & 15); }

static double void_chance(const Seen *s, int seat, int suit) {
    if ((seat_voids(s->voids, seat) >> suit) & 1) return 1.0;
    int out = popcount(s->unseen & SUITS[suit]);
    int h = holders(s->opp_out, suit);
    if (h <= 1) return out ? 0.0 : 1.0;
    return UNHELD[h][out];
}

/* -- negative contracts --------------------------------------------------------- */

static double p_win(const Seen *s, int card) {
    i64 high_cards = s->unseen & above(card);
    if (!high_cards) return 1.0;
    int suit = card / 13;
    int bit = 1 << suit;
    int followers = 0;
    for (int i = 0; i < s->n_later; i++) {
        if (!(seat_voids(s->voids, later_seat(s->me, i)) & bit)) followers += 1;
    }
    if (!followers) return 1.0;
    int low = popcount(s->unseen & below(card));
    if (!low) return 0.0;
    int high = popcount(high_cards);
    int h = holders(s->opp_out, suit);
    double forced = FORCED[high][low][h > 1 ? h : 1];
    return pow(1.0 - forced, (double)followers);
}

static double stake(int code, int card, i64 unseen) {
    i64 bit = BIT(card);
    int suit = card / 13;
    if (code == NO_TRICKS) return 50.0;
    if (code == NO_LAST_TWO) return 90.0;
    if (code == NO_HEARTS) {
        int out = popcount(unseen & SUITS[1]);
        if (bit & SUITS[1]) return 30.0 + 24.0 * (out < 3 ? out : 3);
        return out ? 15.0 : 0.0;
    }
    if (code == NO_QUEENS) {
        double value = (bit & queens()) ? 100.0 : 0.0;
        i64 queen = BIT(13 * suit + 10);
        if ((unseen & queen) && card > 13 * suit + 10) value += 70.0;
        return value + 10.0 * popcount(unseen & queens() & ~queen);
    }
    if (code == NO_BOYS) {
        double value = (bit & boys()) ? 60.0 : 0.0;
        value += 35.0 * popcount(unseen & boys() & below(card));
        return value + 5.0 * popcount(unseen & boys() & ~SUITS[suit]);
    }
    if (bit == KH) return 320.0;
    if (!(unseen & KH)) return 0.0;
    return bit == AH ? 240.0 : 30.0;
}

static double danger(int code, int card, i64 hand, i64 unseen) {
    int high = popcount(unseen & above(card));
    int low = popcount(unseen & below(card));
    double chance = high ? (double)(low + 1) / ((double)low + COVER[code] * high + 1) : 0.95;
    chance *= GUARDED[code][popcount(hand & below(card))];
    return chance * stake(code, card, unseen);
}

static double shed_value(int code, int card, i64 hand, i64 unseen) {
    double value = danger(code, card, hand, unseen);
    double unguard = UNGUARD[code];
    i64 higher = hand & above(card);
    while (higher) {
        int top = highest(higher);
        higher ^= BIT(top);
        value -= danger(code, top, hand, unseen) * unguard;
    }
    return value;
}

static double trick_cost(int code, int card, const Seen *s, i64 trick_mask, i64 trick_no,
                         int led) {
    if (code == NO_TRICKS) return 50.0;
    if (code == NO_LAST_TWO) {
        if (trick_no >= 11) return 180.0;
        return trick_no == 10 ? 70.0 : 0.0;
    }
    i64 pen = PENALTY[code];
    i64 unseen_pen = s->unseen & pen;
    double count = (double)popcount((trick_mask | BIT(card)) & pen);
    if (unseen_pen) {
        int suit = led < 0 ? card / 13 : led;
        i64 in_suit = unseen_pen & SUITS[suit];
        int elsewhere = popcount(unseen_pen & ~SUITS[suit]);
        int low = popcount(in_suit & below(card));
        for (int i = 0; i < s->n_later; i++) {
            double v = void_chance(s, later_seat(s->me, i), suit);
            if (code == NO_HEARTS && suit == 1) {
                count += 1.0 - v;
            } else if (low) {
                double spread = (double)holders(s->opp_out, suit) - 0.5;
                count += (1.0 - v) * 1.6 * low / (spread > 1.0 ? spread : 1.0);
            }
            if (elsewhere) {
                double half = 0.5 * elsewhere;
                count += v * (half < 1.0 ? half : 1.0);
            }
        }
    }
    return unit_of(code) * count;
}

static double lead_bonus(int code, int card, i64 hand, i64 unseen) {
    int suit = card / 13;
    i64 suit_mask = SUITS[suit];
    i64 pen = PENALTY[code];
    double bonus = 0.0;
    i64 flush = unseen & pen & suit_mask & above(card);
    if (flush && (code == NO_HEARTS || !(hand & pen & suit_mask))) {
        i64 mine_above = hand & above(lowest(flush));
        double weight = mine_above ? 0.12 : 0.25;
        if (code == NO_HEARTS) weight = 0.3;
        int n = popcount(flush);
        bonus += weight * unit_of(code) * (n < 2 ? n : 2);
    }
    if (popcount(hand & suit_mask) == 1 && (hand & ~suit_mask)) {
        bonus += (unseen & suit_mask) ? 0.04 * unit_of(code) : 0.0;
    }
    return bonus;
}

/* No Last Two: the three cards safest to keep, by (danger, card id). */
typedef struct {
    int card0, card1;
    double danger0, danger1, danger2;
    int n_safe;
} Safest;

static Safest safest_three(int code, i64 hand, i64 unseen) {
    Safest k = {-1, -1, 0.0, 0.0, 0.0, 0};
    i64 rest = hand;
    while (rest) {
        int card = lowest(rest);
        rest ^= BIT(card);
        double d = danger(code, card, hand, unseen);
        int pos = k.n_safe;
        if (pos > 2 && d < k.danger2) pos = 2;
        if (pos > 1 && d < k.danger1) pos = 1;
        if (pos > 0 && d < k.danger0) pos = 0;
        if (pos < 3) {
            if (pos <= 1 && k.n_safe >= 2) k.danger2 = k.danger1;
            if (pos == 0 && k.n_safe >= 1) {
                k.danger1 = k.danger0;
                k.card1 = k.card0;
            }
            if (pos == 0) {
                k.danger0 = d;
                k.card0 = card;
            } else if (pos == 1) {
                k.danger1 = d;
                k.card1 = card;
            } else {
                k.danger2 = d;
            }
            k.n_safe = k.n_safe + 1 < 3 ? k.n_safe + 1 : 3;
        }
    }
    return k;
}

static double win_chance(const Seen *s, int card, int leading, int following, int win_card) {
    if (leading || (following && card >= win_card)) return p_win(s, card);
    return 0.0;
}

static int play_negative(int code, i64 legal_cards, const Seen *s, i64 trick_mask,
                         i64 trick_no, int led, int win_card) {
    int leading = led < 0;
    int following = !leading && (legal_cards & SUITS[led]) != 0;
    i64 unit = unit_of(code);
    i64 pen = PENALTY[code];
    int last_two = code == NO_LAST_TWO;
    Safest k = {-1, -1, 0.0, 0.0, 0.0, 0};
    if (last_two) k = safest_three(code, s->hand, s->unseen);
    double keep = 0.0, keep_more = 0.0;
    if (k.n_safe >= 1) {
        keep += k.danger0;
        keep_more += k.danger0;
    }
    if (k.n_safe >= 2) {
        keep += k.danger1;
        keep_more += k.danger1;
    }
    if (k.n_safe >= 3) keep_more += k.danger2;
    int best = -1;
    double best_cost = 0.0;
    i64 rest = legal_cards;
    while (rest) {
        int card = lowest(rest);
        i64 bit = BIT(card);
        rest ^= bit;
        double chance = win_chance(s, card, leading, following, win_card);
        double cost;
        if (last_two) {
            double kept = keep;
            if (k.n_safe >= 1 && k.card0 == card) {
                kept = keep_more - k.danger0;
            } else if (k.n_safe >= 2 && k.card1 == card) {
                kept = keep_more - k.danger1;
            }
            cost = KEEP * (kept - keep) - shed_value(code, card, s->hand, s->unseen);
        } else {
            cost = -shed_value(code, card, s->hand, s->unseen);
        }
        if (chance > 0.0) cost += chance * trick_cost(code, card, s, trick_mask, trick_no, led);
        if (!leading && !following && (bit & pen)) cost -= 0.5 * unit;
        if (leading) cost -= lead_bonus(code, card, s->hand, s->unseen);
        if (best < 0 || cost < best_cost - 1e-9) {
            best = card;
            best_cost = cost;
        }
    }
    return best;
}

/* -- Trumps ----------------------------------------------------------------------- */

static int ruff_threat(const Seen *s, int suit, int trump) {
    if (suit == trump || !(s->unseen & SUITS[trump])) return 0;
    int bit = 1 << suit;
    int tbit = 1 << trump;
    for (int i = 0; i < s->n_later; i++) {
        int shown = seat_voids(s->voids, later_seat(s->me, i));
        if ((shown & bit) && !(shown & tbit)) return 1;
    }
    return 0;
}

static double trick_chance(int card, int trump, i64 unseen) {
    int high = popcount(unseen & above(card));
    if (trump >= 0 && card / 13 == trump) return 1.0 / (1 + high);
    return high < 3 ? 1.0 / (1 + 2 * high) : 0.0;
}

static int trump_discard(i64 legal_cards, i64 hand, int trump, i64 unseen) {
    int best = -1;
    double best_chance = 0.0;
    int best_length = 0;
    i64 rest = legal_cards;
    while (rest) {
        int card = lowest(rest);
        rest ^= BIT(card);
        double chance = trick_chance(card, trump, unseen);
        int length = popcount(hand & SUITS[card / 13]);
        if (best < 0 || chance < best_chance || (chance == best_chance && length < best_length)) {
            best = card;
            best_chance = chance;
            best_length = length;
        }
    }
    return best;
}

static int safest_winner(const Seen *s, i64 legal_cards, int trump, double *safety_out) {
    i64 out = s->unseen & SUITS[trump];
    int best = -1;
    double best_safety = 0.0;
    for (int suit = 0; suit < 4; suit++) {
        if (suit == trump) continue;
        i64 have = legal_cards & SUITS[suit];
        if (!have) continue;
        int top = highest(have);
        if (s->unseen & SUITS[suit] & above(top)) continue;
        double safety = 1.0;
        if (out) {
            for (int seat = 0; seat < 4; seat++) {
                if (seat == s->me || ((seat_voids(s->voids, seat) >> trump) & 1)) continue;
                safety *= 1.0 - void_chance(s, seat, suit);
            }
        }
        if (safety > best_safety) {
            best = top;
            best_safety = safety;
        }
    }
    *safety_out = best_safety;
    return best;
}

static int singleton_loser(i64 side, i64 unseen) {
    for (int suit = 0; suit < 4; suit++) {
        i64 have = side & SUITS[suit];
        if (have && popcount(have) == 1 && (unseen & SUITS[suit] & above(highest(have)))) {
            return highest(have);
        }
    }
    return -1;
}

static int low_from_longest(i64 side) {
    i64 longest = 0;
    int longest_count = -1;
    int longest_top = -1;
    for (int suit = 0; suit < 4; suit++) {
        i64 have = side & SUITS[suit];
        if (!have) continue;
        int count = popcount(have);
        int top = highest(have);
        if (count > longest_count || (count == longest_count && top > longest_top)) {
            longest = have;
            longest_count = count;
            longest_top = top;
        }
    }
    return lowest(longest);
}

static int lead_trumps(const Seen *s, i64 legal_cards, int trump) {
    i64 trumps = SUITS[trump];
    i64 mine = legal_cards & trumps;
    i64 out = s->unseen & trumps;
    if (mine && out && highest(mine) > highest(out) && popcount(mine) * 2 >= popcount(out)) {
        return highest(mine);
    }
    double safety;
    int best = safest_winner(s, legal_cards, trump, &safety);
    if (best >= 0 && safety >= 0.5) return best;
    if (mine && !out) return highest(mine);
    i64 side = legal_cards & ~trumps;
    if (!side) {
        return (!out || highest(legal_cards) < highest(out)) ? lowest(legal_cards)
                                                              : highest(legal_cards);
    }
    if (s->hand & trumps) {
        int single = singleton_loser(side, s->unseen);
        if (single >= 0) return single;
    }
    return low_from_longest(side);
}

static int follow_trumps(const Seen *s, i64 legal_cards, int trump, int led, int win) {
    i64 follow = legal_cards & SUITS[led];
    if (led != trump && (BIT(win) & SUITS[trump])) return lowest(follow);
    i64 beats = follow & above(win);
    if (!beats) return lowest(follow);
    if (s->n_later == 0) return lowest(beats);
    i64 out = s->unseen & SUITS[led];
    i64 sure = out ? beats & ~((((i64)2) << highest(out)) - 1) : beats;
    if (ruff_threat(s, led, trump)) return lowest(follow);
    if (sure) return lowest(sure);
    if (s->n_later == 1) return highest(beats);
    return lowest(follow);
}

static int ruff(const Seen *s, i64 legal_cards, int trump, int led, int win) {
    i64 trumps = SUITS[trump];
    i64 ruffs = legal_cards & trumps;
    i64 over = (BIT(win) & trumps) ? ruffs & above(win) : ruffs;
    if (!over) return lowest(ruffs);
    if (s->n_later == 0) return lowest(over);
    if (ruff_threat(s, led, trump)) {
        i64 out = s->unseen & trumps;
        i64 sure = out ? over & ~((((i64)2) << highest(out)) - 1) : over;
        if (sure) return lowest(sure);
    }
    return lowest(over);
}

static int play_trumps(const Seen *s, i64 legal_cards, int trump, int led, int win) {
    if (led < 0) return lead_trumps(s, legal_cards, trump);
    if (legal_cards & SUITS[led]) return follow_trumps(s, legal_cards, trump, led, win);
    if (legal_cards & SUITS[trump]) return ruff(s, legal_cards, trump, led, win);
    return trump_discard(legal_cards, s->hand, trump, s->unseen);
}

/* -- the entry points ------------------------------------------------------------- */

int rule_card(const i64 *state, int contract, int trump, int flags) {
    i64 legal_cards = legal_now(state, contract, trump, flags);
    if (!(legal_cards & (legal_cards - 1))) return highest(legal_cards);
    Seen s;
    s.me = (int)state[S_TURN];
    s.hand = state[s.me];
    s.unseen = FULL & ~s.hand & ~state[S_PLAYED];
    int count = (int)state[S_COUNT];
    int led = count ? (int)state[S_LED] : -1;
    int win = count ? (int)state[S_TOP] : -1;
    s.n_later = 3 - count;
    s.voids = 0;
    for (int seat = 0; seat < 4; seat++) s.voids |= state[S_VOIDS + seat] << (4 * seat);
    s.opp_out = 0;
    for (int suit = 0; suit < 4; suit++) {
        for (int seat = 0; seat < 4; seat++) {
            if (seat != s.me && !((state[S_VOIDS + seat] >> suit) & 1)) {
                s.opp_out += ((i64)1) << (4 * suit);
            }
        }
    }
    if (contract == TRUMPS) return play_trumps(&s, legal_cards, trump, led, win);
    return play_negative(contract, legal_cards, &s, state[S_TRICK], state[S_TRICKS], led, win);
}

void rule_playout(i64 *state, int contract, int trump, int flags) {
    while (!state[S_OVER]) play(state, rule_card(state, contract, trump, flags), contract, trump, flags);
}

static void others_play(i64 *state, int me, int contract, int trump, int flags) {
    while (!state[S_OVER] && state[S_TURN] != me) {
        play(state, rule_card(state, contract, trump, flags), contract, trump, flags);
    }
}

static i64 choices(const i64 *state, int contract, int trump, int flags, i64 penalty) {
    i64 cards = legal_now(state, contract, trump, flags);
    return distinct(cards, state[S_PLAYED] & ~state[S_TRICK], penalty);
}

static void copy_state(i64 *to, const i64 *from) {
    for (int i = 0; i < STATE_SIZE; i++) to[i] = from[i];
}

i64 best_reply(i64 *state, int me, int contract, int trump, int flags, i64 *stack) {
    others_play(state, me, contract, trump, flags);
    if (state[S_OVER]) return state[S_POINTS + me];
    i64 masks[14];
    i64 best[14];
    i64 penalty = PENALTY[contract];
    copy_state(stack, state);
    masks[0] = choices(state, contract, trump, flags, penalty);
    best[0] = -(((i64)1) << 40);
    int depth = 0;
    i64 result = best[0];
    while (depth >= 0) {
        if (masks[depth] == 0) {
            i64 value = best[depth];
            depth -= 1;
            if (depth >= 0) {
                if (value > best[depth]) best[depth] = value;
            } else {
                result = value;
            }
            continue;
        }
        int card = lowest(masks[depth]);
        masks[depth] ^= BIT(card);
        i64 *child = stack + (depth + 1) * STATE_SIZE;
        copy_state(child, stack + depth * STATE_SIZE);
        play(child, card, contract, trump, flags);
        others_play(child, me, contract, trump, flags);
        if (child[S_OVER]) {
            if (child[S_POINTS + me] > best[depth]) best[depth] = child[S_POINTS + me];
            continue;
        }
        depth += 1;
        masks[depth] = choices(child, contract, trump, flags, penalty);
        best[depth] = -(((i64)1) << 40);
    }
    return result;
}
