/* cmd-cachesim.c - "slabsim cachesim": replay a Dinero IV din address trace
 * through a machine's cache hierarchy (models/cache/memsys.h), or through
 * Cachegrind's D1/LL model with --compat cachegrind, and print the counters.
 *
 * Instruction fetches ("i" records) are counted and not simulated: Cachegrind
 * sends them to a separate I1, which this model does not have, and the full
 * model covers data caches only.  In Cachegrind mode the CPU field is
 * ignored (one CPU, as under Cachegrind); in full mode it selects the CPU
 * and must be below the machine's CPU count.
 *
 * The trace is read, decompressed and parsed on a thread of its own, which
 * hands the model batches of accesses (sim_din_read_batches), so that on two
 * host CPUs parsing and simulating overlap; --jobs 1 does both on one thread.
 * The batches are the same either way, and so is every byte of the output.
 */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/config/machine.h"
#include "models/cache/memsys.h"
#include "models/cache/din.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  SimMemSys  *ms;
  const char *trace;          /* for messages */
  guint64     ifetch;
  guint64     n_acc[SIM_ACC_N];
} Replay;

/* The reader (models/cache/din.h) has checked every CPU field, so a batch
 * goes to the model whole. */
static gboolean
replay_batch (const SimDinBatch *b, gpointer user_data, GError **error)
{
  Replay *r = user_data;
  (void) error;
  r->ifetch += b->ifetch;
  for (guint k = 0; k < SIM_ACC_N; k++)
    r->n_acc[k] += b->n_kind[k];
  sim_memsys_access_refs (r->ms, b->ref, b->n);
  return TRUE;
}

/* "SIZE,ASSOC,LINE" as Cachegrind's --D1/--LL take it. */
static gboolean
parse_geometry (const char *opt, const char *s, guint64 *size, guint *ways, guint *line,
                GError **error)
{
  g_auto (GStrv) f = g_strsplit (s, ",", -1);
  guint64 v[3];
  gboolean ok = g_strv_length (f) == 3;
  for (guint i = 0; ok && i < 3; i++)
    ok = g_ascii_string_to_unsigned (f[i], 10, 1, G_MAXUINT32, &v[i], NULL);
  if (!ok)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "cachesim: %s %s: expected SIZE,ASSOC,LINE (three positive decimal "
                   "numbers, e.g. 32768,8,64)", opt, s);
      return FALSE;
    }
  guint64 per_set = v[1] * v[2];
  if (v[2] < 16 || (v[2] & (v[2] - 1))
      || v[0] % per_set || v[0] < per_set || ((v[0] / per_set) & (v[0] / per_set - 1)))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "cachesim: %s %s: expected SIZE = sets x ASSOC x LINE with a "
                   "power-of-two number of sets, at least one way and a power-of-two "
                   "line of at least 16 bytes", opt, s);
      return FALSE;
    }
  *size = v[0];
  *ways = (guint) v[1];
  *line = (guint) v[2];
  return TRUE;
}

