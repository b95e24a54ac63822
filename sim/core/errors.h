/* errors.h - GError domains of slabsim and how they map to exit codes.
 *
 * Anything a user can cause (a bad option, a malformed trace line, a YAML
 * key that does not exist) is a GError set once where it is detected and
 * prefixed with context on its way up to main(), which prints it as
 * "slabsim: message" and exits with sim_error_exit_code().  Programmer
 * errors are g_return_val_if_fail / g_assert, never GErrors.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit codes, as the developers' guide fixes them. */
#define SIM_EXIT_OK      0
#define SIM_EXIT_FAILURE 1
#define SIM_EXIT_USAGE   2

/* Usage errors: bad command line (exit 2). */
#define SIM_USAGE_ERROR (sim_usage_error_quark ())
GQuark sim_usage_error_quark (void);
typedef enum {
  SIM_USAGE_ERROR_UNKNOWN_VERB,
  SIM_USAGE_ERROR_BAD_OPTION,
  SIM_USAGE_ERROR_MISSING_ARGUMENT,
} SimUsageError;

/* Configuration errors: machine/allocator/sweep files and --set (exit 2). */
#define SIM_CONFIG_ERROR (sim_config_error_quark ())
GQuark sim_config_error_quark (void);
typedef enum {
  SIM_CONFIG_ERROR_PARSE,        /* YAML syntax */
  SIM_CONFIG_ERROR_UNKNOWN_KEY,
  SIM_CONFIG_ERROR_DUPLICATE_KEY,
  SIM_CONFIG_ERROR_BAD_VALUE,
  SIM_CONFIG_ERROR_MISSING_KEY,
  SIM_CONFIG_ERROR_NOT_FOUND,    /* no machine of that name, no such file */
  SIM_CONFIG_ERROR_INVALID,      /* values that parse but do not make a machine */
} SimConfigError;

/* Trace errors: unreadable or malformed input traces (exit 1). */
#define SIM_TRACE_ERROR (sim_trace_error_quark ())
GQuark sim_trace_error_quark (void);
typedef enum {
  SIM_TRACE_ERROR_IO,
  SIM_TRACE_ERROR_FORMAT,        /* not a format we know */
  SIM_TRACE_ERROR_MALFORMED,     /* a line or record we cannot read */
  SIM_TRACE_ERROR_CHECKSUM,
  SIM_TRACE_ERROR_UNSUPPORTED,
} SimTraceError;

/* Model errors: a model refused a configuration or found a broken
 * invariant (exit 1). */
#define SIM_MODEL_ERROR (sim_model_error_quark ())
GQuark sim_model_error_quark (void);
typedef enum {
  SIM_MODEL_ERROR_INVALID_PARAM,
  SIM_MODEL_ERROR_INVARIANT,
  SIM_MODEL_ERROR_OUT_OF_MEMORY, /* simulated memory exhausted */
  SIM_MODEL_ERROR_HOST_MEMORY,   /* the host cannot hold the model's arrays */
} SimModelError;

/* The exit code main() uses for @error: 2 for usage and configuration
 * errors, 1 for everything else. */
int sim_error_exit_code (const GError *error);

/* A GLib WARNING, CRITICAL or ERROR (g_warning, g_critical, a failed
 * g_return_if_fail) is a bug in slabsim, never something a user caused:
 * the result it was computing cannot be trusted.  This installs a GLib log
 * writer that prints it as "slabsim: internal error: ..." and ends the
 * process: exit(SIM_EXIT_FAILURE) when @abort_on_fatal is FALSE (the
 * program), abort() when TRUE (fuzz targets, so libFuzzer keeps the input).
 * Messages below WARNING go to GLib's default writer.  Call it once, first
 * thing in main(); later calls do nothing. */
void sim_install_fatal_log_writer (gboolean abort_on_fatal);

G_END_DECLS
