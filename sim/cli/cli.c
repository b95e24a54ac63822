/* cli.c - verb table, help, and the GError-to-exit-code policy. */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "sim/core/stdin.h"
#include "sim/run/replay.h"
#include "slabsim-config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static gboolean cmd_help (int argc, char **argv, GError **error);

static const SimVerb verbs[] = {
  { "run",      "replay a kmem trace through allocator models on a machine", sim_cmd_run },
  { "validate", "compare a model's allocator decisions with the recording kernel's", sim_cmd_validate },
  { "slab-test", "run the slab_test kernel module's kmalloc/kfree loops on a machine",
    sim_cmd_slab_test },
  { "cachesim", "replay a memory-address trace through a machine's caches", sim_cmd_cachesim },
  { "machine",  "show a machine description with every default filled",   sim_cmd_machine },
  { "trace",    "read, summarise, convert and generate kmem traces",       sim_cmd_trace },
  { "geometry", "compute slab cache geometry with an allocator's sizing code", sim_cmd_geometry },
  { "record",   "record a kmem trace of a command through tracefs (root)", sim_cmd_record },
  { "sweep",    "run a parameter sweep (grid, zip, list axes) into a directory", sim_cmd_sweep },
  { "merge",    "check and join the shards of a sweep into one JSONL file", sim_cmd_merge },
  { "report",   "render run and sweep results as HTML/SVG, text or Markdown", sim_cmd_report },
  { "list",     "list the allocators, kernels, parameters, machines, metrics", sim_cmd_list },
  { "help",     "show help for slabsim or one verb",                        cmd_help },
  { NULL, NULL, NULL }
};

gboolean
sim_cli_same_file (const char *a, const char *b)
{
  GStatBuf sa, sb;
  if (g_stat (a, &sa) != 0 || g_stat (b, &sb) != 0)
    return FALSE;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

const SimVerb *
sim_cli_verbs (void)
{
  return verbs;
}

static const SimVerb *
find_verb (const SimVerb *table, const char *name)
{
  for (const SimVerb *v = table; v->name; v++)
    if (strcmp (v->name, name) == 0)
      return v;
  return NULL;
}

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage:\n  slabsim VERB [OPTIONS...]\n\nVerbs:\n");
  for (const SimVerb *v = verbs; v->name; v++)
    fprintf (out, "  %-10s %s\n", v->name, v->summary);
  fprintf (out, "\nUse \"slabsim help VERB\" or \"slabsim VERB --help\" for a verb's options.\n");
}

GOptionContext *
sim_cli_context (const char *verb, const char *parameter_string, const char *summary)
{
  g_autofree char *ps = g_strdup_printf ("%s", parameter_string ? parameter_string : "");
  GOptionContext *ctx = g_option_context_new (ps);
  g_autofree char *prog = g_strdup_printf ("slabsim %s", verb);
  (void) prog;
  if (summary)
    g_option_context_set_summary (ctx, summary);
  return ctx;
}

gboolean
sim_cli_parse (GOptionContext *ctx, const char *verb, int *argc, char ***argv,
               GError **error)
{
  GError *local = NULL;
  /* GOption prints "Usage: PRGNAME ..." in --help; make it name the verb. */
  g_autofree char *prg = g_strdup_printf ("slabsim %s", verb);
  g_set_prgname (prg);
  gboolean ok = g_option_context_parse (ctx, argc, argv, &local);
  g_set_prgname ("slabsim");
  if (!ok)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: %s (try \"slabsim %s --help\")", verb, local->message, verb);
      g_error_free (local);
      return FALSE;
    }
  /* "--" separates options from operands; drop it if GOption left it. */
  for (int i = 1; i < *argc; i++)
    if (strcmp ((*argv)[i], "--") == 0)
      {
        memmove (&(*argv)[i], &(*argv)[i + 1], (*argc - i) * sizeof (char *));
        (*argc)--;
        break;
      }
  return TRUE;
}

gboolean
sim_cli_at_most_args (const char *verb, int argc, char **argv, int max_args, GError **error)
{
  if (argc > 1 + max_args)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: unexpected argument \"%s\"", verb, argv[1 + max_args]);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_cli_choice (const char *verb, const char *option, const char *value,
                const char *const *names, guint *index, GError **error)
{
  if (value == NULL)
    return TRUE;
  for (guint i = 0; names[i]; i++)
    if (strcmp (value, names[i]) == 0)
      {
        *index = i;
        return TRUE;
      }
  GString *list = g_string_new (NULL);
  for (guint i = 0; names[i]; i++)
    g_string_append_printf (list, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION, "%s: %s takes %s, not \"%s\"",
               verb, option, list->str, value);
  g_string_free (list, TRUE);
  return FALSE;
}

