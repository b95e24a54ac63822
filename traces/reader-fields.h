/* reader-fields.h - the text parser's scanners and field readers, shared by
 * the careful line parser (traces/reader.c) and its fast path
 * (traces/reader-fast.c).  Not an API: only those two files include it. */
#pragma once

#include "traces/reader-private.h"

#include <string.h>

/* Field scans a word at a time: eight bytes are loaded and tested for the
 * wanted bytes at once (the "has a zero byte" trick on the word xor the
 * byte: the lowest flagged byte is always a true match, a borrow can only
 * flag bytes above it), the tail byte by byte.  Never reads outside
 * [p, e).  A trace line is a dozen short tokens, so this is most of the
 * parser's loop work. */
#define SWAR_ONES  G_GUINT64_CONSTANT (0x0101010101010101)
#define SWAR_HIGHS G_GUINT64_CONSTANT (0x8080808080808080)

static inline guint64
swar_eq (guint64 w, guchar c)
{
  guint64 v = w ^ (SWAR_ONES * c);
  return (v - SWAR_ONES) & ~v & SWAR_HIGHS;
}

/* The first byte of [p, e) that is @c1 or @c2, or e. */
static inline const char *
scan2 (const char *p, const char *e, char c1, char c2)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  while (e - p >= 8)
    {
      guint64 w;
      memcpy (&w, p, 8);
      guint64 m = swar_eq (w, (guchar) c1) | swar_eq (w, (guchar) c2);
      if (m)
        return p + (__builtin_ctzll (m) >> 3);
      p += 8;
    }
#endif
  while (p < e && *p != c1 && *p != c2)
    p++;
  return p;
}

static inline const char *
scan1 (const char *p, const char *e, char c)
{
  return scan2 (p, e, c, c);
}

/* Hex digit values plus one (0: not a hex digit), so a pointer is one
 * table load a digit with no branch until the end. */
#define HX(c, v) [c] = (v) + 1
static const guint8 hex_plus1[256] = {
  HX ('0', 0), HX ('1', 1), HX ('2', 2), HX ('3', 3), HX ('4', 4), HX ('5', 5), HX ('6', 6),
  HX ('7', 7), HX ('8', 8), HX ('9', 9), HX ('a', 10), HX ('b', 11), HX ('c', 12),
  HX ('d', 13), HX ('e', 14), HX ('f', 15), HX ('A', 10), HX ('B', 11), HX ('C', 12),
  HX ('D', 13), HX ('E', 14), HX ('F', 15),
};
#undef HX

