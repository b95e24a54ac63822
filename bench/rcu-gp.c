/* rcu-gp.c - how long an RCU grace period takes on this machine.
 *
 *   cc -O2 -o rcu-gp bench/rcu-gp.c && ./rcu-gp 100
 *
 * membarrier(MEMBARRIER_CMD_GLOBAL) is synchronize_rcu() in the kernel
 * (kernel/sched/membarrier.c), so its latency seen from user space is one
 * grace period plus a system call.  Prints the distribution in
 * microseconds; the median of the recording VM is rcu_grace_period_us in
 * configs/machines/recording-vm.yaml.  Linux only. */
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int
cmp (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 100;
  if (n < 1)
    n = 1;
  double *v = malloc (n * sizeof *v);
  for (int i = 0; i < n; i++)
    {
      struct timespec a, b;
      clock_gettime (CLOCK_MONOTONIC, &a);
      if (syscall (SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
        {
          perror ("membarrier");
          return 1;
        }
      clock_gettime (CLOCK_MONOTONIC, &b);
      v[i] = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
    }
  qsort (v, n, sizeof *v, cmp);
  printf ("n=%d min=%.0f p25=%.0f p50=%.0f p75=%.0f p90=%.0f max=%.0f us\n", n, v[0],
          v[n / 4], v[n / 2], v[3 * n / 4], v[9 * n / 10], v[n - 1]);
  free (v);
  return 0;
}
