/* emit.c - the replay as an ftrace-text kmem trace; see emit.h. */
#include "sim/run/emit.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "traces/decisions.h"

#include <gio/gio.h>
#include <string.h>

#define VMEMMAP_BASE G_GUINT64_CONSTANT (0xffffea0000000000)   /* x86-64, 4-level */
#define FLUSH_AT     (256 * 1024)

struct _SimTraceEmit {
  SimOutput *file;                /* the project's safe output file */
  GOutputStream *out;             /* its stream, or a gzip converter over it */
  GString *buf;
  GError *error;                  /* the first write error */
  char *path;
};

static void
emit_flush (SimTraceEmit *e)
{
  if (e->buf->len == 0 || e->error)
    {
      g_string_truncate (e->buf, 0);
      return;
    }
  gsize written;
  if (!g_output_stream_write_all (e->out, e->buf->str, e->buf->len, &written, NULL, &e->error))
    g_prefix_error (&e->error, "%s: ", e->path);
  g_string_truncate (e->buf, 0);
}

void
sim_trace_emit_raw (SimTraceEmit *e, const char *text, gsize len)
{
  g_string_append_len (e->buf, text, (gssize) len);
  if (e->buf->len >= FLUSH_AT)
    emit_flush (e);
}

SimTraceEmit *
sim_trace_emit_open (const char *path, const char *header, GError **error)
{
  /* sim/core/output.h: a temporary file renamed over @path on commit;
   * abort leaves @path untouched. */
  SimOutput *fs = sim_output_open (path, error);
  if (fs == NULL)
    {
      g_prefix_error (error, "--emit-trace: ");
      return NULL;
    }
  SimTraceEmit *e = g_new0 (SimTraceEmit, 1);
  e->file = fs;
  e->path = g_strdup (path);
  e->buf = g_string_sized_new (FLUSH_AT + 4096);
  if (g_str_has_suffix (path, ".gz"))
    {
      g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
      e->out = g_converter_output_stream_new (sim_output_stream (e->file), G_CONVERTER (z));
      g_filter_output_stream_set_close_base_stream (G_FILTER_OUTPUT_STREAM (e->out), FALSE);
    }
  else
    e->out = g_object_ref (sim_output_stream (e->file));
  g_string_append (e->buf, "# tracer: nop\n#\n");
  if (header)
    {
      g_auto (GStrv) lines = g_strsplit (header, "\n", -1);
      for (guint i = 0; lines[i]; i++)
        if (*lines[i])
          g_string_append_printf (e->buf, "# %s\n", lines[i]);
    }
  g_string_append (e->buf, "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n");
  return e;
}

static void
emit_destroy (SimTraceEmit *e)
{
  g_object_unref (e->out);
  g_string_free (e->buf, TRUE);
  g_clear_error (&e->error);
  g_free (e->path);
  g_free (e);
}

gboolean
sim_trace_emit_close (SimTraceEmit *e, GError **error)
{
  emit_flush (e);
  if (e->error)
    {
      g_propagate_error (error, g_steal_pointer (&e->error));
      sim_trace_emit_abort (e);
      return FALSE;
    }
  /* Closing the gzip converter writes its trailer; the commit renames. */
  gboolean ok = TRUE;
  if (e->out != sim_output_stream (e->file) && !g_output_stream_close (e->out, NULL, error))
    {
      g_prefix_error (error, "%s: ", e->path);
      ok = FALSE;
    }
  SimOutput *f = e->file;
  e->file = NULL;
  if (ok)
    ok = sim_output_commit (f, error);
  else
    sim_output_abort (f);
  emit_destroy (e);
  return ok;
}

void
sim_trace_emit_abort (SimTraceEmit *e)
{
  if (e == NULL)
    return;
  sim_output_abort (e->file);
  e->file = NULL;
  emit_destroy (e);
}

static void
prefix (GString *s, const SimTraceStrings *r, const SimTraceEvent *ev, guint cpu, guint64 ts_ns)
{
  const char *comm = ev && ev->comm_id ? sim_trace_strings_get (r, ev->comm_id) : "";
  if (*comm == '\0')
    comm = "slabsim";
  gint pid = ev && ev->pid >= 0 ? ev->pid : 0;
  g_string_append_printf (s, "%16s-%-7d [%03u] ..... %6" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT
                          ": ", comm, pid, cpu, ts_ns / 1000000000, (ts_ns / 1000) % 1000000);
}

static const char *
site (const SimTraceStrings *r, const SimTraceEvent *ev, char *buf, gsize n)
{
  const char *s = ev->call_site_id ? sim_trace_strings_get (r, ev->call_site_id) : "";
  if (*s)
    return s;
  g_snprintf (buf, n, "0x%" G_GINT64_MODIFIER "x", ev->call_site);
  return buf;
}

