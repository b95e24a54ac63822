/* gen-writer.c - ftrace text for kmem events, per kernel era.
 *
 * What it follows: the TP_printk formats of include/trace/events/kmem.h
 * (2.6.34 read in the source; 6.18 checked line by line against the real
 * traces in shared/traces; the steps between them as summarised in
 * reference/allocators.md section 7) and the tracefs line prefix and
 * header: "%16s-%-5d [%03d] %5lu.%06lu: " under a two-line legend before
 * 3.3 (read in 2.6.34 trace_output.c / trace.c), the entries line and the
 * irq-info flag columns from 3.3 (as 5.4 kernels print them), the
 * migrate-disable column and 7-digit pids from 5.11 (6.18 byte-exact).
 *
 * What it leaves out: hashed pointers.  Kernels from 4.15 print %p hashed
 * in text unless the hash-ptr option (5.12+) is cleared; the generator
 * always prints the real address, as `slabsim record` (nohash-ptr) and
 * readers of the binary buffer see it.  Call sites of eras before %pS are
 * raw addresses derived from a hash of the symbol (a synthetic System.map:
 * same symbol, same address in every trace).
 */
#include "traces/gen/gen-writer.h"

#include <string.h>

static const char *const old_header =
  "# tracer: nop\n"
  "#\n"
  "#           TASK-PID    CPU#    TIMESTAMP  FUNCTION\n"
  "#              | |       |          |         |\n";

static const char *const irqinfo_header =
  "#                              _-----=> irqs-off\n"
  "#                             / _----=> need-resched\n"
  "#                            | / _---=> hardirq/softirq\n"
  "#                            || / _--=> preempt-depth\n"
  "#                            ||| /     delay\n"
  "#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
  "#              | |       |   ||||       |         |\n";

static const char *const modern_header_fmt =
  "#                                _-----=> %s\n"
  "#                               / _----=> need-resched\n"
  "#                              | / _---=> hardirq/softirq\n"
  "#                              || / _--=> preempt-depth\n"
  "#                              ||| / _-=> migrate-disable\n"
  "#                              |||| /     delay\n"
  "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
  "#              | |         |   |||||     |         |\n";

void
sim_gen_write_header (GString *out, const SimGenEra *era, guint64 entries,
                      guint ncpus)
{
  if (era->prefix == SIM_GEN_PREFIX_OLD)
    {
      g_string_append (out, old_header);
      return;
    }
  g_string_append (out, "# tracer: nop\n#\n");
  g_string_append_printf (out,
                          "# entries-in-buffer/entries-written: %" G_GUINT64_FORMAT
                          "/%" G_GUINT64_FORMAT "   #P:%u\n#\n",
                          entries, entries, ncpus);
  if (era->prefix == SIM_GEN_PREFIX_IRQINFO)
    g_string_append (out, irqinfo_header);
  else
    g_string_append_printf (out, modern_header_fmt,
                            era->bh_label ? "irqs-off/BH-disabled" : "irqs-off");
}

