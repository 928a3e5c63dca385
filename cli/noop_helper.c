/* vernier-noop: a program that does nothing and exits 0. `vernier suite`'s
 * process family times fork+exec, vfork+exec and posix_spawn of it, so what
 * the rows show is the making and the ending of a process, not what the
 * program does: it is linked statically, so no dynamic loader runs either. */
int main(void) { return 0; }
