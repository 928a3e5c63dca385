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

from conftest import BUILD, cmake_cache


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
    ops = [op for op, _ in loop]
    assert len(loop) <= most, loop
    assert not any("(" in arg for _, arg in loop), f"memory access in the loop: {loop}"
    assert "mov" not in ops, f"a register copy in the loop: {loop}"


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
