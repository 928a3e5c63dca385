"""The C++ layer (include/vernier.hpp): the example built with the project,
and programs built here with g++ and clang++ in every standard from C++11,
under the warnings a strict C++ project turns on, run for real with short
budgets and their JSON checked."""
import errno
import json
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, SOURCE, one_line, table_row, validate
from test_engine_cli import QUICK, compile_program, link_libs, results, run_ex

STRICT = ["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wold-style-cast",
          "-Wzero-as-null-pointer-constant"]
STANDARDS = ("c++11", "c++14", "c++17", "c++20")


def compilers():
    found = [c for c in ("g++", "clang++") if shutil.which(c)]
    if not found:
        pytest.skip("no C++ compiler: scripts/install-deps installs g++ and clang")
    return found


def build_cpp(tmp_path, source, cxx, std, extra=()):
    src = tmp_path / "prog.cc"
    src.write_text(source)
    exe = tmp_path / f"prog-{cxx}-{std}"
    p = subprocess.run([cxx, f"-std={std}", "-O2", *STRICT, *extra, "-I", str(SOURCE / "include"),
                        str(src), str(BUILD / "libvernier.a"), *link_libs(), "-o", str(exe)],
                       capture_output=True, text=True)
    assert p.returncode == 0, f"{cxx} -std={std}:\n{p.stderr}"
    return exe


def test_the_example_runs_its_lambdas():
    d, _ = results("cpp_example")
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert sorted(rows) == ["count_spaces", "map_find/keys=4096", "map_find/keys=64", "vector_sum",
                            "vector_sum_n/ints=4096", "vector_sum_n/ints=512", "vector_sum_n/ints=64"]
    for r in rows.values():
        assert r["error"] is None and r["stats"]["median"] > 0, r["name"]
    # The lambda's own copy of the text gives the bytes of an iteration.
    assert rows["count_spaces"]["throughput"]["bytes_per_iter"] == 16 * len(
        "the quick brown fox jumps over the lazy dog. ")
    for n in (64, 512, 4096):
        r = rows[f"vector_sum_n/ints={n}"]
        assert r["params"] == {"ints": n} and r["throughput"]["items_per_iter"] == n
    # The setup filled the map the benchmark captured by reference: a key
    # missing from it would have failed the row.
    for n in (64, 4096):
        assert rows[f"map_find/keys={n}"]["params"] == {"keys": n}
    # The larger map is slower to search, so each row saw its own map.
    assert rows["map_find/keys=4096"]["stats"]["median"] > rows["map_find/keys=64"]["stats"]["median"]
    # .baseline(): the map's rows against the smallest, and no other row.
    big = rows["map_find/keys=4096"]["baseline"]
    assert big["name"] == "map_find/keys=64" and big["ratio"] > 1
    assert rows["map_find/keys=64"]["baseline"]["ratio"] == 1
    assert sorted(n for n, r in rows.items() if r["baseline"]) == ["map_find/keys=4096", "map_find/keys=64"]


