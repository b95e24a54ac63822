/* gen-kbuild.c - a kernel build (make -jN): fork/exec/exit and file churn.
 *
 * The workload: --groups make jobs (default 4), each running --loops
 * compiler processes (default 50) one after another.  A job forks a
 * child, the child execs cc1 (sched_exec may move it to another CPU),
 * opens and reads 20-60 headers, stats a few paths, maps some memory,
 * writes an object file (a new dentry, temporary files unlinked), and
 * exits - sometimes on another CPU than it was forked on, after a load
 * balance.  The job reaps it on its own CPU and forks the next.
 *
 * The kernel paths and call sites (those printed by 6.18 in the real
 * traces): copy_process (task_struct, signal_cache, sighand_cache,
 * mm_struct via dup_mm, files_cache via dup_fd, pid via alloc_pid,
 * vm_area_dup per VMA); exec: alloc_bprm (kmalloc 408 -> 512),
 * getname_flags (names_cache), open_exec (filp), mm_alloc + vm_area_alloc,
 * load_elf_phdrs / load_elf_binary kmallocs, the old mm freed by
 * exit_mmap and begin_new_exec; open: getname_flags + alloc_empty_file
 * (+ lsm_file_cache from 5.1), close: __fput from task_work_run; readdir:
 * ext4_htree_store_dirent kmallocs of 40..300 bytes freed by
 * free_rb_tree_fname; new files: __d_alloc, unlink: __dentry_kill;
 * exit: exit_mmap, do_exit (files_cache), the mm (mmdrop), and in the
 * parent's wait: release_task (sighand_cache), put_pid and, from an RCU
 * callback in softirq, the task_struct.
 * Object sizes are 6.18's (from the real traces); older eras had smaller
 * task_structs and no lsm_file_cache.  Page-cache and inode allocations,
 * anon_vma chains, maple nodes and RCU batching delays are left out.
 */
#include "traces/gen/gen-common.h"

typedef struct {
  SimGenCache *task, *mm, *vma, *files, *filp, *dentry, *names, *signal,
              *sighand, *pid, *lsm;
} KbCaches;

typedef struct _KbJob KbJob;

typedef struct {
  KbJob   *job;
  guint64  task, pid, signal, sighand, mm, files, exe, exe_lsm;
  GArray  *vmas;        /* guint64 */
  guint    opens, opened;
  guint64  exited_at;
  gboolean exited;
} KbChild;

struct _KbJob {
  KbCaches *c;            /* shared by all jobs, owned by the run */
  guint     left;
  KbChild  *child;
  GArray   *dentries;   /* object files written (freed by later unlinks) */
};

static const char *
gfpk (SimGen *g)
{
  return sim_gen_gfp (g, "GFP_KERNEL");
}

static void
free_vmas (SimGen *g, SimGenTask *t, KbChild *ch)
{
  for (guint i = 0; i < ch->vmas->len; i++)
    sim_gen_cache_free (g, t, g_array_index (ch->vmas, guint64, i), "exit_mmap+0x220/0x420");
  g_array_set_size (ch->vmas, 0);
}

static void
add_vmas (SimGen *g, SimGenTask *t, KbChild *ch, guint n, const char *site)
{
  for (guint i = 0; i < n; i++)
    {
      guint64 v = sim_gen_cache_alloc (g, t, ch->job->c->vma, site, gfpk (g), FALSE, TRUE);
      g_array_append_val (ch->vmas, v);
    }
}

/* open(): getname, a struct file (and its LSM blob from 5.1); *lsm is
 * 0 on eras without lsm_file_cache. */
static guint64
open_file (SimGen *g, SimGenTask *t, KbCaches *c, guint64 *lsm)
{
  guint64 name = sim_gen_cache_alloc (g, t, c->names, "getname_flags.part.0+0x24/0x1f0",
                                      gfpk (g), FALSE, FALSE);
  guint64 f = sim_gen_cache_alloc (g, t, c->filp, "alloc_empty_file+0x3c/0x110",
                                   gfpk (g), FALSE, FALSE);
  *lsm = 0;
  if (sim_gen_options (g)->era.version >= SIM_GEN_KVER (5, 1, 0))
    *lsm = sim_gen_cache_alloc (g, t, c->lsm, "security_file_alloc+0x27/0xd0",
                                sim_gen_gfp (g, "GFP_KERNEL|__GFP_ZERO"), FALSE, FALSE);
  sim_gen_cache_free (g, t, name, "do_sys_openat2+0xa2/0xe0");
  return f;
}