guint64
sim_gen_site_address (const char *site)
{
  /* FNV-1a of the symbol places it in a 24 MiB kernel text; the offset
   * after '+' is added so two sites in one function differ. */
  const char *plus = strchr (site, '+');
  gsize len = plus ? (gsize) (plus - site) : strlen (site);
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  for (gsize i = 0; i < len; i++)
    h = (h ^ (guchar) site[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  guint64 base = G_GUINT64_CONSTANT (0xffffffff81000000) + ((h % 0x180000) << 4);
  guint64 off = plus ? g_ascii_strtoull (plus + 1, NULL, 0) : 0;
  return base + off;
}

static void
append_site (GString *out, const SimGenEra *era, const char *site)
{
  if (era->symbolic_call_site)
    g_string_append (out, site);
  else
    g_string_append_printf (out, "%" G_GINT64_MODIFIER "x", sim_gen_site_address (site));
}

static void
append_ptr (GString *out, const SimGenEra *era, guint64 ptr)
{
  if (ptr == 0 && !era->null_as_zeros)
    g_string_append (out, "(null)");
  else
    g_string_append_printf (out, "%016" G_GINT64_MODIFIER "x", ptr);
}

static void
append_prefix (GString *out, const SimGenEra *era, const SimGenEvent *e)
{
  guint64 us = e->ts / 1000;
  gboolean soft = e->ctx == SIM_GEN_CTX_SOFTIRQ;
  switch (era->prefix)
    {
    case SIM_GEN_PREFIX_OLD:
      g_string_append_printf (out, "%16s-%-5d [%03u] ", e->comm, e->pid, e->cpu);
      break;
    case SIM_GEN_PREFIX_IRQINFO:
      g_string_append_printf (out, "%16s-%-5d [%03u] %s ", e->comm, e->pid, e->cpu,
                              soft ? "..s1" : "....");
      break;
    case SIM_GEN_PREFIX_MODERN:
      g_string_append_printf (out, "%16s-%-7d [%03u] %s ", e->comm, e->pid, e->cpu,
                              soft ? "..s1." : ".....");
      break;
    }
  g_string_append_printf (out, "%5" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT ": ",
                          us / 1000000, us % 1000000);
}

static void
append_page (GString *out, const SimGenEra *era, guint64 pfn)
{
  /* struct page lives in the vmemmap, 64 bytes each. */
  guint64 page = G_GUINT64_CONSTANT (0xffffea0000000000) + pfn * 64;
  g_string_append_printf (out, "page=%016" G_GINT64_MODIFIER "x ", page);
  if (era->pfn_hex)
    g_string_append_printf (out, "pfn=0x%" G_GINT64_MODIFIER "x", pfn);
  else
    g_string_append_printf (out, "pfn=%" G_GUINT64_FORMAT, pfn);
}

void
sim_gen_format_event (GString *out, const SimGenEra *era, const SimGenEvent *e)
{
  append_prefix (out, era, e);
  switch ((SimGenEventKind) e->kind)
    {
    case SIM_GEN_EV_KMALLOC:
    case SIM_GEN_EV_KMALLOC_NODE:
    case SIM_GEN_EV_CACHE_ALLOC:
    case SIM_GEN_EV_CACHE_ALLOC_NODE:
      {
        gboolean cache = e->kind == SIM_GEN_EV_CACHE_ALLOC
                         || e->kind == SIM_GEN_EV_CACHE_ALLOC_NODE;
        gboolean node = era->node_everywhere
                        || e->kind == SIM_GEN_EV_KMALLOC_NODE
                        || e->kind == SIM_GEN_EV_CACHE_ALLOC_NODE;
        const char *ev = cache ? "kmem_cache_alloc" : "kmalloc";
        g_string_append_printf (out, "%s%s: call_site=", ev,
                                node && !era->node_everywhere ? "_node" : "");
        append_site (out, era, e->site);
        g_string_append (out, " ptr=");
        append_ptr (out, era, e->ptr);
        if (cache && era->name_on_alloc)
          g_string_append_printf (out, " name=%s", e->name);
        g_string_append_printf (out, " bytes_req=%u bytes_alloc=%u gfp_flags=%s",
                                e->bytes_req, e->bytes_alloc, e->gfp);
        if (node)
          g_string_append_printf (out, " node=%d", e->node_plus1 - 1);
        if (era->accounted)
          g_string_append_printf (out, " accounted=%s", e->accounted ? "true" : "false");
        break;
      }
    case SIM_GEN_EV_KFREE:
    case SIM_GEN_EV_CACHE_FREE:
      g_string_append_printf (out, "%s: call_site=",
                              e->kind == SIM_GEN_EV_KFREE ? "kfree" : "kmem_cache_free");
      append_site (out, era, e->site);
      g_string_append (out, " ptr=");
      append_ptr (out, era, e->ptr);
      if (e->kind == SIM_GEN_EV_CACHE_FREE && era->name_on_free)
        g_string_append_printf (out, " name=%s", e->name);
      break;
    case SIM_GEN_EV_PAGE_ALLOC:
      g_string_append (out, "mm_page_alloc: ");
      append_page (out, era, e->ptr);
      g_string_append_printf (out, " order=%u migratetype=%u gfp_flags=%s",
                              e->order, e->migratetype, e->gfp);
      break;
    case SIM_GEN_EV_PAGE_FREE:
      g_string_append (out, era->page_free_renamed ? "mm_page_free: "
                                                   : "mm_page_free_direct: ");
      append_page (out, era, e->ptr);
      g_string_append_printf (out, " order=%u", e->order);
      break;
    }
  g_string_append_c (out, '\n');
}