void
sim_trace_emit_slab (SimTraceEmit *e, const SimTraceStrings *r, const SimTraceEvent *ev, guint cpu,
                     const char *cache_name, guint64 ptr, gboolean is_free)
{
  char sb[32];
  GString *s = e->buf;
  prefix (s, r, ev, cpu, ev->ts_ns);
  const char *cs = site (r, ev, sb, sizeof sb);
  gboolean km = sim_trace_kind_is_kmalloc (ev->kind);
  if (is_free)
    {
      if (ev->kind == SIM_TRACE_KFREE)
        g_string_append_printf (s, "kfree: call_site=%s ptr=%016" G_GINT64_MODIFIER "x\n", cs, ptr);
      else
        g_string_append_printf (s, "kmem_cache_free: call_site=%s ptr=%016" G_GINT64_MODIFIER
                                "x name=%s\n", cs, ptr, cache_name);
    }
  else
    {
      const char *gfp = ev->gfp_id ? sim_trace_strings_get (r, ev->gfp_id) : "GFP_KERNEL";
      if (km)
        g_string_append_printf (s, "kmalloc: call_site=%s ptr=%016" G_GINT64_MODIFIER "x", cs, ptr);
      else
        g_string_append_printf (s, "kmem_cache_alloc: call_site=%s ptr=%016" G_GINT64_MODIFIER
                                "x name=%s", cs, ptr, cache_name);
      g_string_append_printf (s, " bytes_req=%" G_GUINT64_FORMAT " bytes_alloc=%" G_GUINT64_FORMAT
                              " gfp_flags=%s node=%d accounted=%s\n", ev->bytes_req,
                              ev->bytes_alloc, gfp, ev->node, ev->accounted > 0 ? "true" : "false");
    }
  if (s->len >= FLUSH_AT)
    emit_flush (e);
}

void
sim_trace_emit_internal (SimTraceEmit *e, guint cpu, guint64 ts_ns, const char *fn, guint64 ptr,
                         guint64 bytes_req, guint64 bytes_alloc, gboolean is_free)
{
  prefix (e->buf, NULL, NULL, cpu, ts_ns);
  if (is_free)
    g_string_append_printf (e->buf, "kfree: call_site=%s+0x0/0x0 ptr=%016" G_GINT64_MODIFIER
                            "x\n", fn, ptr);
  else
    g_string_append_printf (e->buf, "kmalloc: call_site=%s+0x0/0x0 ptr=%016" G_GINT64_MODIFIER
                            "x bytes_req=%" G_GUINT64_FORMAT " bytes_alloc=%" G_GUINT64_FORMAT
                            " gfp_flags=GFP_KERNEL|__GFP_ZERO node=-1 accounted=false\n", fn, ptr,
                            bytes_req, bytes_alloc);
  if (e->buf->len >= FLUSH_AT)
    emit_flush (e);
}

void
sim_trace_emit_kfree (SimTraceEmit *e, const SimTraceStrings *r, const SimTraceEvent *ev, guint cpu,
                      guint64 ptr)
{
  prefix (e->buf, r, ev, cpu, ev->ts_ns);
  g_string_append_printf (e->buf, "kfree: call_site=slabsim_untraced_free ptr=%016"
                          G_GINT64_MODIFIER "x\n", ptr);
}

void
sim_trace_emit_kfree_rcu (SimTraceEmit *e, const SimTraceStrings *r, const SimTraceEvent *ev,
                          guint cpu, guint64 ptr)
{
  prefix (e->buf, r, ev, cpu, ev->ts_ns);
  g_string_append_printf (e->buf, "kfree: call_site=" SIM_EMIT_KFREE_RCU_SITE " ptr=%016"
                          G_GINT64_MODIFIER "x\n", ptr);
}

void
sim_trace_emit_page_line (GString *buf, SimEmitPage kind, guint cpu, guint64 ts_ns,
                          guint64 pfn, guint order)
{
  prefix (buf, NULL, NULL, cpu, ts_ns);
  guint64 page = VMEMMAP_BASE + pfn * 64;
  switch (kind)
    {
    case SIM_EMIT_PAGE_ALLOC:
      g_string_append_printf (buf, "mm_page_alloc: page=%016" G_GINT64_MODIFIER "x pfn=0x%"
                              G_GINT64_MODIFIER "x order=%u migratetype=0 gfp_flags=GFP_KERNEL\n",
                              page, pfn, order);
      break;
    case SIM_EMIT_PAGE_FREE:
      g_string_append_printf (buf, "mm_page_free: page=%016" G_GINT64_MODIFIER "x pfn=0x%"
                              G_GINT64_MODIFIER "x order=%u\n", page, pfn, order);
      break;
    case SIM_EMIT_PCP_DRAIN:
      g_string_append_printf (buf, "mm_page_pcpu_drain: page=%016" G_GINT64_MODIFIER "x pfn=0x%"
                              G_GINT64_MODIFIER "x order=%u migratetype=0\n", page, pfn, order);
      break;
    }
}