/* The last fput: __fput frees the blob, the task_work the file. */
static void
close_file (SimGen *g, SimGenTask *t, guint64 f, guint64 lsm)
{
  if (lsm)
    sim_gen_cache_free (g, t, lsm, "__fput+0x141/0x2a0");
  sim_gen_cache_free (g, t, f, "task_work_run+0x59/0x90");
}

static SimGenStep child_step (SimGen *g, SimGenTask *t);

static void
child_free (gpointer p)
{
  KbChild *ch = p;
  g_array_free (ch->vmas, TRUE);
  g_free (ch);
}

/* The child: state 0 exec, 1.. compile steps, last exit. */
static SimGenStep
child_step (SimGen *g, SimGenTask *t)
{
  KbChild *ch = t->data;
  KbCaches *c = ch->job->c;
  SimRng *rng = sim_gen_rng (g);
  gboolean lsm = sim_gen_options (g)->era.version >= SIM_GEN_KVER (5, 1, 0);
  if (t->state == 0)
    {
      guint64 bprm = sim_gen_kmalloc (g, t, 408, "alloc_bprm+0x45/0x220",
                                      sim_gen_gfp (g, "GFP_KERNEL|__GFP_ZERO"), FALSE, FALSE);
      guint64 name = sim_gen_cache_alloc (g, t, c->names, "getname_flags.part.0+0x24/0x1f0",
                                          gfpk (g), FALSE, FALSE);
      ch->exe = sim_gen_cache_alloc (g, t, c->filp, "alloc_empty_file+0x3c/0x110",
                                     gfpk (g), FALSE, FALSE);
      if (lsm)
        ch->exe_lsm = sim_gen_cache_alloc (g, t, c->lsm, "security_file_alloc+0x27/0xd0",
                                           sim_gen_gfp (g, "GFP_KERNEL|__GFP_ZERO"),
                                           FALSE, FALSE);
      sim_gen_cache_free (g, t, name, "do_execveat_common.isra.0+0xec/0x1b0");
      /* sched_exec: the new image may start on the least loaded CPU */
      if (sim_rng_below (rng, 2) == 0)
        sim_gen_migrate (g, t, (guint) sim_rng_below (rng, sim_gen_ncpus (g)));
      guint64 nmm = sim_gen_cache_alloc (g, t, c->mm, "mm_alloc+0x16/0x60", gfpk (g),
                                         FALSE, TRUE);
      guint64 phdr = sim_gen_kmalloc (g, t, sim_rng_below (rng, 2) ? 504 : 728,
                                      "load_elf_phdrs+0x49/0xc0", gfpk (g), FALSE, FALSE);
      guint64 interp = sim_gen_kmalloc (g, t, 28, "load_elf_binary+0xf6/0x1870", gfpk (g),
                                        FALSE, FALSE);
      /* begin_new_exec drops the forked copy of make's mm */
      free_vmas (g, t, ch);
      sim_gen_cache_free (g, t, ch->mm, "begin_new_exec+0x519/0xcb0");
      ch->mm = nmm;
      add_vmas (g, t, ch, 8 + (guint) sim_rng_below (rng, 8), "vm_area_alloc+0x1a/0x80");
      sim_gen_kfree (g, t, interp, "load_elf_binary+0x1bc/0x1870");
      sim_gen_kfree (g, t, phdr, "load_elf_binary+0x1bc/0x1870");
      sim_gen_kfree (g, t, bprm, "free_bprm+0x8a/0xf0");
      t->comm = g_intern_string ("cc1");
      ch->opens = 20 + (guint) sim_rng_below (rng, 41);
      t->state = 1;
      return SIM_GEN_RAN;
    }
  if (ch->opened < ch->opens)
    {
      /* one header: open, read (the compiler's work), close */
      guint64 fl;
      guint64 f = open_file (g, t, c, &fl);
      if (sim_rng_below (rng, 4) == 0)
        {
          guint64 nm = sim_gen_cache_alloc (g, t, c->names, "getname_flags.part.0+0x24/0x1f0",
                                            gfpk (g), FALSE, FALSE);
          sim_gen_cache_free (g, t, nm, "vfs_fstatat+0x71/0xb0");
        }
      if (sim_rng_below (rng, 8) == 0)
        {
          /* a directory read: ext4 htree fname entries */
          guint n = 2 + (guint) sim_rng_below (rng, 6);
          guint64 ents[8];
          for (guint i = 0; i < n; i++)
            ents[i] = sim_gen_kmalloc (g, t, 40 + sim_rng_below (rng, 261),
                                       "ext4_htree_store_dirent+0x37/0x130",
                                       gfpk (g), FALSE, FALSE);
          for (guint i = 0; i < n; i++)
            sim_gen_kfree (g, t, ents[i], "free_rb_tree_fname+0x2f/0x60");
        }
      sim_gen_spend (g, t->cpu, sim_gen_cost (g, 20000, 200000));
      if (sim_rng_below (rng, 16) == 0)
        add_vmas (g, t, ch, 1, "vm_area_alloc+0x1a/0x80");
      close_file (g, t, f, fl);
      ch->opened++;
      /* the load balancer moves a running compiler now and then */
      if (sim_rng_below (rng, 40) == 0)
        sim_gen_migrate (g, t, (guint) sim_rng_below (rng, sim_gen_ncpus (g)));
      return SIM_GEN_RAN;
    }
  /* write the object file: a new dentry, a temporary one unlinked */
  guint64 outl;
  guint64 out = open_file (g, t, c, &outl);
  guint64 d = sim_gen_cache_alloc (g, t, c->dentry, "__d_alloc+0x2d/0x230", gfpk (g),
                                   FALSE, FALSE);
  guint64 tmp = sim_gen_cache_alloc (g, t, c->dentry, "__d_alloc+0x2d/0x230", gfpk (g),
                                     FALSE, FALSE);
  sim_gen_cache_free (g, t, tmp, "__dentry_kill+0x130/0x1a0");
  g_array_append_val (ch->job->dentries, d);
  close_file (g, t, out, outl);
  /* exit */
  free_vmas (g, t, ch);
  sim_gen_cache_free (g, t, ch->mm, "__mmdrop+0xd7/0x1a0");
  close_file (g, t, ch->exe, ch->exe_lsm);
  sim_gen_cache_free (g, t, ch->files, "do_exit+0x779/0xab0");
  ch->exited = TRUE;
  ch->exited_at = sim_gen_now (g, t->cpu);
  return SIM_GEN_DONE;
}

