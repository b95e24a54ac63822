/* reader-native.c - the reader's decoder of slabsim's native format
 * (layout: docs/trace-format.md; the writer is traces/native.c).
 *
 * Every block's CRC-32 is checked before its records are decoded, so a
 * flipped bit or a cut file is named (block number and byte offset) instead
 * of replayed as garbage.  Records are varints, the timestamp, source line
 * and pointer as deltas from the previous record of the same block.
 */
#include "traces/native.h"
#include "traces/reader-private.h"
#include "sim/core/errors.h"

#include <string.h>

#define HEADER_SIZE SIM_NATIVE_HEADER_SIZE
#define BLOCK_HEADER_SIZE SIM_NATIVE_BLOCK_HEADER_SIZE
#define MAX_PAYLOAD SIM_NATIVE_MAX_PAYLOAD
enum { BLOCK_STRINGS = SIM_NATIVE_BLOCK_STRINGS, BLOCK_EVENTS = SIM_NATIVE_BLOCK_EVENTS_TYPE,
       BLOCK_TRAILER = SIM_NATIVE_BLOCK_TRAILER };
static const guint8 *const magic = (const guint8 *) SIM_NATIVE_MAGIC;

/* ---- CRC-32 ------------------------------------------------------------ */

/* The gzip CRC-32 (reflected polynomial 0xedb88320, inverted in and out).
 * With ISA-L in the build its crc32_gzip_refl computes the same value
 * (PCLMULQDQ folding, a fraction of an instruction a byte: the spool of
 * every text `run` is checksummed once written and once per replay read);
 * without it, slice-by-8 tables. */
#ifdef HAVE_ISAL
#include <isa-l/crc.h>

guint32
sim_native_crc32 (guint32 crc, const void *data, gsize len)
{
  return crc32_gzip_refl (crc, data, len);
}
#else
/* Slice-by-8: eight tables so the checksum keeps up with the decoder. */
static guint32 crc_table[8][256];

static gpointer
crc_init (gpointer data)
{
  (void) data;
  for (guint32 i = 0; i < 256; i++)
    {
      guint32 c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      crc_table[0][i] = c;
    }
  for (guint32 i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
  return NULL;
}

guint32
sim_native_crc32 (guint32 crc, const void *data, gsize len)
{
  static GOnce once = G_ONCE_INIT;
  g_once (&once, crc_init, NULL);
  const guint8 *p = data;
  crc = ~crc;
  while (len >= 8)
    {
      guint32 lo = crc ^ ((guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
                          (guint32) p[3] << 24);
      crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
            crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
            crc_table[3][p[4]] ^ crc_table[2][p[5]] ^ crc_table[1][p[6]] ^ crc_table[0][p[7]];
      p += 8;
      len -= 8;
    }
  while (len--)
    crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}
#endif

/* ---- little-endian and varints ------------------------------------------- */

static inline guint32
get_u32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static inline gint64
unzigzag (guint64 v)
{
  return (gint64) (v >> 1) ^ -(gint64) (v & 1);
}

/* ---- decoder ------------------------------------------------------------- */

#define NAT_ERR(r, fmt, ...)                                                    \
  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,               \
               "%s: block %" G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT ": " fmt, \
               (r)->name, (r)->nat.block, (r)->nat.block_offset, __VA_ARGS__)

gboolean
sim_trace_native_open (SimTraceReader *r, GError **error)
{
  gssize n = sim_trace_reader_fill (r, HEADER_SIZE, error);
  if (n < 0)
    return FALSE;
  const guint8 *h = (const guint8 *) r->buf + r->pos;
  if (n < HEADER_SIZE || memcmp (h, magic, 8) != 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                   "%s: expected a slabsim native trace header (%d bytes starting \\x89SLABTR\\n)",
                   r->name, HEADER_SIZE);
      return FALSE;
    }
  guint32 version = get_u32 (h + 8), src = get_u32 (h + 12);
  if (version != SIM_NATIVE_VERSION)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                   "%s: native trace version %u, expected %u (convert the text trace again)",
                   r->name, version, SIM_NATIVE_VERSION);
      return FALSE;
    }
  r->source_format = (src >= SIM_TRACE_FORMAT_FTRACE && src <= SIM_TRACE_FORMAT_TRACE_CMD_DAT)
                     ? (SimTraceFormat) src : SIM_TRACE_FORMAT_FTRACE;
  r->pos += HEADER_SIZE;
  return TRUE;
}

static inline gboolean
get_var (const guint8 **pp, const guint8 *e, guint64 *out)
{
  const guint8 *p = *pp;
  if (G_LIKELY (p < e && *p < 0x80))
    {
      *out = *p;
      *pp = p + 1;
      return TRUE;
    }
  guint64 v = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      if (p >= e)
        return FALSE;
      guint8 c = *p++;
      v |= (guint64) (c & 0x7f) << shift;
      if (!(c & 0x80))
        {
          *out = v;
          *pp = p;
          return TRUE;
        }
    }
  return FALSE;
}

