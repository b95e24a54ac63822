/* reader-fast.c - the fast path of the text line parser.
 *
 * Nearly every line of a kmem trace has one of three shapes (reader.c's
 * header): "comm-pid [cpu] flags sec.frac: event: key=value ...".  This
 * path reads such a line with 16-byte SSE2 compares instead of byte and
 * word loops, checks the shape as it goes, and gives up -- returning FALSE
 * before it has changed anything -- at the first thing it does not expect:
 * a tab, a comment, a short line, a CPU field that is not "[digits]" in the
 * first '[', a timestamp without a fraction or of eleven or more second
 * digits, an event we do not read, an empty value, a value followed by a
 * "[module]" word, a key twice, a value that does not parse, a missing
 * field.  The careful parser (reader.c parse_line) then reads the line from
 * its start, so every skipped line, counter and error message is the
 * careful parser's, whatever this file does.
 *
 * What the fast path accepts it reads exactly as the careful parser would:
 * the same first '[' (it is the careful parser's CPU when it is a good
 * "[digits]"), the same timestamp token among the next three, the same
 * event name, task and field values, through the same value parsers
 * (reader-fields.h).  Strings are interned only once the whole line has
 * been accepted, in the careful parser's order (task, then the fields as
 * they come), so the string ids are the same too.  tests/traces/
 * test-trace-fast.c compares both parsers line by line on every sample and
 * on mutated lines.
 *
 * Memos save most of the work on the lines of a real trace, which repeat
 * themselves: first the whole line but for its timestamp's and pointer's
 * digits (a task's event from one call site: LineMemo, 95 % of the bundled
 * trace's lines); failing that, the line's prefix up to the timestamp (a
 * task on a CPU), the fields up to the first pointer (the event and its
 * call site), the fields after the last pointer or page frame (a call
 * site's cache, sizes and gfp flags), and the interned strings.  Each is
 * confirmed by comparing all its bytes with the line's, so a memo only
 * saves work: equal bytes read by the careful parser's rules give equal
 * results.
 *
 * Bounds: a line of fewer than 32 bytes is left to the careful parser, so
 * a 16-byte load at q < e that would cross e is made at e - 16 instead
 * (still inside the line) and its mask shifted: nothing outside [p, e) is
 * read.  Without SSE2 (a non-x86 build) every line goes the careful way.
 */
#include "traces/reader-fields.h"

#if defined(__SSE2__) && G_BYTE_ORDER == G_LITTLE_ENDIAN
#include <emmintrin.h>

#define FAST_MIN_LINE 32

static inline guint
cmp16 (const char *q, __m128i k)
{
  return (guint) _mm_movemask_epi8 (_mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) q), k));
}

/* The bits of [q, e) (q < e, e - q < 16) in a mask of the 16 bytes at e - 16. */
static inline guint
tail_bits (guint m, const char *q, const char *e)
{
  return m >> (16 - (e - q));
}

/* The first byte of [q, e) that is @c, or e. */
static inline const char *
find1 (const char *q, const char *e, char c)
{
  const __m128i k = _mm_set1_epi8 (c);
  while (e - q >= 16)
    {
      guint m = cmp16 (q, k);
      if (m)
        return q + __builtin_ctz (m);
      q += 16;
    }
  if (q >= e)
    return e;
  guint m = tail_bits (cmp16 (e - 16, k), q, e);
  return m ? q + __builtin_ctz (m) : e;
}

/* The first byte of [q, e) that is @c1 or @c2, or e. */
static inline const char *
find2 (const char *q, const char *e, char c1, char c2)
{
  const __m128i k1 = _mm_set1_epi8 (c1), k2 = _mm_set1_epi8 (c2);
  while (e - q >= 16)
    {
      guint m = cmp16 (q, k1) | cmp16 (q, k2);
      if (m)
        return q + __builtin_ctz (m);
      q += 16;
    }
  if (q >= e)
    return e;
  guint m = tail_bits (cmp16 (e - 16, k1) | cmp16 (e - 16, k2), q, e);
  return m ? q + __builtin_ctz (m) : e;
}

/* The first byte of [q, e) that is no space, or e. */
static inline const char *
skip_spaces (const char *q, const char *e)
{
  const __m128i k = _mm_set1_epi8 (' ');
  while (e - q >= 16)
    {
      guint m = cmp16 (q, k) ^ 0xffff;
      if (m)
        return q + __builtin_ctz (m);
      q += 16;
    }
  if (q >= e)
    return e;
  guint m = tail_bits (cmp16 (e - 16, k) ^ 0xffff, q, e);
  return m ? q + __builtin_ctz (m) : e;
}

/* The kind of event @name (@len bytes), -1 if none: sim_trace_kind_from_name
 * by length and constant compares. */
static inline int
fast_kind (const char *n, gsize len)
{
#define IS(lit) (memcmp (n, lit, sizeof (lit) - 1) == 0)
  switch (len)
    {
    case 5:  return IS ("kfree") ? SIM_TRACE_KFREE : -1;
    case 7:  return IS ("kmalloc") ? SIM_TRACE_KMALLOC : -1;
    case 12: return IS ("kmalloc_node") ? SIM_TRACE_KMALLOC_NODE
                  : IS ("mm_page_free") ? SIM_TRACE_PAGE_FREE : -1;
    case 13: return IS ("mm_page_alloc") ? SIM_TRACE_PAGE_ALLOC : -1;
    case 15: return IS ("kmem_cache_free") ? SIM_TRACE_CACHE_FREE
                  : IS ("mm_pagevec_free") ? SIM_TRACE_PAGEVEC_FREE : -1;
    case 16: return IS ("kmem_cache_alloc") ? SIM_TRACE_CACHE_ALLOC : -1;
    case 18: return IS ("mm_page_pcpu_drain") ? SIM_TRACE_PAGE_PCPU_DRAIN : -1;
    case 19: return IS ("mm_page_free_direct") ? SIM_TRACE_PAGE_FREE_DIRECT : -1;
    case 20: return IS ("mm_page_free_batched") ? SIM_TRACE_PAGE_FREE_BATCHED : -1;
    case 21: return IS ("kmem_cache_alloc_node") ? SIM_TRACE_CACHE_ALLOC_NODE : -1;
    case 25: return IS ("mm_page_alloc_zone_locked") ? SIM_TRACE_PAGE_ALLOC_ZONE_LOCKED : -1;
    default: return -1;
    }
#undef IS
}

