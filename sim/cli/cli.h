/* cli.h - the command line: a table of verbs, one GOptionContext per verb.
 *
 * A verb is a function taking its own argv (argv[0] is the verb's name, e.g.
 * "cachesim" or "machine show") and returning FALSE with a GError on
 * failure.  main() prints the error as "slabsim: message" and exits with
 * sim_error_exit_code(): 2 for usage and configuration errors, 1 otherwise.
 * Verbs print their results on stdout and nothing else; diagnostics go to
 * stderr.
 */
#pragma once

#include <glib.h>
#include "sim/config/machine.h"

G_BEGIN_DECLS

typedef gboolean (*SimVerbFn) (int argc, char **argv, GError **error);

typedef struct {
  const char *name;        /* "cachesim" */
  const char *summary;     /* one line for "slabsim help" */
  SimVerbFn   fn;
} SimVerb;

/* The verb table (NULL-name terminated). */
const SimVerb *sim_cli_verbs (void);
/* Run the command line; returns the exit code.  Errors are printed. */
int  sim_cli_main (int argc, char **argv);

/* Parse @ctx over (@argc, @argv), turning GOption errors into
 * SIM_USAGE_ERROR prefixed with the verb's name. */
gboolean sim_cli_parse (GOptionContext *ctx, const char *verb,
                        int *argc, char ***argv, GError **error);
/* FALSE with a usage error naming the first operand when @argv (after
 * parsing, @argv[0] the verb) holds more than @max_args operands. */
gboolean sim_cli_at_most_args (const char *verb, int argc, char **argv, int max_args,
                               GError **error);
/* A new context for @verb with @parameter_string ("TRACE") and @summary. */
GOptionContext *sim_cli_context (const char *verb, const char *parameter_string,
                                 const char *summary);

/* The index in @names (NULL-terminated) of @value, the word an option
 * @option ("--touch") of @verb takes; @index is left as it is when @value is
 * NULL (the option was not given).  Any other word is a usage error
 * "VERB: OPTION takes A, B or C, not "VALUE"". */
gboolean sim_cli_choice (const char *verb, const char *option, const char *value,
                         const char *const *names, guint *index, GError **error);

/* @s, an option's value, as a whole number in @min..@max (decimal, as
 * g_ascii_strtoull reads it, no sign); FALSE, @out untouched, when it is
 * not one.  The caller words the error. */
gboolean sim_cli_uint_in (const char *s, guint min, guint max, guint *out);

/* The words of --page-events (run, validate), in SimPageEventsMode's order. */
extern const char *const sim_cli_page_events_names[];

/* Before a verb's replays of @trace, which may take minutes: a bad -o
 * @output fails now, and a trace on standard input ("-"), which they read
 * more than once, is copied to a spool file first.  Errors are prefixed "VERB: ". */
gboolean sim_cli_before_replay (const char *verb, const char *output, const char *trace,
                                GError **error);

/* The machine a verb runs on when it is given no --machine. */
#define SIM_CLI_DEFAULT_MACHINE "nehalem-ep-2s"
/* sim_machine_load() of @name, or of the default machine when @name is NULL. */
SimMachine *sim_cli_machine_load (const char *name, const char *const *sets, GError **error);

/* Output formats shared by verbs. */
typedef enum { SIM_FORMAT_TEXT, SIM_FORMAT_JSON, SIM_FORMAT_CSV } SimFormat;
gboolean sim_cli_format (const char *s, guint allowed_mask, SimFormat *out,
                         GError **error);
#define SIM_FORMAT_MASK(f) (1u << (f))

/* Verbs (one file each in sim/cli/). */
gboolean sim_cmd_cachesim (int argc, char **argv, GError **error);
gboolean sim_cmd_machine  (int argc, char **argv, GError **error);
/* "machine probe", dispatched from sim_cmd_machine's sub-verb table. */
gboolean sim_cmd_machine_probe (int argc, char **argv, GError **error);
gboolean sim_cmd_trace    (int argc, char **argv, GError **error);
gboolean sim_cmd_geometry (int argc, char **argv, GError **error);
gboolean sim_cmd_record   (int argc, char **argv, GError **error);
/* TRUE when @a and @b name the same existing file (an output must not
 * replace an input). */
gboolean sim_cli_same_file (const char *a, const char *b);

gboolean sim_cmd_run      (int argc, char **argv, GError **error);
gboolean sim_cmd_validate (int argc, char **argv, GError **error);
gboolean sim_cmd_sweep    (int argc, char **argv, GError **error);
gboolean sim_cmd_merge    (int argc, char **argv, GError **error);
gboolean sim_cmd_report   (int argc, char **argv, GError **error);
gboolean sim_cmd_slab_test (int argc, char **argv, GError **error);
/* "list allocators|kernels|params|machines|metrics" (cmd-list.c). */
gboolean sim_cmd_list (int argc, char **argv, GError **error);
/* "trace gen", dispatched from sim_cmd_trace's sub-verb table. */
gboolean sim_cmd_trace_gen (int argc, char **argv, GError **error);

/* A parameter the model holds at another value than the spec gave (the
 * kernel's clamps: slub_max_order=99 is 10), said on stderr as "slabsim
 * VERB: warning: ..." (params.c): @held is the model's canonical
 * "key=value,..." (SimReplayResult.params). */
void sim_cli_warn_held_params (const char *verb, const char *spec_text, const char *allocator,
                               const char *kernel, const char *held);
/* The same before any replay: the model of @spec_text made as a replay
 * makes it on @machine, then dropped.  FALSE when
 * the model cannot be made (the replay will say why). */
gboolean sim_cli_warn_spec (const char *verb, const char *spec_text, const SimMachine *machine);

/* Dispatch "VERB SUB ..." to a table of sub-verbs (machine show, trace info). */
gboolean sim_cli_dispatch_sub (const char *verb, const SimVerb *subs,
                               int argc, char **argv, GError **error);

G_END_DECLS