static double
rate (guint64 part, guint64 whole)
{
  return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

static const char *
fmt_pct (char buf[G_ASCII_DTOSTR_BUF_SIZE], double v)
{
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.2f", v);
}

static const char *
level_name (const SimMemSys *ms, guint l)
{
  const SimMachine *m = sim_memsys_machine (ms);
  if (m == NULL)
    return l == 0 ? "D1" : "LL";
  return m->levels[l].name ? m->levels[l].name : "?";
}

static void
print_cachegrind_json (const SimMemSys *ms, const Replay *r)
{
  const SimCpuMemStats *s = sim_memsys_cpu_stats (ms, 0);
  const SimLevelStats *d1 = &s->level[0], *ll = &s->level[1];
  guint64 size[2];
  guint ways[2], line[2];
  for (guint l = 0; l < 2; l++)
    sim_memsys_level_geometry (ms, l, &size[l], &ways[l], &line[l]);
  printf ("{\"mode\": \"cachegrind\", "
          "\"D1\": [%" G_GUINT64_FORMAT ", %u, %u], \"LL\": [%" G_GUINT64_FORMAT ", %u, %u], "
          "\"I\": %" G_GUINT64_FORMAT ", \"refs\": %" G_GUINT64_FORMAT ", "
          "\"Dr\": %" G_GUINT64_FORMAT ", \"D1mr\": %" G_GUINT64_FORMAT ", "
          "\"DLmr\": %" G_GUINT64_FORMAT ", \"Dw\": %" G_GUINT64_FORMAT ", "
          "\"D1mw\": %" G_GUINT64_FORMAT ", \"DLmw\": %" G_GUINT64_FORMAT "}\n",
          size[0], ways[0], line[0], size[1], ways[1], line[1],
          r->ifetch, d1->accesses[SIM_ACC_READ] + d1->accesses[SIM_ACC_WRITE],
          d1->accesses[SIM_ACC_READ], d1->misses[SIM_ACC_READ], ll->misses[SIM_ACC_READ],
          d1->accesses[SIM_ACC_WRITE], d1->misses[SIM_ACC_WRITE], ll->misses[SIM_ACC_WRITE]);
}

static guint64
sum3 (const guint64 v[SIM_ACC_N])
{
  return v[SIM_ACC_READ] + v[SIM_ACC_WRITE] + v[SIM_ACC_RMW];
}

static void
print_level_json (GString *o, const char *name, const SimLevelStats *L)
{
  g_string_append_printf (o,
      "{\"name\": \"%s\", \"accesses\": %" G_GUINT64_FORMAT ", \"reads\": %" G_GUINT64_FORMAT
      ", \"writes\": %" G_GUINT64_FORMAT ", \"rmw\": %" G_GUINT64_FORMAT
      ", \"misses\": %" G_GUINT64_FORMAT ", \"read_misses\": %" G_GUINT64_FORMAT
      ", \"write_misses\": %" G_GUINT64_FORMAT ", \"rmw_misses\": %" G_GUINT64_FORMAT
      ", \"writebacks\": %" G_GUINT64_FORMAT "}",
      name, sum3 (L->accesses), L->accesses[SIM_ACC_READ], L->accesses[SIM_ACC_WRITE],
      L->accesses[SIM_ACC_RMW], sum3 (L->misses), L->misses[SIM_ACC_READ],
      L->misses[SIM_ACC_WRITE], L->misses[SIM_ACC_RMW], L->writebacks);
}

static void
print_stats_json (GString *o, const SimMemSys *ms, const SimCpuMemStats *s)
{
  g_string_append (o, "\"levels\": [");
  for (guint l = 0; l < sim_memsys_n_levels (ms); l++)
    {
      if (l)
        g_string_append (o, ", ");
      print_level_json (o, level_name (ms, l), &s->level[l]);
    }
  g_string_append (o, "]");
  const char *sep = "";
#define X(field, name) \
  g_string_append_printf (o, "%s\"" name "\": %" G_GUINT64_FORMAT, sep, s->field); \
  sep = ", ";
  g_string_append (o, ", \"coherence\": {");
  SIM_MEMSYS_COHERENCE_COUNTERS (X)
  sep = "";
  g_string_append (o, "}, \"dram\": {");
  SIM_MEMSYS_DRAM_COUNTERS (X)
#undef X
  g_string_append_printf (o, "}, \"cycles\": %" G_GUINT64_FORMAT, s->cycles);
}

static void
print_full_json (const SimMemSys *ms, const Replay *r, gboolean per_cpu)
{
  const SimMachine *m = sim_memsys_machine (ms);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  GString *o = g_string_new (NULL);
  g_string_append_printf (o, "{\"mode\": \"full\", \"machine\": \"%s\", \"cpus\": %u, "
                          "\"accesses\": {\"reads\": %" G_GUINT64_FORMAT ", \"writes\": %"
                          G_GUINT64_FORMAT ", \"rmw\": %" G_GUINT64_FORMAT "}, "
                          "\"ifetch_ignored\": %" G_GUINT64_FORMAT ", ",
                          m->name ? m->name : "", m->n_cpus, r->n_acc[SIM_ACC_READ],
                          r->n_acc[SIM_ACC_WRITE], r->n_acc[SIM_ACC_RMW], r->ifetch);
  print_stats_json (o, ms, &t);
  if (per_cpu)
    {
      g_string_append (o, ", \"per_cpu\": [");
      for (guint c = 0; c < m->n_cpus; c++)
        {
          g_string_append_printf (o, "%s{\"cpu\": %u, ", c ? ", " : "", c);
          print_stats_json (o, ms, sim_memsys_cpu_stats (ms, c));
          g_string_append (o, "}");
        }
      g_string_append (o, "]");
    }
  g_string_append (o, "}\n");
  fputs (o->str, stdout);
  g_string_free (o, TRUE);
}

static void
print_levels_text (const SimMemSys *ms, const SimCpuMemStats *s, gboolean writebacks)
{
  char b1[G_ASCII_DTOSTR_BUF_SIZE], b2[G_ASCII_DTOSTR_BUF_SIZE], b3[G_ASCII_DTOSTR_BUF_SIZE];
  printf ("%-6s %14s %14s %8s %14s %8s %14s %8s%s\n", "level", "accesses", "misses", "miss%",
          "read-misses", "rd%", "write-misses", "wr%", writebacks ? "     writebacks" : "");
  for (guint l = 0; l < sim_memsys_n_levels (ms); l++)
    {
      const SimLevelStats *L = &s->level[l];
      /* RMW is a read that needs ownership; it joins the reads here. */
      guint64 rd = L->accesses[SIM_ACC_READ] + L->accesses[SIM_ACC_RMW];
      guint64 rdm = L->misses[SIM_ACC_READ] + L->misses[SIM_ACC_RMW];
      guint64 wr = L->accesses[SIM_ACC_WRITE], wrm = L->misses[SIM_ACC_WRITE];
      printf ("%-6s %14" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT " %8s %14" G_GUINT64_FORMAT
              " %8s %14" G_GUINT64_FORMAT " %8s",
              level_name (ms, l), rd + wr, rdm + wrm, fmt_pct (b1, rate (rdm + wrm, rd + wr)),
              rdm, fmt_pct (b2, rate (rdm, rd)), wrm, fmt_pct (b3, rate (wrm, wr)));
      if (writebacks)
        printf (" %14" G_GUINT64_FORMAT, L->writebacks);
      printf ("\n");
    }
}

static void
print_text (const SimMemSys *ms, const Replay *r, gboolean per_cpu)
{
  const SimMachine *m = sim_memsys_machine (ms);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  guint64 n = sum3 (r->n_acc);
  if (m == NULL)
    {
      guint64 size[2];
      guint ways[2], line[2];
      for (guint l = 0; l < 2; l++)
        sim_memsys_level_geometry (ms, l, &size[l], &ways[l], &line[l]);
      printf ("model    cachegrind: D1 %" G_GUINT64_FORMAT ",%u,%u  LL %" G_GUINT64_FORMAT
              ",%u,%u  (LRU, write-allocate, no write-backs)\n",
              size[0], ways[0], line[0], size[1], ways[1], line[1]);
    }
  else
    printf ("machine  %s: %u CPUs, %u sockets x %u cores x %u threads\n",
            m->name ? m->name : "", m->n_cpus, m->sockets, m->cores_per_socket,
            m->threads_per_core);
  printf ("trace    %s: %" G_GUINT64_FORMAT " data accesses (%" G_GUINT64_FORMAT " reads, %"
          G_GUINT64_FORMAT " writes, %" G_GUINT64_FORMAT " rmw), %" G_GUINT64_FORMAT
          " instruction fetches not simulated\n",
          r->trace, n, r->n_acc[SIM_ACC_READ], r->n_acc[SIM_ACC_WRITE],
          r->n_acc[SIM_ACC_RMW], r->ifetch);
  printf ("\n");
  print_levels_text (ms, &t, m != NULL);
  if (m == NULL)
    return;
  printf ("\ncoherence  invalidations sent %" G_GUINT64_FORMAT ", received %" G_GUINT64_FORMAT
          ", back-invalidations %" G_GUINT64_FORMAT ", HITM %" G_GUINT64_FORMAT
          ", cross-socket transfers %" G_GUINT64_FORMAT "\n",
          t.invalidations_sent, t.invalidations_received, t.back_invalidations, t.hitm,
          t.cross_socket);
  printf ("dram       local %" G_GUINT64_FORMAT ", remote %" G_GUINT64_FORMAT "\n",
          t.dram_local, t.dram_remote);
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  printf ("cycles     %" G_GUINT64_FORMAT " (%s per access)\n", t.cycles,
          g_ascii_formatd (b, sizeof b, "%.2f", n ? (double) t.cycles / (double) n : 0.0));
  if (!per_cpu)
    return;
  guint last = sim_memsys_n_levels (ms) - 1;
  printf ("\n%-4s %12s %12s %12s %10s %10s %10s %10s %10s %14s\n", "cpu", "accesses",
          "L1-misses", "last-misses", "inv-sent", "inv-recv", "hitm", "dram-loc", "dram-rem",
          "cycles");
  for (guint c = 0; c < m->n_cpus; c++)
    {
      const SimCpuMemStats *s = sim_memsys_cpu_stats (ms, c);
      printf ("%-4u %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT
              " %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT
              " %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT "\n",
              c, sum3 (s->level[0].accesses), sum3 (s->level[0].misses),
              sum3 (s->level[last].misses), s->invalidations_sent, s->invalidations_received,
              s->hitm, s->dram_local, s->dram_remote, s->cycles);
    }
}

gboolean
sim_cmd_cachesim (int argc, char **argv, GError **error)
{
  g_autofree char *machine = NULL, *format = NULL, *compat = NULL, *d1 = NULL, *ll = NULL;
  g_auto (GStrv) sets = NULL;
  gboolean per_cpu = FALSE;
  gint jobs = 0;
  GOptionEntry entries[] = {
    { "machine", 0, 0, G_OPTION_ARG_STRING, &machine,
      "Machine name or YAML file (default nehalem-ep-2s)", "M" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a machine key (repeatable)", "KEY=VALUE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "Output: text (default) or json", "FMT" },
    { "per-cpu", 0, 0, G_OPTION_ARG_NONE, &per_cpu, "Add per-CPU rows (full mode)", NULL },
    { "compat", 0, 0, G_OPTION_ARG_STRING, &compat,
      "Model to reproduce: cachegrind (D1 + LL, Cachegrind's rules)", "cachegrind" },
    { "D1", 0, 0, G_OPTION_ARG_STRING, &d1,
      "Cachegrind mode D1 (default 32768,8,64)", "SIZE,ASSOC,LINE" },
    { "LL", 0, 0, G_OPTION_ARG_STRING, &ll,
      "Cachegrind mode LL (default 8388608,16,64)", "SIZE,ASSOC,LINE" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Threads: 1 reads and simulates the trace on one thread, 2 or more read it on a "
      "thread of its own (default: 2, 1 on a 1-CPU host); the output is the same", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (
      "cachesim", "TRACE",
      "Replay a Dinero IV din trace (OP ADDR SIZE [CPU] per line; plain or gzip;\n"
      "TRACE \"-\" is standard input) through a machine's caches, or through\n"
      "Cachegrind's D1/LL model with --compat cachegrind.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, "cachesim", &argc, &argv, error))
    return FALSE;
  if (argc != 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "cachesim: expected exactly one TRACE (a file, or - for standard input)");
      return FALSE;
    }
  if (jobs < 0)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "cachesim: --jobs takes a positive number, not %d", jobs);
      return FALSE;
    }
  SimFormat fmt = SIM_FORMAT_TEXT;
  if (format && !sim_cli_format (format, SIM_FORMAT_MASK (SIM_FORMAT_TEXT)
                                 | SIM_FORMAT_MASK (SIM_FORMAT_JSON), &fmt, error))
    {
      g_prefix_error (error, "cachesim: --format: ");
      return FALSE;
    }
  gboolean cg = FALSE;
  if (compat)
    {
      if (strcmp (compat, "cachegrind") != 0)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "cachesim: --compat %s: expected cachegrind", compat);
          return FALSE;
        }
      cg = TRUE;
    }
  if (!cg && (d1 || ll))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "cachesim: --D1 and --LL need --compat cachegrind");
      return FALSE;
    }
  if (cg && (machine || sets))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "cachesim: --machine and --set do not apply to --compat cachegrind");
      return FALSE;
    }

  g_autoptr (SimMachine) m = NULL;
  g_autoptr (SimMemSys) ms = NULL;
  if (cg)
    {
      guint64 s1 = 32768, s2 = 8388608;
      guint w1 = 8, l1 = 64, w2 = 16, l2 = 64;
      if (d1 && !parse_geometry ("--D1", d1, &s1, &w1, &l1, error))
        return FALSE;
      if (ll && !parse_geometry ("--LL", ll, &s2, &w2, &l2, error))
        return FALSE;
      ms = sim_memsys_new_cachegrind (s1, w1, l1, s2, w2, l2, error);
    }
  else
    {
      m = sim_cli_machine_load (machine, (const char *const *) sets, error);
      if (m == NULL)
        {
          g_prefix_error (error, "cachesim: ");
          return FALSE;
        }
      ms = sim_memsys_new (m, error);
    }
  if (ms == NULL)
    {
      g_prefix_error (error, "cachesim: ");
      return FALSE;
    }

  Replay r = {
    .ms = ms,
    .trace = strcmp (argv[1], "-") == 0 ? "<stdin>" : argv[1],
  };
  SimDinBatchOptions ropt = {
    .threads = jobs == 0 ? MIN (g_get_num_processors (), 2) : (guint) jobs,
    .cpu_limit = sim_memsys_n_cpus (ms),
    .cpu_zero = cg,
  };
  if (!sim_din_read_batches (argv[1], &ropt, replay_batch, &r, NULL, error))
    return FALSE;

  if (fmt == SIM_FORMAT_JSON)
    {
      if (cg)
        print_cachegrind_json (ms, &r);
      else
        print_full_json (ms, &r, per_cpu);
    }
  else
    print_text (ms, &r, per_cpu);
  return TRUE;
}
