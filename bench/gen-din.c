/* gen-din.c - deterministic multi-CPU Dinero din trace generator for the
 * bundled sample (traces/samples/walk-200k.din.gz) and bench/cachesim.sh.
 *
 * usage: gen-din NACC NCPUS SEED > trace.din
 *
 * Each record is "r|w|m HEXADDR 8 CPU".  The CPU changes every 1..32
 * accesses (a burst, as a thread runs for a while).  Within a burst:
 *   75 %  the CPU's own hot set (256 lines) of its private 4096-line region
 *   14 %  the rest of its private region
 *   10 %  a 2048-line region shared by every CPU (coherence traffic)
 *    1 %  one of 8 lock lines, as a read-modify-write
 * 30 % of the non-lock accesses are writes.  The LCG is walk.c's, so the
 * stream depends only on the arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t
lcg (uint64_t x)
{
  return x * 6364136223846793005ULL + 1442695040888963407ULL;
}

static char *
put_hex (char *p, uint64_t v)
{
  char tmp[16];
  int n = 0;
  do
    {
      tmp[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    }
  while (v);
  while (n)
    *p++ = tmp[--n];
  return p;
}

static char *
put_dec (char *p, unsigned v)
{
  char tmp[12];
  int n = 0;
  do
    {
      tmp[n++] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v);
  while (n)
    *p++ = tmp[--n];
  return p;
}

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: gen-din NACC NCPUS SEED > trace.din\n");
      return 2;
    }
  uint64_t nacc = strtoull (argv[1], NULL, 0);
  unsigned ncpus = (unsigned) strtoul (argv[2], NULL, 0);
  uint64_t x = strtoull (argv[3], NULL, 0);
  if (ncpus == 0)
    {
      fprintf (stderr, "gen-din: NCPUS must be at least 1\n");
      return 2;
    }
  static char buf[1 << 16];
  char *p = buf;
  unsigned cpu = 0, burst = 0;
  for (uint64_t i = 0; i < nacc; i++)
    {
      x = lcg (x);
      if (burst == 0)
        {
          cpu = (unsigned) ((x >> 40) % ncpus);
          burst = 1 + (unsigned) ((x >> 20) % 32);
          x = lcg (x);
        }
      burst--;
      unsigned pick = (unsigned) ((x >> 33) % 100);
      uint64_t r = x >> 17;
      char op = ((x >> 7) % 100) < 30 ? 'w' : 'r';
      uint64_t addr;
      if (pick < 75)
        addr = 0x1000000 + (uint64_t) cpu * 0x100000 + (r % 256) * 64;
      else if (pick < 89)
        addr = 0x1000000 + (uint64_t) cpu * 0x100000 + (r % 4096) * 64;
      else if (pick < 99)
        addr = 0x4000000 + (r % 2048) * 64;
      else
        {
          addr = 0x5000000 + (r % 8) * 64;
          op = 'm';
        }
      addr += ((x >> 3) % 8) * 8;
      *p++ = op;
      *p++ = ' ';
      p = put_hex (p, addr);
      memcpy (p, " 8 ", 3);
      p = put_dec (p + 3, cpu);
      *p++ = '\n';
      if (p > buf + sizeof buf - 64)
        {
          fwrite (buf, 1, (size_t) (p - buf), stdout);
          p = buf;
        }
    }
  fwrite (buf, 1, (size_t) (p - buf), stdout);
  return ferror (stdout) ? 1 : 0;
}
