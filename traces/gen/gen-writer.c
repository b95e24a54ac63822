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

/* The lines are formatted by hand, not with printf: a 300 M-event trace
 * spent most of its generation time in vfprintf.  Each helper writes at @p
 * and returns the end; sim_gen_format_event reserves room for the longest
 * line first.  The widths and paddings are those of the printk formats
 * quoted beside each call, so the bytes are what printf would produce. */

static inline char *
put_str (char *p, const char *s)
{
  gsize n = strlen (s);
  memcpy (p, s, n);
  return p + n;
}

#define PUT_LIT(p, lit) (memcpy ((p), (lit), sizeof (lit) - 1), (p) + sizeof (lit) - 1)

/* Decimal digits of @v into the end of @tmp[24]; returns the first. */
static inline char *
dec_digits (char *end, guint64 v)
{
  do
    {
      *--end = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v);
  return end;
}

/* %u / %lu */
static inline char *
put_u (char *p, guint64 v)
{
  char tmp[24];
  char *d = dec_digits (tmp + sizeof tmp, v);
  gsize n = (gsize) (tmp + sizeof tmp - d);
  memcpy (p, d, n);
  return p + n;
}

/* %d */
static inline char *
put_d (char *p, gint64 v)
{
  if (v < 0)
    {
      *p++ = '-';
      return put_u (p, (guint64) 0 - (guint64) v);
    }
  return put_u (p, (guint64) v);
}

/* %<w>lu (right-aligned, @pad the filler: ' ' or '0' for %0<w>) */
static inline char *
put_u_right (char *p, guint64 v, gsize w, char pad)
{
  char tmp[24];
  char *d = dec_digits (tmp + sizeof tmp, v);
  gsize n = (gsize) (tmp + sizeof tmp - d);
  for (; n < w; w--)
    *p++ = pad;
  memcpy (p, d, n);
  return p + n;
}

/* %-<w>d */
static inline char *
put_d_left (char *p, gint64 v, gsize w)
{
  char *start = p;
  p = put_d (p, v);
  while ((gsize) (p - start) < w)
    *p++ = ' ';
  return p;
}

/* %<w>s */
static inline char *
put_s_right (char *p, const char *s, gsize w)
{
  gsize n = strlen (s);
  for (; n < w; w--)
    *p++ = ' ';
  memcpy (p, s, n);
  return p + n;
}

/* %lx, or %016lx with @w = 16 */
static inline char *
put_x (char *p, guint64 v, gsize w)
{
  static const char hex[] = "0123456789abcdef";
  char tmp[16];
  char *d = tmp + sizeof tmp;
  do
    {
      *--d = hex[v & 15];
      v >>= 4;
    }
  while (v);
  gsize n = (gsize) (tmp + sizeof tmp - d);
  for (; n < w; w--)
    *p++ = '0';
  memcpy (p, d, n);
  return p + n;
}

static char *
put_site (char *p, const SimGenEra *era, const SimGenEvent *e)
{
  if (era->symbolic_call_site)
    return put_str (p, e->site);
  return put_x (p, e->site_addr, 0);                     /* %lx */
}

static char *
put_ptr (char *p, const SimGenEra *era, guint64 ptr)
{
  if (ptr == 0 && !era->null_as_zeros)
    return PUT_LIT (p, "(null)");
  return put_x (p, ptr, 16);                             /* %016lx */
}

static char *
put_prefix (char *p, const SimGenEra *era, const SimGenEvent *e)
{
  guint64 us = e->ts / 1000;
  gboolean soft = e->ctx == SIM_GEN_CTX_SOFTIRQ;
  p = put_s_right (p, e->comm, 16);                      /* %16s-%-5d [%03u] */
  *p++ = '-';
  p = put_d_left (p, e->pid, era->prefix == SIM_GEN_PREFIX_MODERN ? 7 : 5);
  p = PUT_LIT (p, " [");
  p = put_u_right (p, e->cpu, 3, '0');
  p = PUT_LIT (p, "] ");
  switch (era->prefix)
    {
    case SIM_GEN_PREFIX_OLD:
      break;
    case SIM_GEN_PREFIX_IRQINFO:
      p = soft ? PUT_LIT (p, "..s1 ") : PUT_LIT (p, ".... ");
      break;
    case SIM_GEN_PREFIX_MODERN:
      p = soft ? PUT_LIT (p, "..s1. ") : PUT_LIT (p, "..... ");
      break;
    }
  p = put_u_right (p, us / 1000000, 5, ' ');             /* %5lu.%06lu: */
  *p++ = '.';
  p = put_u_right (p, us % 1000000, 6, '0');
  return PUT_LIT (p, ": ");
}

