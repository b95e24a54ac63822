/* kmem-stat.h - "slabsim trace info --caller / --alloc / --page": the
 * tables perf kmem stat prints, from any trace slabsim reads.
 *
 * Per call site (--caller) and per object pointer (--alloc): bytes
 * allocated and requested with their per-hit means, hits, ping-pongs (an
 * object freed on another CPU than the one that allocated it) and
 * internal fragmentation, sorted by -s keys and cut at -l lines; then
 * perf's SUMMARY.  --page: the page allocator's summary, the per-order
 * and migrate-type table, and per PFN (--alloc) or per call site
 * (--caller) tables.  Text (perf's columns) or JSON (the same rows and
 * summaries by name: docs/views.md).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gboolean    caller;        /* the per-call-site table */
  gboolean    alloc;         /* the per-pointer (or per-PFN) table */
  gboolean    page;          /* page allocator events instead of slab ones */
  const char *sort;          /* "frag,hit,bytes" (perf's default) when NULL */
  gint        lines;         /* rows per table; -1: all */
  gboolean    lenient;
} SimKmemStatOptions;

/* The sort keys -s takes, for help and errors. */
const char *sim_kmem_stat_sort_keys (gboolean page);
/* Check @sort; a usage error naming the valid keys. */
gboolean    sim_kmem_stat_check_sort (const char *sort, gboolean page, GError **error);

char *sim_kmem_stat_text (const char *path, const SimKmemStatOptions *o, GError **error);
char *sim_kmem_stat_json (const char *path, const SimKmemStatOptions *o, GError **error);

G_END_DECLS
