#include "cli.h"
int cmd_env(int argc, char **argv) { (void)argc; (void)argv; return 1; }