static inline guint64
load8 (const char *s)
{
  guint64 w;
  memcpy (&w, s, 8);
  return w;
}

/* The high bit of every byte of @w that is a decimal digit (bytes of 0x80
 * and above are none; masking them first keeps the adds carry-free). */
static inline guint64
digit_bits (guint64 w)
{
  guint64 t = w & ~SWAR_HIGHS;
  return (t + SWAR_ONES * (0x80 - '0')) & ~(t + SWAR_ONES * (0x80 - '9' - 1)) & ~w & SWAR_HIGHS;
}

/* The value of the @n (1 to 8) digits in the low bytes of @w (the first
 * the lowest), which are known to be digits: dec8 without its checks. */
static inline guint64
dec_word (guint64 w, guint n)
{
  guint sh = 8 * (8 - n);
  if (sh)
    w = (w << sh) | ((SWAR_ONES * '0') & ((G_GUINT64_CONSTANT (1) << sh) - 1));
  w -= SWAR_ONES * '0';
  w = w * 10 + (w >> 8);
  return (((w & G_GUINT64_CONSTANT (0x000000ff000000ff)) *
           (100 + (G_GUINT64_CONSTANT (1000000) << 32))) +
          (((w >> 16) & G_GUINT64_CONSTANT (0x000000ff000000ff)) *
           (1 + (G_GUINT64_CONSTANT (10000) << 32)))) >> 32;
}

/* One to seven digits at @v followed by a space (the value's end @ve):
 * what parse_dec reads from the value the scan for ' ' would find.  FALSE
 * (nothing read) for anything else, which the caller reads the long way. */
static inline gboolean
dec_space (const char *v, const char *e, guint64 *out, const char **ve)
{
  if (e - v < 8)
    return FALSE;
  guint64 w = load8 (v);
  guint64 nd = digit_bits (w) ^ SWAR_HIGHS;
  guint n = (guint) __builtin_ctzll (nd | (G_GUINT64_CONSTANT (1) << 63)) >> 3;
  if (n == 0 || n == 8 || v[n] != ' ')
    return FALSE;
  *out = dec_word (w, n);
  *ve = v + n;
  return TRUE;
}

/* Sixteen hex digits (either case) at @v: hex8 twice, in one 16-byte
 * pass.  A byte is a digit or, with 0x20 or-ed in, a to f (signed
 * compares: bytes of 0x80 and above are neither); its nibble is its low
 * four bits plus 9 for a letter; pairs of nibbles become bytes in 16-bit
 * lanes, which pack into the eight bytes of the value, first digits
 * first, so the value is them byte-swapped. */
static inline __attribute__ ((always_inline)) gboolean
hex16 (const char *v, guint64 *out)
{
  __m128i x = _mm_loadu_si128 ((const __m128i *) v);
  __m128i y = _mm_or_si128 (x, _mm_set1_epi8 (0x20));
  __m128i dig = _mm_and_si128 (_mm_cmpgt_epi8 (x, _mm_set1_epi8 ('0' - 1)),
                               _mm_cmplt_epi8 (x, _mm_set1_epi8 ('9' + 1)));
  __m128i let = _mm_and_si128 (_mm_cmpgt_epi8 (y, _mm_set1_epi8 ('a' - 1)),
                               _mm_cmplt_epi8 (y, _mm_set1_epi8 ('f' + 1)));
  if (_mm_movemask_epi8 (_mm_or_si128 (dig, let)) != 0xffff)
    return FALSE;
  __m128i nib = _mm_add_epi8 (_mm_and_si128 (x, _mm_set1_epi8 (0x0f)),
                              _mm_and_si128 (let, _mm_set1_epi8 (9)));
  __m128i pair = _mm_or_si128 (_mm_slli_epi16 (_mm_and_si128 (nib, _mm_set1_epi16 (0x00ff)), 4),
                               _mm_srli_epi16 (nib, 8));
  *out = __builtin_bswap64 ((guint64) _mm_cvtsi128_si64 (_mm_packus_epi16 (pair, pair)));
  return TRUE;
}

/* "KEY=" of every key the parser reads, for a 16-byte compare. */
static const struct {
  char    lit[16];
  guint16 mask;         /* the bytes that must match; 0: never */
  guint8  klen;         /* without the '=' */
} key_lits[KEY_OTHER + 1] = {
#define KL(id, s) [id] = { s, (1u << (sizeof (s) - 1)) - 1, sizeof (s) - 2 }
  KL (KEY_PTR, "ptr="), KL (KEY_PFN, "pfn="), KL (KEY_NAME, "name="), KL (KEY_NODE, "node="),
  KL (KEY_PAGE, "page="), KL (KEY_ORDER, "order="), KL (KEY_CALL_SITE, "call_site="),
  KL (KEY_BYTES_REQ, "bytes_req="), KL (KEY_GFP_FLAGS, "gfp_flags="),
  KL (KEY_ACCOUNTED, "accounted="), KL (KEY_BYTES_ALLOC, "bytes_alloc="),
  KL (KEY_MIGRATETYPE, "migratetype="),
#undef KL
};

/* key_at (reader-fields.h) in one compare when 16 bytes are left. */
static inline gboolean
key_guess (const char *q, const char *e, guint id, gsize *klen)
{
  if (e - q < 16)
    return key_at (q, e, id, klen);
  guint want = key_lits[id].mask;
  guint m = cmp16 (q, _mm_loadu_si128 ((const __m128i *) key_lits[id].lit)) & want;
  *klen = key_lits[id].klen;
  return want != 0 && m == want;
}

/* A string of the line to intern once the line is accepted. */
typedef struct {
  const char *s;
  guint32     len;
  guint32     field;     /* MEMO_* */
  guint32    *id;        /* where its id goes */
} Pending;

