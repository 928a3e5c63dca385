/* The parser behind `vernier stats`: numbers one per line or one column of
 * a table, comments, headers, and errors that name the line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parse/numbers_parse.h"

/* Parses a NUL-terminated text; returns the code and leaves values in *v. */
static int parse(const char *text, size_t column, double **v, size_t *n, vn__numbers_error *e)
{
    return vn__parse_numbers(text, strlen(text), column, v, n, e);
}

static void one_per_line(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    assert_int_equal(parse("# latency in ns\n\n 12\n-1.5e3\r\n0x10\n  +7  \n\n# end\n4", 0, &v, &n, &e), 0);
    assert_int_equal(n, 5);
    assert_true(v[0] == 12 && v[1] == -1500 && v[2] == 16 && v[3] == 7 && v[4] == 4);
    free(v);
    /* No numbers at all is not an error here: the caller decides. */
    assert_int_equal(parse("# nothing\n\n   \n", 0, &v, &n, &e), 0);
    assert_int_equal(n, 0);
    assert_null(v);
    assert_int_equal(vn__parse_numbers(NULL, 0, 0, &v, &n, &e), 0);
    assert_int_equal(n, 0);
}

static void errors_name_the_line(void **state)
{
    (void)state;
    double *v = (double *)&v;
    size_t n = 99;
    vn__numbers_error e;
    char msg[160];
    assert_int_equal(parse("1\n2\n\n# c\n3\n4\nabc\n5\n", 0, &v, &n, &e), VN_EINVAL);
    assert_null(v);
    assert_int_equal(e.kind, VN__NUM_NOT_A_NUMBER);
    assert_int_equal(e.line, 7);
    assert_string_equal(e.token, "abc");
    /* The golden of these messages: one compared whole, the others by what
     * they name. */
    assert_string_equal(vn__numbers_strerror(&e, 0, msg, sizeof msg),
                        "line 7: 'abc' is not a number; give one number per line ('#' starts "
                        "a comment)");
    /* Reading a column, the line may hold other columns: choose another. */
    assert_null(strstr(msg, "--column"));
    assert_non_null(strstr(vn__numbers_strerror(&e, 2, msg, sizeof msg), "--column"));
    /* A header line is only a header in column mode. */
    assert_int_equal(parse("value\n1\n", 0, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.line, 1);
    /* Two numbers on a line, or trailing junk, are not a number. */
    assert_int_equal(parse("1\n2 3\n", 0, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(vn__numbers_strerror(&e, 0, msg, sizeof msg), "--column"));
    assert_int_equal(parse("1.5ms\n", 0, &v, &n, &e), VN_EINVAL);
    assert_string_equal(e.token, "1.5ms");
}

static void a_byte_order_mark_is_not_data(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    /* With a column, the first line's number must not pass for a header. */
    assert_int_equal(parse("\xef\xbb\xbf" "100,1\n2,2\n", 1, &v, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_true(v[0] == 100 && v[1] == 2);
    free(v);
    assert_int_equal(parse("\xef\xbb\xbf" "7\n", 0, &v, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_true(v[0] == 7);
    free(v);
}

static void non_finite_is_an_error(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    const char *bad[] = {"1\nnan\n", "1\ninf\n", "1\n-Infinity\n", "1\n1e999\n", "1\nNAN(123)\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(bad[i], 0, &v, &n, &e), VN_EINVAL);
        assert_int_equal(e.kind, VN__NUM_NOT_FINITE);
        assert_int_equal(e.line, 2);
    }
    /* A tiny number a double holds (a subnormal) is read, ... */
    assert_int_equal(parse("1e-310\n0e-999\n", 0, &v, &n, &e), 0);
    assert_true(n == 2 && v[0] > 0.99e-310 && v[0] < 1.01e-310 && v[1] == 0);
    free(v);
    /* ... one that would round to 0 is an error, as one that would round to
     * infinity is: the value read would not be the value written. */
    char msg[200];
    assert_int_equal(parse("1\n1e-400\n", 0, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_TOO_SMALL);
    assert_int_equal(e.line, 2);
    vn__numbers_strerror(&e, 0, msg, sizeof msg);
    assert_non_null(strstr(msg, "'1e-400'"));
    assert_non_null(strstr(msg, "line 2"));
    /* A number of a thousand digits is a number. */
    char longnum[1600] = "1.";
    memset(longnum + 2, '0', 1500);
    strcpy(longnum + 1502, "1\n");
    assert_int_equal(parse(longnum, 0, &v, &n, &e), 0);
    assert_true(n == 1 && v[0] == 1);
    free(v);
}

static void csv_records_span_lines_in_quotes(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    /* vernier's own CSV quotes a name holding a line break, as RFC 4180
     * allows: its record goes on to the next line. */
    const char *csv = "name,value\n\"new\nline\",5\nb,6\n\"c \"\"q\"\"\n\n\",7\nd,x\n";
    assert_int_equal(parse(csv, 2, &v, &n, &e), VN_EINVAL);
    /* The error names the line its record starts on, counting the breaks
     * inside quotes. */
    assert_int_equal(e.line, 8);
    assert_string_equal(e.token, "x");
    char ok[64];
    snprintf(ok, sizeof ok, "%.*s", (int)(strstr(csv, "d,x") - csv), csv);
    assert_int_equal(parse(ok, 2, &v, &n, &e), 0);
    assert_true(n == 3 && v[0] == 5 && v[1] == 6 && v[2] == 7);
    free(v);
    /* A quote never closed is named on the line it opened, shown by that
     * line, whichever column is read: it would swallow every line after it.
     * In the header too. */
    assert_int_equal(parse("a,1\n\"x\ny,2\n", 2, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_BAD_QUOTE);
    assert_int_equal(e.line, 2);
    assert_string_equal(e.token, "\"x");
    assert_int_equal(parse("a,b\n1,\"x\n2,3\n4,5\n", 1, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_BAD_QUOTE);
    assert_int_equal(e.line, 2);
    assert_int_equal(parse("name,\"value\n1,2\n3,4\n", 1, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_BAD_QUOTE);
    assert_int_equal(e.line, 1);
    /* A quoted number longer than any stack copy is still a number. */
    char big[1600] = "a,b\n\"";
    size_t at = strlen(big);
    memset(big + at, '0', 1500);
    strcpy(big + at + 1500, "7\",2\n");
    assert_int_equal(parse(big, 1, &v, &n, &e), 0);
    assert_true(n == 1 && v[0] == 7);
    free(v);
    /* Windows line ends, with one inside a quoted field too. */
    assert_int_equal(parse("name,value\r\n\"a\r\nb\",5\r\nc,6\r\n", 2, &v, &n, &e), 0);
    assert_true(n == 2 && v[0] == 5 && v[1] == 6);
    free(v);
    /* A quote inside an unquoted field is an ordinary character. */
    assert_int_equal(parse("a,1\nb\"c,2\nd,3\n", 2, &v, &n, &e), 0);
    assert_true(n == 3 && v[2] == 3);
    free(v);
}

static void hints_say_what_to_do(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    char msg[200];
    const char *tr = "tr '\\r' '\\n'"; /* the command that converts lines ended by '\r' */
    /* A decimal comma: write '.', unless the comma separates columns. */
    assert_int_equal(parse("1,5\n", 0, &v, &n, &e), VN_EINVAL);
    vn__numbers_strerror(&e, 0, msg, sizeof msg);
    assert_non_null(strstr(msg, "'1,5'"));
    assert_non_null(strstr(msg, "'.'"));
    assert_non_null(strstr(msg, "--column"));
    /* Several commas: columns, and no decimal point to suggest. */
    assert_int_equal(parse("1,5,7\n", 0, &v, &n, &e), VN_EINVAL);
    vn__numbers_strerror(&e, 0, msg, sizeof msg);
    assert_non_null(strstr(msg, "--column N"));
    assert_null(strstr(msg, "'.'"));
    /* A comment after a number: where '#' starts one, not --column,
     * although the line has blanks. */
    assert_int_equal(parse("2 # fast run\n", 0, &v, &n, &e), VN_EINVAL);
    vn__numbers_strerror(&e, 0, msg, sizeof msg);
    assert_non_null(strstr(msg, "'#'"));
    assert_null(strstr(msg, "--column"));
    /* A NUL byte: binary, not text, even where carriage returns end the
     * lines (as they seem to in many binary files). */
    assert_int_equal(vn__parse_numbers("1\n2\n\0\r\x7f\r", 6, 0, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_BINARY);
    assert_int_equal(e.line, 3);
    vn__numbers_strerror(&e, 0, msg, sizeof msg);
    assert_non_null(strstr(msg, "line 3"));
    assert_null(strstr(msg, tr));
    assert_null(strchr(msg, '\n'));
    assert_int_equal(vn__parse_numbers("1\n2\n\0\r\x7f\r", 6, 1, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_BINARY);
    /* Lines ended by a carriage return alone, in every mode. */
    assert_int_equal(parse("1\r2\r3\r", 0, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_LONE_CR);
    assert_non_null(strstr(vn__numbers_strerror(&e, 0, msg, sizeof msg), tr));
    assert_int_equal(parse("1,2\r3,4\r", 1, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_LONE_CR);
    assert_int_equal(parse("1 2\r3 4\r", 2, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_LONE_CR);
    /* A line with one inside, in a file of '\n' lines, gets the hint; a
     * quoted field holding a Windows line break does not. */
    assert_int_equal(parse("1\n2\r3\n", 0, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.lone_cr, 1);
    assert_non_null(strstr(vn__numbers_strerror(&e, 0, msg, sizeof msg), tr));
    assert_int_equal(parse("n,v\r\n\"a\",5\r\n\"c\",\"1\r\n2\"\r\n", 2, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.line, 3);
    assert_int_equal(e.lone_cr, 0);
    assert_null(strstr(vn__numbers_strerror(&e, 2, msg, sizeof msg), tr));
    assert_int_equal(parse("1\r\n2\r\n", 0, &v, &n, &e), 0);
    assert_true(n == 2 && v[1] == 2);
    free(v);
}

static void csv_columns(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    const char *csv = "# run 3\n"
                      "name,\"time, ns\",cycles\n"
                      "a, 10.5 ,100\n"
                      "\"b,c\",\"11\",101\n"
                      "\n"
                      "d,12,102\r\n";
    assert_int_equal(parse(csv, 2, &v, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_true(v[0] == 10.5 && v[1] == 11 && v[2] == 12);
    free(v);
    assert_int_equal(parse(csv, 3, &v, &n, &e), 0);
    assert_true(n == 3 && v[0] == 100 && v[2] == 102);
    free(v);
    /* Column 1 holds names: the first is taken for a header, the second is
     * an error on its line. */
    assert_int_equal(parse(csv, 1, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.line, 3);
    assert_string_equal(e.token, "a");
    /* A missing field. */
    assert_int_equal(parse(csv, 4, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_NO_FIELD);
    assert_int_equal(e.line, 2);
    assert_int_equal(e.fields, 3);
    /* A header only on the first line: a later word is an error. */
    assert_int_equal(parse("t\n1\nt\n", 1, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.line, 3);
    /* No header when the first line is numeric. */
    assert_int_equal(parse("1,2\n3,4\n", 2, &v, &n, &e), 0);
    assert_true(n == 2 && v[0] == 2 && v[1] == 4);
    free(v);
    /* Quotes: "" is a quote inside, text after the closing quote spoils
     * the field, and a quote left open is an error of its own. */
    assert_int_equal(parse("x,y\n\"1\"\"\",2\n", 1, &v, &n, &e), VN_EINVAL);
    assert_string_equal(e.token, "1\"");
    assert_int_equal(parse("x,y\n\"1\"2,3\n", 1, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_NOT_A_NUMBER);
    assert_int_equal(parse("x,y\n\"1,3\n", 2, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_BAD_QUOTE);
}

static void whitespace_columns(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    /* No comma on the first line: fields are runs of blanks, as awk reads. */
    const char *t = "run   time\tcycles\n1  2.5\t  30\n\t2 3.5 31\n";
    assert_int_equal(parse(t, 2, &v, &n, &e), 0);
    assert_true(n == 2 && v[0] == 2.5 && v[1] == 3.5);
    free(v);
    assert_int_equal(parse(t, 4, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_NO_FIELD);
    assert_int_equal(e.line, 1);
}

static void odd_bytes(void **state)
{
    (void)state;
    double *v;
    size_t n;
    vn__numbers_error e;
    /* A NUL inside a line is not the end of the text: it makes it binary. */
    const char t[] = "1\n2\0003\n4\n";
    assert_int_equal(vn__parse_numbers(t, sizeof t - 1, 0, &v, &n, &e), VN_EINVAL);
    assert_int_equal(e.kind, VN__NUM_BINARY);
    assert_int_equal(e.line, 2);
    /* Long tokens are shortened in the message, control bytes shown as '?'. */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[5] = '\033';
    assert_int_equal(parse(big, 0, &v, &n, &e), VN_EINVAL);
    assert_true(strlen(e.token) < sizeof e.token);
    assert_non_null(strstr(e.token, "..."));
    assert_null(strchr(e.token, '\033'));
    /* The text need not end with a newline, nor be NUL-terminated. */
    const char u[] = {'4', '2', '\n', '7'};
    assert_int_equal(vn__parse_numbers(u, sizeof u, 0, &v, &n, &e), 0);
    assert_true(n == 2 && v[0] == 42 && v[1] == 7);
    free(v);
}

static void many_numbers(void **state)
{
    (void)state;
    size_t count = 100000;
    char *t = malloc(count * 8 + 1), *p = t;
    for (size_t i = 0; i < count; i++)
        p += sprintf(p, "%zu\n", i % 1000);
    double *v;
    size_t n;
    vn__numbers_error e;
    assert_int_equal(vn__parse_numbers(t, (size_t)(p - t), 0, &v, &n, &e), 0);
    assert_int_equal(n, count);
    assert_true(v[count - 1] == (double)((count - 1) % 1000));
    free(v);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_per_line),      cmocka_unit_test(errors_name_the_line),
        cmocka_unit_test(non_finite_is_an_error), cmocka_unit_test(a_byte_order_mark_is_not_data),
        cmocka_unit_test(csv_columns),       cmocka_unit_test(csv_records_span_lines_in_quotes),
        cmocka_unit_test(hints_say_what_to_do),
        cmocka_unit_test(whitespace_columns), cmocka_unit_test(odd_bytes),
        cmocka_unit_test(many_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
