/* emit.h - write a replay as an ftrace-text kmem trace ("run --emit-trace").
 *
 * The emitted trace is what the kernel's kmem tracepoints would have printed
 * had the model been the kernel: every slab allocation and free the replay
 * made, with the model's object address in direct-map form
 * (SIM_DIRECT_MAP_BASE + simulated physical address), the input's task,
 * CPU, timestamp, call site, cache name, sizes and gfp flags; and the
 * model's page traffic (mm_page_alloc / mm_page_free of its slab and
 * pass-through pages, mm_page_pcpu_drain per block drained) with pfn =
 * physical address >> 12.  Lines follow 6.18's TP_printk formats, so
 * `trace info`, `run` and `validate` read it back (docs/validation.md).
 * The file is written to a temporary name beside FILE and renamed over it
 * only when complete; a FILE ending in .gz is gzip-compressed.
 */
#pragma once

#include <glib.h>
#include "traces/stream.h"

G_BEGIN_DECLS

typedef struct _SimTraceEmit SimTraceEmit;

/* Open @path for writing; @header is written as "# " comment lines. */
SimTraceEmit *sim_trace_emit_open (const char *path, const char *header, GError **error);
/* Finish and rename into place (TRUE), or report the first write error.
 * Frees @e either way. */
gboolean sim_trace_emit_close (SimTraceEmit *e, GError **error);
/* Discard the partial output (FILE is left as it was). Frees @e. */
void sim_trace_emit_abort (SimTraceEmit *e);

/* The line prefix of @ev: task, CPU, timestamp (@cpu is the CPU replayed on). */
void sim_trace_emit_slab (SimTraceEmit *e, const SimTraceStrings *r, const SimTraceEvent *ev,
                          guint cpu, const char *cache_name, guint64 ptr, gboolean is_free);
/* A kfree of @ptr at @ev's task and time (the replay's free of an object the
 * kernel recycled without a trace event). */
void sim_trace_emit_kfree (SimTraceEmit *e, const SimTraceStrings *r, const SimTraceEvent *ev,
                           guint cpu, guint64 ptr);
/* A kfree_rcu the replay made (sim/run/untraced.h): a kfree line with
 * call_site=SIM_EMIT_KFREE_RCU_SITE, which the replay of the emitted trace
 * makes as kfree_rcu again. */
#define SIM_EMIT_KFREE_RCU_SITE "slabsim_kfree_rcu"
void sim_trace_emit_kfree_rcu (SimTraceEmit *e, const SimTraceStrings *r, const SimTraceEvent *ev,
                               guint cpu, guint64 ptr);
typedef enum { SIM_EMIT_PAGE_ALLOC, SIM_EMIT_PAGE_FREE, SIM_EMIT_PCP_DRAIN } SimEmitPage;
/* A page event, appended to @buf (the replay orders them around the slab
 * line, as the kernel's tracepoints fire: page allocation before the
 * kmalloc line, page free after the kfree line). */
/* An allocation the model made for itself (SimInternalObserver) or its
 * free, as a kmalloc / kfree line from kernel function @fn, so that a trace
 * reader recognises it as the allocator's own (traces/internal.h). */
void sim_trace_emit_internal (SimTraceEmit *e, guint cpu, guint64 ts_ns, const char *fn,
                              guint64 ptr, guint64 bytes_req, guint64 bytes_alloc,
                              gboolean is_free);
void sim_trace_emit_page_line (GString *buf, SimEmitPage kind, guint cpu, guint64 ts_ns,
                               guint64 pfn, guint order);
void sim_trace_emit_raw (SimTraceEmit *e, const char *text, gsize len);

G_END_DECLS
