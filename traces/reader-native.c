/* reader-native.c - the reader's decoder of slabsim's native format
 * (layout: docs/trace-format.md; the writer is traces/native.c).
 *
 * Every block's CRC-32 is checked before its records are decoded, so a
 * flipped bit or a cut file is named (block number and byte offset) instead
 * of replayed as garbage.  Records are varints, the timestamp, source line
 * and pointer as deltas from the previous record of the same block.  The
 * spool variant (traces/native.h), which only this process writes and
 * reads, codes a record against the block's previous one of its kind.
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
  /* (the spool variant: slabsim's own spool, read back by the process
   * that wrote it; traces/native.h) */
  r->nat.spool = version == SIM_NATIVE_SPOOL_VERSION;
  if (version != SIM_NATIVE_VERSION && !r->nat.spool)
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
      if (r->nat.spool)
        memset (r->nat.prev, 0, sizeof r->nat.prev);
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

/* A varint of two bytes or more at @p, which has room for the longest
 * (ten bytes), with no branch a byte: one of up to four bytes is taken
 * from a 32-bit load (its stop byte is the lowest clear top bit, its 7-bit
 * groups are shifted together), one of up to eight from a 64-bit load
 * (the groups packed in pairs, then quads), a longer one by the byte
 * loop.  The same value, and the same failure, as get_var. */
static inline const guint8 *
get_var_word (const guint8 *p, guint64 *out)
{
  guint32 h;
  memcpy (&h, p, 4);
  h = GUINT32_FROM_LE (h);
  guint32 stop4 = ~h & 0x80808080u;
  if (G_LIKELY (stop4 != 0))
    {
      int bit = __builtin_ctz (stop4);            /* 8k + 7 for a (k+1)-byte varint */
      guint32 x = h & (G_MAXUINT32 >> (31 - bit));
      *out = (x & 0x7fu) | ((x >> 1) & 0x3f80u) | ((x >> 2) & 0x1fc000u)
             | ((x >> 3) & 0xfe00000u);
      return p + (bit >> 3) + 1;
    }
  guint64 w;
  memcpy (&w, p, 8);
  w = GUINT64_FROM_LE (w);
  guint64 stop = ~w & G_GUINT64_CONSTANT (0x8080808080808080);
  if (G_UNLIKELY (stop == 0))
    return get_var_unchecked (p, out);
  int bit = __builtin_ctzll (stop);
  guint64 x = w & (G_MAXUINT64 >> (63 - bit)) & G_GUINT64_CONSTANT (0x7f7f7f7f7f7f7f7f);
  x = (x & G_GUINT64_CONSTANT (0x007f007f007f007f))
      | ((x & G_GUINT64_CONSTANT (0x7f007f007f007f00)) >> 1);
  x = (x & G_GUINT64_CONSTANT (0x00003fff00003fff))
      | ((x & G_GUINT64_CONSTANT (0x3fff00003fff0000)) >> 2);
  x = (x & G_GUINT64_CONSTANT (0x000000000fffffff))
      | ((x & G_GUINT64_CONSTANT (0x0fffffff00000000)) >> 4);
  *out = x;
  return p + (bit >> 3) + 1;
}

/* The bytes of the longest record: its kind and 18 ten-byte varints. */
#define RECORD_MAX (1 + 18 * 10)
/* A spool record's: its kind, three deltas and the mask of at most nine
 * bytes, 20 words of at most five (a word of more is an error, found
 * before the next is read); and the 8-byte load of the last (spool_var). */
#define SPOOL_RECORD_MAX (1 + 4 * 9 + 20 * 9 + 8)

/* Why a run of records stopped before the count asked. */
typedef enum { REC_OK, REC_BAD_KIND, REC_BAD_CPU, REC_BAD_STRING, REC_BAD_MASK,
               REC_BAD_WORD, REC_SHORT } RecStop;

/* The records' decoding state: the block's unread bytes and predictors,
 * in locals for a run of records and written back once. */
typedef struct {
  const guint8 *p, *e;
  guint64 ts, line, ptr;
  guint32 nstr;              /* strings defined: ids above are errors */
  RecStop stop;
  guint64 bad_value;
} RecRun;

