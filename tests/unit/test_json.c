/* The JSON writer, the byte buffer and atomic file writes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileutil.h"
#include "base/format.h"
#include "base/json.h"

static void compact_document(void **state)
{
    (void)state;
    vn_buf b;
    vn_buf_init(&b, 0);
    vn__json j;
    vn__json_init(&j, &b, 0);
    vn__json_obj_begin(&j, NULL);
    vn__json_str(&j, "s", "a\"b\\c\n\x01");
    vn__json_num(&j, "pi", 3.25);
    vn__json_num(&j, "nan", NAN);
    vn__json_num(&j, "inf", INFINITY);
    vn__json_int(&j, "neg", -42);
    vn__json_uint(&j, "big", 18446744073709551615ull);
    vn__json_bool(&j, "t", 1);
    vn__json_bool(&j, "f", 0);
    vn__json_bool(&j, "u", -1);
    vn__json_str(&j, "null", NULL);
    vn__json_arr_begin(&j, "a");
    vn__json_int(&j, NULL, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_obj_end(&j);
    vn__json_arr_begin(&j, NULL);
    vn__json_arr_end(&j);
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    assert_int_equal(vn__json_finish(&j), 0);
    assert_string_equal(b.data,
                        "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"pi\":3.25,\"nan\":null,\"inf\":null,"
                        "\"neg\":-42,\"big\":18446744073709551615,\"t\":true,\"f\":false,"
                        "\"u\":null,\"null\":null,\"a\":[1,{},[]]}");
    vn_buf_free(&b);
}

static void strings_are_always_utf8(void **state)
{
    (void)state;
    vn_buf b;
    vn_buf_init(&b, 0);
    vn__json j;
    vn__json_init(&j, &b, 0);
    /* Valid sequences of 2, 3 and 4 bytes pass whole; a Latin-1 byte, a
     * stray continuation byte, an overlong '/', a surrogate, a sequence cut
     * by the end, and a code point past U+10FFFF each become U+FFFD. */
    vn__json_str(&j, NULL, "gr\xc3\xb6\xc3\x9f" "e/\xe6\x97\xa5/\xf0\x9f\x98\x80|"
                           "\xe9|\x80|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe6\x97");
    assert_int_equal(vn__json_finish(&j), 0);
    assert_string_equal(b.data, "\"gr\xc3\xb6\xc3\x9f" "e/\xe6\x97\xa5/\xf0\x9f\x98\x80|"
                                "\\ufffd|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
                                "\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\"");
    vn_buf_free(&b);
}

static void text_for_a_terminal(void **state)
{
    (void)state;
    char s[64];
    /* Control characters, C1 controls and bytes that are not UTF-8 become
     * '?'; the rest is kept, and a sequence that does not fit is left out
     * whole rather than cut. */
    assert_string_equal(vn__fmt_printable(s, sizeof s, "a\nb\x1b[31mc\x7f\xc2\x85\xe9" "d\xc3\xb6"),
                        "a?b?[31mc???d\xc3\xb6");
    assert_string_equal(vn__fmt_printable(s, 4, "ab\xc3\xb6"), "ab");
    assert_string_equal(vn__fmt_printable(s, 5, "ab\xc3\xb6"), "ab\xc3\xb6");
    /* Columns: 1 a letter, 2 a CJK ideograph or an emoji, 0 a combining
     * accent, 1 an invalid byte (shown as '?'). */
    assert_int_equal(vn__text_width("sort/gr\xc3\xb6\xc3\x9f" "e"), 10);
    assert_int_equal(vn__text_width("\xe6\x97\xa5\xe6\x9c\xac"), 4);
    assert_int_equal(vn__text_width("\xf0\x9f\x98\x80"), 2);
    assert_int_equal(vn__text_width("e\xcc\x81"), 1);
    assert_int_equal(vn__text_width("\xff\xfe"), 2);
    assert_int_equal(vn__text_width("\033[1;33mab\033[0m c"), 4);
    assert_int_equal(vn__text_width("\033]x"), 3); /* not a color: ESC, ] and x */
    unsigned cp;
    assert_int_equal(vn__utf8_decode("\xf4\x8f\xbf\xbf", &cp), 4);
    assert_int_equal(cp, 0x10ffff);
    assert_int_equal(vn__utf8_decode("\xe0\x80\x80", &cp), 0); /* overlong */
}

