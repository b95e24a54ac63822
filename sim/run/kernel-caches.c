/* kernel-caches.c - creation flags of the caches real traces name; see
 * kernel-caches.h.  Sources: the kmem_cache_create() calls in Linux 6.18
 * (file given per row); the flags of these calls were stable across the
 * eras slabsim models unless the row says otherwise.  The last column is
 * kmem_cache_args.sheaf_capacity of 6.18 (mm/vma_init.c and
 * lib/maple_tree.c pass 32; no other cache has sheaves in 6.18), then
 * how the kernel frees what it frees without a tracepoint: maple_node's
 * replaced nodes go through ma_free_rcu, which is kfree_rcu (node, rcu)
 * in 6.18 (it was call_rcu + kmem_cache_free before the sheaves series),
 * and a destroyed tree's nodes through mt_free_bulk (kmem_cache_free_bulk),
 * except the last one, kfree'd by __mt_destroy. */
#include "sim/run/kernel-caches.h"

#include <stdlib.h>
#include <string.h>

#define HW   SIM_SLAB_HWCACHE_ALIGN
#define RCU  SIM_SLAB_TYPESAFE_BY_RCU
#define CTOR SIM_SLAB_CTOR
#define RECL SIM_SLAB_RECLAIM_ACCOUNT
#define ACCT SIM_SLAB_ACCOUNT
#define PANIC SIM_SLAB_PANIC
#define UCOPY SIM_SLAB_USERCOPY

static const SimKernelCache table[] = {
  /* sorted by name for bsearch */
  { "anon_vma",          0, RCU | ACCT | PANIC | CTOR,  "anon_vma_init (mm/rmap.c)" },
  { "anon_vma_chain",    0, ACCT | PANIC,               "anon_vma_init (mm/rmap.c)" },
  { "bio-184",           0, HW,                          "bio_find_or_create_slab (block/bio.c)" },
  { "buffer_head",       0, RECL | PANIC,               "buffer_init (fs/buffer.c)" },
  { "dentry",            0, RECL | PANIC | ACCT | UCOPY,        "dcache_init (fs/dcache.c)" },
  { "extent_status",     0, RECL,                        "ext4_init_es (fs/ext4/extents_status.c)" },
  { "files_cache",       0, HW | PANIC | ACCT,          "proc_caches_init (kernel/fork.c)" },
  { "filp",              0, HW | PANIC | ACCT | RCU,    "filp_cachep_init (fs/file_table.c); RCU with freeptr_offset in 6.12+" },
  { "key_jar",           0, HW | PANIC,                 "key_init (security/keys/key.c)" },
  { "lsm_file_cache",    0, PANIC,                       "lsm_init (security/security.c)" },
  { "lsm_inode_cache",   0, PANIC,                       "lsm_init (security/security.c)" },
  { "maple_node",        0, PANIC,                       "maple_tree_init (lib/maple_tree.c); sheaves in 6.18; "
    "ma_free_rcu is kfree_rcu (6.18) and mt_free_bulk kmem_cache_free_bulk, neither traced", 32,
    SIM_KC_UNTRACED_MAPLE_TREE },
  { "mm_struct",         0, HW | PANIC | ACCT | UCOPY,          "mm_cache_init (kernel/fork.c)" },
  { "names_cache",       0, HW | PANIC | UCOPY,                 "vfs_caches_init (fs/dcache.c)" },
  { "pid",               0, HW | PANIC | ACCT,          "pid_idr_init (kernel/pid.c)" },
  { "pidfs_attr_cache",  0, HW | PANIC | ACCT,          "pidfs_init (fs/pidfs.c)" },
  { "radix_tree_node",   0, RECL | PANIC | CTOR,        "radix_tree_init (lib/radix-tree.c)" },
  { "sighand_cache",     0, HW | PANIC | RCU | ACCT | CTOR, "proc_caches_init (kernel/fork.c)" },
  { "signal_cache",      0, HW | PANIC | ACCT,          "proc_caches_init (kernel/fork.c)" },
  { "sigqueue",          0, PANIC | ACCT,               "init_signals (kernel/signal.c)" },
  { "skbuff_fclone_cache", 0, HW | PANIC,               "skb_init (net/core/skbuff.c)" },
  { "skbuff_head_cache", 0, HW | PANIC | UCOPY,                 "skb_init (net/core/skbuff.c)" },
  { "sock_inode_cache",  0, HW | RECL | ACCT | CTOR,    "sock_init / init_inodecache (net/socket.c)" },
  { "task_struct",       64, PANIC | ACCT | UCOPY,              "fork_init (kernel/fork.c): ARCH_MIN_TASKALIGN = L1 line" },
  { "taskstats",         0, 0,                           "taskstats_init_early (kernel/taskstats.c)" },
  { "vm_area_struct",    0, PANIC | ACCT | RCU,         "vma_state_init (mm/vma_init.c); TYPESAFE_BY_RCU 6.x, sheaves in 6.18", 32 },
  { "vmap_area",         0, PANIC,                       "vmalloc_init (mm/vmalloc.c)" },
};

static int
cmp_name (const void *key, const void *elt)
{
  return strcmp (key, ((const SimKernelCache *) elt)->name);
}

const SimKernelCache *
sim_kernel_cache_lookup (const char *name)
{
  return bsearch (name, table, G_N_ELEMENTS (table), sizeof table[0], cmp_name);
}

const SimKernelCache *
sim_kernel_caches (guint *n)
{
  *n = G_N_ELEMENTS (table);
  return table;
}