static inline int
hexval (guchar c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
/* Eight hex digits (either case) at @v as a 32-bit value, a word at a
 * time: each byte is checked to be 0-9, A-F or a-f with carry-free
 * range tests (every byte is below 0x80 first, so adding up to 0x5f
 * never carries into the next byte), then its nibble is taken and the
 * nibbles are packed pairwise.  FALSE when any byte is no hex digit. */
static inline __attribute__ ((always_inline)) gboolean
hex8 (const char *v, guint64 *out)
{
  guint64 w;
  memcpy (&w, v, 8);
  if (w & SWAR_HIGHS)
    return FALSE;
  guint64 digit = (w + SWAR_ONES * (0x80 - '0')) & ~(w + SWAR_ONES * (0x80 - '9' - 1));
  guint64 y = w | SWAR_ONES * 0x20;
  guint64 letter = (y + SWAR_ONES * (0x80 - 'a')) & ~(y + SWAR_ONES * (0x80 - 'f' - 1));
  digit &= SWAR_HIGHS;
  letter &= SWAR_HIGHS;
  if ((digit | letter) != SWAR_HIGHS)
    return FALSE;
  /* the first digit is the lowest byte and the most significant nibble */
  guint64 n = (w & SWAR_ONES * 0x0f) + (letter >> 7) * 9;
  n = ((n & G_GUINT64_CONSTANT (0x000f000f000f000f)) << 4) | ((n >> 8) & G_GUINT64_CONSTANT (0x000f000f000f000f));
  n = ((n & G_GUINT64_CONSTANT (0x000000ff000000ff)) << 8) | ((n >> 16) & G_GUINT64_CONSTANT (0x000000ff000000ff));
  n = ((n & G_GUINT64_CONSTANT (0x000000000000ffff)) << 16) | ((n >> 32) & G_GUINT64_CONSTANT (0x000000000000ffff));
  *out = n;
  return TRUE;
}
#endif

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
/* The value of the @n (1 to 8) decimal digits at @p, eight bytes of which
 * are readable; FALSE when one is no digit.  Leading '0's stand in for the
 * bytes after them (a left shift: the first digit is the lowest byte), the
 * digits are checked as hex8 checks, and combined pairwise in three
 * multiplications (Lemire's parse_eight_digits_unrolled). */
static inline gboolean
dec8 (const char *p, guint n, guint64 *out)
{
  guint64 w;
  memcpy (&w, p, 8);
  guint sh = 8 * (8 - n);
  if (sh)
    w = (w << sh) | ((SWAR_ONES * '0') & ((G_GUINT64_CONSTANT (1) << sh) - 1));
  if (w & SWAR_HIGHS)
    return FALSE;
  guint64 digit = (w + SWAR_ONES * (0x80 - '0')) & ~(w + SWAR_ONES * (0x80 - '9' - 1));
  if ((digit & SWAR_HIGHS) != SWAR_HIGHS)
    return FALSE;
  w -= SWAR_ONES * '0';
  w = w * 10 + (w >> 8);
  w = (((w & G_GUINT64_CONSTANT (0x000000ff000000ff)) *
        (100 + (G_GUINT64_CONSTANT (1000000) << 32))) +
       (((w >> 16) & G_GUINT64_CONSTANT (0x000000ff000000ff)) *
        (1 + (G_GUINT64_CONSTANT (10000) << 32)))) >> 32;
  *out = w;
  return TRUE;
}
#endif

/* A pointer: hex with or without 0x, or a NULL spelling.  *digits is the
 * printed width (for the hashed-pointer vote; 0 with a 0x prefix). */
static inline gboolean
parse_ptr (const char *v, gsize len, guint64 *out, int *digits)
{
  *digits = 0;
  if (G_UNLIKELY (len > 0 && v[0] == '('))
    {
      if ((len == 6 && memcmp (v, "(null)", 6) == 0) || (len == 5 && memcmp (v, "(nil)", 5) == 0))
        {
          *out = 0;
          return TRUE;
        }
      return FALSE;
    }
  gboolean prefixed = len > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  if (prefixed)
    v += 2, len -= 2;
  if (len == 0 || len > 16)
    return FALSE;
  guint64 x = 0;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  if (len == 16)
    {
      /* the common %p: sixteen digits, eight at a time */
      guint64 hi, lo;
      if (!hex8 (v, &hi) || !hex8 (v + 8, &lo))
        return FALSE;
      x = hi << 32 | lo;
    }
  else
#endif
    {
      guint bad = 0;
      for (gsize i = 0; i < len; i++)
        {
          guint t = hex_plus1[(guchar) v[i]];
          bad |= t == 0;
          x = (x << 4) | ((t - 1) & 15);
        }
      if (bad)
        return FALSE;
    }
  *out = x;
  *digits = prefixed ? 0 : (int) len;
  return TRUE;
}

static inline gboolean
parse_dec (const char *v, gsize len, guint64 *out)
{
  if (len == 0 || len > 19)
    return FALSE;
  guint64 x = 0;
  for (gsize i = 0; i < len; i++)
    {
      if (v[i] < '0' || v[i] > '9')
        return FALSE;
      x = x * 10 + (guint) (v[i] - '0');
    }
  *out = x;
  return TRUE;
}

/* parse_dec of a field value that ends before @e: up to eight digits at
 * once when eight bytes from @v are in the line. */
static inline gboolean
parse_dec_in (const char *v, gsize len, const char *e, guint64 *out)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  if (len >= 1 && len <= 8 && e - v >= 8)
    return dec8 (v, (guint) len, out);
#endif
  return parse_dec (v, len, out);
}

static inline gboolean
parse_int (const char *v, gsize len, gint32 *out)
{
  gboolean neg = len > 0 && v[0] == '-';
  guint64 x;
  if (!parse_dec (v + neg, len - neg, &x) || x > G_MAXINT32)
    return FALSE;
  *out = neg ? -(gint32) x : (gint32) x;
  return TRUE;
}

/* Field bits, for "which required field is missing". */
enum {
  F_CALL_SITE = 1 << 0, F_PTR = 1 << 1, F_BYTES_REQ = 1 << 2, F_BYTES_ALLOC = 1 << 3,
  F_GFP = 1 << 4, F_PAGE = 1 << 5, F_PFN = 1 << 6, F_ORDER = 1 << 7,
};

/* Fields whose strings the parser interns, for the memo. */
enum { MEMO_CALL_SITE, MEMO_GFP, MEMO_NAME, MEMO_COMM };

