/* The engine's interface constants, shared by api.c and the host (king.bots.engine
 * reads them from here, so they are written once). */
#ifndef KING_API_H
#define KING_API_H

/* Bumped whenever an entry point's meaning changes. */
#define KING_ENGINE_VERSION 1

/* The exchange area: 2 MiB of int64 words. */
#define IO_WORDS 262144

/* What an entry point returns when it refuses its input. */
#define KING_E_BOUNDS -1   /* an array does not lie inside the exchange area */
#define KING_E_GAME -2     /* a contract, trump, rule flag, seat or setting out of range */
#define KING_E_POSITION -3 /* a position or deal the rules cannot reach */
#define KING_E_CARD -4     /* a card that is not legal where it is played */
#define KING_E_COUNT -5    /* too many or too few of something */

#include "engine.h"

#ifdef __wasm__
#define EXPORT(name) __attribute__((export_name(#name)))
#else /* the native build of the tests calls them directly */
#define EXPORT(name)
#endif

/* Shared by the entry points of every file (api.c). */
i64 *area(int offset, i64 words);
int game_ok(int contract, int trump, int flags);
int seat_ok(int seat);
int in_range(i64 value, i64 low, i64 high);
int position_ok(const i64 *state, int whole);
int deal_ok(const i64 *hands);

/* The arrays of a rollouts entry point (king_*_rollouts), found in the exchange area:
 * `n_worlds` worlds of four hands, a base position, the candidates, the values. */
typedef struct {
    const i64 *worlds, *base, *candidates;
    i64 *values;
} Rollouts;
/* Those arrays, their counts checked: 0, or KING_E_COUNT or KING_E_BOUNDS. */
int rollout_arrays(int worlds_at, int n_worlds, int base_at, int candidates_at,
                   int n_candidates, int values_at, Rollouts *out);

#endif
