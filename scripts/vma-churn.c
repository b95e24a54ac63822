/* vma-churn.c - address spaces built and torn down: the maple_node and
 * vm_area_struct traffic of process churn (fork, many VMAs, munmap, exit)
 * without a compiler's other work.
 *
 *   cc -O2 -o vma-churn scripts/vma-churn.c && ./vma-churn 8 2000
 *
 * N children each map M one-page anonymous regions with alternating
 * protections (so no two merge into one VMA), unmap every other one
 * (maple tree stores while the mm lives: kfree_rcu of the replaced nodes in
 * 6.18), sleep 20 ms and exit (exit_mmap destroys the tree:
 * kmem_cache_free_bulk of its nodes).  The parent waits for all. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 8, m = argc > 2 ? atoi (argv[2]) : 2000;
  for (int i = 0; i < n; i++)
    if (fork () == 0)
      {
        char **p = malloc ((size_t) m * sizeof *p);
        for (int j = 0; j < m; j++)
          p[j] = mmap (NULL, 4096, (j & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        for (int j = 0; j < m; j += 2)
          munmap (p[j], 4096);
        usleep (20000);
        _exit (0);
      }
  while (wait (NULL) > 0)
    ;
  return 0;
}