/* sim_strtab_intern through the reader's memo (reader-private.h): the key
 * is the length and the first and last (up to) eight bytes, which tell
 * apart "sym+0xoff/0xlen" call sites and hex addresses alike (the last
 * bytes alone put two hot call sites of the bundled hackbench trace in
 * one slot: 44 % misses in 64 slots; head and tail in 256: 0.1 %); a hit
 * is confirmed by comparing the whole string, so the memo never changes
 * an id. */
static inline guint32
intern_memo (SimTraceReader *r, guint field, const char *s, gsize len)
{
  guint64 head = 0, tail = 0;
  if (len >= 8)
    {
      memcpy (&head, s, 8);
      memcpy (&tail, s + len - 8, 8);
    }
  else
    memcpy (&tail, s, len);
  guint64 key = tail ^ len ^ (head * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d));
  guint slot = (guint) ((key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 56);
  guint32 id = r->memo[field][slot];
  if (id != 0 && g_array_index (r->strs.lens, guint32, id - 1) == len
      && memcmp (g_ptr_array_index (r->strs.strs, id - 1), s, len) == 0)
    return id;
  id = sim_strtab_intern (&r->strs, s, len);
  r->memo[field][slot] = id;
  return id;
}

/* The keys the parser reads, by id (KEY_OTHER: any other key). */
enum {
  KEY_NONE, KEY_PTR, KEY_PFN, KEY_NAME, KEY_NODE, KEY_PAGE, KEY_ORDER, KEY_CALL_SITE,
  KEY_BYTES_REQ, KEY_GFP_FLAGS, KEY_ACCOUNTED, KEY_BYTES_ALLOC, KEY_MIGRATETYPE, KEY_OTHER,
};
G_STATIC_ASSERT (KEY_OTHER < G_N_ELEMENTS (((SimTraceReader *) 0)->next_key[0]));

/* A key's id from its text (what the field loop did by length and name). */
static inline guint
key_id (const char *k, gsize klen)
{
#define KEY(lit) (memcmp (k, lit, sizeof (lit) - 1) == 0)
  switch (klen)
    {
    case 3:
      return KEY ("ptr") ? KEY_PTR : KEY ("pfn") ? KEY_PFN : KEY_OTHER;
    case 4:
      return KEY ("name") ? KEY_NAME : KEY ("node") ? KEY_NODE : KEY ("page") ? KEY_PAGE
                                                                               : KEY_OTHER;
    case 5:
      return KEY ("order") ? KEY_ORDER : KEY_OTHER;
    case 9:
      return KEY ("call_site") ? KEY_CALL_SITE : KEY ("bytes_req") ? KEY_BYTES_REQ
             : KEY ("gfp_flags") ? KEY_GFP_FLAGS : KEY ("accounted") ? KEY_ACCOUNTED
                                                                      : KEY_OTHER;
    case 11:
      return KEY ("bytes_alloc") ? KEY_BYTES_ALLOC : KEY ("migratetype") ? KEY_MIGRATETYPE
                                                                          : KEY_OTHER;
    default:
      return KEY_OTHER;
    }
#undef KEY
}

/* Does "KEY=" of key @id start at @q?  Then the general scan (the first
 * '=' or ' ' after q) would stop at its '=' too, and find the same key.
 * Constant-length compares, which the compiler makes one or two word
 * compares.  Its length without the '=' in *klen. */
static inline gboolean
key_at (const char *q, const char *e, guint id, gsize *klen)
{
#define AT(lit) (*klen = sizeof (lit) - 2, (gsize) (e - q) >= sizeof (lit) - 1 && \
                 memcmp (q, lit, sizeof (lit) - 1) == 0)
  switch (id)
    {
    case KEY_PTR:          return AT ("ptr=");
    case KEY_PFN:          return AT ("pfn=");
    case KEY_NAME:         return AT ("name=");
    case KEY_NODE:         return AT ("node=");
    case KEY_PAGE:         return AT ("page=");
    case KEY_ORDER:        return AT ("order=");
    case KEY_CALL_SITE:    return AT ("call_site=");
    case KEY_BYTES_REQ:    return AT ("bytes_req=");
    case KEY_GFP_FLAGS:    return AT ("gfp_flags=");
    case KEY_ACCOUNTED:    return AT ("accounted=");
    case KEY_BYTES_ALLOC:  return AT ("bytes_alloc=");
    case KEY_MIGRATETYPE:  return AT ("migratetype=");
    default:               return FALSE;
    }
#undef AT
}