/* A call site's value: its text as a pointer, else 0 (symbolic). */
static inline guint64
call_site_value (const char *s, gsize len)
{
  guint64 x;
  int d;
  return parse_ptr (s, len, &x, &d) ? x : 0;
}

/* The string memo: a string's length, first and last eight bytes, id (and
 * for a call site, its value as a pointer: 0 when symbolic). */
typedef struct {
  guint64 head, tail;
  guint32 len, id;
  guint64 value;
} StrMemo;

/* The line prefix memo: "comm-pid [cpu] flags " up to the timestamp,
 * which a task's lines on one CPU repeat. */
#define PREFIX_MAX   64
#define PREFIX_SLOTS 128
typedef struct {
  char    bytes[PREFIX_MAX];
  guint32 len;                   /* 0: empty */
  gint32  cpu, pid;
  guint32 comm_id;
} PrefixMemo;

/* What a run of fields sets: the keys in it (1 << KEY_*), their F_* bits,
 * and the values of the event's fields they set. */
typedef struct {
  guint32 seen, have;
  guint32 call_site_id, cache_id, gfp_id, gfp;
  gint32  node, order, migratetype, accounted;
  guint64 call_site, bytes_req, bytes_alloc;
} FieldVals;

/* The keys whose fields a memo may hold: none that sets ptr or pfn. */
#define MEMO_KEYS ((1u << KEY_NAME) | (1u << KEY_NODE) | (1u << KEY_ORDER) |             \
                   (1u << KEY_BYTES_REQ) | (1u << KEY_GFP_FLAGS) | (1u << KEY_ACCOUNTED) | \
                   (1u << KEY_BYTES_ALLOC) | (1u << KEY_MIGRATETYPE) | (1u << KEY_CALL_SITE))

static inline void
vals_take (FieldVals *fv, const SimTraceEvent *ev, guint seen, guint have)
{
  *fv = (FieldVals) {
    .seen = seen, .have = have, .call_site_id = ev->call_site_id, .cache_id = ev->cache_id,
    .gfp_id = ev->gfp_id, .gfp = ev->gfp, .node = ev->node, .order = ev->order,
    .migratetype = ev->migratetype, .accounted = ev->accounted, .call_site = ev->call_site,
    .bytes_req = ev->bytes_req, .bytes_alloc = ev->bytes_alloc,
  };
}

static inline void
vals_apply (SimTraceEvent *ev, const FieldVals *fv)
{
  guint s = fv->seen;
  if (s & (1u << KEY_CALL_SITE))
    ev->call_site_id = fv->call_site_id, ev->call_site = fv->call_site;
  if (s & (1u << KEY_NAME))
    ev->cache_id = fv->cache_id;
  if (s & (1u << KEY_NODE))
    ev->node = fv->node;
  if (s & (1u << KEY_ORDER))
    ev->order = fv->order;
  if (s & (1u << KEY_BYTES_REQ))
    ev->bytes_req = fv->bytes_req;
  if (s & (1u << KEY_GFP_FLAGS))
    ev->gfp_id = fv->gfp_id, ev->gfp = fv->gfp;
  if (s & (1u << KEY_ACCOUNTED))
    ev->accounted = fv->accounted;
  if (s & (1u << KEY_BYTES_ALLOC))
    ev->bytes_alloc = fv->bytes_alloc;
  if (s & (1u << KEY_MIGRATETYPE))
    ev->migratetype = fv->migratetype;
}

/* The field head memo: from the end of the timestamp through the first
 * "ptr=" or "page=" (" kmem_cache_free: call_site=vfs_fstatat+0x71/0xb0
 * ptr="): the event name and the fields before the pointer. */
#define HEAD_MAX   96
#define HEAD_SLOTS 256
typedef struct {
  char      bytes[HEAD_MAX];
  guint32   len;                 /* 0: empty */
  guint32   kind, key;           /* KEY_PTR or KEY_PAGE */
  FieldVals vals;
} HeadMemo;

/* The field tail memo: the fields after the last pointer or page frame
 * ("name=... bytes_req=... gfp_flags=... node=-1 accounted=false"), which
 * a call site repeats, with what they set. */
#define TAIL_MAX   128
#define TAIL_SLOTS 256
typedef struct {
  char      pad[16];             /* the end compare reads up to 16 bytes before bytes */
  char      bytes[TAIL_MAX];
  guint32   len;                 /* 0: empty */
  guint32   kind;
  FieldVals vals;
} TailMemo;

/* The line memo: a whole slab event's line read before, with its
 * "holes" -- the timestamp's digits and the pointer's 16 hex digits, the
 * bytes in which a task's lines of one call site and cache differ -- and
 * the event it gave.  A line of the same length whose other bytes are the
 * same, with digits in the timestamp's holes and hex digits in the
 * pointer's, has the same tokens, event, task, fields and strings: every
 * rule of the careful parser and of the path below reads it as it read the
 * memo's line, but for the timestamp's and the pointer's values, which are
 * read from the holes (with the same value readers).  So a hit is the
 * event of the memo with those two values (95 % of the bundled trace's
 * lines: the rest of this file's work, ~500 instructions a line, then is
 * not done). */
#define LMEMO_MIN   72
#define LMEMO_MAX   256
#define LMEMO_SLOTS 256
typedef struct {
  char          bytes[LMEMO_MAX];
  guint8        holes[LMEMO_MAX];  /* 0xff where a byte may differ */
  guint16       len;             /* 0: empty */
  guint8        sec_off, sec_n;  /* the timestamp's seconds: 1 to 8 digits */
  guint8        frac_off, frac_n;  /* its fraction: 1 to 9 digits */
  guint8        ptr_off;         /* the pointer's 16 hex digits */
  guint8        ptr_digits;      /* as the path below sets it (16, or 0 after "0x") */
  SimTraceEvent ev;
} LineMemo;