/* get_var with no end check, for a record that cannot run past the
 * block's end (the caller checked room for the longest); NULL where
 * get_var fails on a varint of more than ten bytes. */
static inline const guint8 *
get_var_unchecked (const guint8 *p, guint64 *out)
{
  if (G_LIKELY (*p < 0x80))
    {
      *out = *p;
      return p + 1;
    }
  guint64 v = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      guint8 c = *p++;
      v |= (guint64) (c & 0x7f) << shift;
      if (!(c & 0x80))
        {
          *out = v;
          return p;
        }
    }
  return NULL;
}

static gboolean
read_trailer (SimTraceReader *r, const guint8 *p, const guint8 *e, GError **error)
{
  SimTraceStats *s = &r->stats;
  guint64 events, nother;
  if (!get_var (&p, e, &events) || !get_var (&p, e, &s->lost_events) ||
      !get_var (&p, e, &s->lost_markers) || !get_var (&p, e, &s->skipped_lines) ||
      !get_var (&p, e, &s->malformed_lines) || !get_var (&p, e, &s->hashed_ptrs) ||
      !get_var (&p, e, &s->raw_ptrs) || !get_var (&p, e, &nother))
    {
      NAT_ERR (r, "%s", "expected the trailer's counters");
      return FALSE;
    }
  for (guint64 i = 0; i < nother; i++)
    {
      guint64 len, count;
      if (!get_var (&p, e, &len) || len > (guint64) (e - p))
        {
          NAT_ERR (r, "%s", "expected an event name in the trailer");
          return FALSE;
        }
      const char *name = (const char *) p;
      p += len;
      if (!get_var (&p, e, &count))
        {
          NAT_ERR (r, "%s", "expected an event count in the trailer");
          return FALSE;
        }
      sim_trace_stats_add_other (s, name, len, count);
    }
  if (p != e)
    {
      NAT_ERR (r, "%s", "unexpected bytes at the end of the trailer");
      return FALSE;
    }
  if (events != s->events)
    {
      NAT_ERR (r, "the trailer counts %" G_GUINT64_FORMAT " events, the file holds %"
               G_GUINT64_FORMAT, events, s->events);
      return FALSE;
    }
  return TRUE;
}

/* Read the next block header and payload; event blocks become current. */
static gboolean
next_block (SimTraceReader *r, GError **error)
{
  r->nat.block_offset = r->consumed + r->pos;
  r->nat.block++;
  gssize n = sim_trace_reader_fill (r, BLOCK_HEADER_SIZE, error);
  if (n < 0)
    return FALSE;
  if (n == 0)
    {
      NAT_ERR (r, "%s", "the file ends without its trailer block (truncated?)");
      return FALSE;
    }
  if (n < BLOCK_HEADER_SIZE)
    {
      NAT_ERR (r, "expected a %d-byte block header, the file ends after %" G_GSIZE_FORMAT
               " (truncated?)", BLOCK_HEADER_SIZE, (gsize) n);
      return FALSE;
    }
  const guint8 *h = (const guint8 *) r->buf + r->pos;
  guint8 type = h[0];
  guint32 len = get_u32 (h + 4), count = get_u32 (h + 8), crc = get_u32 (h + 12);
  if ((type != BLOCK_STRINGS && type != BLOCK_EVENTS && type != BLOCK_TRAILER) ||
      h[1] || h[2] || h[3])
    {
      NAT_ERR (r, "expected a block type S, E or T, found byte 0x%02x", type);
      return FALSE;
    }
  if (len > MAX_PAYLOAD)
    {
      NAT_ERR (r, "block length %u exceeds the limit of %u bytes", len, MAX_PAYLOAD);
      return FALSE;
    }
  n = sim_trace_reader_fill (r, BLOCK_HEADER_SIZE + (gsize) len, error);
  if (n < 0)
    return FALSE;
  if ((gsize) n < BLOCK_HEADER_SIZE + (gsize) len)
    {
      NAT_ERR (r, "the %c block needs %u payload bytes, the file ends after %" G_GSIZE_FORMAT
               " (truncated?)", type, len, (gsize) n - BLOCK_HEADER_SIZE);
      return FALSE;
    }
  const guint8 *p = (const guint8 *) r->buf + r->pos + BLOCK_HEADER_SIZE;
  const guint8 *e = p + len;
  r->pos += BLOCK_HEADER_SIZE + len;
  guint32 got = sim_native_crc32 (0, p, len);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  /* let the fuzzer past the checksum into the decoder */
  got = crc;
#endif
  if (got != crc)
    {
      NAT_ERR (r, "checksum mismatch in the %c block (stored %08x, computed %08x): the file is corrupt",
               type, crc, got);
      return FALSE;
    }
  switch (type)
    {
    case BLOCK_STRINGS:
      for (guint32 i = 0; i < count; i++)
        {
          guint64 sl;
          if (!get_var (&p, e, &sl) || sl > (guint64) (e - p))
            {
              NAT_ERR (r, "string %u runs past the end of the block", i);
              return FALSE;
            }
          sim_strtab_append (&r->strs, (const char *) p, sl);
          p += sl;
        }
      if (p != e)
        {
          NAT_ERR (r, "%s", "unexpected bytes after the block's strings");
          return FALSE;
        }
      return TRUE;
    case BLOCK_EVENTS:
      r->nat.p = p;
      r->nat.e = e;
      r->nat.left = count;
      r->nat.ts = r->nat.line = r->nat.ptr = 0;
      return TRUE;
    default:
      if (!read_trailer (r, p, e, error))
        return FALSE;
      r->nat.trailer = TRUE;
      if (sim_trace_reader_fill (r, 1, error) != 0)
        {
          if (error && *error == NULL)
            {
              r->nat.block++;
              r->nat.block_offset = r->consumed + r->pos;
              NAT_ERR (r, "%s", "unexpected data after the trailer block");
            }
          return FALSE;
        }
      return TRUE;
    }
}

