/* account.h - exact alloc/free pairing over a kmem event stream.
 *
 * Every slab allocation and free of a trace is classified once, the same way
 * for `slabsim trace info` and for the allocator replay:
 *
 *   allocs        every kmalloc, kmalloc_node, kmem_cache_alloc(_node) event
 *   failed_allocs those with a NULL ptr
 *   frees         every kfree and kmem_cache_free event, NULL ones included;
 *                 each is exactly one of:
 *     null_frees      ptr NULL (kfree traces before its NULL check)
 *     unknown_frees   ptr not live (allocated before recording started, or
 *                     lost)
 *     same_cpu_frees  freed on the CPU of the live allocation
 *     cross_cpu_frees freed on another CPU ("ping-pong" in perf kmem)
 *   implicit_frees an allocation of a pointer that is still live: the kernel
 *                 freed it on a path with no tracepoint (bulk frees, per-CPU
 *                 skb caches).  Model: the old object is freed just before
 *                 the new allocation, on the allocating CPU.  Implicit frees
 *                 are not in `frees`.
 *   live_at_end   objects allocated and not freed when the trace ends
 *
 * Memory is bounded by the live objects: one map keyed by pointer
 * (sim/core/idmap.h, open addressing, shrinks as objects are freed).
 * Per-cache totals are kept by cache key (the event's name=, or
 * the kmalloc size class by bytes_alloc when the event has none).
 */
#pragma once

#include "traces/reader.h"

G_BEGIN_DECLS

#define SIM_ACCOUNT_COUNTERS(X) \
  X (allocs)                    \
  X (frees)                     \
  X (failed_allocs)             \
  X (same_cpu_frees)            \
  X (cross_cpu_frees)           \
  X (null_frees)                \
  X (unknown_frees)             \
  X (implicit_frees)            \
  X (live_at_end)

typedef struct {
#define SIM_ACCOUNT_FIELD(name) guint64 name;
  SIM_ACCOUNT_COUNTERS (SIM_ACCOUNT_FIELD)
#undef SIM_ACCOUNT_FIELD
  guint64 bytes_req;       /* over all allocations */
  guint64 bytes_alloc;
  guint64 bytes_freed;     /* bytes_alloc of objects freed (explicitly or implicitly) */
} SimAccountCounts;

/* A cache key: a name= string id, or a kmalloc size class. */
#define SIM_ACCOUNT_KEY_SIZE_CLASS (G_GUINT64_CONSTANT (1) << 63)

typedef struct {
  guint64 key;             /* cache_id, or SIM_ACCOUNT_KEY_SIZE_CLASS | bytes_alloc */
  guint64 allocs, frees, bytes_req, bytes_alloc, cross_cpu_frees, implicit_frees;
} SimAccountCache;

/* A live object, as the replay needs it.  The accounting table is the one
 * map of live objects: the replay keeps the model's address of each in
 * @user (sim/run/replay.c), so it needs no map of its own. */
typedef struct {
  guint64 ptr;
  guint64 bytes_alloc;
  guint64 user;            /* the consumer's word, 0 when the object is made */
  gint32  cpu;             /* allocating CPU */
  guint32 cache;           /* index into the cache table */
} SimLiveObject;

typedef enum {
  SIM_FREE_NONE,           /* not a free */
  SIM_FREE_NULL,
  SIM_FREE_UNKNOWN,
  SIM_FREE_SAME_CPU,
  SIM_FREE_CROSS_CPU,
} SimFreeClass;

/* What one event did. */
typedef struct {
  SimFreeClass  free_class;
  SimLiveObject freed;       /* a same/cross-CPU free: the object freed */
  gboolean      implicit;    /* an alloc of a live pointer ... */
  SimLiveObject implicit_old;/* ... the object implicitly freed first */
  SimLiveObject *live;       /* an alloc (ptr not NULL): its entry, for the caller's
                              * user word; valid until the next event */
} SimAccountResult;

typedef struct _SimTraceAccount SimTraceAccount;

SimTraceAccount *sim_trace_account_new (void);
void sim_trace_account_free (SimTraceAccount *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimTraceAccount, sim_trace_account_free)

/* Feed one event (non-slab events are ignored); @res may be NULL. */
void sim_trace_account_event (SimTraceAccount *a, const SimTraceEvent *ev,
                              SimAccountResult *res);
/* A hint that an event of pointer @ptr comes soon: its live-object entry
 * is loaded into the host's cache meanwhile (sim_idmap_prefetch). */
void sim_trace_account_prefetch (SimTraceAccount *a, guint64 ptr);
/* How many events ahead a chunk's loop hints: far enough that a load from
 * host memory (~100-300 ns on the project's host under load) arrives
 * before the event is fed, near enough that the line is still cached. */
#define SIM_ACCOUNT_PREFETCH_AHEAD 8
/* The counters so far (live_at_end is the current live count). */
const SimAccountCounts *sim_trace_account_counts (SimTraceAccount *a);
/* The per-cache table, in order of first appearance. */
const SimAccountCache *sim_trace_account_caches (SimTraceAccount *a, guint *n);
/* The live object at @ptr, or NULL; its user word is the caller's to change
 * (the replay marks an object it freed on the trace's behalf). */
SimLiveObject *sim_trace_account_lookup (SimTraceAccount *a, guint64 ptr);

/* ---- one accounting for several consumers -------------------------------
 *
 * `run` with several allocators replays one trace in several lanes
 * (sim/run/replay.c), and each lane needs, per event, what the accounting
 * says and a word of its own per live object (its model's address).  The
 * accounting is the same for every lane, so the feeding thread does it
 * once and gives each event a slot: a small number naming the live object
 * the event allocates or frees, which each lane uses as an index into an
 * array of its own words.  A slot is free again once its object is freed
 * (the most recently freed is taken first, so the lanes' arrays stay as
 * small and as warm as the live set allows); an allocation of a still-live
 * pointer keeps the old object's slot, flagged SIM_ACCOUNT_SLOT_IMPLICIT.
 * In this mode the live objects' user words hold their slots: use either
 * sim_trace_account_slot or the user words, never both on one table. */
#define SIM_ACCOUNT_SLOT_IMPLICIT (1u << 31)
/* Not a live object: a failed allocation, a NULL or unknown free, a
 * non-slab event; above every slot, below the implicit flag. */
#define SIM_ACCOUNT_NO_SLOT       (SIM_ACCOUNT_SLOT_IMPLICIT - 1)

/* Feed one event (as sim_trace_account_event): the slot of the object it
 * allocates (with the implicit flag when it takes over a live pointer's)
 * or frees, or SIM_ACCOUNT_NO_SLOT. */
guint32 sim_trace_account_slot (SimTraceAccount *a, const SimTraceEvent *ev);
/* sim_trace_account_slot of @ev[0..@n-1] in order, into @slots[0..@n-1];
 * the pointers are hinted ahead (sim_trace_account_prefetch). */
void sim_trace_account_slots (SimTraceAccount *a, const SimTraceEvent *ev, guint n,
                              guint32 *slots);
/* The slot of the live object at @ptr now, or SIM_ACCOUNT_NO_SLOT. */
guint32 sim_trace_account_slot_of (SimTraceAccount *a, guint64 ptr);
/* How many slots have been handed out at most (every slot is below). */
guint32 sim_trace_account_n_slots (const SimTraceAccount *a);

G_END_DECLS