static SimGenStep
job_step (SimGen *g, SimGenTask *t)
{
  KbJob *j = t->data;
  KbCaches *c = j->c;
  SimRng *rng = sim_gen_rng (g);
  if (j->child)
    {
      KbChild *ch = j->child;
      if (!ch->exited || ch->exited_at > sim_gen_now (g, t->cpu))
        return SIM_GEN_BLOCKED;
      /* wait4 -> release_task, then the RCU callback frees the task */
      sim_gen_cache_free (g, t, ch->sighand, "release_task+0x304/0x5f0");
      sim_gen_cache_free (g, t, ch->pid, "put_pid.part.0+0x51/0x70");
      sim_gen_spend (g, t->cpu, sim_gen_cost (g, 2000, 20000));
      t->ctx = SIM_GEN_CTX_SOFTIRQ;
      sim_gen_cache_free (g, t, ch->signal, "rcu_do_batch+0x1b7/0x530");
      sim_gen_cache_free (g, t, ch->task, "rcu_do_batch+0x1b7/0x530");
      t->ctx = SIM_GEN_CTX_TASK;
      /* make unlinks an old object file now and then (a re-build) */
      if (j->dentries->len > 4 && sim_rng_below (rng, 3) == 0)
        {
          guint64 d = g_array_index (j->dentries, guint64, 0);
          g_array_remove_index (j->dentries, 0);
          sim_gen_cache_free (g, t, d, "__dentry_kill+0x130/0x1a0");
        }
      j->child = NULL;
    }
  if (j->left == 0)
    return SIM_GEN_DONE;
  j->left--;
  KbChild *ch = g_new0 (KbChild, 1);
  ch->job = j;
  ch->vmas = g_array_new (FALSE, FALSE, sizeof (guint64));
  const char *k = gfpk (g);
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 5000, 30000));
  ch->task = sim_gen_cache_alloc (g, t, c->task, "copy_process+0x1a5/0x1d80", k, TRUE, TRUE);
  ch->files = sim_gen_cache_alloc (g, t, c->files, "dup_fd+0x2a/0x3b0", k, FALSE, TRUE);
  ch->sighand = sim_gen_cache_alloc (g, t, c->sighand, "copy_process+0xa7a/0x1d80", k,
                                     FALSE, TRUE);
  ch->signal = sim_gen_cache_alloc (g, t, c->signal, "copy_process+0xaee/0x1d80",
                                    sim_gen_gfp (g, "GFP_KERNEL|__GFP_ZERO"), FALSE, TRUE);
  ch->mm = sim_gen_cache_alloc (g, t, c->mm, "copy_process+0x120f/0x1d80", k, FALSE, TRUE);
  add_vmas (g, t, ch, 12 + (guint) sim_rng_below (rng, 10), "vm_area_dup+0x1e/0x190");
  ch->pid = sim_gen_cache_alloc (g, t, c->pid, "alloc_pid+0x60/0x400", k, FALSE, FALSE);
  j->child = ch;
  /* wake_up_new_task: the child starts here or on another CPU */
  guint cpu = sim_rng_below (rng, 2) ? t->cpu : (guint) sim_rng_below (rng, sim_gen_ncpus (g));
  SimGenTask *kid = sim_gen_spawn (g, "make", cpu, child_step, ch);
  kid->destroy = child_free;
  /* the child cannot run before it was forked */
  if (sim_gen_now (g, kid->cpu) < sim_gen_now (g, t->cpu))
    sim_gen_spend (g, kid->cpu, sim_gen_now (g, t->cpu) - sim_gen_now (g, kid->cpu));
  return SIM_GEN_RAN;
}

