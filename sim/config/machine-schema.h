/* machine-schema.h - what the machine loader exposes beyond machine.h: its
 * key tables (so a test can check docs/machines.md names every key) and
 * the catalogue of machine files (for "slabsim machine list"). */
#pragma once

#include "sim/config/machine.h"
#include "sim/config/schema.h"

G_BEGIN_DECLS

typedef struct {
  const char     *path;      /* "topology", "caches.NAME", "" for the top */
  const SimField *fields;
  guint           n_fields;
} SimSchemaSection;

/* The sections of a machine file, NULL-path terminated. */
const SimSchemaSection *sim_machine_schema (void);

/* Directories searched for NAME.yaml, in order: $SLABSIM_MACHINE_PATH
 * entries, configs/machines in the source tree, the installed data dir. */
GStrv  sim_machine_search_dirs (void);
/* Sorted, de-duplicated names of every machine file found there. */
GStrv  sim_machine_available (void);
/* The file a machine name resolves to, or NULL with SIM_CONFIG_ERROR
 * listing the available names.  A path (with a '/' or ending in .yaml) is
 * returned as is. */
char  *sim_machine_find (const char *name_or_path, GError **error);

G_END_DECLS
