/* internal.h - the recording kernel's own allocator traffic in a trace.
 *
 * Some kmalloc/kfree events of a trace are not workload: the slab allocator
 * of the recording kernel allocating for itself.  Replaying them through a
 * model of another era (or of the same era, which makes its own) would
 * count them twice or invent traffic that era never had.  What is
 * recognised, by the call site the event prints (a symbol, "name+0x.." or
 * "name+0x../0x.."):
 *
 *   alloc_slab_obj_exts       6.10+: the slabobj_ext vector of a slab of an
 *                             accounted cache (kcalloc_node of one 8- or
 *                             16-byte entry per object, GFP_KERNEL|__GFP_ZERO,
 *                             on the slab's node), freed by
 *                             free_slab_obj_exts from __free_slab;
 *   memcg_alloc_slab_cgroups  5.14-6.9: the same vector of obj_cgroup
 *   memcg_alloc_page_obj_cgroups  pointers under its older names (5.9-5.13);
 *   __alloc_empty_sheaf,      6.18: a per-CPU sheaf (slab_sheaf + object
 *   alloc_empty_sheaf         array), freed by free_empty_sheaf.
 *
 * A free is internal when it frees an internal allocation (whatever its call
 * site), or when its own call site is one of the freeing functions
 * (__free_slab, free_slab_obj_exts, free_empty_sheaf: the vector of a slab
 * allocated before recording started).  Traces with numeric call sites
 * (no kallsyms) cannot be recognised; the replay says how many it found.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when @call_site (printed text, may be NULL) is one of the slab
 * allocator's own allocating functions. */
gboolean sim_trace_internal_alloc_site (const char *call_site);
/* TRUE when @call_site is one of its own freeing functions. */
gboolean sim_trace_internal_free_site (const char *call_site);

G_END_DECLS
