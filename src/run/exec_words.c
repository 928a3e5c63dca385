/* The words of a command line without a shell (quotes and backslashes as
 * a POSIX shell reads them, nothing expanded), whether a line needs a shell
 * after all, and the PATH lookup of its program. Pure but for the lookup. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exec_internal.h"

/* ---- Words ----------------------------------------------------------------- */

static int push_word(char ***v, int *n, int *cap, char *w)
{
    if (*n + 2 > *cap) {
        int c = *cap ? *cap * 2 : 8;
        char **nv = realloc(*v, (size_t)c * sizeof *nv);
        if (!nv)
            return VN_ENOMEM;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = w;
    (*v)[*n] = NULL;
    return 0;
}

/* Words a shell reads as its own when they come first: keywords and the
 * builtins that exist as nothing else (a program cannot change the shell's
 * directory or variables). */
static const char *const SHELL_FIRST_WORDS[] = {
    "!", "{", "}", "[[", "case", "for", "function", "if", "select", "time", "until", "while",
    ".", ":", "alias", "cd", "eval", "exec", "exit", "export", "let", "local", "readonly",
    "return", "set", "shift", "source", "trap", "ulimit", "umask", "unset", "wait",
};

int vn__needs_shell(const char *line, char *why, size_t whylen)
{
    if (!line)
        return 0;
    int quote = 0;          /* 0, '\'' or '"' */
    int word_start = 1;     /* the next character begins a word */
    int first_word = 1;     /* still in the first word */
    const char *first = NULL;
    for (const char *c = line;; c++) {
        int blank = *c == ' ' || *c == '\t' || *c == '\0';
        if (first_word && first && (blank && !quote)) {
            size_t len = (size_t)(c - first);
            for (size_t k = 0; k < sizeof SHELL_FIRST_WORDS / sizeof *SHELL_FIRST_WORDS; k++)
                if (strlen(SHELL_FIRST_WORDS[k]) == len && !strncmp(first, SHELL_FIRST_WORDS[k], len)) {
                    snprintf(why, whylen, "it starts with the shell word '%s'", SHELL_FIRST_WORDS[k]);
                    return 1;
                }
            /* NAME=value before a program sets a variable for it. */
            const char *eq = memchr(first, '=', len);
            if (eq && eq > first && strspn(first, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                  "0123456789_") == (size_t)(eq - first) &&
                !(*first >= '0' && *first <= '9')) {
                snprintf(why, whylen, "it sets the variable '%.*s' first", (int)(eq - first), first);
                return 1;
            }
            first_word = 0;
        }
        if (!*c)
            return 0;
        if (quote == '\'') {
            if (*c == '\'')
                quote = 0;
            continue;
        }
        if (*c == '\\') {
            if (c[1])
                c++;
            word_start = 0;
            if (first_word && !first)
                first = c - 1;
            continue;
        }
        if (quote == '"') {
            if (*c == '"')
                quote = 0;
            else if (*c == '$' || *c == '`') {
                snprintf(why, whylen, "it has '%c' (an expansion)", *c);
                return 1;
            }
            continue;
        }
        if (blank) {
            word_start = 1;
            continue;
        }
        if (first_word && !first)
            first = c;
        if (*c == '\'' || *c == '"') {
            quote = *c;
            word_start = 0;
            continue;
        }
        const char *what = NULL;
        switch (*c) {
        case '|': what = "a pipe"; break;
        case '&': what = "a background or list operator"; break;
        case ';': what = "a list of commands"; break;
        case '<': case '>': what = "a redirection"; break;
        case '(': case ')': what = "a subshell"; break;
        case '$': what = "an expansion"; break;
        case '`': what = "a command substitution"; break;
        case '*': case '?': case '[': what = "a glob"; break;
        case '\n': what = "several lines"; break;
        case '~': if (word_start) what = "a home directory"; break;
        case '#': if (word_start) what = "a comment"; break;
        default: break;
        }
        if (what) {
            if (*c == '\n')
                snprintf(why, whylen, "it has %s", what);
            else
                snprintf(why, whylen, "it has '%c' (%s)", *c, what);
            return 1;
        }
        word_start = 0;
    }
}

int vn__split_words(const char *line, char ***words, int *count, char *err, size_t errlen)
{
    if (!line || !words || !count)
        return VN_EINVAL;
    size_t len = strlen(line);
    char **v = NULL;
    int n = 0, cap = 0, rc = 0;
    char *cur = malloc(len + 1);
    if (!cur)
        return VN_ENOMEM;
    size_t k = 0;
    int in_word = 0;
    for (size_t i = 0; i <= len && rc == 0; i++) {
        char c = line[i];
        if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                cur[k] = '\0';
                char *w = strdup(cur);
                rc = w ? push_word(&v, &n, &cap, w) : VN_ENOMEM;
                if (rc)
                    free(w);
                k = 0;
                in_word = 0;
            }
            continue;
        }
        in_word = 1;
        if (c == '\\') {
            if (line[i + 1] == '\0') {
                snprintf(err, errlen, "the command ends with a lone backslash");
                rc = VN_EINVAL;
                break;
            }
            /* A backslash-newline joins lines; any other escaped character
             * stands for itself. */
            if (line[i + 1] != '\n')
                cur[k++] = line[i + 1];
            i++;
        } else if (c == '\'') {
            const char *end = strchr(line + i + 1, '\'');
            if (!end) {
                snprintf(err, errlen, "a single quote is not closed");
                rc = VN_EINVAL;
                break;
            }
            size_t l = (size_t)(end - (line + i + 1));
            memcpy(cur + k, line + i + 1, l);
            k += l;
            i = (size_t)(end - line);
        } else if (c == '"') {
            size_t j = i + 1;
            for (; line[j] && line[j] != '"'; j++) {
                if (line[j] == '\\' && line[j + 1] &&
                    strchr("\"\\$`\n", line[j + 1])) {
                    if (line[j + 1] != '\n')
                        cur[k++] = line[j + 1];
                    j++;
                } else {
                    cur[k++] = line[j];
                }
            }
            if (!line[j]) {
                snprintf(err, errlen, "a double quote is not closed");
                rc = VN_EINVAL;
                break;
            }
            i = j;
        } else {
            cur[k++] = c;
        }
    }
    free(cur);
    if (rc == 0 && n == 0) {
        snprintf(err, errlen, "the command is empty");
        rc = VN_EINVAL;
    }
    if (rc) {
        if (v)
            vn__words_free(v);
        return rc;
    }
    *words = v;
    *count = n;
    return 0;
}

void vn__words_free(char **words)
{
    if (!words)
        return;
    for (char **w = words; *w; w++)
        free(*w);
    free(words);
}

/* ---- PATH ------------------------------------------------------------------- */

static int executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    return access(path, X_OK) == 0 ? 0 : -errno;
}

int vn__which(const char *name, char *out, size_t outlen)
{
    if (!name || !*name || !out || !outlen)
        return VN_EINVAL;
    if (strchr(name, '/')) {
        int rc = executable(name);
        if (rc == 0)
            snprintf(out, outlen, "%s", name);
        return rc;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int best = VN_ENOENT;
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        char full[PATH_MAX];
        /* An empty PATH entry means the current directory. */
        int n = dl ? snprintf(full, sizeof full, "%.*s/%s", (int)dl, p, name)
                   : snprintf(full, sizeof full, "./%s", name);
        if (n > 0 && (size_t)n < sizeof full) {
            int rc = executable(full);
            if (rc == 0) {
                snprintf(out, outlen, "%s", full);
                return 0;
            }
            /* A file that exists but cannot be run says more than "not found". */
            if (rc == -EACCES)
                best = rc;
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    return best;
}
