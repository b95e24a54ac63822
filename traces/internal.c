/* internal.c - recognise the recording kernel's allocator internals by call
 * site; see internal.h. */
#include "traces/internal.h"

#include <string.h>

/* Each name with its length (the check runs on every allocation of the
 * pre-pass and of validate). */
typedef struct {
  const char *name;
  gsize len;
} SiteName;

#define SITE(s) { s, sizeof s - 1 }

static const SiteName alloc_sites[] = {
  SITE ("alloc_slab_obj_exts"),
  SITE ("memcg_alloc_slab_cgroups"),
  SITE ("memcg_alloc_page_obj_cgroups"),
  SITE ("__alloc_empty_sheaf"),
  SITE ("alloc_empty_sheaf"),
  { NULL, 0 },
};

static const SiteName free_sites[] = {
  SITE ("__free_slab"),
  SITE ("free_slab_obj_exts"),
  SITE ("free_empty_sheaf"),
  { NULL, 0 },
};

/* The symbol part of "sym+0x58/0x110" (or of a bare "sym") equals @name.
 * Compiler suffixes (".isra.0", ".part.0", ".constprop.0") still name the
 * same function. */
static inline gboolean
site_is (const char *site, const SiteName *name)
{
  /* Most sites differ from every name in their first two bytes: strncmp
   * only for the rest.  site[0] is not NUL (site_in), so site[1] can be
   * read; every name is longer than two bytes. */
  if (site[0] != name->name[0] || site[1] != name->name[1])
    return FALSE;
  if (strncmp (site + 2, name->name + 2, name->len - 2) != 0)
    return FALSE;
  char c = site[name->len];
  return c == '\0' || c == '+' || c == '.' || c == ' ';
}

static gboolean
site_in (const char *site, const SiteName *names)
{
  if (site == NULL || *site == '\0')
    return FALSE;
  for (guint i = 0; names[i].name; i++)
    if (site_is (site, &names[i]))
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
