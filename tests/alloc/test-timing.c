/* test-timing.c - the core timing model of SimOp (models/alloc/alloc.h,
 * docs/models/timing.md): which accesses overlap, which serialise, what
 * the store buffer hides and what drains it, how instructions and the
 * machine's instruction costs are charged, and the core: section of a
 * machine file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "models/alloc/alloc.h"
#include "sim/config/machine.h"
#include "sim/core/errors.h"

/* One core, an L1d of 4 cycles and DRAM at 100: every access to a new
 * line is a 100-cycle miss, a second access to it a 4-cycle hit. */
#define BOX                                                                   \
  "name: t\nfrequency: 1GHz\ntopology: {sockets: 1, cores_per_socket: 1}\n"  \
  "caches:\n  L1d: {size: 32K, ways: 8, latency: 4}\n"                       \
  "coherence: {protocol: mesi, local_clean: 50, local_hitm: 60, remote_clean: 90, remote_hitm: 90}\n" \
  "memory: {numa: false, node_size: 1G, local_latency: 100, remote_latency: 100}\n"

#define CORE                                                                  \
  "core:\n  cpi: 0.5\n  width: 2\n  fill_buffers: 4\n  store_buffer: 8\n"                 \
  "  costs: {lock_cmpxchg: 16, irq_save: 6, irq_restore: 20, call: 3, cmpxchg16b: 10}\n"

/* The same core out of order: a reorder window of 8 instructions. */
#define CORE_OOO                                                              \
  "core:\n  cpi: 0.5\n  width: 2\n  rob: 8\n  fill_buffers: 4\n  store_buffer: 8\n" \
  "  costs: {lock_cmpxchg: 16, irq_save: 6, irq_restore: 20, call: 3, cmpxchg16b: 10}\n"

typedef struct {
  SimMachine *m;
  SimMemSys *mem;
} Box;

static Box
box_new (const char *extra)
{
  g_autofree char *yaml = g_strconcat (BOX, extra, NULL);
  GError *err = NULL;
  Box b;
  b.m = sim_machine_load_data (yaml, strlen (yaml), "t.yaml", NULL, &err);
  assert_null (err);
  b.mem = sim_memsys_new (b.m, &err);
  assert_null (err);
  return b;
}

static void
box_free (Box *b)
{
  sim_memsys_free (b->mem);
  sim_machine_free (b->m);
}

#define LINE(i) (0x100000 + 64 * (SimAddr) (i))

