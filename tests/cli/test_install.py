"""`make install` gives a usable package: the tool, the headers, the static
and shared library, a pkg-config file and a CMake package config, the man pages
and the shell completions where man, bash, zsh and fish look. Installs
into a temporary prefix and builds a small program against it both ways."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import cmake_cache, loads_nothing_at_run_time

SOURCE = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("VN_BUILD_DIR", SOURCE / "build"))

PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <vernier.h>
static void add(vn_state *st)
{
    unsigned x = 1;
    while (vn_next(st))
        x = x * 3 + 1;
    vn_keep(x);
}
int main(void) {
    vn_suite *s = vn_suite_create();
    vn_config cfg;
    vn_config_init(&cfg);
    cfg.max_time = 0.05;
    cfg.processes = 1;
    cfg.counters = "none";
    vn_results *r = NULL;
    if (!s || vn_suite_add(s, "add", add, NULL) || vn_suite_run(s, &cfg, &r)) return 1;
    const vn_result *b = vn_results_at(r, 0);
    double m = vn_result_figure(b, VN_MEDIAN), lo = vn_result_figure(b, VN_CI_LO);
    printf("%s %s %zu %d\n", vn_version(), vn_result_name(b), vn_results_count(r),
           vn_result_samples(b) > 0 && vn_result_sample(b, 0) != NULL && !(lo > m) &&
           (m > 0 || !isnan(vn_result_figure(b, VN_BOUND))));
    vn_results_free(r);
    vn_suite_destroy(s);
    return 0;
}
"""


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    if not (BUILD / "CMakeCache.txt").exists():
        pytest.skip("no configured build directory at %s" % BUILD)
    p = tmp_path_factory.mktemp("prefix")
    # Through the Makefile, as the README says: PREFIX must be honoured even
    # though the build directory was configured long before, for /usr/local.
    subprocess.run(["make", "-C", str(SOURCE), "install", f"BUILD={BUILD}", f"PREFIX={p}"],
                   check=True, capture_output=True)
    return p


def sanitized():
    return "VN_SANITIZE:BOOL=ON" in (BUILD / "CMakeCache.txt").read_text()


def libdir(prefix):
    for d in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
        if (prefix / d / "pkgconfig" / "vernier.pc").exists():
            return prefix / d
    raise AssertionError("vernier.pc not installed")


