/* rng.h - the simulator's own PRNG: splitmix64 seeding, xoshiro256** streams.
 *
 * Results must be the same bytes for the same inputs on every host, so the
 * simulator never uses rand(), g_random_* (seeded from the clock) or anything
 * whose sequence depends on the C library.  Every consumer gets its own
 * stream derived from (base seed, stream id), so adding a consumer does not
 * shift the numbers another one draws.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 s[4];
} SimRng;

/* Seed @rng from @seed and @stream (any values, 0 included). */
void    sim_rng_init    (SimRng *rng, guint64 seed, guint64 stream);
guint64 sim_rng_next    (SimRng *rng);
/* Uniform in [0, bound) without modulo bias; @bound > 0. */
guint64 sim_rng_below   (SimRng *rng, guint64 bound);
/* Uniform double in [0, 1). */
double  sim_rng_double  (SimRng *rng);
/* splitmix64 step, also usable as a 64-bit mixing hash. */
guint64 sim_splitmix64  (guint64 *state);

G_END_DECLS
