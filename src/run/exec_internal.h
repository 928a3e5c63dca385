/* The command line's side of running commands: splitting a command line
 * into words, finding a program, and the helper that spawns commands for
 * vernier run. Private to the library and the tool (not installed). */
#ifndef VN_EXEC_INTERNAL_H
#define VN_EXEC_INTERNAL_H

#include <stddef.h>

#include "run/exec_api.h"

/* Splits line into words the way a POSIX shell splits a simple command:
 * blanks separate words; single quotes keep everything; double quotes keep
 * everything but \\ before " \\ $ ` and newline; a backslash outside quotes
 * keeps the next character. Nothing is expanded: no variables, globs,
 * pipes or redirections (use --shell for those). On success *words is a
 * NULL-terminated array (vn__words_free) and *count its length; on a syntax
 * error (an unterminated quote, a trailing backslash) VN_EINVAL and a
 * message in err. */
int  vn__split_words(const char *line, char ***words, int *count, char *err, size_t errlen);
void vn__words_free(char **words);

/* 1 when line needs a shell to mean what it says: an unquoted pipe,
 * redirection, list operator, subshell, glob, comment, leading ~, an
 * expansion ($ or a backquote, also inside double quotes), several lines,
 * a first word that is a shell keyword or builtin, or a variable set before
 * the program; why then says which, in a few words ("it has '|' (a pipe)").
 * 0 for a simple command that vn__split_words runs as meant. */
int  vn__needs_shell(const char *line, char *why, size_t whylen);

/* Finds name along PATH (or checks it, when it contains a slash) and
 * writes the path of an executable file to out. VN_ENOENT when there is
 * none, -EACCES when the file exists but cannot be executed. */
int vn__which(const char *name, char *out, size_t outlen);

/* vernier-spawn, started once and kept: see vn_exec_opts.spawner. The
 * helper is started once and serves every run, so no exec of its own comes
 * between two runs. Not used with on_spawn or cgroup (to measure a group,
 * move the helper into it with vn__cgroup_join and vn__spawner_pid: its
 * children follow). */
typedef struct vn__spawner vn__spawner;

/* Starts the helper program at path; vn__spawner_stop ends it. */
int  vn__spawner_start(const char *path, vn__spawner **out, char *err, size_t errlen);
void vn__spawner_stop(vn__spawner *s);
/* The helper's process id. */
long vn__spawner_pid(const vn__spawner *s);

/* The helper's side: reads one request after another from in_fd, runs each
 * command like vn_exec, and writes the outcome to out_fd, until in_fd ends.
 * stop_flag (raised by SIGTERM in the helper) stops the running command. */
int vn__spawner_serve(int in_fd, int out_fd, volatile int *stop_flag);

#endif