struct _SimTraceFast {
  guint64    accepted;           /* lines read here (tests) */
  guint64    line_hits;          /* of them through the line memo (tests) */
  StrMemo    str[4][256];
  PrefixMemo prefix[PREFIX_SLOTS];
  HeadMemo   head[HEAD_SLOTS];
  TailMemo   tail[TAIL_SLOTS];
  /* the line memo's slot is keyed by the length and five words: three
   * before and two after the column where the first memo line's timestamp
   * began and ended (ts_col, name_col: fixed for the trace once set, 0 for
   * none yet), which in the tools' layouts hold the task, the CPU, the
   * event's name and the start of its call site, and no hole */
  guint      ts_col, name_col;
  LineMemo   line[LMEMO_SLOTS];
};

void
sim_trace_fast_free (SimTraceFast *f)
{
  g_free (f);
}

guint64
sim_trace_fast_accepted (SimTraceReader *r)
{
  return r->fast ? r->fast->accepted : 0;
}

guint64
sim_trace_fast_line_hits (SimTraceReader *r)
{
  return r->fast ? r->fast->line_hits : 0;
}

/* [a, a + n) == [b, b + n), both readable up to n rounded up to 16. */
static inline gboolean
same_fwd (const char *a, const char *b, gsize n)
{
  for (gsize i = 0; i < n; i += 16)
    {
      guint m = (guint) _mm_movemask_epi8 (_mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) (a + i)),
                                                          _mm_loadu_si128 ((const __m128i *) (b + i))));
      if (n - i < 16)
        {
          guint want = (1u << (n - i)) - 1;
          return (m & want) == want;
        }
      if (m != 0xffff)
        return FALSE;
    }
  return TRUE;
}

/* [q, e) == [b, b + (e - q)): whole blocks from q, the rest as the last 16
 * bytes before e (readable: the line is longer) against the 16 before
 * b + (e - q) (readable: TailMemo's pad). */
static inline gboolean
same_tail (const char *q, const char *e, const char *b)
{
  gsize n = e - q, i = 0;
  for (; n - i >= 16; i += 16)
    if (_mm_movemask_epi8 (_mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) (q + i)),
                                           _mm_loadu_si128 ((const __m128i *) (b + i)))) != 0xffff)
      return FALSE;
  if (i == n)
    return TRUE;
  guint m = (guint) _mm_movemask_epi8 (_mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) (e - 16)),
                                                      _mm_loadu_si128 ((const __m128i *) (b + n - 16))));
  guint want = (0xffffu << (16 - (n - i))) & 0xffff;
  return (m & want) == want;
}

/* sim_strtab_intern through the string memo: a string of at most 16 bytes
 * is told exactly by its length and its first and last eight bytes
 * (zero-padded below eight), so a hit compares two words; a longer one
 * also compares its middle with the interned copy.  @s lies in a line
 * ending at @e of at least FAST_MIN_LINE bytes. */
static inline guint32
fast_intern (SimTraceReader *r, const Pending *x, const char *e, guint64 *value)
{
  const char *s = x->s;
  guint32 len = x->len;
  guint64 head, tail = 0;
  if (len >= 8)
    {
      head = load8 (s);
      tail = load8 (s + len - 8);
    }
  else if (e - s >= 8)
    head = load8 (s) & ((G_GUINT64_CONSTANT (1) << (8 * len)) - 1);
  else
    head = (load8 (e - 8) >> (8 * (s - (e - 8)))) & ((G_GUINT64_CONSTANT (1) << (8 * len)) - 1);
  guint64 key = ((head ^ len) * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d)) ^ tail;
  guint slot = (guint) ((key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 56);
  StrMemo *m = &r->fast->str[x->field][slot];
  if (m->id != 0 && m->len == len && m->head == head && m->tail == tail)
    {
      if (len <= 16)
        goto hit;
      const char *t = g_ptr_array_index (r->strs.strs, m->id - 1);
      guint32 i = 8;
      while (i + 8 < len && load8 (s + i) == load8 (t + i))
        i += 8;
      if (i + 8 >= len)
        goto hit;
    }
  *m = (StrMemo) { .head = head, .tail = tail, .len = len,
                   .id = sim_strtab_intern (&r->strs, s, len),
                   .value = x->field == MEMO_CALL_SITE ? call_site_value (s, len) : 0 };
hit:
  if (x->field == MEMO_CALL_SITE)
    *value = m->value;
  return m->id;
}

/* The slot of the tail [q, e) of an event of @kind, from its length and
 * up to four of its words. */
static inline TailMemo *
tail_slot (SimTraceFast *f, const char *q, const char *e, guint kind)
{
  gsize n = e - q;
  guint64 h = n ^ ((guint64) kind << 32);
  if (n >= 8)
    {
      h ^= load8 (e - 8) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
      h ^= load8 (q) * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d);
      if (n >= 16)
        {
          h ^= load8 (q + 8) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
          h ^= load8 (e - 16) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
        }
    }
  else
    h ^= (load8 (e - 8) >> (8 * (8 - n))) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  h ^= h >> 31;
  return &f->tail[(h * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 56];
}

/* The slot of the head starting at @q (at least 48 bytes before e). */
static inline HeadMemo *
head_slot (SimTraceFast *f, const char *q)
{
  guint64 h = (load8 (q + 8) * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d)) ^ load8 (q + 24) ^
              (load8 (q + 40) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9));
  h ^= h >> 29;
  return &f->head[(h * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 56];
}

static inline LineMemo *
line_slot (SimTraceFast *f, const char *ls, gsize n)
{
  guint64 h = ((load8 (ls + f->ts_col - 24) * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d)) ^
               load8 (ls + f->ts_col - 16) ^
               (load8 (ls + f->ts_col - 8) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9)) ^
               (load8 (ls + f->name_col) * G_GUINT64_CONSTANT (0x94d049bb133111eb)) ^
               load8 (ls + f->name_col + 8)) + n;
  h ^= h >> 29;
  return &f->line[(h * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 56];
}

/* The line memo's reading of [ls, e) (@n bytes, LMEMO_MIN to LMEMO_MAX, and
 * f->name_col + 16 at most); FALSE (nothing changed) unless it is a hit. */
