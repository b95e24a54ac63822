/* rng.c - splitmix64 and xoshiro256** (Blackman & Vigna, public domain
 * algorithms), written from their published definitions. */
#include "sim/core/rng.h"

guint64
sim_splitmix64 (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void
sim_rng_init (SimRng *rng, guint64 seed, guint64 stream)
{
  guint64 st = seed ^ (stream * G_GUINT64_CONSTANT (0xd1b54a32d192ed03));
  for (int i = 0; i < 4; i++)
    rng->s[i] = sim_splitmix64 (&st);
  /* xoshiro must not start from the all-zero state; splitmix64 of any
   * input practically never gives four zeros, but make it impossible. */
  if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0)
    rng->s[0] = 1;
}

static inline guint64
rotl (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

guint64
sim_rng_next (SimRng *rng)
{
  guint64 *s = rng->s;
  guint64 result = rotl (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

guint64
sim_rng_below (SimRng *rng, guint64 bound)
{
  g_return_val_if_fail (bound > 0, 0);
  /* Rejection sampling: drop the top sliver that would bias the modulo. */
  guint64 limit = G_MAXUINT64 - (G_MAXUINT64 % bound);
  guint64 x;
  do
    x = sim_rng_next (rng);
  while (x >= limit);
  return x % bound;
}

double
sim_rng_double (SimRng *rng)
{
  return (sim_rng_next (rng) >> 11) * (1.0 / 9007199254740992.0);
}
