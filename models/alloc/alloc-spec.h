/* alloc-spec.h - the allocator specification string of the command line.
 *
 * "slub@2.6.23:slub_max_order=3,slub_min_objects=8" names an allocator
 * (slub), optionally the kernel whose code to model (2.6.23) and a list of
 * boot parameters in the kernel's own spelling.  This file only splits the
 * string; which names, kernels and parameters exist is the business of each
 * allocator model (see slub-era.h), so "slabsim geometry" and "slabsim run"
 * report the same errors for the same mistakes.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *key;     /* "slub_max_order" */
  char *value;   /* "3"; NULL for a bare flag such as "slub_nomerge" */
} SimAllocParam;

typedef struct {
  char   *name;      /* "slub" */
  char   *kernel;    /* "2.6.23", or NULL when the spec names none */
  GArray *params;    /* of SimAllocParam, in the order written */
} SimAllocSpec;

/* Split @text.  Errors are SIM_CONFIG_ERROR_BAD_VALUE naming the spec and
 * the offending part (an empty name, kernel or parameter, a "=" without a
 * key, a repeated key). */
SimAllocSpec *sim_alloc_spec_parse (const char *text, GError **error);
void          sim_alloc_spec_free  (SimAllocSpec *spec);

/* Parse a parameter value as an unsigned decimal integer no larger than
 * @max; the error names the parameter. */
gboolean sim_alloc_param_uint (const SimAllocParam *p, guint max, guint *out,
                               GError **error);

/* CONFIG_HZ of the kernel era @kernel ("2.6.23", "6.18") as an x86-64
 * `make defconfig` of that era sets it: one value for every model of the
 * era (alloc-spec.c says where each comes from).  Models whose periodic
 * work runs on jiffies (SLAB's cache_reap, SLQB's trim timers) start from
 * it. */
guint    sim_kernel_hz (const char *kernel);

/* The "hz=N" parameter: N must be one of the kernel/Kconfig.hz choices
 * (100, 250, 300, 1000); the error names the parameter and the choices. */
gboolean sim_alloc_param_hz (const SimAllocParam *p, guint *out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimAllocSpec, sim_alloc_spec_free)

G_END_DECLS