static inline gboolean
line_hit (SimTraceReader *r, SimTraceFast *f, const char *ls, const char *e, gsize n,
          SimTraceEvent *ev)
{
  LineMemo *lm = line_slot (f, ls, n);
  if (lm->len != n)
    return FALSE;
  /* every byte equal or a hole: 32 bytes a step, then what is left as the
   * 16 bytes that end the line (against the memo's 16 that end its) */
#define SAME_OR_HOLE(at, mat)                                                                \
  _mm_or_si128 (_mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) (gconstpointer) (at)),      \
                                _mm_loadu_si128 ((const __m128i *) (gconstpointer) (lm->bytes + (mat)))), \
                _mm_loadu_si128 ((const __m128i *) (gconstpointer) (lm->holes + (mat))))
  __m128i acc = _mm_set1_epi8 (-1);
  gsize i = 0;
  for (; i + 32 <= n; i += 32)
    acc = _mm_and_si128 (acc, _mm_and_si128 (SAME_OR_HOLE (ls + i, i), SAME_OR_HOLE (ls + i + 16, i + 16)));
  if (i + 16 <= n)
    acc = _mm_and_si128 (acc, SAME_OR_HOLE (ls + i, i));
  acc = _mm_and_si128 (acc, SAME_OR_HOLE (e - 16, n - 16));
#undef SAME_OR_HOLE
  if (_mm_movemask_epi8 (acc) != 0xffff)
    return FALSE;
  /* the holes: the values the path below would read there */
  guint64 w = load8 (ls + lm->sec_off);
  guint64 want = SWAR_HIGHS >> (8 * (8 - lm->sec_n));
  if ((digit_bits (w) & want) != want)
    return FALSE;
  guint64 sec = dec_word (w, lm->sec_n), ns, ptr;
  const char *d = ls + lm->frac_off;
  if (lm->frac_n <= 8)
    {
      if (!dec8 (d, lm->frac_n, &ns))
        return FALSE;
    }
  else
    {
      if (!dec8 (d, 8, &ns) || (guint) (d[8] - '0') >= 10)
        return FALSE;
      ns = ns * 10 + (guint) (d[8] - '0');
    }
  static const guint32 scale[10] = {
    1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1,
  };
  if (!hex16 (ls + lm->ptr_off, &ptr))
    return FALSE;
  *ev = lm->ev;
  ev->ts_ns = sec * 1000000000ull + ns * scale[lm->frac_n];
  ev->ptr = ptr;
  if (ptr != 0)
    {
      if (lm->ptr_digits == 16 && (ptr >> 32) == 0)
        r->stats.hashed_ptrs++;
      else if ((ptr >> 32) != 0)
        r->stats.raw_ptrs++;
    }
  f->accepted++;
  f->line_hits++;
  return TRUE;
}

/* Remember the line [ls, e) that the path below read as @ev (a slab
 * event), its timestamp's seconds at @sec (up to the '.' before @frac),
 * its fraction at @frac (up to @ts_end, the ':'), its pointer's 16 hex
 * digits at @ptr. */
static void
line_remember (SimTraceFast *f, const char *ls, const char *e, const SimTraceEvent *ev,
               const char *sec, const char *frac, const char *ts_end, const char *ptr,
               int ptr_digits)
{
  gsize n = e - ls;
  gsize sec_n = (frac - 1) - sec, frac_n = ts_end - frac;
  if (n < LMEMO_MIN || n > LMEMO_MAX || sec_n < 1 || sec_n > 8 || frac_n < 1 || frac_n > 9
      || sec - ls < 24 || (gsize) (frac - ls) + 8 > n || (gsize) (ptr - ls) + 16 > n)
    return;
  if (f->ts_col == 0)
    {
      if ((gsize) (ts_end - ls) + 2 + 16 > LMEMO_MIN)
        return;
      f->ts_col = (guint) (sec - ls);
      f->name_col = (guint) (ts_end - ls) + 2;
    }
  LineMemo *lm = line_slot (f, ls, n);
  memset (lm->holes, 0, n);
  memset (lm->holes + (sec - ls), 0xff, sec_n);
  memset (lm->holes + (frac - ls), 0xff, frac_n);
  memset (lm->holes + (ptr - ls), 0xff, 16);
  memcpy (lm->bytes, ls, n);
  lm->len = (guint16) n;
  lm->sec_off = (guint8) (sec - ls);
  lm->sec_n = (guint8) sec_n;
  lm->frac_off = (guint8) (frac - ls);
  lm->frac_n = (guint8) frac_n;
  lm->ptr_off = (guint8) (ptr - ls);
  lm->ptr_digits = (guint8) ptr_digits;
  lm->ev = *ev;
}

static gboolean fast_line (SimTraceReader *r, SimTraceFast *f, const char *ls, const char *e,
                           SimTraceEvent *ev);

gboolean
sim_trace_fast_line (SimTraceReader *r, const char *ls, const char *e, SimTraceEvent *ev)
{
  if (G_UNLIKELY (e - ls < FAST_MIN_LINE))
    return FALSE;
  SimTraceFast *f = r->fast;
  if (G_UNLIKELY (f == NULL))
    f = r->fast = g_new0 (SimTraceFast, 1);
  gsize n = e - ls;
  if (f->ts_col != 0 && n >= LMEMO_MIN && n <= LMEMO_MAX && line_hit (r, f, ls, e, n, ev))
    return TRUE;
  return fast_line (r, f, ls, e, ev);
}

