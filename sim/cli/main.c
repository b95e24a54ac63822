/* main.c - slabsim's entry point; everything else is in the library. */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"

#include <string.h>

int
main (int argc, char **argv)
{
  /* A GLib warning or critical anywhere is a bug: end with exit 1. */
  sim_install_fatal_log_writer (FALSE);
  /* Test hook (tests/core/test-cli.c, not an option): prove that a
   * critical raised in the program ends it with exit 1. */
  const char *hook = g_getenv ("SLABSIM_TEST_HOOK");
  if (hook && strcmp (hook, "critical") == 0)
    g_critical ("SLABSIM_TEST_HOOK=critical: a deliberate critical");
  else if (hook && strcmp (hook, "warning") == 0)
    g_warning ("SLABSIM_TEST_HOOK=warning: a deliberate warning");
  return sim_cli_main (argc, argv);
}