gboolean
sim_trace_native_next (SimTraceReader *r, SimTraceEvent *ev, GError **error)
{
  while (r->nat.left == 0)
    {
      if (r->nat.p != r->nat.e)
        {
          NAT_ERR (r, "%s", "unexpected bytes after the block's records");
          return FALSE;
        }
      if (r->nat.trailer)
        {
          r->done = TRUE;
          return FALSE;
        }
      if (!next_block (r, error))
        return FALSE;
    }
  const guint8 *p = r->nat.p, *e = r->nat.e;
  guint64 v[19];
  if (p >= e)
    goto short_record;
  v[0] = *p++;
  if (G_LIKELY (e - p >= 18 * 10))
    {
      /* the longest record fits: the common case, decoded with no end
       * check a byte (the same values and failures as get_var) */
#define GETV(i) if ((p = get_var_unchecked (p, &v[i])) == NULL) goto short_record
      GETV (1); GETV (2); GETV (3); GETV (4); GETV (5); GETV (6); GETV (7); GETV (8);
      GETV (9); GETV (10); GETV (11); GETV (12); GETV (13); GETV (14); GETV (15);
      GETV (16); GETV (17); GETV (18);
#undef GETV
    }
  else
    for (int i = 1; i < 19; i++)
      if (!get_var (&p, e, &v[i]))
        goto short_record;
  if (v[0] >= SIM_TRACE_N_KINDS)
    {
      NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected an event kind below %d, found %u",
               r->nat.records, SIM_TRACE_N_KINDS, (guint) v[0]);
      return FALSE;
    }
  /* the writer stores the CPU as a 32-bit pattern: -1 (none) or 0..2^31-1 */
  if (v[1] > G_MAXINT32 && v[1] != G_MAXUINT32)
    {
      NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected a CPU number from 0 to %d "
               "(or none), found %" G_GUINT64_FORMAT, r->nat.records, G_MAXINT32, v[1]);
      return FALSE;
    }
  guint32 nstr = r->strs.strs->len;
  if (v[5] > nstr || v[10] > nstr || v[11] > nstr || v[12] > nstr)
    {
      NAT_ERR (r, "record %" G_GUINT64_FORMAT ": a string id exceeds the %u strings defined",
               r->nat.records, nstr);
      return FALSE;
    }
  r->nat.ts += (guint64) unzigzag (v[2]);
  r->nat.line += (guint64) unzigzag (v[3]);
  r->nat.ptr += (guint64) unzigzag (v[4]);
  ev->kind = (SimTraceKind) v[0];
  ev->cpu = (gint32) v[1];
  ev->ts_ns = r->nat.ts;
  ev->line = r->nat.line;
  ev->ptr = r->nat.ptr;
  ev->call_site_id = (guint32) v[5];
  ev->call_site = v[6];
  ev->bytes_req = v[7];
  ev->bytes_alloc = v[8];
  ev->gfp = (guint32) v[9];
  ev->gfp_id = (guint32) v[10];
  ev->cache_id = (guint32) v[11];
  ev->comm_id = (guint32) v[12];
  ev->pid = (gint32) unzigzag (v[13]);
  ev->node = (gint32) unzigzag (v[14]);
  ev->order = (gint32) unzigzag (v[15]);
  ev->migratetype = (gint32) unzigzag (v[16]);
  ev->accounted = (gint32) unzigzag (v[17]);
  ev->pfn = v[18];
  r->nat.p = p;
  r->nat.left--;
  r->nat.records++;
  r->stats.events++;
  r->stats.by_kind[ev->kind]++;
  return TRUE;

short_record:
  NAT_ERR (r, "record %" G_GUINT64_FORMAT " runs past the end of the block", r->nat.records);
  return FALSE;
}

