/* host-latency.c - what one random read from a table of N MiB costs on
 * this host, with 4 KiB or 2 MiB pages, with and without a prefetch a few
 * reads ahead (docs/perf/bigreplay-12.md: why a long trace's events cost
 * more than a short one's, and sim/core/hostmem.h).
 *
 * Usage: host-latency MIB
 * Prints, for 4 KiB pages (MADV_NOHUGEPAGE) and transparent huge pages
 * (MADV_HUGEPAGE), the ns a read of: a chain of dependent reads (latency),
 * independent reads with ~20 ns of work between them (a replay's shape),
 * and the same with each read prefetched 8 reads ahead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64
#define READS 2000000u

static volatile uint64_t sink;

static double
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

/* A random cyclic order of the table's lines (xorshift, fixed seed). */
static size_t *
shuffled (size_t n)
{
  size_t *p = malloc (n * sizeof *p);
  if (p == NULL)
    exit (1);
  for (size_t i = 0; i < n; i++)
    p[i] = i;
  uint64_t s = 88172645463325252ull;
  for (size_t i = n - 1; i > 0; i--)
    {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      size_t j = s % (i + 1), t = p[i];
      p[i] = p[j], p[j] = t;
    }
  return p;
}

static void
run (size_t mib, int huge)
{
  size_t bytes = mib << 20, align = (size_t) 2 << 20, lines = bytes / LINE;
  char *raw = mmap (NULL, bytes + align, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    exit (1);
  char *p = (char *) (((uintptr_t) raw + align - 1) & ~(uintptr_t) (align - 1));
  madvise (p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  uint64_t *v = (uint64_t *) (void *) p;
  size_t *order = shuffled (lines);
  for (size_t i = 0; i < lines; i++)
    v[order[i] * (LINE / 8)] = order[(i + 1) % lines] * (LINE / 8);
  double ns[3];
  uint64_t acc = 0;
  for (int mode = 0; mode < 3; mode++)
    {
      double t0 = now_ns ();
      if (mode == 0)
        {
          uint64_t x = 0;
          for (unsigned i = 0; i < READS; i++)
            x = v[x];
          acc += x;
        }
      else
        for (unsigned i = 0; i < READS; i++)
          {
            if (mode == 2)
              __builtin_prefetch (&v[order[(i + 8) % lines] * (LINE / 8)]);
            acc += v[order[i % lines] * (LINE / 8)];
            for (int w = 0; w < 20; w++)
              acc = acc * 31 + (uint64_t) w;
          }
      ns[mode] = (now_ns () - t0) / READS;
    }
  sink = acc;   /* the reads must not be optimised away */
  printf ("%4zu MiB %s pages: dependent %6.1f ns, independent %6.1f ns, prefetched %6.1f ns\n",
          mib, huge ? "2 MiB" : "4 KiB", ns[0], ns[1], ns[2]);
  free (order);
  munmap (raw, bytes + align);
}

int
main (int argc, char **argv)
{
  size_t mib = argc > 1 ? strtoul (argv[1], NULL, 10) : 16;
  if (mib == 0 || mib > 4096)
    {
      fprintf (stderr, "usage: host-latency MIB (1..4096)\n");
      return 2;
    }
  run (mib, 0);
  run (mib, 1);
  return 0;
}
