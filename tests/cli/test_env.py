"""End-to-end tests of `vernier env`: the real command on this machine, checked
against what the machine itself says through /proc, /sys and os."""
import json
import os
import re
from pathlib import Path

import jsonschema
import pytest

from conftest import SOURCE, VERNIER, run, schema, stdout_on_a_terminal, validate

DOCUMENTED_IDS = {"governor", "turbo", "smt", "hypervisor", "load", "clocksource", "aslr",
                  "perf_paranoid", "tsc_not_invariant"}


def read(path):
    try:
        return Path(path).read_text()
    except OSError:
        return None


def cpulist_count(text):
    n = 0
    for part in text.strip().split(","):
        if "-" in part:
            lo, hi = part.split("-")
            n += int(hi) - int(lo) + 1
        elif part:
            n += 1
    return n


def cpuinfo_flags():
    text = read("/proc/cpuinfo") or ""
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    return set(m.group(1).split()) if m else None


@pytest.fixture(scope="module")
def doc():
    p = run("env", "--json", "-", check=0)
    d = json.loads(p.stdout)  # stdout holds the JSON and nothing else
    validate(d, "env-1.json")
    return d


@pytest.fixture(scope="module")
def text():
    return run("env", check=0).stdout


def ids(doc):
    return [w["id"] for w in doc["warnings"]]


def test_schema_and_version(doc):
    assert doc["schema"] == "vernier.env/1"
    assert doc["vernier_version"] == run("--version", check=0).stdout.split()[1]


def test_identity_matches_uname(doc):
    u = os.uname()
    assert doc["kernel"] == u.release
    assert doc["kernel_version"] == u.version
    assert doc["arch"] == u.machine
    assert doc["hostname"] == u.nodename


def test_cpu_counts(doc):
    cpu = doc["cpu"]
    online = read("/sys/devices/system/cpu/online")
    expected = {os.cpu_count()}
    if online:
        expected.add(cpulist_count(online))
    assert cpu["logical"] in expected
    if cpu["physical_cores"] is not None:
        assert 1 <= cpu["physical_cores"] <= cpu["logical"]
        assert 1 <= cpu["sockets"] <= cpu["physical_cores"]
    if cpu["smt"] is False and cpu["physical_cores"] is not None:
        assert cpu["physical_cores"] == cpu["logical"]
    active = read("/sys/devices/system/cpu/smt/active")
    if active is not None:
        assert cpu["smt"] == (active.strip() == "1")
    # One cpufreq entry per online CPU, numbered as the kernel numbers them.
    assert len(doc["cpufreq"]) == cpu["logical"]
    assert [f["cpu"] for f in doc["cpufreq"]] == sorted(f["cpu"] for f in doc["cpufreq"])


def test_cpufreq_matches_sysfs(doc):
    for f in doc["cpufreq"]:
        gov = read(f"/sys/devices/system/cpu/cpu{f['cpu']}/cpufreq/scaling_governor")
        assert f["governor"] == (gov.strip() if gov else None)
        mx = read(f"/sys/devices/system/cpu/cpu{f['cpu']}/cpufreq/scaling_max_freq")
        assert f["max_khz"] == (int(mx) if mx else None)


def test_caches_match_sysfs(doc):
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    if not base.exists():
        assert doc["caches"] == []
        return
    levels = sorted(int((d / "level").read_text()) for d in base.glob("index*"))
    assert sorted(c["level"] for c in doc["caches"]) == levels[:8]
    for c in doc["caches"]:
        assert c["size_bytes"] is None or c["size_bytes"] % 1024 == 0


def test_memory_matches_meminfo(doc):
    m = re.search(r"^MemTotal:\s+(\d+) kB", read("/proc/meminfo"), re.M)
    assert doc["memory"]["total_bytes"] == int(m.group(1)) * 1024
    avail = doc["memory"]["available_bytes"]
    assert avail is None or 0 < avail <= doc["memory"]["total_bytes"]


def test_clocksource_matches_sysfs(doc):
    base = "/sys/devices/system/clocksource/clocksource0/"
    cur = read(base + "current_clocksource")
    if cur is None:
        assert doc["clocksource"]["current"] is None
        return
    assert doc["clocksource"]["current"] == cur.strip()
    assert doc["clocksource"]["available"] == read(base + "available_clocksource").split()


def test_kernel_settings_match_proc(doc):
    aslr = read("/proc/sys/kernel/randomize_va_space")
    assert doc["aslr"] == (int(aslr) if aslr else None)
    par = read("/proc/sys/kernel/perf_event_paranoid")
    assert doc["perf_event_paranoid"] == (int(par) if par else None)


def test_loadavg_is_sane(doc):
    assert len(doc["loadavg"]) == 3
    for v in doc["loadavg"]:
        assert v is not None and v >= 0
    # The load warning follows from the reported values themselves.
    over = doc["loadavg"][0] > 0.5 * doc["cpu"]["logical"]
    assert ("load" in ids(doc)) == over


def test_hypervisor_warning_iff_cpuinfo_flag(doc):
    flags = cpuinfo_flags()
    if flags is None:
        pytest.skip("no x86 flags line in /proc/cpuinfo")
    in_vm = "hypervisor" in flags
    assert doc["hypervisor"]["present"] == in_vm
    assert ("hypervisor" in ids(doc)) == in_vm


