/* slab-test.h - Christoph Lameter's in-kernel slab_test module, run in the
 * simulator ("slabsim slab-test").
 *
 * The module (tests/slab_test.c of Christoph's test patches, 2007-2011;
 * the form posted to linux-mm from 2009 on) times loops of kmalloc/kfree
 * with get_cycles() and prints cycles per call:
 *
 *   repeat      test 1: for each size 8..16384, N kmallocs (each object
 *               written once, its pointer kept in an array v[]), then N
 *               kfrees (each object written once more before its free).
 *   pair        test 2: for each size, N times kmalloc then kfree at once.
 *   concurrent  the "Concurrent allocs" section: on every CPU at once, for
 *               each size 8..PAGE_SIZE, N kmallocs then (after a barrier)
 *               N kfrees ("Kmalloc N*alloc N*free"), and N kmalloc+kfree
 *               pairs ("Kmalloc N*(alloc free)").
 *
 * The driver calls the allocator model through its ops table, one SimOp
 * per loop iteration on that CPU's clock.  The time of a loop is the CPU's
 * clock after it minus before it, as get_cycles() would read it, converted
 * to TSC cycles with the machine's tsc frequency.  The driver never prints;
 * sim/report/slab-test-report.c renders the result in the module's lines.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"
#include "sim/config/machine.h"

G_BEGIN_DECLS

typedef enum {
  SIM_SLAB_TEST_REPEAT          = 1u << 0,
  SIM_SLAB_TEST_PAIR            = 1u << 1,
  SIM_SLAB_TEST_CONCURRENT      = 1u << 2,   /* both loops of "Concurrent allocs" */
  /* Not slab_test's: the loop of Jesper Brouer's time_bench_kmem_cache1
   * (kmem_cache_alloc + kmem_cache_free of one 256-byte object from its
   * own cache), which the calibration tables S04, S14, S15, S17 and S19
   * report as their "fastpath" rows.  Not in the default set. */
  SIM_SLAB_TEST_CACHE           = 1u << 3,
} SimSlabTestMask;

#define SIM_SLAB_TEST_ALL (SIM_SLAB_TEST_REPEAT | SIM_SLAB_TEST_PAIR | SIM_SLAB_TEST_CONCURRENT)

/* What one result row measured. */
typedef enum {
  SIM_SLAB_TEST_ROW_REPEAT,           /* alloc and free loops on CPU 0 */
  SIM_SLAB_TEST_ROW_PAIR,             /* one alloc+free loop on CPU 0 */
  SIM_SLAB_TEST_ROW_CONCURRENT,       /* N*alloc N*free on every CPU */
  SIM_SLAB_TEST_ROW_CONCURRENT_PAIR,  /* N*(alloc free) on every CPU */
  SIM_SLAB_TEST_ROW_CACHE_PAIR,       /* kmem_cache_alloc+free loop on CPU 0 */
} SimSlabTestRowKind;

/* The object size of the kmem_cache test (time_bench_kmem_cache1). */
#define SIM_SLAB_TEST_CACHE_SIZE      256u

/* The module's sizes: 8 .. PAGE_SIZE << 2 for tests 1 and 2, 8 .. PAGE_SIZE
 * (1 << 3 .. 1 << PAGE_SHIFT) for the concurrent ones. */
#define SIM_SLAB_TEST_MIN_SIZE        8u
#define SIM_SLAB_TEST_MAX_SIZE        (SIM_PAGE_SIZE << 2)
#define SIM_SLAB_TEST_MAX_SIZE_CONC   SIM_PAGE_SIZE

typedef struct {
  SimSlabTestRowKind kind;
  guint32 size;
  /* TSC cycles of the whole loop(s); the module divides by the count.
   * repeat: p1 = the kmalloc loop, p2 = the kfree loop; pair: p1 only.
   * Concurrent rows: per CPU, [n_cpus] each (p2 NULL for the pair loop). */
  guint64  p1, p2;
  guint64 *cpu_p1, *cpu_p2;
} SimSlabTestRow;

typedef struct {
  char   *allocator;          /* "slub" */
  char   *kernel;             /* "2.6.34" */
  char   *params;             /* canonical "key=value,..." */
  char   *machine;            /* machine name */
  guint   count;              /* TEST_COUNT */
  guint   n_cpus;
  double  frequency_ghz;      /* core clock: the model's cycles */
  double  tsc_ghz;            /* get_cycles() rate: the printed cycles */
  guint   tests;              /* SimSlabTestMask that ran */
  GArray *rows;               /* SimSlabTestRow, in the module's print order */
  guint64 lock_wait_cycles;   /* core cycles, all ops */
} SimSlabTestResult;

typedef struct {
  const SimMachine *machine;
  guint count;                /* TEST_COUNT, >= 1 */
  guint tests;                /* SimSlabTestMask */
} SimSlabTestOptions;

/* The cycles one loop iteration costs on its CPU: what the allocator model
 * charged for the call (instructions, memory latency, lock waits) plus the
 * module's own accesses in that iteration (the store to the object, the
 * v[i] slot).  Every iteration's cost is read through this function. */
guint64 sim_slab_test_op_cycles (const SimOp *op);

/* Core cycles to the TSC cycles get_cycles() counts on @m. */
guint64 sim_slab_test_tsc (const SimMachine *m, guint64 core_cycles);

/* Run the selected tests with the allocator @spec on a fresh machine.
 * Errors: the spec's, SIM_MODEL_ERROR_OUT_OF_MEMORY when the machine's
 * memory cannot hold count objects of a size, a broken model invariant. */
gboolean sim_slab_test_run (const char *spec, const SimSlabTestOptions *opt,
                            SimSlabTestResult *out, GError **error);

void sim_slab_test_result_clear (SimSlabTestResult *r);

/* "repeat", "pair", "concurrent", "concurrent-pair", "kmem-cache" (JSON
 * and docs). */
const char *sim_slab_test_row_name (SimSlabTestRowKind kind);

/* Parse "repeat,pair,concurrent,kmem_cache" into a mask; SIM_USAGE_ERROR on a name
 * that is none of them. */
gboolean sim_slab_test_parse_tests (const char *list, guint *mask, GError **error);

G_END_DECLS