static char *
put_page (char *p, const SimGenEra *era, guint64 pfn)
{
  /* struct page lives in the vmemmap, 64 bytes each. */
  guint64 page = G_GUINT64_CONSTANT (0xffffea0000000000) + pfn * 64;
  p = PUT_LIT (p, "page=");
  p = put_x (p, page, 16);                               /* page=%016lx */
  if (era->pfn_hex)
    {
      p = PUT_LIT (p, " pfn=0x");                        /* pfn=0x%lx */
      return put_x (p, pfn, 0);
    }
  p = PUT_LIT (p, " pfn=");                              /* pfn=%lu */
  return put_u (p, pfn);
}

void
sim_gen_format_event (GString *out, const SimGenEra *era, const SimGenEvent *e)
{
  /* room for the longest line: the strings plus ~250 bytes of fixed text
   * and numbers */
  gsize room = 320 + strlen (e->comm) + (e->site ? strlen (e->site) : 0)
               + (e->gfp ? strlen (e->gfp) : 0) + (e->name ? strlen (e->name) : 0);
  gsize start = out->len;
  g_string_set_size (out, start + room);
  char *p = out->str + start;
  p = put_prefix (p, era, e);
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
        p = cache ? PUT_LIT (p, "kmem_cache_alloc") : PUT_LIT (p, "kmalloc");
        if (node && !era->node_everywhere)
          p = PUT_LIT (p, "_node");
        p = PUT_LIT (p, ": call_site=");
        p = put_site (p, era, e);
        p = PUT_LIT (p, " ptr=");
        p = put_ptr (p, era, e->ptr);
        if (cache && era->name_on_alloc)
          {
            p = PUT_LIT (p, " name=");
            p = put_str (p, e->name);
          }
        p = PUT_LIT (p, " bytes_req=");                  /* bytes_req=%u bytes_alloc=%u */
        p = put_u (p, e->bytes_req);
        p = PUT_LIT (p, " bytes_alloc=");
        p = put_u (p, e->bytes_alloc);
        p = PUT_LIT (p, " gfp_flags=");
        p = put_str (p, e->gfp);
        if (node)
          {
            p = PUT_LIT (p, " node=");                   /* node=%d */
            p = put_d (p, e->node_plus1 - 1);
          }
        if (era->accounted)
          p = e->accounted ? PUT_LIT (p, " accounted=true") : PUT_LIT (p, " accounted=false");
        break;
      }
    case SIM_GEN_EV_KFREE:
    case SIM_GEN_EV_CACHE_FREE:
      p = e->kind == SIM_GEN_EV_KFREE ? PUT_LIT (p, "kfree: call_site=")
                                      : PUT_LIT (p, "kmem_cache_free: call_site=");
      p = put_site (p, era, e);
      p = PUT_LIT (p, " ptr=");
      p = put_ptr (p, era, e->ptr);
      if (e->kind == SIM_GEN_EV_CACHE_FREE && era->name_on_free)
        {
          p = PUT_LIT (p, " name=");
          p = put_str (p, e->name);
        }
      break;
    case SIM_GEN_EV_PAGE_ALLOC:
      p = PUT_LIT (p, "mm_page_alloc: ");
      p = put_page (p, era, e->ptr);
      p = PUT_LIT (p, " order=");                        /* order=%d migratetype=%d */
      p = put_u (p, e->order);
      p = PUT_LIT (p, " migratetype=");
      p = put_u (p, e->migratetype);
      p = PUT_LIT (p, " gfp_flags=");
      p = put_str (p, e->gfp);
      break;
    case SIM_GEN_EV_PAGE_FREE:
      p = era->page_free_renamed ? PUT_LIT (p, "mm_page_free: ")
                                 : PUT_LIT (p, "mm_page_free_direct: ");
      p = put_page (p, era, e->ptr);
      p = PUT_LIT (p, " order=");
      p = put_u (p, e->order);
      break;
    }
  *p++ = '\n';
  g_assert ((gsize) (p - (out->str + start)) <= room);
  g_string_set_size (out, (gsize) (p - out->str));
}
