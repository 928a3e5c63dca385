"""The aarch64 build: the virtual counter (CNTVCT_EL0) behind the same clock
API. Cross-compiles the library and tool for aarch64 and runs them under
qemu-user emulation; skipped, with the reason, where the cross compiler or
qemu is missing."""
import json
import shutil
import subprocess

import pytest

from conftest import BUILT_BY_THE_TEST, SOURCE, sanitized, static_tool_sources, validate

CC = shutil.which("aarch64-linux-gnu-gcc")
QEMU = shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static")

pytestmark = [
    pytest.mark.skipif(not (CC and QEMU),
                       reason="needs aarch64-linux-gnu-gcc and qemu-aarch64 (scripts/install-deps)"),
    pytest.mark.skipif(sanitized(), reason=BUILT_BY_THE_TEST),
]


@pytest.fixture(scope="module")
def arm_vernier(tmp_path_factory):
    out = tmp_path_factory.mktemp("arm64") / "vernier"
    # The tool, without the helpers (programs of their own) and without
    # vernier compare, whose JSON reader (cJSON) has no aarch64 build here;
    # vernier trace without libbpf (and its BPF program, for another target).
    sources = static_tool_sources()
    subprocess.run([CC, "-std=c11", "-D_GNU_SOURCE", "-DVN_NO_COMPARE", "-O2", "-Wall", "-Wextra", "-Werror",
                    "-I%s" % (SOURCE / "include"), "-I%s" % (SOURCE / "src"), "-I%s" % (SOURCE / "cli"),
                    "-static", *sources, "-lpthread", "-lm", "-o", str(out)], check=True)
    return out


def run_arm(exe, *args):
    return subprocess.run([QEMU, str(exe), *args], capture_output=True, text=True, timeout=120)


def test_clocks_on_aarch64(arm_vernier):
    p = run_arm(arm_vernier, "clocks", "--json", "-")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    validate(d, "clocks-1.json")
    names = [c["name"] for c in d["clocks"]]
    assert "cntvct" in names
    assert not any(n.startswith(("tsc", "rdtscp")) for n in names)
    t = d["tsc"]
    assert t["present"] and t["invariant"]
    assert t["freq_source_cpuid"] == "cntfrq_el0"
    # The counter's rate is architected: calibration must agree with CNTFRQ_EL0.
    assert t["freq_hz_calibrated"] == pytest.approx(t["freq_hz_cpuid"], rel=0.01)
    assert d["selected"]["name"] == "cntvct"
    c = {c["name"]: c for c in d["clocks"]}["cntvct"]
    assert c["unit"] == "ticks" and c["latency_ns"] > 0 and c["backwards"] == 0


def test_x86_clock_names_are_refused_on_aarch64(arm_vernier):
    p = run_arm(arm_vernier, "clocks", "--distribution", "tsc")
    assert p.returncode == 2
    assert "cntvct" in p.stderr
    p = run_arm(arm_vernier, "clocks", "--distribution", "cntvct", "--reads", "1000")
    assert p.returncode == 0 and "1000 reads" in p.stdout


def test_env_on_aarch64(arm_vernier):
    p = run_arm(arm_vernier, "env", "--json", "-")
    assert p.returncode == 0, p.stderr
    validate(json.loads(p.stdout), "env-1.json")
