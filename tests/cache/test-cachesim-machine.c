#include <stdio.h>
int main (void) { printf ("1..0 # SKIP todo\n"); return 0; }
