/* internal.c - recognise the recording kernel's allocator internals by call
 * site; see internal.h. */
#include "traces/internal.h"

#include <string.h>

static const char *const alloc_sites[] = {
  "alloc_slab_obj_exts",
  "memcg_alloc_slab_cgroups",
  "memcg_alloc_page_obj_cgroups",
  "__alloc_empty_sheaf",
  "alloc_empty_sheaf",
  NULL,
};

static const char *const free_sites[] = {
  "__free_slab",
  "free_slab_obj_exts",
  "free_empty_sheaf",
  NULL,
};

/* The symbol part of "sym+0x58/0x110" (or of a bare "sym") equals @name.
 * Compiler suffixes (".isra.0", ".part.0", ".constprop.0") still name the
 * same function. */
static gboolean
site_is (const char *site, const char *name)
{
  gsize n = strlen (name);
  if (strncmp (site, name, n) != 0)
    return FALSE;
  char c = site[n];
  return c == '\0' || c == '+' || c == '.' || c == ' ';
}

static gboolean
site_in (const char *site, const char *const *names)
{
  if (site == NULL || *site == '\0')
    return FALSE;
  for (guint i = 0; names[i]; i++)
    if (site_is (site, names[i]))
      return TRUE;
  return FALSE;
}

gboolean
sim_trace_internal_alloc_site (const char *call_site)
{
  return site_in (call_site, alloc_sites);
}

gboolean
sim_trace_internal_free_site (const char *call_site)
{
  return site_in (call_site, free_sites);
}
