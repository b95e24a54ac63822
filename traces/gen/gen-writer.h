/* gen-writer.h - the ftrace text of one kmem event, as a kernel era prints
 * it (internal to traces/gen). */
#pragma once

#include "traces/gen/gen-common.h"

G_BEGIN_DECLS

typedef enum {
  SIM_GEN_EV_KMALLOC,
  SIM_GEN_EV_KMALLOC_NODE,
  SIM_GEN_EV_CACHE_ALLOC,
  SIM_GEN_EV_CACHE_ALLOC_NODE,
  SIM_GEN_EV_KFREE,
  SIM_GEN_EV_CACHE_FREE,
  SIM_GEN_EV_PAGE_ALLOC,
  SIM_GEN_EV_PAGE_FREE,
} SimGenEventKind;

typedef struct {
  guint64     ts;          /* ns */
  guint64     ptr;         /* object address; the pfn for page events */
  const char *comm;        /* interned */
  const char *site;        /* interned */
  guint64     site_addr;   /* sim_gen_site_address (site), on eras that print %lx */
  const char *gfp;         /* interned */
  const char *name;        /* cache name, interned */
  guint32     bytes_req, bytes_alloc;
  int         pid;
  guint16     cpu;
  guint8      kind;        /* SimGenEventKind */
  guint8      ctx;         /* SimGenCtx */
  guint8      order;
  guint8      migratetype;
  gint16      node_plus1;  /* node= of alloc events, plus one (0: -1) */
  gboolean    accounted;
} SimGenEvent;

/* The `# tracer: nop` header block of @era's trace file. */
void sim_gen_write_header (GString *out, const SimGenEra *era,
                           guint64 entries, guint ncpus);
/* One line (with newline) for @e. */
void sim_gen_format_event (GString *out, const SimGenEra *era,
                           const SimGenEvent *e);
/* The raw address a call site gets on eras that print %lx. */
guint64 sim_gen_site_address (const char *site);

G_END_DECLS
