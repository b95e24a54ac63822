#include "sim/cli/cli.h"
gboolean sim_cmd_report (int argc, char **argv, GError **error) { (void) argc; (void) argv; (void) error; return TRUE; }