/* Up to @n public (version 1) records into @ev; how many were good (run->p
 * is after the last of them). */
static guint
records_public (SimTraceReader *r, RecRun *run, SimTraceEvent *ev, guint n)
{
  const guint8 *p = run->p, *const e = run->e;
  const guint32 nstr = run->nstr;
  guint64 ts = run->ts, line = run->line, ptr = run->ptr;
  guint64 *const by_kind = r->stats.by_kind;
  const guint8 *good = p;   /* after the last good record */
  guint i;
  for (i = 0; i < n; i++)
    {
      guint64 v[19];
      if (G_LIKELY (e - p >= RECORD_MAX))
        {
          /* the longest record fits: no end check a byte; a one-byte
           * varint (most fields of most records) is one compare */
          v[0] = *p++;
#define GETV(j)                                                         \
          if (G_LIKELY (*p < 0x80))                                     \
            v[j] = *p++;                                                \
          else if ((p = get_var_word (p, &v[j])) == NULL)               \
            goto short_record
          GETV (1); GETV (2); GETV (3); GETV (4); GETV (5); GETV (6); GETV (7); GETV (8);
          GETV (9); GETV (10); GETV (11); GETV (12); GETV (13); GETV (14); GETV (15);
          GETV (16); GETV (17); GETV (18);
#undef GETV
        }
      else
        {
          if (p >= e)
            goto short_record;
          v[0] = *p++;
          for (int j = 1; j < 19; j++)
            if (!get_var (&p, e, &v[j]))
              goto short_record;
        }
      if (G_UNLIKELY (v[0] >= SIM_TRACE_N_KINDS))
        {
          run->stop = REC_BAD_KIND;
          run->bad_value = v[0];
          break;
        }
      /* the writer stores the CPU as a 32-bit pattern: -1 (none) or 0..2^31-1 */
      if (G_UNLIKELY (v[1] > G_MAXINT32 && v[1] != G_MAXUINT32))
        {
          run->stop = REC_BAD_CPU;
          run->bad_value = v[1];
          break;
        }
      /* (their OR bounds their largest: one compare in the common case) */
      if (G_UNLIKELY ((v[5] | v[10] | v[11] | v[12]) > nstr)
          && (v[5] > nstr || v[10] > nstr || v[11] > nstr || v[12] > nstr))
        {
          run->stop = REC_BAD_STRING;
          break;
        }
      ts += (guint64) unzigzag (v[2]);
      line += (guint64) unzigzag (v[3]);
      ptr += (guint64) unzigzag (v[4]);
      SimTraceEvent *o = &ev[i];
      o->kind = (SimTraceKind) v[0];
      o->cpu = (gint32) v[1];
      o->ts_ns = ts;
      o->line = line;
      o->ptr = ptr;
      o->call_site_id = (guint32) v[5];
      o->call_site = v[6];
      o->bytes_req = v[7];
      o->bytes_alloc = v[8];
      o->gfp = (guint32) v[9];
      o->gfp_id = (guint32) v[10];
      o->cache_id = (guint32) v[11];
      o->comm_id = (guint32) v[12];
      o->pid = (gint32) unzigzag (v[13]);
      o->node = (gint32) unzigzag (v[14]);
      o->order = (gint32) unzigzag (v[15]);
      o->migratetype = (gint32) unzigzag (v[16]);
      o->accounted = (gint32) unzigzag (v[17]);
      o->pfn = v[18];
      by_kind[v[0]]++;
      good = p;
      continue;
    short_record:
      run->stop = REC_SHORT;
      break;
    }
  run->p = good;
  run->ts = ts;
  run->line = line;
  run->ptr = ptr;
  return i;
}

/* One integer of a spool record (a prefix varint, traces/native.c
 * put_pvar_at): with @room (the longest record and an 8-byte load past it
 * fit) one load and a shift; else byte by byte, NULL past @e. */
