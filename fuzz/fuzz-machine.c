/* fuzz-machine.c - libFuzzer target: the machine loader with --set
 * overrides, and the "machine show" round trip.
 *
 * The input is split at NUL bytes: the first part is a machine file, each
 * further part one --set assignment (fuzz/README.md).  Errors are expected.
 * When the machine loads, what "machine show" prints for it must load
 * again, without overrides, and print the very same bytes: the effective
 * machine is a fixed point of load and show. */
#include "fuzz/fuzz-yaml.h"
#include "sim/config/machine.h"

#include "sim/core/errors.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* a GLib warning or critical is a bug: abort so libFuzzer keeps the input */
  sim_install_fatal_log_writer (TRUE);
  g_autoptr (GPtrArray) parts = sim_fuzz_split (data, size);
  const GBytes *file = g_ptr_array_index (parts, 0);
  g_autoptr (GPtrArray) sets = g_ptr_array_new ();
  for (guint i = 1; i < parts->len; i++)
    g_ptr_array_add (sets, (gpointer) g_bytes_get_data (g_ptr_array_index (parts, i), NULL));
  g_ptr_array_add (sets, NULL);

  gsize len = 0;
  const char *yaml = g_bytes_get_data ((GBytes *) file, &len);
  GError *error = NULL;
  g_autoptr (SimMachine) m = sim_machine_load_data (yaml, len, "fuzz.yaml",
                                                    (const char *const *) sets->pdata, &error);
  if (m == NULL)
    {
      /* every refusal is a message with a place, never an empty one */
      g_assert_nonnull (error);
      g_assert_true (error->message[0] != '\0');
      g_clear_error (&error);
      return 0;
    }
  g_assert_no_error (error);
  g_autofree char *shown = sim_machine_to_yaml (m);
  g_autoptr (SimMachine) back = sim_machine_load_data (shown, strlen (shown), "fuzz.yaml",
                                                       NULL, &error);
  if (back == NULL)
    g_error ("machine show output does not load back: %s\n--- output:\n%s",
             error->message, shown);
  g_autofree char *again = sim_machine_to_yaml (back);
  if (strcmp (shown, again) != 0)
    g_error ("machine show output changes on reload\n--- first:\n%s\n--- second:\n%s",
             shown, again);
  return 0;
}