def test_files_are_installed(prefix):
    assert (prefix / "bin" / "vernier").exists()
    assert (prefix / "include" / "vernier.h").exists()
    assert (prefix / "include" / "vernier" / "results.h").exists()
    lib = libdir(prefix)
    assert (lib / "libvernier.a").exists()
    assert (lib / "libvernier.so").exists()
    assert (lib / "cmake" / "vernier" / "vernierConfig.cmake").exists()
    p = subprocess.run([str(prefix / "bin" / "vernier"), "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.startswith("vernier ")


def test_pkg_config_builds_a_program(prefix, tmp_path):
    lib = libdir(prefix)
    env = dict(os.environ, PKG_CONFIG_PATH=str(lib / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "--static", "vernier"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "p"
    subprocess.run(["cc", "-std=c11", str(src), "-o", str(exe), *flags], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                         env=dict(os.environ, LD_LIBRARY_PATH=str(lib))).stdout
    assert out.split()[1:] == ["add", "1", "1"]


def cmake_program(prefix, tmp_path, target, extra=""):
    """Builds PROGRAM in a CMake project that finds the installed package and
    links target; runs it, checks its output, and returns its path."""
    if not shutil.which("cmake"):
        pytest.skip("cmake is not installed")
    (tmp_path / "p.c").write_text(PROGRAM)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(p C)\n"
        "find_package(vernier REQUIRED)\nadd_executable(p p.c)\n"
        f"target_link_libraries(p {target})\n{extra}")
    b = tmp_path / "b"
    subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(b), "-DCMAKE_PREFIX_PATH=%s" % prefix],
                   check=True, capture_output=True)
    p = subprocess.run(["cmake", "--build", str(b)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    out = subprocess.run([str(b / "p")], capture_output=True, text=True, check=True).stdout
    assert out.split()[1:] == ["add", "1", "1"]
    return b / "p"


def test_cmake_find_package_builds_a_program(prefix, tmp_path):
    cmake_program(prefix, tmp_path, "vernier::vernier")


def test_cmake_static_target_links_a_fully_static_program(prefix, tmp_path):
    # vernier::vernier_static passes its private libraries on by name (-lpfm),
    # never as a path to a shared object, which a -static link refuses and
    # which would not exist on another machine.
    targets = "".join(f.read_text() for f in (libdir(prefix) / "cmake" / "vernier").glob("vernierTargets*.cmake"))
    assert "libpfm.so" not in targets and str(BUILD) not in targets
    if sanitized():
        pytest.skip("a sanitized library cannot be linked with -static")
    exe = cmake_program(prefix, tmp_path, "vernier::vernier_static", "target_link_options(p PRIVATE -static)\n")
    # No interpreter and no dynamic section: nothing is loaded at run time.
    assert loads_nothing_at_run_time(exe)


def test_cpp_program_includes_the_header(prefix, tmp_path):
    if not shutil.which("c++"):
        pytest.skip("no C++ compiler")
    src = tmp_path / "p.cc"
    src.write_text(PROGRAM.replace("#include <stdio.h>", "#include <cstdio>"))
    exe = tmp_path / "pp"
    lib = libdir(prefix)
    env = dict(os.environ, PKG_CONFIG_PATH=str(lib / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "--static", "vernier"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    # The static library itself, so the C++ program is known to link it.
    flags = [f for f in flags if f != "-lvernier"]
    subprocess.run(["c++", "-std=c++11", "-Wall", "-Werror", str(src), "-o", str(exe),
                    str(lib / "libvernier.a"), *flags], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert out.split()[1:] == ["add", "1", "1"]


CPP_PROGRAM = r"""
#include <vernier.hpp>
int main(int argc, char **argv)
{
    unsigned long seed = 3;
    vernier::suite s;
    s.add("captured", [&seed](vernier::state &st) {
        unsigned long x = seed;
        for (auto _ : st) {
            x += x;
            vernier::keep(x);
        }
    }).param("k", {1, 2});
    return s.main(argc, argv);
}
"""


def test_cmake_find_package_builds_a_cpp_program(prefix, tmp_path):
    # vernier.hpp is installed with the C headers and needs nothing more
    # than the C library's target.
    if not shutil.which("cmake") or not shutil.which("c++"):
        pytest.skip("needs cmake and a C++ compiler")
    assert (prefix / "include" / "vernier.hpp").exists()
    (tmp_path / "p.cc").write_text(CPP_PROGRAM)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(p CXX)\nset(CMAKE_CXX_STANDARD 11)\n"
        "find_package(vernier REQUIRED)\nadd_executable(p p.cc)\n"
        "target_compile_options(p PRIVATE -O2 -Wall -Wextra -Werror)\n"
        "target_link_libraries(p vernier::vernier)\n")
    b = tmp_path / "b"
    subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(b), "-DCMAKE_PREFIX_PATH=%s" % prefix],
                   check=True, capture_output=True)
    p = subprocess.run(["cmake", "--build", str(b)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run([str(b / "p"), "--quiet", "--max-time", "0.05", "--warmup", "0.005", "--json", "-"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    import json
    rows = json.loads(p.stdout)["benchmarks"]
    assert [r["name"] for r in rows] == ["captured/k=1", "captured/k=2"]
    assert all(r["error"] is None and r["stats"]["median"] > 0 for r in rows)


def test_installed_run_finds_its_helper(prefix):
    assert (prefix / "libexec" / "vernier" / "vernier-spawn").exists()
    p = subprocess.run([str(prefix / "bin" / "vernier"), "run", "--runs", "3", "--json", "-", "true"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    import json
    d = json.loads(p.stdout)
    # No note names the helper (as one that could not be found).
    assert "vernier-spawn" not in (d["note"] or ""), d["note"]
    # Started by the small helper, `true` reports its own peak, about 1 MiB.
    assert max(s["maxrss_kib"] for s in d["benchmarks"][0]["samples"]) < 2048


def test_installed_suite_finds_the_program_it_starts(prefix):
    assert (prefix / "libexec" / "vernier" / "vernier-noop").exists()
    p = subprocess.run([str(prefix / "bin" / "vernier"), "suite", "--quick", "--quiet", "process.spawn",
                        "--json", "-"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    import json
    row = json.loads(p.stdout)["benchmarks"][0]
    assert row["error"] is None and row["stats"]["median"] > 0, row["error"]


def test_man_pages_and_completions_are_installed_where_they_are_looked_for(prefix, tmp_path):
    from helpdoc import bash_complete, commands, fish_complete, require, zsh_complete
    share = prefix / "share"
    man1 = share / "man" / "man1"
    assert sorted(f.name for f in man1.iterdir()) == sorted(
        ["vernier.1"] + [f"vernier-{c}.1" for c in commands()])
    require("man")
    p = subprocess.run(["man", "-w", "vernier-run"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MANPATH=str(share / "man")))
    assert p.returncode == 0 and p.stdout.strip() == str(man1 / "vernier-run.1"), p.stderr
    bash = share / "bash-completion" / "completions" / "vernier"
    zsh = share / "zsh" / "site-functions" / "_vernier"
    fish = share / "fish" / "vendor_completions.d" / "vernier.fish"
    for f in (bash, zsh, fish):
        assert f.exists(), f
    # bash-completion loads the file on first use, found under XDG_DATA_DIRS.
    loader = Path("/usr/share/bash-completion/bash_completion")
    if loader.exists():
        assert bash_complete("/dev/null", "vernier ru", preamble=(
            f"export XDG_DATA_DIRS={share}; source {loader}; "
            "_completion_loader vernier")) == ["run"]
    else:
        assert bash_complete(bash, "vernier ru") == ["run"]
    if shutil.which("zsh"):
        assert zsh_complete(zsh.parent, "vernier ru") == ["run"]
    if shutil.which("fish"):
        # fish looks in vendor_completions.d under each of XDG_DATA_DIRS, for
        # a command it finds on PATH.
        env = {"XDG_DATA_DIRS": str(share), "PATH": f"{prefix / 'bin'}:{os.environ['PATH']}"}
        assert fish_complete(None, "vernier ru", env=env) == ["run"]


# The tool's own machinery, private to the library and the tool: no
# installed header may declare it and libvernier.so may not export it.
PRIVATE_NAMES = re.compile(
    r"\bvn_{1,2}(spawner_(start|stop|pid|serve)|cgroup_\w+|split_words|words_free|needs_shell"
    r"|which|param_(range|list|substitute)|delta_dist_(from_reads|resolution)|parse_numbers"
    r"|option_error|outputs_usage|json_\w+)\b")


def installed_headers(prefix):
    inc = prefix / "include"
    return [inc / "vernier.h", *sorted((inc / "vernier").glob("*.h"))]


def exported(prefix):
    so = libdir(prefix) / "libvernier.so"
    out = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def test_only_the_public_headers_are_installed(prefix):
    inc = prefix / "include"
    got = sorted(str(p.relative_to(inc)) for p in inc.rglob("*") if p.is_file())
    want = sorted(str(p.relative_to(SOURCE / "include"))
                  for p in (SOURCE / "include").rglob("*") if p.is_file())
    assert got == want
    assert not list(prefix.rglob("*vernier_private*"))


def test_installed_headers_declare_none_of_the_private_names(prefix):
    for h in installed_headers(prefix):
        found = sorted({m.group(0) for m in PRIVATE_NAMES.finditer(h.read_text())})
        assert not found, f"{h.name} declares {found}"


def test_shared_library_exports_what_the_headers_declare_and_no_more(prefix):
    names = exported(prefix)
    # The benchmark API, the results through functions and their reporters;
    # not the tool's machinery (clocks, counters, commands, the machine).
    assert {"vn_suite_run", "vn_suite_main", "vn_results_at", "vn_result_figure",
            "vn_report_results_json"} <= names
    assert not names & {"vn_exec", "vn_run_commands", "vn_clock_read", "vn_counters_open",
                        "vn_sysinfo_collect", "vn_stats_compute", "vn__suite_run"}
    functions = sorted(n for n in names if n.startswith("vn"))
    print(f"libvernier.so exports {len(functions)} functions")
    assert len(functions) < 60, functions
    private = sorted(n for n in names if PRIVATE_NAMES.fullmatch(n))
    assert not private, f"libvernier.so exports private names: {private}"
    text = "\n".join(h.read_text() for h in installed_headers(prefix))
    undeclared = sorted(n for n in names if not re.search(r"\b%s\b" % re.escape(n), text))
    assert not undeclared, f"exported but declared in no installed header: {undeclared}"


def test_the_guides_the_man_pages_cite_are_installed(prefix):
    """Every docs/NAME.md a man page (its --help) cites is installed in the
    documentation folder, which each page names (under the prefix the
    build was configured for, where the pages were made)."""
    man1 = prefix / "share" / "man" / "man1"
    doc = prefix / "share" / "doc" / "vernier"
    assert (doc / "README.md").exists()
    named = f"{cmake_cache('CMAKE_INSTALL_PREFIX')}/{doc.relative_to(prefix)}/docs/"
    cited = set()
    for page in man1.iterdir():
        text = page.read_text()
        cited |= set(re.findall(r"docs/([a-z0-9_-]+\.md)", text))
        assert named in text, (page.name, named)
    assert {"run.md", "engine.md"} <= cited
    for name in cited:
        assert (doc / "docs" / name).exists(), name
    # The schemas the guides link to come along; the man pages' sources do not.
    assert (doc / "docs" / "schema" / "results-1.json").exists()
    assert not (doc / "docs" / "man").exists()