gboolean
sim_cli_before_replay (const char *verb, const char *output, const char *trace, GError **error)
{
  if (sim_output_check (output, error) &&
      (strcmp (trace, "-") != 0 || sim_stdin_spool (error)))
    return TRUE;
  g_prefix_error (error, "%s: ", verb);
  return FALSE;
}

gboolean
sim_cli_uint_in (const char *s, guint min, guint max, guint *out)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (s, &end, 10);
  if (*s == '\0' || *s == '-' || *end != '\0' || v < min || v > max)
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

const char *const sim_cli_page_events_names[] = { "replay", "ignore", NULL };
G_STATIC_ASSERT (SIM_PAGE_EVENTS_REPLAY == 0 && SIM_PAGE_EVENTS_IGNORE == 1);

SimMachine *
sim_cli_machine_load (const char *name, const char *const *sets, GError **error)
{
  return sim_machine_load (name ? name : SIM_CLI_DEFAULT_MACHINE, sets, error);
}

gboolean
sim_cli_format (const char *s, guint allowed_mask, SimFormat *out, GError **error)
{
  static const char *const names[] = { "text", "json", "csv" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (s, names[i]) == 0 && (allowed_mask & (1u << i)))
      {
        *out = (SimFormat) i;
        return TRUE;
      }
  GString *ok = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (allowed_mask & (1u << i))
      g_string_append_printf (ok, "%s%s", ok->len ? ", " : "", names[i]);
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
               "unknown format \"%s\" (expected one of: %s)", s, ok->str);
  g_string_free (ok, TRUE);
  return FALSE;
}

gboolean
sim_cli_dispatch_sub (const char *verb, const SimVerb *subs, int argc,
                      char **argv, GError **error)
{
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      FILE *out = argc < 2 ? stderr : stdout;
      fprintf (out, "Usage:\n  slabsim %s SUBCOMMAND [OPTIONS...]\n\nSubcommands:\n", verb);
      for (const SimVerb *v = subs; v->name; v++)
        fprintf (out, "  %-10s %s\n", v->name, v->summary);
      if (argc < 2)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                       "%s: a subcommand is required", verb);
          return FALSE;
        }
      return TRUE;
    }
  const SimVerb *v = find_verb (subs, argv[1]);
  if (v == NULL)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_UNKNOWN_VERB,
                   "%s: unknown subcommand \"%s\" (try \"slabsim %s --help\")",
                   verb, argv[1], verb);
      return FALSE;
    }
  /* The sub-verb sees argv[0] = "VERB SUB". */
  g_autofree char *name = g_strdup_printf ("%s %s", verb, v->name);
  char *saved = argv[1];
  argv[1] = name;
  gboolean ok = v->fn (argc - 1, argv + 1, error);
  argv[1] = saved;
  return ok;
}

static gboolean
cmd_help (int argc, char **argv, GError **error)
{
  /* "help --help" is help about help: the verbs and how to ask. */
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      print_usage (stdout);
      return TRUE;
    }
  const SimVerb *v = find_verb (verbs, argv[1]);
  if (v == NULL || v->fn == cmd_help)
    {
      if (v)
        {
          print_usage (stdout);
          return TRUE;
        }
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_UNKNOWN_VERB,
                   "help: unknown verb \"%s\"", argv[1]);
      return FALSE;
    }
  /* "help VERB [SUB]" is "VERB [SUB] --help". */
  GPtrArray *args = g_ptr_array_new ();
  for (int i = 1; i < argc; i++)
    g_ptr_array_add (args, argv[i]);
  g_ptr_array_add (args, (char *) "--help");
  g_ptr_array_add (args, NULL);
  gboolean ok = v->fn ((int) args->len - 1, (char **) args->pdata, error);
  g_ptr_array_free (args, TRUE);
  return ok;
}

int
sim_cli_main (int argc, char **argv)
{
  g_set_prgname ("slabsim");
  if (argc < 2)
    {
      print_usage (stderr);
      return SIM_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "-V") == 0)
    {
      printf ("slabsim %s\n", SLABSIM_VERSION);
      return SIM_EXIT_OK;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      print_usage (stdout);
      return SIM_EXIT_OK;
    }
  const SimVerb *v = find_verb (verbs, argv[1]);
  if (v == NULL)
    {
      fprintf (stderr, "slabsim: unknown verb \"%s\"\n", argv[1]);
      print_usage (stderr);
      return SIM_EXIT_USAGE;
    }
  GError *error = NULL;
  gboolean ok = v->fn (argc - 1, argv + 1, &error);
  fflush (stdout);
  if (!ok)
    {
      int code = sim_error_exit_code (error);
      fprintf (stderr, "slabsim: %s\n", error ? error->message : "failed");
      g_clear_error (&error);
      return code ? code : SIM_EXIT_FAILURE;
    }
  return SIM_EXIT_OK;
}