PROGRAM = r"""
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <vernier.hpp>

// A C benchmark next to the C++ ones: vernier::main runs both.
static void c_style(vn_state *st)
{
    unsigned x = 1;
    while (vn_next(st)) {
        x = x * 3 + 1;
        vn_keep(x);
    }
}
VN_BENCH(c_style);

static auto &doubling = vernier::bench("doubling", [](vernier::state &st) {
    unsigned long x = 1;
    for (auto _ : st) {
        x += x;
        vernier::keep(x);
    }
});

// A move-only callable (C++11 has no init-capture).
struct owner {
    std::unique_ptr<int> items;
    explicit owner(std::unique_ptr<int> p) : items(std::move(p)) {}
    void operator()(vernier::state &st) const
    {
        st.set_items(*items);
        while (st.next())
            vernier::keep(*items);
    }
};
static auto &move_only = vernier::bench("move_only", owner(std::unique_ptr<int>(new int(7))));

static auto &throws = vernier::bench("throws", [](vernier::state &st) {
    for (auto _ : st)
        throw std::runtime_error("the parser gave up");
});
static auto &throws_int = vernier::bench("throws_int", [](vernier::state &) { throw 42; });
static void nothing(vernier::state &st) { while (st.next()) vernier::clobber(); }
static auto &setup_throws = vernier::bench("setup_throws", nothing)
    .setup([](vernier::state &) { throw std::invalid_argument("no input file"); });

static auto &skips = vernier::bench("skips", [](vernier::state &st) { st.skip("no such device"); });
// Each call of the body is one iteration (fixed), timed by the body itself:
// 250 ns reported whatever the clock says.
static auto &manual = vernier::bench("manual", [](vernier::state &st) {
    for (auto _ : st)
        vernier::clobber();
    st.set_time(250.0 * static_cast<double>(st.iterations()));
}).iterations(1).manual_time();

struct pair { long a, b; };

int main(int argc, char **argv)
{
    long calls = 0;
    std::vector<std::int64_t> setups;
    std::string word = "vernier";
    vernier::bench("captured", [&calls, word](vernier::state &st) {
        calls++;
        st.set_bytes(static_cast<double>(word.size()));
        pair p = {1, 2};
        for (auto _ : st) {
            p.a += p.b;
            vernier::keep(p);
        }
    })
        .param("k", {3, 5})
        .setup([&setups](vernier::state &st) { setups.push_back(st.param()); })
        .max_time(0.05);
    int rc = vernier::main(argc, argv);
    long k3 = 0, k5 = 0;
    for (std::int64_t k : setups)
        (k == 3 ? k3 : k5)++;
    std::fprintf(stderr, "calls %ld setups k=3 %ld k=5 %ld\n", calls, k3, k5);
    return rc;
}
"""


