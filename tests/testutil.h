/* testutil.h - helpers shared by the test executables. */
#pragma once

#include <glib.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

/* Paths from the environment meson sets for every test. */
const char *tu_source_root (void);   /* the repository */
const char *tu_shared_dir (void);    /* ../shared, may not exist */
const char *tu_exe (void);           /* the slabsim executable */
/* Absolute path of @rel under the repository; free with g_free. */
char *tu_source_path (const char *rel);

/* Run slabsim with @args (NULL-terminated, without the program name);
 * captures stdout and stderr (free with g_free) and returns the exit
 * status. */
int tu_run (char **out, char **err, const char *const *args);
/* Same with a string fed on standard input. */
int tu_run_stdin (char **out, char **err, const char *input, const char *const *args);

/* Write @contents to a fresh temporary file with @suffix; returns its path.
 * The file is removed when the test program exits. */
char *tu_write_temp (const char *suffix, const char *contents, gssize len);
/* A temporary copy of the bundled sweep file @rel_yaml (from the source
 * root) whose "trace:" line names @trace instead: the same sweep, run on a
 * trace the test just generated. */
char *tu_sweep_on_trace (const char *rel_yaml, const char *trace);

/* The unsigned number of the first "KEY": after @anchor (NULL: the start)
 * in pretty-printed JSON such as "slabsim run --format json" writes;
 * fails the test when either is missing. */
guint64 tu_json_uint (const char *json, const char *anchor, const char *key);

/* @out after its first line (a report's, which names the trace and so
 * differs between runs on copies of one file); fails the test when @out
 * has no newline. */
const char *tu_after_first_line (const char *out);
/* How many times @needle stands in @hay, not overlapping. */
guint tu_count (const char *hay, const char *needle);

/* slabsim trace gen WORKLOAD --kernel KERNEL --seed 1 EXTRA... into a new
 * temporary file (the caller unlinks it and frees the path). */
char *tu_trace_gen (const char *workload, const char *kernel, const char *const *extra);

/* Compare @actual with the golden file @rel (under the repository); on a
 * difference print both and a hint to run scripts/regen-goldens, and
 * return FALSE.  Never writes the golden, whatever the environment holds:
 * regeneration is scripts/regen-goldens only. */
gboolean tu_golden_matches (const char *rel, const char *actual);

/* Fail the test with @error's message (if any) unless @ok. */
void tu_assert_ok (gboolean ok, const GError *error);

/* Assert that @haystack contains @needle, printing both when not. */
#define tu_assert_contains(haystack, needle)                                  \
  do {                                                                        \
    const char *h_ = (haystack), *n_ = (needle);                              \
    if (h_ == NULL || strstr (h_, n_) == NULL)                                \
      {                                                                       \
        print_error ("expected to find \"%s\" in:\n%s\n", n_, h_ ? h_ : "(null)"); \
        fail ();                                                              \
      }                                                                       \
  } while (0)
