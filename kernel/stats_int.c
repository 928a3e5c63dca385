/* The integer statistics are libvernier's own source, built here as it is
 * there, so the module and the library cannot drift apart. */
#include "../src/stats/int.c"