def test_lambdas_options_and_exceptions_in_every_standard(tmp_path):
    built = []
    for cxx in compilers():
        for std in STANDARDS:
            built.append(build_cpp(tmp_path, PROGRAM, cxx, std))
    # The oldest standard and the newest, each from another compiler where
    # there are two.
    for exe in {built[0], built[-1]}:
        p = subprocess.run([str(exe), *QUICK, "--json", "-"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 1, p.stderr  # a benchmark failed, as in C
        d = json.loads(p.stdout)
        validate(d, "results-1.json")
        rows = {b["name"]: b for b in d["benchmarks"]}
        assert list(rows) == ["c_style", "doubling", "move_only", "throws", "throws_int",
                              "setup_throws", "skips", "manual", "captured/k=3", "captured/k=5"]
        assert rows["manual"]["stats"]["median"] == 250 and rows["manual"]["iters"] == 1
        for name in ("c_style", "doubling", "move_only", "captured/k=3", "captured/k=5"):
            assert rows[name]["error"] is None and rows[name]["stats"]["median"] > 0, name
        # The program's own messages (st.skip(), what() of the exceptions), carried
        # unchanged: their words are the subject.
        assert [rows[n]["error"] for n in ("skips", "throws", "setup_throws")] == \
            ["no such device", "the parser gave up", "no input file"]
        assert [rows[n]["stop"] for n in ("skips", "throws", "throws_int", "setup_throws")] == \
            ["skipped", "failed", "failed", "failed"]
        # An exception of no std::exception type still fails its row with a reason that says so.
        assert "std::exception" in rows["throws_int"]["error"]
        # The table's row of each says its stop and the message.
        for name in ("skips", "throws"):
            row = table_row(p.stderr, name)
            assert rows[name]["stop"] in row and rows[name]["error"] in row, row
        assert rows["move_only"]["throughput"]["items_per_iter"] == 7
        assert rows["captured/k=5"]["throughput"]["bytes_per_iter"] == len("vernier")
        assert rows["captured/k=3"]["params"] == {"k": 3}
        assert rows["captured/k=5"]["settings"]["max_time"] == 0.05
        assert rows["doubling"]["settings"]["max_time"] == 0.2
        # State captured by reference is the program's own: measured in this
        # process alone, the body was called once per sample at least, and
        # the setup once per sample of its own row with that row's
        # parameter. (Over processes those calls are the workers'; the
        # program's code after main's suite runs once, here.)
        p = subprocess.run([str(exe), *QUICK, "--processes", "1", "--json", "-"], capture_output=True,
                           text=True, timeout=120)
        rows = {b["name"]: b for b in json.loads(p.stdout)["benchmarks"]}
        m = re.search(r"calls (\d+) setups k=3 (\d+) k=5 (\d+)", p.stderr)
        assert m, p.stderr
        calls, k3, k5 = map(int, m.groups())
        n3, n5 = (len(rows[f"captured/k={k}"]["samples"]) for k in (3, 5))
        assert calls >= n3 + n5 and k3 >= n3 and k5 >= n5


REFUSED = r"""
#include <vernier.hpp>
int main(int argc, char **argv)
{
    vernier::suite s;
    auto body = [](vernier::state &st) { while (st.next()) vernier::clobber(); };
    s.add("fine", body);
    s.add(%s, body)%s;
    return s.main(argc, argv);
}
"""


STRERROR = r"""
#include <stdio.h>
#include <stdlib.h>
#include <vernier.h>
int main(int argc, char **argv) { for (int i = 1; i < argc; i++) puts(vn_strerror(atoi(argv[i]))); return 0; }
"""


def library_message(tmp_path, code):
    """The library's message for an error code (vn_strerror), from this
    build: the message of a refusal is checked by the code it carries."""
    d = tmp_path / "strerror"
    d.mkdir(exist_ok=True)
    exe = compile_program(d, STRERROR)
    return subprocess.run([str(exe), str(code)], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("name, options, code", [
    ('"fine"', "", -errno.EEXIST),  # VN_EEXIST
    ('"empty_list"', '.param("n", {})', -errno.EINVAL),  # VN_EINVAL
    ('"empty_name"', '.range("", 1, 8)', -errno.EINVAL),
])
def test_what_the_engine_refuses_is_a_usage_error(tmp_path, name, options, code):
    exe = build_cpp(tmp_path, REFUSED % (name, options), compilers()[0], "c++11")
    out = tmp_path / "r.json"
    p = subprocess.run([str(exe), "--quiet", "--json", str(out)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2
    # One line naming the benchmark, with the reason vn_suite_add() returned.
    line = one_line(p.stderr)
    assert f"{name.strip(chr(34))!r}" in line and library_message(tmp_path, code) in line, line
    assert not out.exists()


def test_the_example_builds_without_exceptions(tmp_path):
    # Without exceptions there is nothing to catch, and the header must
    # still build (-fno-exceptions is common in code that is timed).
    for cxx in compilers():
        build_cpp(tmp_path, (SOURCE / "examples" / "cpp_example.cc").read_text(), cxx, "c++11",
                  ["-fno-exceptions"])


def test_range_for_compiles_to_the_c_loop(tmp_path):
    # for (auto _ : st) and while (st.next()) are the C loop: a decrement
    # and a branch around the body, the count in a register.
    if not shutil.which("g++") or not shutil.which("objdump"):
        pytest.skip("needs g++ and objdump")
    src = tmp_path / "loop.cc"
    src.write_text(r"""
#include <vernier.hpp>
void range_for(vn_state *c)
{
    vernier::state st(c);
    unsigned long x = 1;
    for (auto _ : st) { x += x; vernier::keep(x); }
}
void with_next(vn_state *c)
{
    vernier::state st(c);
    unsigned long x = 1;
    while (st.next()) { x += x; vernier::keep(x); }
}
void in_c(vn_state *st) { unsigned long x = 1; while (vn_next(st)) { x += x; vn_keep(x); } }
""")
    obj = tmp_path / "loop.o"
    subprocess.run(["g++", "-std=c++11", "-O2", "-I", str(SOURCE / "include"), "-c", str(src), "-o",
                    str(obj)], check=True)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", str(obj)], capture_output=True,
                         text=True, check=True).stdout
    bodies = {}
    for name in ("range_for", "with_next", "in_c"):
        block = re.search(rf"<{name}[^>]*>:\n(.*?)(?:\n\n|\Z)", dis, re.S).group(1)
        # The mnemonics alone (addresses and operands differ by place),
        # without the padding that aligns the next function or loop.
        ops = [ln.split("\t")[1].split()[0] for ln in block.splitlines() if len(ln.split("\t")) > 1]
        bodies[name] = [op for op in ops if not op.startswith(("nop", "xchg", "cs", "data16"))]
        assert any(op.startswith(("sub", "dec")) for op in bodies[name]), block
    assert bodies["range_for"] == bodies["in_c"] == bodies["with_next"], bodies
