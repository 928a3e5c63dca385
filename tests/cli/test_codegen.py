"""The loop the engine promises: `while (vn_next(st))` costs a decrement and
a predicted branch per iteration, and vn_keep() adds no instruction of its
own. Read off the machine code of the examples and of the empty loop the
engine subtracts, in an optimized build; a change to vn_next() or vn_keep()
that puts a load, a store or a register copy in the loop fails here."""
import platform
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, SOURCE, cmake_cache


pytestmark = [
    pytest.mark.skipif(platform.machine() != "x86_64", reason="reads x86-64 machine code"),
    pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) is not installed"),
]


def optimized():
    return cmake_cache("CMAKE_BUILD_TYPE") in ("Release", "RelWithDebInfo", "MinSizeRel")


def gcc():
    """clang treats every volatile asm as touching memory, so it keeps the
    count in memory across vn_keep() (docs/engine.md says what that costs):
    the register-only loop is GCC's."""
    cc = cmake_cache("CMAKE_C_COMPILER")
    out = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout if cc else ""
    return "clang" not in out.lower()


def loop_of(binary, function):
    """The instructions of the function's innermost loop: from the target of
    its last backward conditional jump to that jump."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(rf"^[0-9a-f]+ <{function}>:\n(.*?)(?:\n\n|\Z)", out, re.M | re.S)
    assert m, f"{function} not found in {binary}"
    insns = []
    for line in m.group(1).splitlines():
        f = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if f:
            insns.append((int(f.group(1), 16), f.group(2), f.group(3)))
    back = [(a, op, arg) for a, op, arg in insns
            if op.startswith("j") and op != "jmp" and re.match(r"[0-9a-f]+ ", arg)
            and int(arg.split()[0], 16) < a]
    assert back, f"no loop in {function}"
    end, _, arg = back[-1]
    start = int(arg.split()[0], 16)
    return [(op, a) for addr, op, a in insns if start <= addr <= end]


def check_loop(loop, most):
    assert len(loop) <= most, loop
    memory = [arg for _, arg in loop if "(" in arg]
    assert not memory, f"memory access in the loop: {loop}"
    copies = [op for op, _ in loop if op == "mov"]
    assert not copies, f"a register copy in the loop: {loop}"


@pytest.mark.skipif(not optimized(), reason="the build is not optimized (sanitizer build)")
@pytest.mark.skipif(not gcc(), reason="built with clang, which keeps the count in memory")
def test_empty_loop_is_a_decrement_and_a_branch():
    loop = loop_of(BUILD / "libvernier.so", "vn__empty_loop")
    check_loop(loop, 2)
    assert loop[0][0] in ("sub", "dec", "add") and loop[-1][0].startswith("j"), loop


@pytest.mark.skipif(not optimized(), reason="the build is not optimized (sanitizer build)")
@pytest.mark.skipif(not gcc(), reason="built with clang, which keeps the count in memory")
def test_kept_add_costs_the_add_alone():
    # x += x; vn_keep(x): the add, the decrement, the branch (and a test the
    # compiler adds because an asm statement may change the flags).
    loop = loop_of(BUILD / "examples" / "x_plus_x", "x_plus_x")
    check_loop(loop, 4)
    assert [op for op, _ in loop].count("add") == 1, loop


KEEP_KINDS = r"""
#include <vernier.h>
void keep_double(vn_state *st) { double d = 1.5; while (vn_next(st)) { d += d; vn_keep(d); } }
void keep_float(vn_state *st) { float f = 1.5f; while (vn_next(st)) { f += f; vn_keep(f); } }
void keep_long_double(vn_state *st) { long double x = 1.5L; while (vn_next(st)) { x += x; vn_keep(x); } }
"""


@pytest.mark.parametrize("lang", ["c", "c++"])
def test_kept_floating_point_stays_in_its_register(tmp_path, lang):
    # "r" would move a double from its SSE register to a general one every
    # iteration (a movq the benchmark never asked for), and clang cannot put
    # a long double in any register an asm input can name. Both compilers,
    # C and C++, at -O0 and -O2, must build it with every warning an error;
    # GCC's -O2 loops of double and float must hold no move and no memory
    # access.
    src = tmp_path / ("k.c" if lang == "c" else "k.cc")
    src.write_text(KEEP_KINDS if lang == "c" else 'extern "C" {\n' + KEEP_KINDS.replace(
        "#include <vernier.h>\n", "") + "}\n")
    if lang == "c++":
        src.write_text("#include <vernier.h>\n" + src.read_text())
    for cc in ("gcc", "clang") if lang == "c" else ("g++", "clang++"):
        if not shutil.which(cc):
            continue
        for opt in ("-O0", "-O2"):
            std = "-std=c11" if lang == "c" else "-std=c++11"
            obj = tmp_path / f"k-{cc}{opt}.o"
            subprocess.run([cc, std, opt, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I",
                            str(SOURCE / "include"), "-c", str(src), "-o", str(obj)], check=True)
            if cc in ("gcc", "g++") and opt == "-O2":
                for fn in ("keep_double", "keep_float"):
                    loop = loop_of(obj, fn)
                    check_loop(loop, 4)