def test_warnings_follow_the_fields(doc):
    got = ids(doc)
    assert set(got) <= DOCUMENTED_IDS
    assert len(got) == len(set(got))
    assert ("aslr" in got) == (doc["aslr"] is not None and doc["aslr"] > 0)
    cs = doc["clocksource"]["current"]
    assert ("clocksource" in got) == (cs is not None and cs not in ("tsc", "arch_sys_counter"))
    assert ("smt" in got) == (doc["cpu"]["smt"] is True)
    assert ("turbo" in got) == (doc["turbo"] is True)
    assert ("tsc_not_invariant" in got) == (doc["tsc_invariant"] is False)
    govs = [f["governor"] for f in doc["cpufreq"] if f["governor"]]
    assert ("governor" in got) == any(g != "performance" for g in govs)
    par = doc["perf_event_paranoid"]
    assert ("perf_paranoid" in got) == (par is not None and par >= 2 and doc["perf_capable"] is not True)
    for w in doc["warnings"]:
        assert "\n" not in w["message"] and w["fix"]


def test_every_id_is_documented():
    page = (SOURCE / "docs" / "env.md").read_text()
    for i in DOCUMENTED_IDS:
        assert f"`{i}`" in page, i
    assert set(schema("env-1.json")["$defs"]["warning"]["properties"]["id"]["enum"]) == DOCUMENTED_IDS


def test_text_report(doc, text):
    for section in ("System", "CPU", "Caches", "Memory", "Frequency", "Timing", "Security/perf",
                    "Warnings"):
        assert re.search(rf"^{re.escape(section)}$", text, re.M), section
    assert "\033[" not in text  # not a terminal: no color
    assert re.search(rf"^  kernel +{re.escape(os.uname().release)}$", text, re.M)
    n = len(doc["warnings"])
    last = text.rstrip("\n").splitlines()[-1]
    assert last == ("no warnings" if n == 0 else f"{n} warning{'s' if n != 1 else ''}")
    for w in doc["warnings"]:
        assert f"! {w['id']}: " in text
        assert f"  fix: {w['fix']}\n" in text


def test_color_on_a_terminal(doc):
    if not doc["warnings"]:
        pytest.skip("no warnings on this machine to color")
    def through_pty(env):
        e = dict(os.environ)
        e.pop("NO_COLOR", None)
        e.update(env)
        out, proc = stdout_on_a_terminal([VERNIER, "env"], env=e)
        assert proc.returncode == 0
        return out
    assert "\033[33m! " in through_pty({})
    assert "\033[" not in through_pty({"NO_COLOR": "1"})


def test_json_to_file(tmp_path):
    out = tmp_path / "env.json"
    p = run("env", "--json", str(out), check=0)
    assert "Warnings" in p.stdout  # the text report still goes to stdout
    d = json.loads(out.read_text())
    validate(d, "env-1.json")
    assert d["schema"] == "vernier.env/1"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["env.json"]  # no *.tmp.* left


def test_json_overwrites_atomically(tmp_path):
    out = tmp_path / "env.json"
    out.write_text("old")
    run("env", "--json", str(out), check=0)
    json.loads(out.read_text())
    assert [x.name for x in tmp_path.iterdir()] == ["env.json"]


def test_unwritable_path_fails_cleanly(tmp_path):
    bad = "/nonexistent/dir/x.json"
    p = run("env", "--json", bad, check=1)
    assert p.stderr.count("\n") == 1 and bad in p.stderr
    assert p.stdout == ""
    assert not os.path.exists(bad)
    if os.geteuid() != 0:  # root writes through directory permissions
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        p = run("env", "--json", str(ro / "x.json"), check=1)
        assert list(ro.iterdir()) == []


def test_usage_errors():
    p = run("env", "--bogus", check=2)
    assert "--bogus" in p.stderr and "--help" in p.stderr
    assert p.stdout == ""
    p = run("env", "--json", check=2)
    assert "--json" in p.stderr and "--help" in p.stderr
    p = run("env", "extra", check=2)
    assert "extra" in p.stderr and "--help" in p.stderr


def test_help_lists_every_option():
    for flag in ("--help", "-h"):
        p = run("env", flag, check=0)
        # The usage of env first, and the same text as `vernier help env`.
        first = p.stdout.split("\n", 1)[0]
        assert first.startswith("usage:") and " env" in first, first
        assert p.stdout == run("help", "env", check=0).stdout
        for opt in ("--json FILE", "-h, --help"):
            assert opt in p.stdout
        assert p.stderr == ""


@pytest.mark.parametrize("name", ["laptop", "tuned", "vm", "minimal"])
def test_golden_documents_match_the_schema(name):
    # The golden files hold reports of fixture machines with many unknowns;
    # they show the schema accepts every shape the writer produces.
    d = json.loads((SOURCE / "tests" / "golden" / f"env-{name}.json").read_text())
    validate(d, "env-1.json")


def test_schema_rejects_wrong_types(doc):
    import copy
    for path, value in [(("cpu", "logical"), "2"), (("aslr",), 7), (("loadavg",), [1, 2]),
                        (("hypervisor", "present"), "yes"), (("warnings",), [{"id": "nope",
                         "message": "m", "fix": "f"}]), (("caches",), [{"level": 1}]),
                        (("clocksource", "available"), "tsc hpet")]:
        bad = copy.deepcopy(doc)
        node = bad
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            validate(bad, "env-1.json")