static inline const guint8 *
spool_var (const guint8 *p, const guint8 *e, gboolean room, guint64 *out)
{
  guint b0;
  if (G_LIKELY (room))
    {
      b0 = *p;
      if (G_LIKELY (b0 & 1))
        {
          *out = b0 >> 1;
          return p + 1;
        }
      guint64 w;
      if (b0 == 0)
        {
          memcpy (&w, p + 1, 8);
          *out = GUINT64_FROM_LE (w);
          return p + 9;
        }
      guint n = (guint) __builtin_ctz (b0) + 1;          /* 2..8 bytes */
      memcpy (&w, p, 8);
      w = GUINT64_FROM_LE (w);
      *out = (w & (G_MAXUINT64 >> (64 - 8 * n))) >> n;
      return p + n;
    }
  if (p >= e)
    return NULL;
  b0 = *p;
  guint n = b0 == 0 ? 9 : (guint) __builtin_ctz (b0) + 1;
  if ((gsize) (e - p) < n)
    return NULL;
  guint64 v = 0;
  if (n == 9)
    for (guint i = 0; i < 8; i++)
      v |= (guint64) p[1 + i] << (8 * i);
  else
    {
      for (guint i = 0; i < n; i++)
        v |= (guint64) p[i] << (8 * i);
      v >>= n;
    }
  *out = v;
  return p + n;
}

/* records_public for the spool variant (traces/native.h): each record is
 * the block's previous one of its kind with the words of its mask
 * replaced, one copy and a few one-load integers instead of eighteen
 * varints. */
/* The mask bits of the words a record's reading checks (traces/native.h):
 * cpu, gfp_id, cache_id, call_site_id, comm_id. */
#define SPOOL_WORD_BIT(field) \
  (1u << (SIM_SPOOL_WORDS_LO + (G_STRUCT_OFFSET (SimTraceEvent, field) - 56) / 4))
#define SPOOL_CHECKED                                                            \
  (SPOOL_WORD_BIT (cpu) | SPOOL_WORD_BIT (gfp_id) | SPOOL_WORD_BIT (cache_id)      \
   | SPOOL_WORD_BIT (call_site_id) | SPOOL_WORD_BIT (comm_id))

static guint
records_spool (SimTraceReader *r, RecRun *run, SimTraceEvent *ev, guint n)
{
  const guint8 *p = run->p, *const e = run->e;
  const guint32 nstr = run->nstr;
  guint64 ts = run->ts, line = run->line, ptr = run->ptr;
  guint64 *const by_kind = r->stats.by_kind;
  const guint8 *good = p;
  guint i;
  for (i = 0; i < n; i++)
    {
      gboolean room = e - p >= SPOOL_RECORD_MAX;
      if (!room && p >= e)
        goto short_record;
      guint kind = *p++;
      if (G_UNLIKELY (kind >= SIM_TRACE_N_KINDS))
        {
          run->stop = REC_BAD_KIND;
          run->bad_value = kind;
          break;
        }
      guint64 dts, dline, dptr, mask;
      if ((p = spool_var (p, e, room, &dts)) == NULL
          || (p = spool_var (p, e, room, &dline)) == NULL
          || (p = spool_var (p, e, room, &dptr)) == NULL
          || (p = spool_var (p, e, room, &mask)) == NULL)
        goto short_record;
      if (G_UNLIKELY (mask >> SIM_SPOOL_MASK_BITS || mask & (1u << SIM_SPOOL_KIND_BIT)))
        {
          run->stop = REC_BAD_MASK;
          run->bad_value = mask;
          break;
        }
      /* The words are put into the kind's previous record itself, then
       * copied out: a record that fails leaves it half changed, but the
       * reader reads no further after an error (its error is sticky). */
      SimTraceEvent *prev = &r->nat.prev[kind];
      guint8 *w = (guint8 *) prev;
      for (guint32 m = (guint32) mask; m; m &= m - 1)
        {
          guint j = (guint) __builtin_ctz (m);
          guint64 v;
          if ((p = spool_var (p, e, room, &v)) == NULL)
            goto short_record;
          if (G_UNLIKELY (v > G_MAXUINT32))
            {
              run->stop = REC_BAD_WORD;
              run->bad_value = v;
              goto stop;
            }
          guint32 v32 = (guint32) v;
          memcpy (w + (j < SIM_SPOOL_WORDS_LO ? 16 + 4 * j : 24 + 4 * j), &v32, 4);
        }
      /* What a public record's reading checks, where a word changed: a
       * CPU of -1 or 0..2^31-1, string ids defined. */
      if (G_UNLIKELY (mask & SPOOL_CHECKED))
        {
          if (G_UNLIKELY (prev->cpu < -1))
            {
              run->stop = REC_BAD_CPU;
              run->bad_value = (guint32) prev->cpu;
              break;
            }
          if (G_UNLIKELY ((prev->call_site_id | prev->gfp_id | prev->cache_id | prev->comm_id)
                          > nstr)
              && (prev->call_site_id > nstr || prev->gfp_id > nstr || prev->cache_id > nstr
                  || prev->comm_id > nstr))
            {
              run->stop = REC_BAD_STRING;
              break;
            }
        }
      ts += (guint64) unzigzag (dts);
      line += (guint64) unzigzag (dline);
      ptr += (guint64) unzigzag (dptr);
      prev->kind = (SimTraceKind) kind;
      prev->ts_ns = ts;
      prev->line = line;
      prev->ptr = ptr;
      ev[i] = *prev;
      by_kind[kind]++;
      good = p;
      continue;
    short_record:
      run->stop = REC_SHORT;
      break;
    }
stop:
  run->p = good;
  run->ts = ts;
  run->line = line;
  run->ptr = ptr;
  return i;
}

