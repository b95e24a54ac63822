/* inputs.c - what a sweep point's result was computed from; see sweep.h.
 *
 * A point's id hashes its parameters, and a trace parameter is a path: the
 * same id after `trace gen ... -o t.gz` wrote another trace under that
 * name.  So every point's line records the SHA-256 of the trace's bytes
 * and of the effective machine (`machine show`'s YAML without its comment
 * lines, overrides included), and a rerun compares them with the inputs as
 * they are now: a point whose inputs changed is run again.
 *
 * Hashing a 250 MB trace takes about a second, so DIR/traces.json caches
 * each trace's hash with its size, modification time and inode: a trace
 * whose three are unchanged is not read again (the fast check); any change
 * of them means hashing it again (the content check), and only a changed
 * hash re-runs points.  The cache is ours alone: merge and report never
 * read it, and a missing or broken one is rebuilt.
 */
#include "sim/sweep/sweep.h"
#include "sim/core/output.h"
#include "sim/core/digest.h"
#include "sim/report/json-parse.h"
#include "sim/core/json.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

typedef struct {
  guint64 size, mtime_ns, inode;
  char *sha256;
} CacheEntry;

static void
cache_entry_free (gpointer p)
{
  CacheEntry *e = p;
  g_free (e->sha256);
  g_free (e);
}

struct _SimSweepInputs {
  GHashTable *trace_sha;         /* trace_path -> hex */
  GPtrArray *machine_sha;        /* by machine index */
};

static char *
hash_file (const char *path, GError **error)
{
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, error);
  return in ? sim_sha256_stream (G_INPUT_STREAM (in), NULL, error) : NULL;
}

static GHashTable *
cache_load (const char *path)
{
  GHashTable *cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cache_entry_free);
  g_autofree char *text = NULL;
  gsize len;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return cache;
  g_autoptr (SimJsonValue) v = sim_json_parse (text, (gssize) len, path, 1, NULL);
  const SimJsonValue *list = sim_json_get (v, "traces");
  for (guint i = 0; i < sim_json_len (list); i++)
    {
      const SimJsonValue *t = sim_json_item (list, i);
      const char *p = sim_json_str (sim_json_get (t, "path"), NULL);
      const char *sha = sim_json_str (sim_json_get (t, "sha256"), NULL);
      CacheEntry e = { 0 };
      if (p == NULL || sha == NULL
          || !sim_json_get_uint (t, "size", 0, G_MAXUINT64, "", &e.size, NULL)
          || !sim_json_get_uint (t, "mtime_ns", 0, G_MAXUINT64, "", &e.mtime_ns, NULL)
          || !sim_json_get_uint (t, "inode", 0, G_MAXUINT64, "", &e.inode, NULL))
        continue;     /* a broken entry: hashed again */
      CacheEntry *ce = g_memdup2 (&e, sizeof e);
      ce->sha256 = g_strdup (sha);
      g_hash_table_replace (cache, g_strdup (p), ce);
    }
  return cache;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static gboolean
cache_save (GHashTable *cache, const char *path, GError **error)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, cache);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, cmp_str);
  GString *o = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, o);
  sim_json_begin_object (&j);
  sim_json_key (&j, "traces");
  sim_json_begin_array (&j);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *k = g_ptr_array_index (keys, i);
      const CacheEntry *e = g_hash_table_lookup (cache, k);
      sim_json_begin_object (&j);
      sim_json_key (&j, "path");
      sim_json_string (&j, k);
      sim_json_key (&j, "size");
      sim_json_uint (&j, e->size);
      sim_json_key (&j, "mtime_ns");
      sim_json_uint (&j, e->mtime_ns);
      sim_json_key (&j, "inode");
      sim_json_uint (&j, e->inode);
      sim_json_key (&j, "sha256");
      sim_json_string (&j, e->sha256);
      sim_json_end_object (&j);
    }
  sim_json_end_array (&j);
  sim_json_end_object (&j);
  g_string_append_c (o, '\n');
  gboolean ok = sim_output_write (path, o->str, (gssize) o->len, error);
  g_string_free (o, TRUE);
  g_ptr_array_unref (keys);
  return ok;
}

SimSweepInputs *
sim_sweep_inputs_new (const SimSweepPlan *plan, const char *dir, GError **error)
{
  SimSweepInputs *in = g_new0 (SimSweepInputs, 1);
  in->trace_sha = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  in->machine_sha = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < plan->machines->len; i++)
    g_ptr_array_add (in->machine_sha, sim_machine_sha256 (g_ptr_array_index (plan->machines, i)));

  g_autofree char *cache_path = dir ? g_build_filename (dir, "traces.json", NULL) : NULL;
  GHashTable *cache = cache_path ? cache_load (cache_path)
    : g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cache_entry_free);
  gboolean changed = FALSE, ok = TRUE;
  for (guint i = 0; i < plan->points->len && ok; i++)
    {
      const SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      if (g_hash_table_contains (in->trace_sha, p->trace_path))
        continue;
      GStatBuf st;
      if (g_stat (p->trace_path, &st) != 0)
        {
          int e = errno;
          g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_IO, "%s: %s", p->trace_path,
                       g_strerror (e));
          ok = FALSE;
          break;
        }
      CacheEntry now = { .size = (guint64) st.st_size, .inode = (guint64) st.st_ino,
                         .mtime_ns = (guint64) st.st_mtim.tv_sec * G_GUINT64_CONSTANT (1000000000)
                                     + (guint64) st.st_mtim.tv_nsec };
      CacheEntry *ce = g_hash_table_lookup (cache, p->trace_path);
      if (ce == NULL || ce->size != now.size || ce->mtime_ns != now.mtime_ns
          || ce->inode != now.inode)
        {
          now.sha256 = hash_file (p->trace_path, error);
          if (now.sha256 == NULL)
            {
              g_prefix_error (error, "%s: ", p->trace_path);
              ok = FALSE;
              break;
            }
          ce = g_memdup2 (&now, sizeof now);
          g_hash_table_replace (cache, g_strdup (p->trace_path), ce);
          changed = TRUE;
        }
      g_hash_table_insert (in->trace_sha, g_strdup (p->trace_path), g_strdup (ce->sha256));
    }
  /* Only a cache: failing to save it costs a hash next time, nothing else. */
  if (ok && changed && cache_path)
    (void) cache_save (cache, cache_path, NULL);
  g_hash_table_destroy (cache);
  if (!ok)
    {
      sim_sweep_inputs_free (in);
      return NULL;
    }
  return in;
}

void
sim_sweep_inputs_free (SimSweepInputs *in)
{
  if (in == NULL)
    return;
  g_hash_table_destroy (in->trace_sha);
  g_ptr_array_unref (in->machine_sha);
  g_free (in);
}

const char *
sim_sweep_inputs_trace (const SimSweepInputs *in, const SimSweepPoint *p)
{
  return g_hash_table_lookup (in->trace_sha, p->trace_path);
}

const char *
sim_sweep_inputs_machine (const SimSweepInputs *in, const SimSweepPoint *p)
{
  return g_ptr_array_index (in->machine_sha, p->machine);
}
