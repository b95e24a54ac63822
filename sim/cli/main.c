/* main.c - slabsim's entry point; everything else is in the library. */
#include "sim/cli/cli.h"

int
main (int argc, char **argv)
{
  return sim_cli_main (argc, argv);
}