static void
job_free (gpointer p)
{
  KbJob *j = p;
  g_array_free (j->dentries, TRUE);
  g_free (j);
}

static gboolean
setup (SimGen *g, const SimGenOptions *o, GError **error)
{
  (void) error;
  KbCaches *c = g_new0 (KbCaches, 1);
  sim_gen_own (g, c, g_free);
  c->task = sim_gen_cache (g, "task_struct", 5888, 5888, 3);
  c->mm = sim_gen_cache (g, "mm_struct", 1568, 1600, 3);
  c->vma = sim_gen_cache (g, "vm_area_struct", 192, 192, 0);
  c->files = sim_gen_cache (g, "files_cache", 704, 704, 2);
  c->filp = sim_gen_cache (g, "filp", 184, 192, 0);
  c->dentry = sim_gen_cache (g, "dentry", 192, 192, 0);
  c->names = sim_gen_cache (g, "names_cache", 4096, 4096, 3);
  c->signal = sim_gen_cache (g, "signal_cache", 1152, 1152, 3);
  c->sighand = sim_gen_cache (g, "sighand_cache", 2080, 2112, 3);
  c->pid = sim_gen_cache (g, "pid", 184, 192, 0);
  c->lsm = sim_gen_cache (g, "lsm_file_cache", 24, 24, 0);
  for (guint i = 0; i < o->groups; i++)
    {
      KbJob *j = g_new0 (KbJob, 1);
      j->c = c;
      j->left = o->loops;
      j->dentries = g_array_new (FALSE, FALSE, sizeof (guint64));
      SimGenTask *t = sim_gen_spawn (g, "make", sim_gen_place (g, i), job_step, j);
      t->destroy = job_free;
    }
  return TRUE;
}

const SimGenWorkload sim_gen_kbuild = {
  "kbuild", "kernel build: fork/exec/exit of compilers, file and dentry churn",
  4, 50, 0, setup
};