/* Without core: everything is serial, as before the model existed. */
static void
test_serial_default (void **state)
{
  (void) state;
  Box b = box_new ("");
  assert_int_equal (b.m->core.cpi_milli, 1000);
  assert_int_equal (b.m->core.fill_buffers, 1);
  assert_int_equal (b.m->core.store_buffer, 0);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 1000);
  SimTok a = sim_op_load (&op, LINE (0), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  SimTok c = sim_op_load (&op, LINE (1), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_use (&op, MAX (a, c));
  sim_op_store (&op, LINE (2), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_instr (&op, 10);
  sim_op_irqsave (&op);
  assert_int_equal (sim_op_cycles (&op), 300 + 10);
  assert_int_equal (op.t, 1000 + 310);
  assert_int_equal (op.cost.mem_cycles, 300);
  assert_int_equal (op.cost.instr, 10);
  box_free (&b);
}

/* Independent misses overlap; a pointer chase does not. */
static void
test_overlap_and_chase (void **state)
{
  (void) state;
  Box b = box_new (CORE);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 0);
  SimTok a = sim_op_load (&op, LINE (0), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  SimTok c = sim_op_load (&op, LINE (1), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (a, 100);
  assert_int_equal (c, 100);
  sim_op_use (&op, MAX (a, c));
  assert_int_equal (sim_op_cycles (&op), 100);

  /* head -> object's free pointer -> next: each waits for the one before. */
  sim_op_begin (&op, b.mem, 0, 0);
  SimTok h = sim_op_load (&op, LINE (10), 8, SIM_MEM_FREEPTR, SIM_TOK_NOW);
  SimTok f = sim_op_load (&op, LINE (11), 8, SIM_MEM_FREEPTR, h);
  SimTok n = sim_op_load (&op, LINE (12), 8, SIM_MEM_FREEPTR, f);
  sim_op_use (&op, n);
  assert_int_equal (sim_op_cycles (&op), 300);

  /* The unannotated read is the serial default: dependent and waited for. */
  sim_op_begin (&op, b.mem, 0, 0);
  sim_op_read (&op, LINE (20), 8, SIM_MEM_OTHER);
  sim_op_read (&op, LINE (21), 8, SIM_MEM_OTHER);
  sim_op_read (&op, LINE (20), 8, SIM_MEM_OTHER);     /* now a hit */
  assert_int_equal (sim_op_cycles (&op), 204);
  box_free (&b);
}

/* Misses in flight are bounded by the fill buffers. */
static void
test_fill_buffers (void **state)
{
  (void) state;
  Box b = box_new (CORE);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 0);
  SimTok last = 0;
  for (guint i = 0; i < 9; i++)
    {
      SimTok r = sim_op_load (&op, LINE (30 + i), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
      last = MAX (last, r);
    }
  /* 4 at a time: 4 done at 100, 4 more at 200, the ninth at 300. */
  assert_int_equal (last, 300);
  /* Hits take no fill buffer. */
  SimTok hit = sim_op_load (&op, LINE (30), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (hit, 4);
  sim_op_use (&op, last);
  assert_int_equal (op.cost.mem_cycles, 300);
  box_free (&b);
}

/* Stores are free until the buffer fills; a locked op drains it. */
static void
test_store_buffer (void **state)
{
  (void) state;
  Box b = box_new (CORE);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 0);
  for (guint i = 0; i < 4; i++)
    sim_op_store (&op, LINE (40 + i), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (sim_op_cycles (&op), 0);
  /* A locked instruction waits for all four to commit (100, 101, 102,
   * 103), then its own access (a miss) and its cost. */
  sim_op_atomic (&op, LINE (50), 8, SIM_MEM_LOCK, SIM_X_LOCK_CMPXCHG);
  assert_int_equal (sim_op_cycles (&op), 103 + 100 + 16);
  assert_int_equal (op.cost.instr, 16);

  /* Nine stores into eight entries: the ninth waits for the oldest. */
  sim_op_begin (&op, b.mem, 0, 0);
  for (guint i = 0; i < 9; i++)
    sim_op_store (&op, LINE (60 + i), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_true (sim_op_cycles (&op) >= 100);
  assert_int_equal (op.cost.instr, 0);

  /* A spinlock round trip: atomic + cost, then a buffered store. */
  SimLock lock;
  sim_lock_init (&lock, "t");
  sim_op_begin (&op, b.mem, 0, 0);
  sim_op_read (&op, LINE (70), 8, SIM_MEM_LOCK);          /* lock word cached */
  guint64 before = sim_op_cycles (&op);
  sim_op_lock (&op, &lock, LINE (70));
  sim_op_unlock (&op, &lock, LINE (70));
  assert_int_equal (sim_op_cycles (&op) - before, 4 + b.m->core.cost[SIM_X_SPIN_LOCK]);
  box_free (&b);
}

/* Instructions at cpi with the fraction carried; special instructions
 * from the table; an unlocked cmpxchg16b waits for its operands. */
static void
test_instruction_costs (void **state)
{
  (void) state;
  Box b = box_new (CORE);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 0);
  sim_op_instr (&op, 3);          /* 1.5 cycles: 1 now, 0.5 carried */
  sim_op_instr (&op, 3);
  assert_int_equal (op.cost.instr, 3);
  sim_op_irqsave (&op);
  sim_op_irqrestore (&op);
  sim_op_call (&op);
  assert_int_equal (op.cost.instr, 3 + 6 + 20 + 3);
  sim_op_preempt (&op);           /* not in the table: 0 */
  assert_int_equal (op.cost.instr, 32);
  SimTok f = sim_op_load (&op, LINE (80), 16, SIM_MEM_CPU_SLAB, SIM_TOK_NOW);
  sim_op_rmw_local (&op, LINE (80), 16, SIM_MEM_CPU_SLAB, SIM_X_CMPXCHG16B, f);
  /* the load at 32 done at 132, the RMW's hit +4, its cost +10 */
  assert_int_equal (op.t, 132 + 4 + 10);
  box_free (&b);
}

/* Out of order: a used value stalls dispatch only when the reorder window
 * is full behind it. */
static void
test_window (void **state)
{
  (void) state;
  Box b = box_new (CORE_OOO);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 0);
  SimTok a = sim_op_load (&op, LINE (0), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_use (&op, a);
  assert_int_equal (op.t, 0);                     /* no wait at the use */
  /* 8 instructions (4 cycles) fit in the window; the 9th waits for the
   * miss (ready at 100), it and the 11 after it take 6 cycles. */
  sim_op_instr (&op, 20);
  assert_int_equal (op.t, 106);
  assert_int_equal (op.cost.instr, 10);
  assert_int_equal (op.cost.mem_cycles, 96);
  assert_int_equal (sim_op_cycles (&op), 106);
  box_free (&b);
}

/* One call's miss overlaps the next call's work on the same CPU; the
 * next call pays only what its window cannot hide. */
static void
test_across_calls (void **state)
{
  (void) state;
  Box b = box_new (CORE_OOO);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 0);
  sim_op_use (&op, sim_op_load (&op, LINE (0), 8, SIM_MEM_OTHER, SIM_TOK_NOW));
  assert_int_equal (sim_op_cycles (&op), 0);      /* the call ends with the miss in flight */
  SimTime end = op.t;
  sim_op_begin (&op, b.mem, 0, end);
  sim_op_instr (&op, 6);                          /* inside the window: 3 cycles */
  assert_int_equal (sim_op_cycles (&op), 3);
  sim_op_retire (&op);                            /* a serialising point waits for it */
  assert_int_equal (op.t, 100);
  /* An op on another timeline (earlier than this CPU got to) starts with
   * nothing in flight. */
  sim_op_begin (&op, b.mem, 0, 0);
  SimTok h = sim_op_load (&op, LINE (0), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (h, 4);
  box_free (&b);
}

/* Begins @op on CPU 0 at time 0 with @line in the cache and nothing in
 * flight; returns the time it got to. */
static SimTime
begin_with_line (Box *b, SimOp *op, SimAddr line)
{
  sim_op_begin (op, b->mem, 0, 0);
  sim_op_load (op, line, 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_retire (op);
  return op->t;
}

/* A load of a buffered store's address gets the store's data: the
 * freelist head written by one call and read by the next is a chain. */
static void
test_store_forwarding (void **state)
{
  (void) state;
  Box b = box_new (CORE_OOO);
  SimOp op;
  SimTime t0 = begin_with_line (&b, &op, LINE (5));
  /* The store's data is ready 50 cycles on (the end of a chain). */
  sim_op_store (&op, LINE (5), 8, SIM_MEM_CPU_SLAB, t0 + 50);
  SimTok r = sim_op_load (&op, LINE (5), 8, SIM_MEM_CPU_SLAB, SIM_TOK_NOW);
  assert_int_equal (r, t0 + 50 + 4);
  /* Another word of the line is not forwarded: a plain hit. */
  SimTok o = sim_op_load (&op, LINE (5) + 8, 8, SIM_MEM_CPU_SLAB, SIM_TOK_NOW);
  assert_int_equal (o, op.t + 4);
  /* cmpxchg16b out of order: its result is ready its cost after its old
   * value; dispatch goes on (one slot). */
  SimTime t1 = op.t;
  SimTok x = sim_op_rmw_local (&op, LINE (5), 16, SIM_MEM_CPU_SLAB, SIM_X_CMPXCHG16B, r);
  assert_int_equal (x, t0 + 50 + 4 + 4 + 10);
  assert_true (op.t <= t1 + 1);
  /* and the next load of the word sees the cmpxchg's store. */
  SimTok y = sim_op_load (&op, LINE (5), 8, SIM_MEM_CPU_SLAB, SIM_TOK_NOW);
  assert_int_equal (y, x + 4);
  box_free (&b);
}

/* Forwarding finds the youngest overlapping store whatever else is in
 * the buffer: a store to a line that shares its index bucket with the
 * load's (SIM_CORE_SB_LINES lines apart), stores and loads across a line
 * boundary; and nothing once the buffer has drained or the CPU's pipeline
 * starts again on another timeline. */
static void
test_forwarding_index (void **state)
{
  (void) state;
  Box b = box_new (CORE_OOO);
  SimOp op;
  const SimAddr far = 64 * (SimAddr) SIM_CORE_SB_LINES;
  sim_op_begin (&op, b.mem, 0, 1000);
  sim_op_load (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW);     /* lines cached */
  sim_op_load (&op, LINE (5) + far, 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_load (&op, LINE (7), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_load (&op, LINE (8), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_retire (&op);
  SimTime t0 = op.t;
  /* The store to LINE (5), then one to the line of the same bucket: the
   * load of LINE (5) still gets the first one's data. */
  sim_op_store (&op, LINE (5), 8, SIM_MEM_OTHER, t0 + 50);
  sim_op_store (&op, LINE (5) + far, 8, SIM_MEM_OTHER, t0 + 70);
  SimTok r = sim_op_load (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (r, t0 + 50 + 4);
  SimTok q = sim_op_load (&op, LINE (5) + far, 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (q, t0 + 70 + 4);
  /* A store across the boundary of LINE (7) and LINE (8) forwards to a
   * load of either line; a load across it finds a store in its second
   * line. */
  sim_op_store (&op, LINE (8) - 4, 8, SIM_MEM_OTHER, t0 + 80);
  assert_int_equal (sim_op_load (&op, LINE (8), 4, SIM_MEM_OTHER, SIM_TOK_NOW), t0 + 80 + 4);
  assert_int_equal (sim_op_load (&op, LINE (8) - 8, 4, SIM_MEM_OTHER, SIM_TOK_NOW),
                    op.t + 4);                    /* the bytes before it: a hit */
  sim_op_store (&op, LINE (8) + 16, 8, SIM_MEM_OTHER, t0 + 90);
  assert_int_equal (sim_op_load (&op, LINE (8) + 12, 8, SIM_MEM_OTHER, SIM_TOK_NOW),
                    t0 + 90 + 4);
  /* A locked instruction drains the buffer: the loads read the cache. */
  sim_op_atomic (&op, LINE (9), 8, SIM_MEM_LOCK, SIM_X_LOCK_CMPXCHG);
  SimTime t1 = op.t;
  assert_int_equal (sim_op_load (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW), t1 + 4);
  assert_int_equal (sim_op_load (&op, LINE (8) + 16, 8, SIM_MEM_OTHER, SIM_TOK_NOW), t1 + 4);
  /* and the stores after it forward again. */
  sim_op_store (&op, LINE (5) + 8, 8, SIM_MEM_OTHER, t1 + 60);
  assert_int_equal (sim_op_load (&op, LINE (5) + 8, 8, SIM_MEM_OTHER, SIM_TOK_NOW), t1 + 60 + 4);
  /* Stores still buffered when an op starts on an earlier timeline are
   * gone: the pipeline starts empty. */
  sim_op_store (&op, LINE (5), 8, SIM_MEM_OTHER, op.t + 500);
  sim_op_begin (&op, b.mem, 0, 0);
  assert_int_equal (sim_op_load (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW), 4);
  box_free (&b);
}

/* A store that has committed is out of the buffer for every purpose,
 * however long the buffer keeps its entry (committed stores are forgotten
 * when it looks full, and loads tell them by their commit times): a load
 * of its line reads the cache, and it does not count against the buffer's
 * room. */
static void
test_committed_stores (void **state)
{
  (void) state;
  Box b = box_new (CORE_OOO);
  SimOp op;
  SimTime t0 = begin_with_line (&b, &op, LINE (5));
  /* Pending: its data is ready at t0 + 50, the load gets it from the
   * buffer. */
  sim_op_store (&op, LINE (5), 8, SIM_MEM_OTHER, t0 + 50);
  assert_int_equal (sim_op_load (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW), t0 + 50 + 4);
  /* Nine loads of lines of LINE (5)'s set (64 sets of 64 bytes) evict it
   * from the 8-way L1d; no store in between, so the buffer still holds the
   * store when it has committed. */
  for (guint i = 1; i <= 9; i++)
    sim_op_load (&op, LINE (5) + 64 * 64 * (SimAddr) i, 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_retire (&op);
  SimTime t1 = op.t;
  assert_true (t1 > t0 + 50 + 1);
  /* Committed: the load misses in the cache (forwarded, it would be the
   * L1d latency). */
  assert_int_equal (sim_op_load (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW), t1 + 100);
  /* A load issued before the store commits (its address waits for
   * nothing, the op's clock is early) still gets it: eight stores to
   * cached lines at t2 commit at t2 + 4, t2 + 5, ..., t2 + 11. */
  sim_op_retire (&op);
  SimTime t2 = op.t;
  for (guint i = 0; i < 8; i++)
    sim_op_store (&op, LINE (5) + 8 * i, 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (sim_op_load (&op, LINE (5) + 56, 8, SIM_MEM_OTHER, SIM_TOK_NOW), t2 + 4);
  assert_int_equal (op.t, t2);
  /* The buffer (8 entries) is full of pending stores: the ninth waits for
   * the oldest to commit. */
  sim_op_store (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (op.t, t2 + 4);
  /* Once they have all committed, eight more stores find room without
   * waiting, though the buffer still holds the old entries; the ninth of
   * those waits for the oldest of the new ones only. */
  sim_op_retire (&op);
  sim_op_stall (&op, op.t + 100);
  SimTime t3 = op.t;
  guint64 mem = op.cost.mem_cycles;
  for (guint i = 0; i < 8; i++)
    sim_op_store (&op, LINE (5) + 8 * i, 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (op.t, t3);
  assert_int_equal (op.cost.mem_cycles, mem);
  sim_op_store (&op, LINE (5), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (op.t, t3 + 4);
  box_free (&b);
}

/* The reorder window after it empties (a serialising point, or dispatch
 * past every entry) stops dispatch again at its next entry; an entry that
 * raises the window's latest ready time is kept even among entries that
 * do not. */
static void
test_window_refill (void **state)
{
  (void) state;
  Box b = box_new (CORE_OOO);
  SimOp op;
  sim_op_begin (&op, b.mem, 0, 0);
  sim_op_use (&op, sim_op_load (&op, LINE (0), 8, SIM_MEM_OTHER, SIM_TOK_NOW));
  sim_op_retire (&op);                            /* the window is empty */
  assert_int_equal (op.t, 100);
  sim_op_use (&op, sim_op_load (&op, LINE (1), 8, SIM_MEM_OTHER, SIM_TOK_NOW));
  sim_op_instr (&op, 20);                         /* the 9th waits for 200 */
  assert_int_equal (op.t, 206);
  /* Dispatch went past every entry: empty again, and the next entry stops
   * it as the first did. */
  SimTime t0 = op.t;
  sim_op_use (&op, sim_op_load (&op, LINE (2), 8, SIM_MEM_OTHER, SIM_TOK_NOW));
  sim_op_instr (&op, 20);
  assert_int_equal (op.t, t0 + 100 + 6);

  /* A miss A, a hit (ready before A: changes nothing), a load chained on A
   * (ready after it: must stop dispatch once the window is past it). */
  sim_op_retire (&op);
  SimTime t1 = op.t;
  SimTok a = sim_op_load (&op, LINE (3), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  sim_op_use (&op, a);
  sim_op_instr (&op, 2);
  SimTok h = sim_op_load (&op, LINE (3), 8, SIM_MEM_OTHER, SIM_TOK_NOW);
  assert_int_equal (h, t1 + 1 + 4);
  sim_op_use (&op, h);
  sim_op_instr (&op, 2);
  SimTok c = sim_op_load (&op, LINE (4), 8, SIM_MEM_OTHER, a);
  assert_int_equal (c, t1 + 200);
  sim_op_use (&op, c);
  /* Instruction 8 waits for A (t1 + 100), 12 for C (t1 + 200), then 12
   * more: 6 cycles. */
  sim_op_instr (&op, 20);
  assert_int_equal (op.t, t1 + 206);
  assert_int_equal (op.cost.mem_cycles + op.cost.instr, op.t);
  box_free (&b);
}

/* The core: section's checks name file, line and column. */
static void
test_core_errors (void **state)
{
  (void) state;
  const struct { const char *core, *want; } cases[] = {
    { "core: {cpi: fast}\n", "t.yaml:8:13: core.cpi: \"fast\" is not a number" },
    { "core: {cpi: 0}\n", "between 0.05 and 20" },
    { "core: {fill_buffers: 0}\n", "core.fill_buffers" },
    { "core: {store_buffer: 1000}\n", "core.store_buffer" },
    { "core: {costs: {lock_cmpxchgg: 3}}\n", "did you mean \"lock_cmpxchg\"" },
    { "core: {cpu: 1}\n", "unknown key \"cpu\" (did you mean \"cpi\"?)" },
    { "core: {cpi: 0.2, width: 4}\n", "t.yaml:8:13: core.cpi: cpi 0.200 is below 1/width (width 4)" },
    { "core: {width: 0}\n", "core.width" },
    { "core: {rob: 5000}\n", "core.rob" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *yaml = g_strconcat (BOX, cases[i].core, NULL);
      GError *err = NULL;
      SimMachine *m = sim_machine_load_data (yaml, strlen (yaml), "t.yaml", NULL, &err);
      assert_null (m);
      assert_non_null (err);
      if (strstr (err->message, cases[i].want) == NULL)
        fail_msg ("%s: got \"%s\"", cases[i].want, err->message);
      g_error_free (err);
    }
  /* --set reaches the section and its costs. */
  GError *err = NULL;
  const char *sets[] = { "core.cpi=2", "core.costs.irq_save=7", NULL };
  SimMachine *m = sim_machine_load_data (BOX, strlen (BOX), "t.yaml", sets, &err);
  assert_null (err);
  assert_int_equal (m->core.cpi_milli, 2000);
  assert_int_equal (m->core.cost[SIM_X_IRQ_SAVE], 7);
  /* ... and machine show writes it back. */
  g_autofree char *y = sim_machine_to_yaml (m);
  SimMachine *m2 = sim_machine_load_data (y, strlen (y), "show", NULL, &err);
  assert_null (err);
  assert_memory_equal (&m->core, &m2->core, sizeof m->core);
  sim_machine_free (m);
  sim_machine_free (m2);
}

/* Every bundled machine has a core: section with overlap and a store
 * buffer (the serial model is only for files that say nothing). */
static void
test_bundled_have_core (void **state)
{
  (void) state;
  for (const char *const *n = sim_machine_builtin_names (); *n; n++)
    {
      GError *err = NULL;
      SimMachine *m = sim_machine_load (*n, NULL, &err);
      assert_null (err);
      assert_true (m->core.fill_buffers > 1);
      assert_true (m->core.store_buffer > 1);
      assert_true (m->core.width > 1);
      assert_true (m->core.rob > 1);
      assert_true (m->core.cost[SIM_X_LOCK_CMPXCHG] > 0);
      assert_true (m->core.cost[SIM_X_IRQ_RESTORE] > 0);
      sim_machine_free (m);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_serial_default),
    cmocka_unit_test (test_overlap_and_chase),
    cmocka_unit_test (test_fill_buffers),
    cmocka_unit_test (test_store_buffer),
    cmocka_unit_test (test_instruction_costs),
    cmocka_unit_test (test_window),
    cmocka_unit_test (test_across_calls),
    cmocka_unit_test (test_store_forwarding),
    cmocka_unit_test (test_forwarding_index),
    cmocka_unit_test (test_committed_stores),
    cmocka_unit_test (test_window_refill),
    cmocka_unit_test (test_core_errors),
    cmocka_unit_test (test_bundled_have_core),
  };
  return cmocka_run_group_tests_name ("timing", tests, NULL, NULL);
}