/* The line memo missed: the line read by its parts (and memos of them). */
static G_GNUC_NO_INLINE gboolean
fast_line (SimTraceReader *r, SimTraceFast *f, const char *ls, const char *e, SimTraceEvent *ev)
{

  /* The prefix memo: when the line starts with the bytes of a prefix read
   * before, up to where its timestamp began, everything the careful
   * parser finds there -- the first '[' and its CPU, the tokens before the
   * timestamp, the task -- is what it found then, and the timestamp token
   * starts at the same column. */
  guint pslot = (guint) (((load8 (ls + 8) * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d)) ^ load8 (ls + 16) ^
                          (load8 (ls + 24) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15))) *
                         G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9) >> 57);
  PrefixMemo *pm = &f->prefix[pslot];
  const char *ts, *q, *lb = NULL, *p = NULL;
  gint32 cpu, pid = -1;
  guint32 comm_id = 0;
  Pending str[4];
  guint n_str = 0;
  if (pm->len != 0 && (gsize) (e - ls) >= pm->len + 24 && same_fwd (ls, pm->bytes, pm->len))
    {
      ts = ls + pm->len;
      q = find1 (ts, e, ' ');
      if (!(q - ts >= 2 && q[-1] == ':' && (guint) (*ts - '0') < 10))
        return FALSE;
      cpu = pm->cpu;
      pid = pm->pid;
      comm_id = pm->comm_id;
    }
  else
    {
      pm = NULL;
      p = skip_spaces (ls, e);
      if (G_UNLIKELY (p == e || *p == '\t' || *p == '#'))
        return FALSE;

      /* [cpu]: the first '[', one to seven digits and ']' */
      lb = find1 (p, e, '[');
      if (G_UNLIKELY (e - lb < 9))
        return FALSE;
      guint64 cw = load8 (lb + 1);
      guint64 cnd = digit_bits (cw) ^ SWAR_HIGHS;
      guint nc = (guint) __builtin_ctzll (cnd | (G_GUINT64_CONSTANT (1) << 63)) >> 3;
      if (G_UNLIKELY (nc == 0 || nc == 8 || lb[1 + nc] != ']'))
        return FALSE;
      cpu = (gint32) dec_word (cw, nc);
      const char *rb = lb + 1 + nc;

      /* the timestamp: "digits...:" among the next three tokens */
      q = rb + 1;
      ts = NULL;
      for (int tok = 0; tok < 3; tok++)
        {
          q = skip_spaces (q, e);
          const char *t = q;
          q = find1 (q, e, ' ');
          if (q - t >= 2 && q[-1] == ':' && (guint) (*t - '0') < 10)
            {
              ts = t;
              break;
            }
          if (q >= e)
            return FALSE;
        }
      if (G_UNLIKELY (ts == NULL))
        return FALSE;

      /* the task, as the careful parser reads it: "comm-pid", "comm tid",
       * "comm pid/tid" */
      const char *te = lb;
      if (lb - ls >= 16)
        {
          /* the last byte before the '[' that is no space; [ls, p) are
           * spaces, so it is at p or after, or there is none */
          guint m = cmp16 (lb - 16, _mm_set1_epi8 (' ')) ^ 0xffff;
          if (m)
            te = lb - 16 + (32 - __builtin_clz (m));
          else
            te = lb - 16 > p ? lb - 16 : p;
        }
      while (te > p && te[-1] == ' ')
        te--;
      const char *d = te;
      if (te - ls >= 8)
        {
          /* the digits before te, as many as are in its eight bytes */
          guint64 nd = digit_bits (load8 (te - 8)) ^ SWAR_HIGHS;
          guint n = nd ? (guint) __builtin_clzll (nd) >> 3 : 8;
          d = te - n;
          if (d < p)
            d = p;
        }
      while (d > p && (guint) (d[-1] - '0') < 10)
        d--;
      if (d < te && d > p && d[-1] == '/')
        {
          const char *s = d - 1;
          while (s > p && (guint) (s[-1] - '0') < 10)
            s--;
          guint64 x;
          if (parse_dec (d, te - d, &x))
            pid = (gint32) x;
          te = s;
        }
      else if (d < te)
        {
          guint64 x;
          if (te - d <= 8 && te - ls >= 8)
            pid = (gint32) dec_word (load8 (te - 8) >> (8 * (8 - (te - d))), (guint) (te - d));
          else if (parse_dec (d, te - d, &x) && x <= G_MAXINT32)
            pid = (gint32) x;
          te = d;
        }
      if (te > p && (te[-1] == '-' || te[-1] == ' '))
        te--;
      while (te > p && te[-1] == ' ')
        te--;
      if (te > p)
        str[n_str++] = (Pending) { p, (guint32) (te - p), MEMO_COMM, &ev->comm_id };
    }
  const char *ts_end = q - 1;

  /* ten second digits at most (sec * 10^9 + ns then fits 64 bits), a '.',
   * one to nine digits of fraction */
  if (G_UNLIKELY (e - ts < 24))
    return FALSE;
  guint64 sec;
  const char *d;
  {
    guint64 w = load8 (ts);
    guint64 nd = digit_bits (w) ^ SWAR_HIGHS;
    if (G_LIKELY (nd != 0))
      {
        guint n = (guint) __builtin_ctzll (nd) >> 3;
        sec = dec_word (w, n);
        d = ts + n;
      }
    else
      {
        sec = dec_word (w, 8);
        d = ts + 8;
        while ((guint) (*d - '0') < 10 && d - ts < 11)
          sec = sec * 10 + (guint) (*d++ - '0');
        if (d - ts > 10)
          return FALSE;
      }
  }
  if (G_UNLIKELY (*d != '.'))
    return FALSE;
  d++;
  const char *frac = d;
  gsize fl = ts_end - d;
  guint64 ns;
  if (fl >= 1 && fl <= 8)
    {
      if (!dec8 (d, (guint) fl, &ns))
        return FALSE;
    }
  else if (fl == 9)
    {
      if (!dec8 (d, 8, &ns) || (guint) (d[8] - '0') >= 10)
        return FALSE;
      ns = ns * 10 + (guint) (d[8] - '0');
    }
  else
    return FALSE;
  static const guint32 scale[10] = {
    1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1,
  };
  ns *= scale[fl];

  /* The head memo: when the text from here through the first pointer's
   * key is the bytes of a head read before, the event and the fields
   * before the pointer are what they were. */
  const char *h0 = q;
  HeadMemo *hm = NULL;
  int kind = -1;
  guint id = KEY_NONE, prev = KEY_NONE;
  const char *v = NULL;
  gboolean head_hit = FALSE;
  if (e - h0 >= 48)
    {
      hm = head_slot (f, h0);
      if (hm->len != 0 && (gsize) (e - h0) >= hm->len + 16 && same_fwd (h0, hm->bytes, hm->len))
        {
          head_hit = TRUE;
          kind = (int) hm->kind;
          v = h0 + hm->len;
          id = prev = hm->key;
        }
    }
  if (!head_hit)
    {
      /* the event name: up to the first ':' before a space or the end */
      q = skip_spaces (q, e);
      const char *name = q, *base = q;
      for (;;)
        {
          q = find1 (q, e, ':');
          if (G_UNLIKELY (q >= e))
            return FALSE;
          if (q + 1 == e || q[1] == ' ')
            break;
          base = ++q;
        }
      if (base == name)
        kind = fast_kind (name, q - name);
      else if (base - name == 5 && memcmp (name, "kmem:", 5) == 0)
        kind = fast_kind (base, q - base);
      else
        return FALSE;
      if (G_UNLIKELY (kind < 0))
        return FALSE;
      q++;
    }

  memset (ev, 0, sizeof *ev);
  ev->kind = (SimTraceKind) kind;
  ev->cpu = cpu;
  ev->ts_ns = sec * 1000000000ull + ns;
  ev->node = ev->order = ev->migratetype = ev->accounted = -1;
  ev->pid = pid;
  ev->comm_id = comm_id;

  /* the fields */
  guint have = 0, seen = 0;
  int ptr_digits = 0;
  const char *ptr_hex = NULL;       /* the pointer's 16 hex digits */
  guint8 *next_key = r->next_key[kind];
  const char *tail = NULL;          /* after the last pointer or frame */
  guint tail_seen = 0, tail_have = 0;
  TailMemo *tm = NULL;
  const char *head_end = NULL;      /* the first pointer's value */
  guint head_seen = 0, head_have = 0;
  gboolean gfp_read = FALSE;
  if (head_hit)
    {
      vals_apply (ev, &hm->vals);
      seen = hm->vals.seen;
      have = hm->vals.have;
      hm = NULL;
      goto value;
    }
  prev = KEY_NONE;
  for (;;)
    {
      if (q >= e)
        break;
      if (*q == ' ')
        {
          q = skip_spaces (q, e);
          if (q >= e)
            break;
        }
      const char *k = q;
      gsize klen;
      id = next_key[prev];
      if (G_LIKELY (key_guess (q, e, id, &klen)))
        q += klen;
      else
        {
          q = find2 (q, e, '=', ' ');
          if (q >= e || *q == ' ')
            continue;                 /* a stray word: ignore */
          klen = q - k;
          id = key_id (k, klen);
          next_key[prev] = (guint8) (id == KEY_OTHER ? KEY_NONE : id);
        }
      prev = id;
      v = q + 1;
      if (head_end == NULL && (id == KEY_PTR || id == KEY_PAGE))
        {
          head_end = v;
          head_seen = seen;
          head_have = have;
        }
    value:;
      const char *ve;
      if (id != KEY_OTHER)
        {
          if (G_UNLIKELY (seen & (1u << id)))
            return FALSE;
          seen |= 1u << id;
        }
      int dg;
      guint64 x;
      gboolean frame = FALSE;
      switch (id)
        {
        case KEY_PTR:
          {
            if ((e - v == 16 || (e - v >= 17 && v[16] == ' ')) && hex16 (v, &ev->ptr))
              {
                ptr_digits = 16;
                ptr_hex = v;
                ve = v + 16;
              }
            else if ((e - v == 18 || (e - v >= 19 && v[18] == ' ')) && v[0] == '0' &&
                     v[1] == 'x' && hex16 (v + 2, &ev->ptr))
              {
                ptr_digits = 0;
                ptr_hex = v + 2;
                ve = v + 18;
              }
            else
              {
                ve = find1 (v, e, ' ');
                if (!parse_ptr (v, ve - v, &ev->ptr, &ptr_digits))
                  return FALSE;
              }
            have |= F_PTR;
            frame = TRUE;
          }
          break;
        case KEY_PFN:
          {
            ve = find1 (v, e, ' ');
            gsize vlen = ve - v;
            gboolean hex = vlen > 2 && v[0] == '0' && v[1] == 'x';
            if (hex ? !parse_ptr (v, vlen, &ev->pfn, &dg) : !parse_dec (v, vlen, &ev->pfn))
              return FALSE;
            have |= F_PFN;
            frame = TRUE;
          }
          break;
        case KEY_NAME:
          ve = find1 (v, e, ' ');
          str[n_str++] = (Pending) { v, (guint32) (ve - v), MEMO_NAME, &ev->cache_id };
          break;
        case KEY_NODE:
          if (e - v >= 3 && v[0] == '-' && v[1] == '1' && v[2] == ' ')
            {
              ev->node = -1;
              ve = v + 2;
            }
          else
            {
              ve = find1 (v, e, ' ');
              if (!parse_int (v, ve - v, &ev->node))
                return FALSE;
            }
          break;
        case KEY_PAGE:
          {
            if ((e - v == 16 || (e - v >= 17 && v[16] == ' ')) && hex16 (v, &ev->ptr))
              {
                ve = v + 16;
              }
            else
              {
                ve = find1 (v, e, ' ');
                if (!parse_ptr (v, ve - v, &ev->ptr, &dg))
                  return FALSE;
              }
            have |= F_PAGE;
            frame = TRUE;
          }
          break;
        case KEY_ORDER:
          if (dec_space (v, e, &x, &ve))
            ev->order = (gint32) x;
          else
            {
              ve = find1 (v, e, ' ');
              if (!parse_int (v, ve - v, &ev->order) || ev->order < 0)
                return FALSE;
            }
          have |= F_ORDER;
          break;
        case KEY_CALL_SITE:
          ve = find1 (v, e, ' ');
          /* its value (0: symbolic, sym+0xoff/0xlen) comes with its id */
          str[n_str++] = (Pending) { v, (guint32) (ve - v), MEMO_CALL_SITE, &ev->call_site_id };
          have |= F_CALL_SITE;
          break;
        case KEY_BYTES_REQ:
          if (!dec_space (v, e, &ev->bytes_req, &ve))
            {
              ve = find1 (v, e, ' ');
              if (!parse_dec_in (v, ve - v, e, &ev->bytes_req) || ev->bytes_req > G_MAXINT64)
                return FALSE;
            }
          have |= F_BYTES_REQ;
          break;
        case KEY_GFP_FLAGS:
          ve = find1 (v, e, ' ');
          str[n_str++] = (Pending) { v, (guint32) (ve - v), MEMO_GFP, &ev->gfp_id };
          have |= F_GFP;
          gfp_read = TRUE;
          break;
        case KEY_ACCOUNTED:
          ve = find1 (v, e, ' ');
          if ((ve - v == 5 && memcmp (v, "false", 5) == 0) || (ve - v == 1 && *v == '0'))
            ev->accounted = 0;
          else if ((ve - v == 4 && memcmp (v, "true", 4) == 0) || (ve - v == 1 && *v == '1'))
            ev->accounted = 1;
          else
            return FALSE;
          break;
        case KEY_BYTES_ALLOC:
          if (!dec_space (v, e, &ev->bytes_alloc, &ve))
            {
              ve = find1 (v, e, ' ');
              if (!parse_dec_in (v, ve - v, e, &ev->bytes_alloc) || ev->bytes_alloc > G_MAXINT64)
                return FALSE;
            }
          have |= F_BYTES_ALLOC;
          break;
        case KEY_MIGRATETYPE:
          if (dec_space (v, e, &x, &ve))
            ev->migratetype = (gint32) x;
          else
            {
              ve = find1 (v, e, ' ');
              if (!parse_int (v, ve - v, &ev->migratetype))
                return FALSE;
            }
          break;
        default:
          ve = find1 (v, e, ' ');
          break;
        }
      /* where the careful parser goes on: an empty value or a "[module]"
       * word after it are its to read */
      if (G_UNLIKELY (ve == v))
        return FALSE;
      q = ve;
      if (q < e)
        {
          if (G_LIKELY (e - q >= 2 && q[1] != ' ' && q[1] != '['))
            q++;
          else
            {
              q = skip_spaces (q, e);
              if (q < e && *q == '[')
                return FALSE;
            }
        }
      if (frame && q < e && e - q <= TAIL_MAX)
        {
          /* The tail memo: the fields from here to the end read as they
           * did on a line before, which is known to have read well: what
           * they set is taken from there (their strings are interned). */
          tail = q;
          tail_seen = seen;
          tail_have = have;
          tm = tail_slot (f, q, e, kind);
          if (tm->len == e - q && tm->kind == (guint) kind && same_tail (q, e, tm->bytes))
            {
              if (G_UNLIKELY (seen & tm->vals.seen))
                return FALSE;
              vals_apply (ev, &tm->vals);
              seen |= tm->vals.seen;
              have |= tm->vals.have;
              tm = NULL;
              tail = NULL;
              break;
            }
        }
      else if (frame)
        tail = NULL;
    }

  guint need;
  if (sim_trace_kind_is_slab_alloc (kind))
    need = F_CALL_SITE | F_PTR | F_BYTES_REQ | F_BYTES_ALLOC | F_GFP;
  else if (sim_trace_kind_is_slab_free (kind))
    need = F_CALL_SITE | F_PTR;
  else
    {
      need = F_ORDER;
      if (!(have & (F_PAGE | F_PFN)))
        need |= F_PFN;
      if (kind == SIM_TRACE_PAGE_ALLOC)
        need |= F_GFP;
    }
  if (G_UNLIKELY ((need & have) != need))
    return FALSE;

  /* accepted: intern in the careful parser's order */
  for (guint i = 0; i < n_str; i++)
    *str[i].id = fast_intern (r, &str[i], e, &ev->call_site);
  if (gfp_read)
    ev->gfp = sim_strtab_gfp (&r->strs, ev->gfp_id);

  if (ev->ptr != 0 && (sim_trace_kind_is_slab_alloc (kind) || sim_trace_kind_is_slab_free (kind)))
    {
      if (ptr_digits == 16 && (ev->ptr >> 32) == 0)
        r->stats.hashed_ptrs++;
      else if ((ev->ptr >> 32) != 0)
        r->stats.raw_ptrs++;
    }

  /* remember the prefix and the tail for the lines to come */
  if (pm == NULL && ts - ls <= PREFIX_MAX)
    {
      pm = &f->prefix[pslot];
      memcpy (pm->bytes, ls, ts - ls);
      pm->len = (guint32) (ts - ls);
      pm->cpu = cpu;
      pm->pid = pid;
      pm->comm_id = ev->comm_id;
    }
  if (tm != NULL && tail != NULL && ((seen & ~tail_seen) & ~MEMO_KEYS) == 0)
    {
      memcpy (tm->bytes, tail, e - tail);
      tm->len = (guint32) (e - tail);
      tm->kind = (guint32) kind;
      vals_take (&tm->vals, ev, seen & ~tail_seen, have & ~tail_have);
    }
  if (hm != NULL && head_end != NULL && head_end - h0 <= HEAD_MAX && (head_seen & ~MEMO_KEYS) == 0)
    {
      memcpy (hm->bytes, h0, head_end - h0);
      hm->len = (guint32) (head_end - h0);
      hm->kind = (guint32) kind;
      hm->key = head_end[-2] == 'r' ? KEY_PTR : KEY_PAGE;
      vals_take (&hm->vals, ev, head_seen, head_have);
    }
  if (ptr_hex != NULL && (sim_trace_kind_is_slab_alloc (kind) || sim_trace_kind_is_slab_free (kind)))
    line_remember (f, ls, e, ev, ts, frac, ts_end, ptr_hex, ptr_digits);
  f->accepted++;
  return TRUE;
}

#else

gboolean
sim_trace_fast_line (SimTraceReader *r, const char *ls, const char *e, SimTraceEvent *ev)
{
  (void) r, (void) ls, (void) e, (void) ev;
  return FALSE;
}

void
sim_trace_fast_free (SimTraceFast *f)
{
  g_assert (f == NULL);
}

guint64
sim_trace_fast_accepted (SimTraceReader *r)
{
  (void) r;
  return 0;
}

guint64
sim_trace_fast_line_hits (SimTraceReader *r)
{
  (void) r;
  return 0;
}

#endif