guint
sim_trace_native_next_n (SimTraceReader *r, SimTraceEvent *ev, guint max, GError **error)
{
  guint k = 0;
  while (k < max)
    {
      if (r->nat.left == 0)
        {
          if (r->nat.p != r->nat.e)
            {
              NAT_ERR (r, "%s", "unexpected bytes after the block's records");
              return k;
            }
          if (r->nat.trailer)
            {
              r->done = TRUE;
              return k;
            }
          if (!next_block (r, error))
            return k;
          continue;
        }
      /* The records of this block that fit in @ev. */
      RecRun run = { .p = r->nat.p, .e = r->nat.e, .ts = r->nat.ts, .line = r->nat.line,
                     .ptr = r->nat.ptr, .nstr = r->strs.strs->len, .stop = REC_OK };
      guint n = MIN ((guint) r->nat.left, max - k);
      guint i = r->nat.spool ? records_spool (r, &run, ev + k, n)
                             : records_public (r, &run, ev + k, n);
      /* the @i good records */
      r->nat.p = run.p;
      r->nat.ts = run.ts;
      r->nat.line = run.line;
      r->nat.ptr = run.ptr;
      r->nat.left -= i;
      r->nat.records += i;
      r->stats.events += i;
      k += i;
      if (run.stop == REC_OK)
        continue;
      if (run.stop == REC_BAD_KIND)
        NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected an event kind below %d, found %u",
                 r->nat.records, SIM_TRACE_N_KINDS, (guint) run.bad_value);
      else if (run.stop == REC_BAD_CPU)
        NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected a CPU number from 0 to %d "
                 "(or none), found %" G_GUINT64_FORMAT, r->nat.records, G_MAXINT32,
                 run.bad_value);
      else if (run.stop == REC_BAD_STRING)
        NAT_ERR (r, "record %" G_GUINT64_FORMAT ": a string id exceeds the %u strings defined",
                 r->nat.records, run.nstr);
      else if (run.stop == REC_BAD_MASK)
        NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected a spool word mask below %#x "
                 "without bit %d, found %#" G_GINT64_MODIFIER "x", r->nat.records,
                 1u << SIM_SPOOL_MASK_BITS, SIM_SPOOL_KIND_BIT, run.bad_value);
      else if (run.stop == REC_BAD_WORD)
        NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected a 32-bit spool word, found %"
                 G_GUINT64_FORMAT, r->nat.records, run.bad_value);
      else
        NAT_ERR (r, "record %" G_GUINT64_FORMAT " runs past the end of the block",
                 r->nat.records);
      return k;
    }
  return k;
}

gboolean
sim_trace_native_next (SimTraceReader *r, SimTraceEvent *ev, GError **error)
{
  return sim_trace_native_next_n (r, ev, 1, error) == 1;
}