/* Text wrapped for a screen: no line past the width but a word longer than
 * a line, the later lines indented, every word kept in its order, and a
 * wide character counted by its columns. */
static void wrapped_text(void **state)
{
    (void)state;
    static const char *text = "one two three four five six seven eight nine ten eleven "
                              "twelve \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e "
                              "averyveryverylongwordthatdoesnotfit end";
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn__wrap(&b, "  lead: ", 4, 24, text), 0);
    assert_non_null(b.data);
    assert_true(!strncmp(b.data, "  lead: one two three", 21));
    assert_int_equal(b.data[b.len - 1], '\n');
    char joined[512] = "";
    size_t lines = 0;
    for (char *save = NULL, *l = strtok_r(b.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        lines++;
        if (lines > 1) {
            assert_true(!strncmp(l, "    ", 4) && l[4] != ' ');
            strcat(joined, " ");
        }
        assert_true(vn__text_width(l) <= 24 || !strchr(l + 4, ' '));
        strcat(joined, l + (lines > 1 ? 4 : 8));
    }
    assert_true(lines >= 5);
    assert_string_equal(joined, text);
    vn_buf_free(&b);
    /* Columns, not bytes: three wide characters take 6 of 9 columns. */
    vn_buf_init(&b, 0);
    assert_int_equal(vn__wrap(&b, "", 0, 9, "ab \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), 0);
    assert_string_equal(b.data, "ab \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\n");
    vn_buf_free(&b);
    /* Nothing to wrap: the lead and the end of the line. */
    vn_buf_init(&b, 0);
    assert_int_equal(vn__wrap(&b, "x ", 2, 10, ""), 0);
    assert_string_equal(b.data, "x \n");
    vn_buf_free(&b);
}

static void percentages_in_sentences(void **state)
{
    (void)state;
    char s[32];
    assert_string_equal(vn__fmt_pct(s, sizeof s, 246.3), "246%");
    assert_string_equal(vn__fmt_pct(s, sizeof s, 2.54), "2.5%");
    assert_string_equal(vn__fmt_pct(s, sizeof s, 0.0123), "0.012%");
    assert_string_equal(vn__fmt_pct(s, sizeof s, 0.0004), "<0.001%");
    assert_string_equal(vn__fmt_pct(s, sizeof s, 0), "0%");
    assert_string_equal(vn__fmt_pct(s, sizeof s, NAN), "-");
}

static void pretty_document(void **state)
{
    (void)state;
    vn_buf b;
    vn_buf_init(&b, 0);
    vn__json j;
    vn__json_init(&j, &b, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_arr_begin(&j, "x");
    vn__json_int(&j, NULL, 1);
    vn__json_int(&j, NULL, 2);
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    assert_int_equal(vn__json_finish(&j), 0);
    assert_string_equal(b.data, "{\n  \"x\": [\n    1,\n    2\n  ]\n}\n");
    vn_buf_free(&b);
}

static void numbers_round_trip(void **state)
{
    (void)state;
    const double vals[] = {0.1, 1.0 / 3.0, 2596097975.592, 1e-300, -123456789.125, 1e21};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        vn_buf b;
        vn_buf_init(&b, 0);
        vn__json j;
        vn__json_init(&j, &b, 0);
        vn__json_num(&j, NULL, vals[i]);
        assert_int_equal(vn__json_finish(&j), 0);
        assert_true(strtod(b.data, NULL) == vals[i]);
        vn_buf_free(&b);
    }
}

static void unbalanced_is_an_error(void **state)
{
    (void)state;
    vn_buf b;
    vn_buf_init(&b, 0);
    vn__json j;
    vn__json_init(&j, &b, 0);
    vn__json_obj_begin(&j, NULL);
    assert_int_equal(vn__json_finish(&j), VN_EINVAL);
    vn__json_init(&j, &b, 0);
    vn__json_arr_end(&j);
    assert_int_equal(vn__json_finish(&j), VN_EINVAL);
    vn_buf_free(&b);
}

static void buffer_maximum_is_enforced(void **state)
{
    (void)state;
    vn_buf b;
    vn_buf_init(&b, 10);
    assert_int_equal(vn_buf_puts(&b, "0123456789"), 0);
    assert_int_equal(vn_buf_puts(&b, "x"), VN_ENOMEM);
    assert_int_equal(b.len, 10);
    assert_string_equal(b.data, "0123456789");
    vn_buf_reset(&b);
    assert_int_equal(vn_buf_printf(&b, "%d-%s", 42, "abcdefghijk"), VN_ENOMEM);
    assert_int_equal(vn_buf_printf(&b, "%d-%s", 42, "ab"), 0);
    assert_string_equal(b.data, "42-ab");
    vn_buf_free(&b);
    /* A long formatted string goes through the slow path. */
    vn_buf_init(&b, 0);
    char big[1000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(vn_buf_printf(&b, "<%s>", big), 0);
    assert_int_equal(b.len, 1001);
    assert_int_equal(b.data[1000], '>');
    vn_buf_free(&b);
    /* No limit at all (the largest size): growing must not wrap around. */
    for (size_t max = (size_t)-1 / 4; max; max = max == (size_t)-1 ? 0 : (size_t)-1) {
        vn_buf_init(&b, max);
        for (int i = 0; i < 100; i++)
            assert_int_equal(vn_buf_puts(&b, big), 0);
        assert_int_equal(b.len, 99900);
        assert_true(b.cap > b.len);
        vn_buf_free(&b);
    }
}

static int count_tmp(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '\\.tmp\\.' || true", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static void atomic_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/vn-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    assert_int_equal(vn_write_file_atomic(path, "old", 3), 0);
    assert_int_equal(vn_write_file_atomic(path, "{\"new\":1}", 9), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char got[32] = {0};
    assert_int_equal(fread(got, 1, sizeof got - 1, f), 9);
    fclose(f);
    assert_string_equal(got, "{\"new\":1}");
    assert_int_equal(count_tmp(dir), 0);
    /* A file replaced keeps its mode (0604: neither the temporary file's
     * 0600 nor what a umask gives), but never set-user-ID or set-group-ID:
     * the new file belongs to whoever wrote it. A new one gets the umask's. */
    struct stat st;
    static const mode_t before[] = {0604, 06755}, after[] = {0604, 0755};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(chmod(path, before[i]), 0);
        assert_int_equal(vn_write_file_atomic(path, "again", 5), 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, after[i]);
    }
    char fresh[300];
    snprintf(fresh, sizeof fresh, "%s/new.json", dir);
    mode_t um = umask(027);
    int rc = vn_write_file_atomic(fresh, "x", 1);
    umask(um);
    assert_int_equal(rc, 0);
    assert_int_equal(stat(fresh, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    unlink(fresh);

    char bad[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.json", dir);
    assert_int_equal(vn_write_file_atomic(bad, "x", 1), -ENOENT);
    assert_int_equal(vn_write_file_atomic("", "x", 1), VN_EINVAL);
    assert_int_equal(count_tmp(dir), 0);
    unlink(path);
    rmdir(dir);
}

/* Standard output under another name (/dev/stdout, or the file it was
 * redirected to) is written through descriptor 1, never renamed over: the
 * check before a run must not ask the file's directory for a temporary file
 * either. /proc/version stands for a file in a directory that takes none. */
static void output_check_of_standard_output(void **state)
{
    (void)state;
    assert_int_equal(vn__output_check("/proc/version"), -ENOENT);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), fd = open("/proc/version", O_RDONLY);
    assert_true(saved >= 0 && fd >= 0);
    assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
    int via_dev = vn__output_check("/dev/stdout"), via_name = vn__output_check("/proc/version");
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(fd);
    assert_int_equal(via_dev, 0);
    assert_int_equal(via_name, 0);
}

/* The fix in a write error: what follows the errno's text. */
static const char *fix_of(const char *m)
{
    const char *semi = strstr(m, "; ");
    return semi ? semi + 2 : "";
}

/* What to do follows from why a results file could not be written: each
 * error names the path and the errno's own text, on one line, then a fix
 * of its own. */
static void write_errors_say_what_to_do(void **state)
{
    (void)state;
    char m[VN__WRITE_ERROR_MAX], quoted[64];
    const char *path[] = {"/tmp", "x", "x", "/no/such"};
    const int code[] = {-EISDIR, -ENAMETOOLONG, -ENOSPC, -ENOENT};
    enum { N = sizeof code / sizeof code[0] };
    char fix[N][VN__WRITE_ERROR_MAX];
    for (size_t i = 0; i < N; i++) {
        vn__write_error(m, sizeof m, path[i], code[i]);
        snprintf(quoted, sizeof quoted, "'%s'", path[i]);
        assert_non_null(strstr(m, quoted));
        assert_non_null(strstr(m, vn_strerror(code[i])));
        assert_null(strchr(m, '\n'));
        snprintf(fix[i], sizeof fix[i], "%s", fix_of(m));
        assert_true(fix[i][0] != '\0');
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(fix[i], fix[k]);
    }
    /* A full quota is a full disk. */
    vn__write_error(m, sizeof m, "x", -EDQUOT);
    assert_string_equal(fix_of(m), fix[2]);
    /* A name too long: by how much vernier lengthens it while writing. */
    assert_non_null(strstr(fix[1], "22"));
    /* A directory that takes no new files (as /proc): named. */
    vn__write_error(m, sizeof m, "/proc/vn-results.json", -ENOENT);
    assert_non_null(strstr(m, "'/proc'"));
    /* A FIFO is written in place: its directory does not matter. */
    char dir[] = "/tmp/vn-test-XXXXXX", fifo[64];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/f", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    vn__write_error(m, sizeof m, fifo, -EACCES);
    assert_non_null(strstr(m, vn_strerror(-EACCES)));
    assert_null(strstr(fix_of(m), "directory"));
    snprintf(fix[0], sizeof fix[0], "%s", fix_of(m));
    vn__write_error(m, sizeof m, "/no/such", -EACCES);
    assert_string_not_equal(fix_of(m), fix[0]);
    unlink(fifo);
    rmdir(dir);
}

static void error_strings(void **state)
{
    (void)state;
    assert_string_equal(vn_strerror(0), "success");
    /* vernier's codes are negative errnos: the system's text. */
    assert_string_equal(vn_strerror(VN_ENOENT), strerror(ENOENT));
    /* Any other code: one text, never NULL. */
    assert_true(vn_strerror(12345)[0] != '\0');
    assert_string_equal(vn_strerror(12345), vn_strerror(-99999));
    assert_string_not_equal(vn_strerror(12345), vn_strerror(0));
    assert_string_equal(vn_version(), VN_VERSION_STRING);
    /* The three numbers and the string are written out separately. */
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", VN_VERSION_MAJOR, VN_VERSION_MINOR, VN_VERSION_PATCH);
    assert_string_equal(v, VN_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compact_document),    cmocka_unit_test(pretty_document),
        cmocka_unit_test(numbers_round_trip),  cmocka_unit_test(unbalanced_is_an_error),
        cmocka_unit_test(buffer_maximum_is_enforced), cmocka_unit_test(atomic_write),
        cmocka_unit_test(output_check_of_standard_output),
        cmocka_unit_test(write_errors_say_what_to_do),
        cmocka_unit_test(error_strings),       cmocka_unit_test(strings_are_always_utf8),
        cmocka_unit_test(text_for_a_terminal), cmocka_unit_test(percentages_in_sentences),
        cmocka_unit_test(wrapped_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
