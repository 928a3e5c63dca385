"""vernier store add and vernier history end to end: results files of each
format kept and read back with the values computed from the files, many
writers at once on SQLite and on a real PostgreSQL server (none lost, none
doubled), a damaged store, a store that cannot be written, the migration of
a version-1 store, the change points of history check, vernier run --store
and compare --store, and the usage errors."""
import errno
import glob
import json
import math
import os
import re
import shutil
import socket
import sqlite3
import stat
import subprocess
import tempfile
import threading
import time
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from conftest import (BUILD, SOURCE, VERNIER, cmake_cache, error_line, names_in, next_run, run, sanitized,
                      validate)

FIXTURES = SOURCE / "tests" / "fixtures" / "compare"

# The concurrency tests: this many processes at once, each storing this many
# results, one `vernier store add` a result.
# 8 writers of 200 results each; a sanitized build, whose every process
# starts and runs several times slower, stores 40 each (the same code,
# and still 320 writes at once): the whole file took 173 s there against
# 21 s, and the CI run is kept under 20 minutes.
WRITERS, RESULTS_EACH = 8, 40 if sanitized() else 200


@pytest.fixture(autouse=True)
def no_default_store(monkeypatch):
    """Only the stores the tests name: a VERNIER_STORE of the caller's would
    take every `vernier run` here."""
    monkeypatch.delenv("VERNIER_STORE", raising=False)


# ---- helpers ------------------------------------------------------------------


def history(store, *args, sub=(), check=0):
    """`vernier history [SUB] --store STORE --json - ARGS` as a document."""
    p = run("history", *sub, "--store", store, "--json", "-", *args, check=check)
    doc = json.loads(p.stdout)
    assert doc["format"] == "vernier.history/1"
    assert doc["store"] == store
    return doc


def by_name(doc):
    names = [s["name"] for s in doc["series"]]
    assert len(names) == len(set(names)), names  # one machine here: one series a name
    return {s["name"]: s for s in doc["series"]}


def one_error(p, cmd):
    """The single line a failure prints on stderr, which starts with
    'vernier CMD'."""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith(f"vernier {cmd}"), p.stderr
    return lines[0]


def stored(p, path, nbench):
    """The run IDs `vernier store add` printed, one line a file: each names
    its file, then holds two numbers, the benchmarks kept and the run ID."""
    ids = []
    lines = p.stdout.splitlines()
    paths = [path] if isinstance(path, str) else path
    assert len(lines) == len(paths), p.stdout
    for line, f in zip(lines, paths):
        m = re.fullmatch(rf"[^']*'{re.escape(f)}'\D*(\d+)\D+(\d+)", line)
        assert m and int(m.group(1)) == nbench, (line, f, nbench)
        ids.append(int(m.group(2)))
    return ids


def add(store, *args, files, nbench, check=0):
    p = run("store", "add", "--store", store, *args, *files, check=check)
    return stored(p, list(files), nbench)


def units_of_commands(doc):
    """{name: the units vernier keeps} of a vernier.results/1 of kind
    commands: every run's wall time."""
    assert doc["kind"] == "commands"
    return {b["name"]: [s["value"] for s in b["samples"]] for b in doc["benchmarks"]}


def db(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def sqlite_says(path):
    """What SQLite itself says of the file at path read as a database (its
    error message for SQLITE_NOTADB), which vernier's line passes on."""
    try:
        with db(path) as c:
            c.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as e:
        return str(e)
    pytest.fail(f"SQLite reads {path} as a database")


def kept_as(p, store):
    """The run ID of the one line on stderr that names store, where vernier
    run says it kept its results."""
    lines = [line for line in p.stderr.splitlines() if f"'{store}'" in line]
    assert len(lines) == 1, p.stderr
    m = re.search(r"\b(\d+)$", lines[0])
    assert m, lines[0]
    return int(m.group(1))


def hyperfine_doc(commands):
    """A minimal hyperfine JSON: {command: times in s}."""
    return {"results": [{"command": c, "times": list(map(float, t)), "mean": float(np.mean(t)),
                         "exit_codes": [0] * len(t)} for c, t in commands.items()]}


@pytest.fixture(scope="module")
def run_files(tmp_path_factory):
    """Three vernier.results/1 files of `vernier run`, two commands each."""
    d = tmp_path_factory.mktemp("runs")
    files = []
    for i in range(3):
        f = d / f"run{i}.json"
        run("run", "-N", "-r", "5", "--json", str(f), "true", "sleep 0", check=0, timeout=120)
        files.append(str(f))
    return files


def machine_words(doc):
    """What the machine of a vernier.results/1 is known by: its CPU and kernel."""
    return doc["env"]["cpu"]["model"], doc["env"]["kernel"]


# ---- 1. round trip --------------------------------------------------------------


def test_round_trip_values_commits_tags_and_time_order(tmp_path, run_files):
    store = str(tmp_path / "sub" / "results.db")  # its folder is made
    t0 = time.time() - 10 * 86400
    branches = ["main", "topic", "main"]
    ids = {}
    for i in (2, 0, 1):  # stored out of time order
        (ids[i],) = add(store, "--commit", f"c{i + 1}", "--branch", branches[i], "--tag", f"k=v{i}",
                        "--tag", "ci.job-id=7", "--time", f"{t0 + 100 * i:.6f}",
                        files=[run_files[i]], nbench=2)
    assert len(set(ids.values())) == 3
    docs = [json.loads(Path(f).read_text()) for f in run_files]
    units = [units_of_commands(d) for d in docs]

    got = by_name(history(store))
    assert set(got) == {"true", "sleep 0"}
    cpu, kernel = machine_words(docs[0])
    for name, s in got.items():
        assert cpu in s["machine"] and kernel in s["machine"], s["machine"]
        rs = s["results"]
        assert [r["run"] for r in rs] == [ids[0], ids[1], ids[2]]
        assert [r["commit"] for r in rs] == ["c1", "c2", "c3"]
        assert [r["branch"] for r in rs] == branches
        assert [r["time"] for r in rs] == pytest.approx([t0, t0 + 100, t0 + 200], abs=1e-5)
        for i, r in enumerate(rs):
            u = units[i][name]
            assert r["unit"] == "ns"
            assert r["units"] == len(u) == 5
            assert r["value"] == pytest.approx(np.median(u), rel=1e-12)
            lo, hi = r["ci"]
            assert lo <= r["value"] <= hi and lo < hi
            assert r["dirty"] is None  # --commit: the tree's state is not known
            # Fewer than 5 results before it: nothing to learn from.
            assert r["learned_from"] == 0 and r["ci_history"] == [None, None]

    # What the runs were kept with.
    with db(store) as c:
        rows = {r[0]: r[1:] for r in c.execute("SELECT id, tags, source, commit_id FROM runs")}
    for i in range(3):
        assert rows[ids[i]] == (f"k=v{i}\nci.job-id=7", f"file {run_files[i]}", f"c{i + 1}")

    # The filters.
    only = by_name(history(store, "--branch", "topic"))
    assert {n: [r["commit"] for r in s["results"]] for n, s in only.items()} == \
        {"true": ["c2"], "sleep 0": ["c2"]}
    assert set(by_name(history(store, "sl*"))) == {"sleep 0"}
    assert set(by_name(history(store, "true"))) == {"true"}
    assert history(store, "nothing*")["series"] == []
    assert set(by_name(history(store, "--machine", cpu))) == {"true", "sleep 0"}
    assert history(store, "--machine", "no such machine")["series"] == []
    assert history(store, "--since", "5d")["series"] == []
    assert all(len(s["results"]) == 3 for s in history(store, "--since", "20d")["series"])
    later = (date.today() - timedelta(days=5)).isoformat()
    earlier = (date.today() - timedelta(days=15)).isoformat()
    assert history(store, "--since", later)["series"] == []
    assert all(len(s["results"]) == 3 for s in history(store, "--since", earlier)["series"])

    # The console: a heading a series, the results oldest first.
    p = run("history", "--store", store, check=0)
    lines = p.stdout.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.split(":")[0] == "true"]
    assert re.findall(r"\d+", lines[at]) == ["3"], lines[at]  # its results
    assert cpu in lines[at + 1], lines  # the machine under the heading
    block = lines[at:]
    commits = [w for line in block[3:6] for w in line.split() if re.fullmatch(r"c\d", w)]
    assert commits == ["c1", "c2", "c3"], block
    # A filter that matches nothing: one line naming the store, no series.
    p = run("history", "--store", store, "nothing*", check=0)
    assert len(p.stdout.splitlines()) == 1 and f"'{store}'" in p.stdout, p.stdout
    assert history(store, "nothing*")["series"] == []


def test_other_formats_and_standard_input(tmp_path):
    """Google Benchmark's repetitions and hyperfine's runs are the units."""
    store = str(tmp_path / "s.db")
    gb_path, hf_path = str(FIXTURES / "gbench.json"), str(FIXTURES / "hyperfine.json")
    gb, hf = json.loads(Path(gb_path).read_text()), json.loads(Path(hf_path).read_text())
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    want = {}
    for b in gb["benchmarks"]:
        if b["run_type"] == "iteration":
            want.setdefault(b["run_name"], []).append(b["real_time"] * scale[b["time_unit"]])
    for r in hf["results"]:
        want[r["command"]] = [t * 1e9 for t in r["times"]]
    nb = len({b["run_name"] for b in gb["benchmarks"]})
    (g,) = add(store, "--commit", "g", "--time", "1000", files=[gb_path], nbench=nb)
    (h,) = add(store, "--commit", "h", "--time", "2000", files=[hf_path], nbench=len(hf["results"]))
    p = run("store", "add", "--store", store, "--commit", "s", "--time", "3000", "-", check=0,
            input=Path(hf_path).read_text())
    (s,) = stored(p, "standard input", len(hf["results"]))
    assert len({g, h, s}) == 3
    got = by_name(history(store))
    assert set(got) == set(want)
    for name, units in want.items():
        rs = got[name]["results"]
        assert [r["units"] for r in rs] == [len(units)] * len(rs)
        for r in rs:
            assert r["value"] == pytest.approx(np.median(units), rel=1e-12)
    assert [r["run"] for r in got["true"]["results"]] == [h, s]
    assert [r["commit"] for r in got["true"]["results"]] == ["h", "s"]


def test_every_benchmark_said_stored_is_in_the_store(tmp_path):
    """A Google Benchmark file of aggregates only (--benchmark_report_
    aggregates_only) has a mean and no repetitions: it is kept, its mean as
    the value and its deviation and count as the interval, never counted
    as stored and dropped."""
    gb = json.loads((FIXTURES / "gbench.json").read_text())
    agg = [b for b in gb["benchmarks"] if b["run_type"] == "aggregate"]
    mean = [b for b in agg if b["aggregate_name"] == "mean"][0]
    # Its deviation too, which the interval is made from.
    sd = dict(mean, name=mean["name"].replace("_mean", "_stddev"), aggregate_name="stddev",
              real_time=0.05 * mean["real_time"])
    agg.append(sd)
    path = tmp_path / "aggregates.json"
    path.write_text(json.dumps(dict(gb, benchmarks=agg)))
    store = str(tmp_path / "s.db")
    p = run("store", "add", "--store", store, "--commit", "a", str(path))
    assert p.returncode == 0, p.stderr
    stored(p, str(path), 1)
    got = by_name(history(store))
    assert set(got) == {mean["run_name"]}, (p.stdout, got)
    ns = mean["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[mean["time_unit"]]
    (r,) = got[mean["run_name"]]["results"]
    assert r["value"] == pytest.approx(ns, rel=1e-12)
    # Student's t with n - 1 degrees of freedom on the deviation.
    t = {2: 4.302652729911275, 4: 2.7764451051977987}[mean["repetitions"] - 1]
    half = t * 0.05 * ns / np.sqrt(mean["repetitions"])
    assert r["units"] == mean["repetitions"]
    # The store keeps the mean's own interval; history shows the next run's.
    assert r["est_ci"] == pytest.approx([ns - half, ns + half], rel=1e-9)
    assert r["ci"] == pytest.approx(next_run(ns, ns - half, ns + half), rel=1e-9)


def test_a_reader_makes_nothing_and_reads_what_it_cannot_write(tmp_path, run_files):
    """history and compare --store on a path with no store: one line, exit
    1, and no file made; on a store it may not write: it is read."""
    # The line names the path and the option that makes a store.
    missing = tmp_path / "no" / "such.db"
    p = run("history", "--store", str(missing), check=1)
    error_line(p, 1, "history", f"'{missing}'", "--store")
    assert not missing.parent.exists()
    p = run("compare", "--store", str(missing), str(run_files[0]), str(run_files[1]), check=1)
    error_line(p, 1, "compare", f"'{missing}'", "--store")
    assert not missing.parent.exists()
    # A folder anyone may enter (pytest's own is its owner's alone).
    d = Path(tempfile.mkdtemp(prefix="vn-reader-"))
    try:
        os.chmod(d, 0o755)
        store = str(d / "s.db")
        run("store", "add", "--store", store, str(run_files[0]))
        os.chmod(store, 0o444)
        prefix = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        p = subprocess.run([*prefix, VERNIER, "history", "--store", store, "--json", "-"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["series"]
    finally:
        shutil.rmtree(d)


def test_commit_branch_and_dirty_from_the_working_tree(tmp_path, run_files):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]

    def g(*args):
        return subprocess.run([*git, *args], cwd=repo, capture_output=True, text=True, check=True).stdout

    g("init", "-q", "-b", "trunk")
    (repo / "a.txt").write_text("1\n")
    g("add", "a.txt")
    g("commit", "-q", "-m", "one")
    head = g("rev-parse", "HEAD").strip()
    store = str(tmp_path / "s.db")
    f = run_files[0]
    (repo / "untracked.txt").write_text("not part of the tree\n")
    run("store", "add", "--store", store, "--time", "1000", f, check=0, cwd=repo)
    (repo / "a.txt").write_text("2\n")
    run("store", "add", "--store", store, "--time", "2000", f, check=0, cwd=repo)
    run("store", "add", "--store", store, "--time", "3000", "--branch", "other", f, check=0, cwd=repo)
    rs = by_name(history(store))["true"]["results"]
    assert [(r["commit"], r["branch"], r["dirty"]) for r in rs] == \
        [(head, "trunk", False), (head, "trunk", True), (head, "other", True)]
    p = run("history", "--store", store, check=0)
    assert f"{head[:10]}+" in p.stdout  # a dirty tree's commit is marked


# ---- 2, 3. many writers at once ---------------------------------------------------


def hammer(url, path, files_a_call=1):
    """WRITERS processes at once, each storing RESULTS_EACH results of path
    (files_a_call of them a `vernier store add`), each result with its own
    commit: the run IDs each writer was told, and the seconds it took."""
    calls = RESULTS_EACH // files_a_call
    ids = [[] for _ in range(WRITERS)]
    failed = []
    go = threading.Barrier(WRITERS)

    def writer(k):
        try:
            go.wait()
            for c in range(calls):
                p = subprocess.run([VERNIER, "store", "add", "--store", url, "--commit", f"w{k}-{c}",
                                    "--tag", f"writer={k}", *[path] * files_a_call],
                                   capture_output=True, text=True, timeout=120)
                if p.returncode != 0:
                    failed.append((k, c, p.returncode, p.stderr))
                    return
                ids[k] += stored(p, [path] * files_a_call, 1)
        except Exception as e:  # noqa: BLE001 - reported below
            failed.append((k, repr(e)))

    start = time.monotonic()
    threads = [threading.Thread(target=writer, args=(k,)) for k in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - start
    assert not failed, failed[:3]
    return ids, took


def expected_commits(files_a_call=1):
    return sorted(f"w{k}-{c}" for k in range(WRITERS) for c in range(RESULTS_EACH // files_a_call)
                  for _ in range(files_a_call))


@pytest.fixture(scope="module")
def small_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("small") / "one.json"
    run("run", "-N", "-r", "5", "--json", str(path), "true", check=0, timeout=120)
    return str(path)


def test_sqlite_many_writers_at_once(tmp_path, small_file):
    store = str(tmp_path / "shared.db")  # made by the writers, all at once
    ids, took = hammer(store, small_file)
    total = WRITERS * RESULTS_EACH
    every = [i for w in ids for i in w]
    assert len(every) == total and len(set(every)) == total
    with db(store) as c:
        q = lambda sql: c.execute(sql).fetchall()  # noqa: E731
        assert q("PRAGMA integrity_check") == [("ok",)]
        assert q("PRAGMA journal_mode") == [("wal",)]
        assert q("SELECT version FROM vernier_schema") == [(2,)]  # made once
        assert q("SELECT count(*) FROM machines") == [(1,)]
        assert q("SELECT count(*), count(DISTINCT uuid) FROM runs") == [(total, total)]
        assert sorted(r[0] for r in q("SELECT commit_id FROM runs")) == expected_commits()
        assert sorted(r[0] for r in q("SELECT id FROM runs")) == sorted(every)
        assert q("SELECT tags, count(*) FROM runs GROUP BY tags ORDER BY tags") == \
            [(f"writer={k}", RESULTS_EACH) for k in range(WRITERS)]
        # One result a run, its five units: nothing half written.
        assert q("SELECT count(*), count(DISTINCT run) FROM results") == [(total, total)]
        assert q("SELECT DISTINCT n FROM (SELECT count(*) AS n FROM units GROUP BY result)") == [(5,)]
        assert q("SELECT count(*) FROM units") == [(5 * total,)]
    print(f"{total} results by {WRITERS} writers in {took:.1f} s")


def _version(path):
    m = re.search(r"/postgresql/(\d+)/bin/", path)
    return int(m.group(1)) if m else 0


@pytest.fixture(scope="module")
def postgres():
    """A PostgreSQL server of its own in a temporary folder, on a Unix socket
    there only (no TCP), its superuser 'postgres' trusted; run as the system
    user postgres when we are root (initdb refuses root). Stopped at the end
    whatever happens. What it yields makes databases and queries them."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    if not found:
        pytest.fail("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
                    "scripts/install-deps --test installs postgresql")
    if cmake_cache("LIBPQ_FOUND") not in ("", "1"):
        pytest.fail("this build has no libpq: scripts/install-deps installs libpq-dev; "
                    "configure the build again")
    bindir = Path(found[-1]).parent
    as_pg = []
    if os.geteuid() == 0:
        if not shutil.which("runuser"):
            pytest.fail("running as root without runuser: cannot start PostgreSQL as postgres")
        as_pg = ["runuser", "-u", "postgres", "--"]
    top = tempfile.mkdtemp(prefix="vn-pg-", dir="/tmp")  # short: a socket's path is short
    os.chmod(top, 0o777)
    data, log = os.path.join(top, "data"), os.path.join(top, "log")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def pg(*args, timeout=120):
        return subprocess.run([*as_pg, *args], capture_output=True, text=True, timeout=timeout)

    started = False
    try:
        p = pg(str(bindir / "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync",
               "-E", "UTF8", "--locale=C")
        assert p.returncode == 0, f"initdb failed: {p.stdout}{p.stderr}"
        st = os.stat(data)
        assert stat.S_IMODE(st.st_mode) == 0o700
        with open(os.path.join(data, "postgresql.conf"), "a") as conf:
            conf.write(f"\nlisten_addresses = ''\nunix_socket_directories = '{top}'\nport = {port}\n"
                       "fsync = off\nmax_connections = 40\n")
        started = True
        p = pg(str(bindir / "pg_ctl"), "-D", data, "-l", log, "-w", "-t", "60", "start")
        log_text = Path(log).read_text() if os.path.exists(log) else ""
        assert p.returncode == 0, f"pg_ctl start failed: {p.stdout}{p.stderr}{log_text}"

        class Server:
            dir = top

            @staticmethod
            def url(name):
                return f"postgresql:///{name}?host={top}&port={port}&user=postgres"

            @staticmethod
            def createdb(name):
                p = subprocess.run([str(bindir / "createdb"), "-h", top, "-p", str(port), "-U", "postgres",
                                    name], capture_output=True, text=True, timeout=60)
                assert p.returncode == 0, p.stderr
                return Server.url(name)

            @staticmethod
            def psql(name, sql):
                p = subprocess.run([str(bindir / "psql"), "-X", "-q", "-h", top, "-p", str(port), "-U",
                                    "postgres", "-d", name, "-At", "-F", "|", "-v", "ON_ERROR_STOP=1",
                                    "-c", sql], capture_output=True, text=True, timeout=60)
                assert p.returncode == 0, p.stderr
                return [tuple(line.split("|")) for line in p.stdout.splitlines()]

        yield Server
    finally:
        if started:
            pg(str(bindir / "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop", timeout=60)
        shutil.rmtree(top, ignore_errors=True)


def test_postgresql_many_writers_at_once(postgres, small_file):
    url = postgres.createdb("vn_many")  # empty: the writers make the tables, all at once
    # A connection costs PostgreSQL a process: four files a call (each its
    # own transaction, as ever) keep the test short.
    ids, took = hammer(url, small_file, files_a_call=4)
    total = WRITERS * RESULTS_EACH
    every = [i for w in ids for i in w]
    assert len(every) == total and len(set(every)) == total
    q = lambda sql: postgres.psql("vn_many", sql)  # noqa: E731
    assert q("SELECT version FROM vernier_schema") == [("2",)]
    assert q("SELECT count(*) FROM machines") == [("1",)]
    assert q("SELECT count(*), count(DISTINCT uuid) FROM runs") == [(str(total), str(total))]
    assert sorted(r[0] for r in q("SELECT commit_id FROM runs")) == expected_commits(4)
    assert sorted(int(r[0]) for r in q("SELECT id FROM runs")) == sorted(every)
    assert q("SELECT tags, count(*) FROM runs GROUP BY tags ORDER BY tags") == \
        [(f"writer={k}", str(RESULTS_EACH)) for k in range(WRITERS)]
    assert q("SELECT count(*), count(DISTINCT run) FROM results") == [(str(total), str(total))]
    assert q("SELECT DISTINCT n FROM (SELECT count(*) AS n FROM units GROUP BY result) x") == [("5",)]
    assert q("SELECT count(*) FROM units") == [(str(5 * total),)]

    # history reads it back: one series, every run, in the order stored.
    doc = history(url, "--last", "0")
    (s,) = doc["series"]
    assert s["name"] == "true"
    rs = s["results"]
    assert sorted(r["run"] for r in rs) == sorted(every)
    assert [r["time"] for r in rs] == sorted(r["time"] for r in rs)
    want = np.median(units_of_commands(json.loads(Path(small_file).read_text()))["true"])
    assert all(r["value"] == pytest.approx(want, rel=1e-12) and r["units"] == 5 for r in rs)
    print(f"{total} results by {WRITERS} writers in {took:.1f} s")


def test_postgresql_round_trip_and_check(postgres, tmp_path):
    """The same answers as SQLite gives: values, commits, time order and
    change points come from the store's rows, whichever back end holds them."""
    url = postgres.createdb("vn_trip")
    sqlite_store = str(tmp_path / "s.db")
    files = shift_files(tmp_path, shift=1.10)
    for store in (url, sqlite_store):
        for i, f in reversed(list(enumerate(files))):
            add(store, "--commit", f"c{i + 1:02d}", "--time", str(T0 + 60 * i), files=[f], nbench=3)
    a, b = by_name(history(url, sub=("check",))), by_name(history(sqlite_store, sub=("check",)))
    assert set(a) == set(b) == {"shifted", "faster", "flat"}
    for name in a:
        assert a[name]["machine"] == b[name]["machine"]
        ra, rb = a[name]["results"], b[name]["results"]
        assert [r["commit"] for r in ra] == [r["commit"] for r in rb] == [f"c{i + 1:02d}" for i in range(20)]
        for x, y in zip(ra, rb):
            # The same numbers, to the 15 digits SQLite gives back as text.
            for k in ("time", "value", "units", "learned_from"):
                assert x[k] == pytest.approx(y[k], rel=1e-13), (name, k)
            for k in ("ci", "ci_history"):
                nan = [math.nan if v is None else v for v in x[k]]
                assert nan == pytest.approx([math.nan if v is None else v for v in y[k]], rel=1e-12,
                                            nan_ok=True), (name, k)
        ca, cb = a[name]["changes"], b[name]["changes"]
        assert [(c["index"], c["before"], c["after"], c["verdict"]) for c in ca] == \
            [(c["index"], c["before"], c["after"], c["verdict"]) for c in cb]
        assert [c["ratio"] for c in ca] == pytest.approx([c["ratio"] for c in cb], rel=1e-12)
    assert [c["index"] for c in a["shifted"]["changes"]] == [10]


# ---- 4. a damaged store ---------------------------------------------------------


def test_not_an_sqlite_store(tmp_path, run_files):
    bad = tmp_path / "random.db"
    junk = np.random.default_rng(5).integers(0, 256, 16384, dtype=np.uint8).tobytes()
    bad.write_bytes(junk)
    # The line names the file, passes on what SQLite says of it, and names
    # the option to give another.
    p = run("store", "add", "--store", str(bad), run_files[0], check=1)
    error_line(p, 1, "store", f"'{bad}'", "--store", sqlite_says(bad))
    assert p.stdout == ""
    assert bad.read_bytes() == junk
    # history says the same
    p = run("history", "--store", str(bad), check=1)
    error_line(p, 1, "history", f"'{bad}'", "--store", sqlite_says(bad))

    # The usual slip: a results file given as the store.
    victim = tmp_path / "victim.json"
    shutil.copy(run_files[1], victim)
    before = victim.read_bytes()
    p = run("store", "add", "--store", str(victim), run_files[0], check=1)
    error_line(p, 1, "store", f"'{victim}'", "--store", sqlite_says(victim))
    assert victim.read_bytes() == before

    # vernier run: the results are written, and it says where.
    out = tmp_path / "out.json"
    p = run("run", "-N", "-r", "3", "--json", str(out), "--store", str(bad), "true", check=1, timeout=120)
    error_line(p, 1, "run", f"'{bad}'", sqlite_says(bad), f"'{out}'")
    doc = json.loads(out.read_text())
    validate(doc, "results-1.json")
    assert [b["name"] for b in doc["benchmarks"]] == ["true"]
    assert len(doc["benchmarks"][0]["samples"]) == 3
    assert bad.read_bytes() == junk


def test_a_bad_file_stops_at_it_and_keeps_the_ones_before(tmp_path, run_files):
    store = str(tmp_path / "s.db")
    broken = tmp_path / "broken.json"
    broken.write_text('{"results": [{"command": "x", "times": [0.1, "oops"]}]}')
    p = run("store", "add", "--store", store, "--commit", "x", run_files[0], str(broken), run_files[1],
            check=1)
    (first,) = stored(p, run_files[0], 2)
    line = one_error(p, "store")
    assert str(broken) in line and "times[1]" in line, line
    with db(store) as c:
        assert c.execute("SELECT id FROM runs").fetchall() == [(first,)]
    p = run("store", "add", "--store", store, str(tmp_path / "missing.json"), check=1)
    error_line(p, 1, "store", "'%s'" % (tmp_path / "missing.json"), os.strerror(errno.ENOENT))


# ---- 5. a store that cannot be written -----------------------------------------------


def as_someone_else():
    """The command prefix that runs vernier as a user file permissions apply
    to: as root, `runuser -u nobody --`; else nothing (we are such a user)."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("runuser"):
        pytest.skip("running as root, and no runuser to drop to nobody: permissions do not stop root")
    p = subprocess.run(["runuser", "-u", "nobody", "--", VERNIER, "--version"], capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0:
        pytest.skip(f"running as root, and nobody cannot run {VERNIER} ({p.stderr.strip()}): "
                    "permissions do not stop root")
    return ["runuser", "-u", "nobody", "--"]


def test_read_only_store(tmp_path, small_file):
    prefix = as_someone_else()
    top = Path(tempfile.mkdtemp(prefix="vn-ro-", dir="/tmp"))  # pytest's folders are the owner's only
    try:
        os.chmod(top, 0o755)
        results = top / "one.json"
        shutil.copy(small_file, results)
        os.chmod(results, 0o644)
        outdir = top / "out"
        outdir.mkdir()
        os.chmod(outdir, 0o777)
        # (folder mode, store mode): the file read-only; the folder read-only,
        # where the write-ahead log cannot be made.
        for case, (dmode, fmode) in enumerate([(0o777, 0o444), (0o555, 0o666)]):
            d = top / f"case{case}"
            d.mkdir()
            store = d / "s.db"
            run("store", "add", "--store", str(store), "--commit", "first", str(results), check=0)
            os.chmod(store, fmode)
            os.chmod(d, dmode)
            p = subprocess.run([*prefix, VERNIER, "store", "add", "--store", str(store), str(results)],
                               capture_output=True, text=True, timeout=60)
            # One line naming the store; it is left as it was (below).
            error_line(p, 1, "store", f"'{store}'")
            assert p.stdout == ""
            out = outdir / f"run{case}.json"
            p = subprocess.run([*prefix, VERNIER, "run", "-N", "-r", "3", "--json", str(out), "--store",
                                str(store), "true"], capture_output=True, text=True, timeout=120)
            # The store, and where the results are.
            error_line(p, 1, "run", f"'{store}'", f"'{out}'")
            validate(json.loads(out.read_text()), "results-1.json")
            os.chmod(d, 0o755)
            with db(store) as c:
                assert c.execute("SELECT commit_id FROM runs").fetchall() == [("first",)], case
    finally:
        for d in top.rglob("*"):
            if d.is_dir():
                os.chmod(d, 0o755)
        shutil.rmtree(top, ignore_errors=True)


# ---- 6. migration ------------------------------------------------------------------

# Version 1 of the schema, as vernier 0.6's first store made it (migration1
# in src/store/store.c, "@ID@" being SQLite's INTEGER PRIMARY KEY).
SCHEMA_V1 = [
    "CREATE TABLE vernier_schema (version INTEGER NOT NULL)",
    "INSERT INTO vernier_schema (version) VALUES (1)",
    "CREATE TABLE machines (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, cpu TEXT, "
    "cpus TEXT, kernel TEXT, governor TEXT)",
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, time DOUBLE PRECISION NOT NULL, "
    "machine BIGINT NOT NULL REFERENCES machines (id), host TEXT, commit_id TEXT, branch TEXT, "
    "dirty INTEGER, source TEXT, tags TEXT)",
    "CREATE TABLE results (id INTEGER PRIMARY KEY, run BIGINT NOT NULL REFERENCES runs (id), "
    "name TEXT NOT NULL, unit TEXT NOT NULL, value DOUBLE PRECISION, lo DOUBLE PRECISION, "
    "hi DOUBLE PRECISION, nunits INTEGER NOT NULL)",
    "CREATE INDEX results_by_name ON results (name)",
    "CREATE INDEX runs_by_time ON runs (time)",
]


def make_v1_store(path, fingerprint):
    c = sqlite3.connect(path)
    with c:
        for sql in SCHEMA_V1:
            c.execute(sql)
        c.execute("INSERT INTO machines (fingerprint, cpu) VALUES (?, 'old cpu')", (fingerprint,))
        c.execute("INSERT INTO runs (uuid, time, machine, commit_id, branch, dirty, source) "
                  "VALUES ('00000000-0000-4000-8000-000000000001', 1000.5, 1, 'old1', 'main', 0, 'file x')")
        c.execute("INSERT INTO results (run, name, unit, value, lo, hi, nunits) "
                  "VALUES (1, 'true', 'ns', 1234.5, 1200.25, 1268.75, 3)")
    c.close()


def test_migration_of_a_version_1_store(tmp_path, run_files):
    f = run_files[0]
    # The machine's fingerprint as vernier keeps it, so that the old result
    # and the new are one series.
    scratch = str(tmp_path / "scratch.db")
    add(scratch, "--commit", "x", files=[f], nbench=2)
    with db(scratch) as c:
        (fingerprint,) = c.execute("SELECT fingerprint FROM machines").fetchone()
    want = np.median(units_of_commands(json.loads(Path(f).read_text()))["true"])

    for first in ("history", "store add"):
        store = str(tmp_path / f"v1-{first.replace(' ', '-')}.db")
        make_v1_store(store, fingerprint)
        if first == "history":
            (s,) = [s for s in history(store)["series"] if s["name"] == "true"]
            (old,) = s["results"]
            assert (old["commit"], old["branch"], old["dirty"], old["unit"], old["units"]) == \
                ("old1", "main", False, "ns", 3)
            assert old["time"] == 1000.5 and old["value"] == 1234.5 and old["est_ci"] == [1200.25, 1268.75]
            assert old["ci"] == pytest.approx(next_run(1234.5, 1200.25, 1268.75), rel=1e-12)
            assert s["machine"] == fingerprint
        with db(store) as c:
            if first == "history":
                assert c.execute("SELECT version FROM vernier_schema").fetchall() == [(2,)]
                tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                assert "units" in tables
                cols = {r[1] for r in c.execute("PRAGMA table_info(results)")}
                assert {"sd", "cycles", "cycles_lo", "cycles_hi"} <= cols
        (new,) = add(store, "--commit", "new1", "--time", "2000", files=[f], nbench=2)
        with db(store) as c:
            assert c.execute("SELECT version FROM vernier_schema").fetchall() == [(2,)]
            assert c.execute("SELECT count(*) FROM runs").fetchone()[0] == 2
            assert c.execute("SELECT count(*) FROM machines").fetchone()[0] == 1
        got = by_name(history(store))
        rs = got["true"]["results"]
        assert [r["commit"] for r in rs] == ["old1", "new1"]
        assert rs[1]["run"] == new and rs[1]["value"] == pytest.approx(want, rel=1e-12)
        assert rs[0]["value"] == 1234.5
        assert [r["commit"] for r in got["sleep 0"]["results"]] == ["new1"]

    # A store of a newer vernier is left alone.
    newer = str(tmp_path / "newer.db")
    make_v1_store(newer, fingerprint)
    with sqlite3.connect(newer) as c:
        c.execute("UPDATE vernier_schema SET version = 99")
    for args in (["history", "--store", newer], ["store", "add", "--store", newer, f]):
        # The line names the store and the version it holds.
        p = run(*args, check=1)
        line = error_line(p, 1, args[0], f"'{newer}'")
        assert "99" in re.findall(r"\d+", line.replace(newer, "")), line
    with db(newer) as c:
        assert c.execute("SELECT version FROM vernier_schema").fetchall() == [(99,)]
        assert c.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables == {"vernier_schema", "machines", "runs", "results"}


# ---- 7. history check --------------------------------------------------------------

T0 = 1.7e9  # when the planted series ran: one a minute from here


def shift_files(d, shift, n=20, at=10, seed=11):
    """n hyperfine files, each with three commands of 10 runs: 'shifted'
    steps by `shift` at result `at`, 'faster' by 1/shift there, 'flat' never;
    the same noise (1% from result to result, 2% from run to run) in each."""
    rng = np.random.default_rng(seed)
    files = []
    for i in range(n):
        cmds = {}
        for name, step in (("shifted", shift), ("faster", 1 / shift), ("flat", 1.0)):
            level = 1e-3 * (step if i >= at else 1.0) * math.exp(rng.normal(0, 0.01))
            cmds[name] = level * np.exp(rng.normal(0, 0.02, 10))
        f = d / f"hf{i:02d}.json"
        f.write_text(json.dumps(hyperfine_doc(cmds)))
        files.append(str(f))
    return files


def log_ratio(values, at):
    v = np.log(values)
    return math.exp(v[at:].mean() - v[:at].mean())


def test_history_check_finds_the_planted_shift(tmp_path):
    files = shift_files(tmp_path, shift=1.10)
    store = str(tmp_path / "s.db")
    for i, f in enumerate(files):
        add(store, "--commit", f"c{i + 1:02d}", "--time", str(T0 + 60 * i), files=[f], nbench=3)
    docs = [json.loads(Path(f).read_text()) for f in files]
    medians = {name: [np.median(r["times"]) * 1e9 for d in docs for r in d["results"] if r["command"] == name]
             for name in ("shifted", "faster", "flat")}

    assert all("changes" not in s for s in history(store)["series"])
    got = by_name(history(store, sub=("check",)))
    assert set(got) == {"shifted", "faster", "flat"}
    for name, s in got.items():
        assert [r["value"] for r in s["results"]] == pytest.approx(medians[name], rel=1e-12)
        assert [r["commit"] for r in s["results"]] == [f"c{i + 1:02d}" for i in range(20)]
    for name, verdict in (("shifted", "slower"), ("faster", "faster")):
        (c,) = got[name]["changes"]
        assert (c["index"], c["before"], c["after"], c["verdict"]) == (10, "c10", "c11", verdict), c
        assert c["ratio"] == pytest.approx(log_ratio(medians[name], 10), rel=1e-9)
        assert c["ratio"] == pytest.approx(1.10 if name == "shifted" else 1 / 1.10, rel=0.02)
        assert c["ci"][0] < c["ratio"] < c["ci"][1]
        assert c["ci"][0] > 1.02 if name == "shifted" else c["ci"][1] < 0.98
        assert 0 < c["p"] <= 0.01
    assert got["flat"]["changes"] == []

    # The gate: the newest change of a series a slowdown past the threshold.
    run("history", "check", "--store", store, "--fail-on-regression", check=3)
    run("history", "check", "--store", store, "--fail-on-regression", "shifted", check=3)
    run("history", "check", "--store", store, "--fail-on-regression", "flat", "faster", check=0)
    # A threshold above the shift: a change, but none past it.
    doc = history(store, "--threshold", "15", "--fail-on-regression", "shifted", sub=("check",))
    assert [c["verdict"] for c in by_name(doc)["shifted"]["changes"]] == ["no change"]
    # A largest p-value below theirs: no change point, and nothing to fail.
    least = min(got[name]["changes"][0]["p"] for name in ("shifted", "faster"))
    doc = history(store, "--p-value", repr(least / 2), "--fail-on-regression", sub=("check",))
    assert all(s["changes"] == [] for s in doc["series"])

    # The console: under shifted, the change between the commits around it
    # with its ratio and interval, and its row marked; under flat, neither.
    p = run("history", "check", "--store", store, "shifted", "flat", check=0)
    blocks = dict(re.findall(r"^(\w+): (.*?)(?=^\w+: |\Z)", p.stdout, re.M | re.S))
    assert set(blocks) == {"shifted", "flat"}, p.stdout
    (c,) = got["shifted"]["changes"]
    assert re.search(rf"^  c10\.\.c11: {c['ratio']:.3f}x \[{c['ci'][0]:.3f}, {c['ci'][1]:.3f}\] slower,",
                     blocks["shifted"], re.M), p.stdout
    assert re.search(r"^ .* c11 .*<- slower$", blocks["shifted"], re.M), p.stdout
    assert not re.search(r"\bc\d\d\.\.c\d\d:|<-", blocks["flat"]), p.stdout


def test_history_check_of_a_flat_series_passes(tmp_path):
    files = shift_files(tmp_path, shift=1.0, seed=12)
    store = str(tmp_path / "s.db")
    for i, f in enumerate(files):
        add(store, "--commit", f"c{i + 1:02d}", "--time", str(T0 + 60 * i), files=[f], nbench=3)
    doc = history(store, "--fail-on-regression", sub=("check",))
    assert len(doc["series"]) == 3
    assert all(s["changes"] == [] for s in doc["series"]), doc["series"]


# ---- vernier run --store, VERNIER_STORE, compare --store ---------------------------------


def test_run_keeps_its_results(tmp_path):
    store = str(tmp_path / "s.db")
    out = tmp_path / "r.json"
    p = run("run", "-N", "-r", "4", "--json", str(out), "--store", store, "true", check=0, timeout=120)
    (r,) = by_name(history(store))["true"]["results"]
    assert r["run"] == kept_as(p, store)
    assert r["value"] == pytest.approx(np.median(units_of_commands(json.loads(out.read_text()))["true"]),
                                       rel=1e-12)
    # $VERNIER_STORE, without --json: kept all the same.
    env_store = str(tmp_path / "env.db")
    p = run("run", "-N", "-r", "3", "true", check=0, timeout=120, env={"VERNIER_STORE": env_store})
    (r,) = by_name(history(env_store))["true"]["results"]
    assert r["units"] == 3 and r["run"] == kept_as(p, env_store)
    # store add and history use it too, and the default is under XDG_DATA_HOME.
    xdg = tmp_path / "xdg"
    p = run("store", "add", str(out), check=0, env={"XDG_DATA_HOME": str(xdg)})
    stored(p, str(out), 1)
    default = xdg / "vernier" / "results.db"
    assert default.is_file()
    p = run("history", "--json", "-", check=0, env={"XDG_DATA_HOME": str(xdg)})
    assert json.loads(p.stdout)["store"] == str(default)


def test_compare_learns_from_the_store(tmp_path, small_file):
    """Results of BASE's benchmark that varied from run to run widen the
    interval of a comparison; learned_from says how many."""
    template = json.loads(Path(small_file).read_text())
    store = str(tmp_path / "s.db")
    now = time.time()
    # Each result tight (0.5% from run to run), the results 20% apart.
    factors = [1.0, 1.3, 0.8, 1.2, 0.85, 1.25]
    for i, k in enumerate(factors):
        doc = json.loads(json.dumps(template))
        for s, v in zip(doc["benchmarks"][0]["samples"], [0.99, 1.0, 1.01, 1.0, 1.005]):
            s["value"] = 1e6 * k * v
        f = tmp_path / f"h{i}.json"
        f.write_text(json.dumps(doc))
        add(store, "--commit", f"h{i}", "--time", str(now - 3600 * (len(factors) - i)), files=[str(f)],
            nbench=1)
    # The file compared, as tight as each result (a measured one may hold
    # an outlier whose own interval is wider than history's).
    doc = json.loads(json.dumps(template))
    for s, v in zip(doc["benchmarks"][0]["samples"], [0.99, 1.0, 1.01, 1.0, 1.005]):
        s["value"] = 1e6 * v
    one = tmp_path / "one.json"
    one.write_text(json.dumps(doc))
    plain = json.loads(run("compare", "--json", "-", str(one), str(one), check=0).stdout)
    learned = json.loads(run("compare", "--json", "-", "--store", store, str(one), str(one),
                             check=0).stdout)
    validate(learned, "compare-1.json")
    (a,), (b,) = plain["benchmarks"], learned["benchmarks"]
    assert a.get("learned_from", 0) == 0
    assert b["learned_from"] == len(factors)
    assert b["ratio"] == a["ratio"]
    assert b["ci"][0] < a["ci"][0] and b["ci"][1] > a["ci"][1], (a["ci"], b["ci"])


def clock_moved_doc(ns_level, cycles_level, unit, rng):
    """A vernier file of one benchmark over 6 processes whose reference
    cycles sit within 0.2% of cycles_level and whose ns sit at ns_level,
    the headline in unit, its interval for the next run 0.3% either side."""
    doc = json.loads((FIXTURES / "vernier-code.json").read_text())
    b = doc["benchmarks"][0]
    doc["benchmarks"] = [b]
    procs = []
    for _ in range(6):
        e = math.exp(rng.normal(0, 0.002))
        procs.append({"value": ns_level * e, "cycles": cycles_level * e, "probe": 1.0, "samples": 5,
                      "used": 5, "upper_bound": False, "left_out": False})
    b["processes"] = procs
    ns, cyc = (float(np.median([q[k] for q in procs])) for k in ("value", "cycles"))
    units = {k: {"value": v, "ci": [v * 0.997, v * 1.003]} for k, v in (("ns", ns), ("cycles", cyc))}
    b["headline"] = {"unit": unit, "value": units[unit]["value"], "ci": units[unit]["ci"], "units": units}
    return doc


@pytest.mark.parametrize("unit", ["cycles", "ns"])
def test_compare_learns_in_the_unit_it_compares_in(tmp_path, unit):
    """Runs whose ns moved 6% with the core's clock while their cycles kept
    within 0.2%: a comparison in cycles learns how far cycles move and
    finds a 3% slowdown; one in ns learns how far ns move and does not
    call it. Each result kept its cycles beside its ns, and the history
    shows the series in its files' unit."""
    rng = np.random.default_rng(5)
    store = str(tmp_path / "s.db")
    now = time.time()
    clock = [1.0, 1.06, 0.95, 1.05, 0.94, 1.06, 0.95, 1.04]
    for i, k in enumerate(clock):
        f = tmp_path / f"h{i}.json"
        f.write_text(json.dumps(clock_moved_doc(1000 * k, 3000 * math.exp(rng.normal(0, 0.002)), unit, rng)))
        add(store, "--commit", f"h{i}", "--time", str(now - 600 * (len(clock) - i)), files=[str(f)],
            nbench=1)
    # The history reads the series in the unit its files compared in.
    series = by_name(history(store))["two_loops"]
    assert series["unit"] == unit
    last = series["results"][-1]
    assert last["value"] == last[unit] and last["ns"] == pytest.approx(1000 * clock[-1], rel=0.01)
    assert last["cycles"] == pytest.approx(3000, rel=0.01)
    hist_half = math.log(last["ci_history"][1] / last["value"])
    assert hist_half < 0.02 if unit == "cycles" else hist_half > 0.05, last
    p = run("history", "--store", store, check=0)
    assert ("in reference cycles" in p.stdout) == (unit == "cycles"), p.stdout
    assert re.search(r" 3\d\d\d\.\dc +\+-", p.stdout) if unit == "cycles" else " us " in p.stdout, p.stdout
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(clock_moved_doc(1000, 3000, unit, rng)))
    new.write_text(json.dumps(clock_moved_doc(1030, 3090, unit, rng)))
    plain = json.loads(run("compare", "--json", "-", str(base), str(new), check=0).stdout)
    learned = json.loads(run("compare", "--json", "-", "--store", store, str(base), str(new),
                             check=0).stdout)
    (a,), (b,) = plain["benchmarks"], learned["benchmarks"]
    assert a["verdict"] == "slower", a
    assert b["learned_from"] == len(clock)
    assert b["ratio"] == a["ratio"] == pytest.approx(1.03, rel=0.005)
    half = math.log(b["ci"][1] / b["ratio"])
    # A verdict on the two runs alone says what they could not see; one
    # that the store's runs widened does not.
    alone = "1 verdict on these runs alone"
    assert alone in run("compare", str(base), str(new), check=0).stdout
    if unit == "cycles":
        # The cycles' own spread between runs: about 1.96 sqrt(2) 0.3%.
        assert half < 0.02, b
        assert b["verdict"] == "slower", b
        assert alone not in run("compare", "--store", store, str(base), str(new), check=0).stdout
    else:
        # The ns' 6% steps from run to run.
        assert half > 0.05, b
        assert b["verdict"] != "slower", b


def test_the_unit_of_a_series_and_of_what_compare_learns(tmp_path):
    """A series is in cycles only when every result kept them and most of
    its files compared in them: one result without cycles, or files mostly
    in ns, keep it in ns. A row compared in cycles whose earlier results
    kept none learns from their ns, which moved 6%."""
    rng = np.random.default_rng(8)
    now = time.time()
    clock = [1.0, 1.06, 0.95, 1.05, 0.94, 1.06, 0.95, 1.04]

    def store_of(name, unit_of, drop_cycles):
        store = str(tmp_path / f"{name}.db")
        for i, k in enumerate(clock):
            doc = clock_moved_doc(1000 * k, 3000, unit_of(i), rng)
            if drop_cycles(i):
                for q in doc["benchmarks"][0]["processes"]:
                    del q["cycles"]
            f = tmp_path / f"{name}{i}.json"
            f.write_text(json.dumps(doc))
            add(store, "--time", str(now - 600 * (len(clock) - i)), files=[str(f)], nbench=1)
        return store

    one_without = store_of("one", lambda i: "cycles", lambda i: i == 2)
    few_in_cycles = store_of("few", lambda i: "cycles" if i < 3 else "ns", lambda i: False)
    none_kept = store_of("none", lambda i: "cycles", lambda i: True)
    for store, unit in ((one_without, "ns"), (few_in_cycles, "ns"), (none_kept, "ns")):
        assert by_name(history(store))["two_loops"]["unit"] == unit
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(clock_moved_doc(1000, 3000, "cycles", rng)))
    new.write_text(json.dumps(clock_moved_doc(1030, 3090, "cycles", rng)))
    for store, hist in ((one_without, "cycles"), (none_kept, "ns")):
        (b,) = json.loads(run("compare", "--json", "-", "--store", store, str(base), str(new),
                              check=0).stdout)["benchmarks"]
        half = math.log(b["ci"][1] / b["ratio"])
        # Cycles from the 7 results that kept them; else the 8 results' ns.
        assert b["learned_from"] == (7 if hist == "cycles" else 8), b
        assert half < 0.02 if hist == "cycles" else half > 0.05, b


# ---- 8. usage errors -------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["store"],
    ["store", "frob"],
    ["store", "add"],
    ["store", "add", "--store", "{store}"],
    ["store", "add", "--store", "{store}", "--tag", "badtag", "{file}"],
    ["store", "add", "--store", "{store}", "--tag", "bad/key=v", "{file}"],
    ["store", "add", "--store", "{store}", "--time", "soon", "{file}"],
    ["store", "add", "--store", "{store}", "--commit", "x" * 41, "{file}"],
    ["store", "add", "--store", "", "{file}"],
    ["history", "--store", "{store}", "--since", "yesterday"],
    ["history", "--store", "{store}", "--last", "-1"],
    ["history", "--store", "{store}", "--fail-on-regression"],
    ["history", "check", "--store", "{store}", "--p-value", "2"],
], ids=lambda a: " ".join(a).replace("{store}", "S").replace("{file}", "F"))
def test_usage_errors(tmp_path, small_file, args):
    store = tmp_path / "s.db"
    argv = [a.replace("{store}", str(store)).replace("{file}", small_file) for a in args]
    p = run(*argv, check=2)
    one_error(p, argv[0])
    assert p.stdout == ""
    assert not store.exists()  # a usage error makes no store


def test_history_page_in_headless_chromium(tmp_path):
    """history check --report: the page loads in a browser without a console
    error, with a plot per series, the change in its table between the
    commits around it; its screenshot is kept in build/test-artifacts/."""
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(b)), None)
    assert browser, "needs Chromium (scripts/install-deps --test installs it)"
    files = shift_files(tmp_path, shift=1.10)
    store = str(tmp_path / "s.db")
    for i, f in enumerate(files):
        add(store, "--commit", f"c{i + 1:02d}", "--time", str(T0 + 60 * i), files=[f], nbench=3)
    page = tmp_path / "history.html"
    run("history", "check", "--store", store, "--report", str(page), check=0)
    html = page.read_text()
    assert "<script" not in html and html.count("<svg") == 3
    url = page.as_uri()
    common = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
              "--user-data-dir=" + str(tmp_path / "profile"), "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0 and "<html" in dom.stdout, dom.stderr[-2000:]
    # Chromium's own words for a console message and a resource it could
    # not load: the wording is the browser's, and is what is looked for.
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Failed to load" in line]
    assert not console, console
    assert len(re.findall(r"<svg\b", dom.stdout)) == 3
    # Both changes in their tables, between c10 and c11; the flat series
    # has no table of changes.
    assert len(re.findall(r"<td>c10 \.\. c11</td>", dom.stdout)) == 2, dom.stdout[-3000:]
    assert dom.stdout.count("<th>between</th>") == 2, dom.stdout[-3000:]
    artifacts = BUILD / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    shot = artifacts / "history.png"
    shot.unlink(missing_ok=True)
    p = subprocess.run([*common, f"--screenshot={shot}", "--window-size=1100,1600",
                        "--hide-scrollbars", url], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 30000  # plots drawn, not a blank page


def test_a_new_run_hears_what_history_says(tmp_path):
    """Once a series has 5 earlier results, a run stored whose interval is
    narrower than how far the runs move from one to the next is told, in a
    line on stderr, its interval with history; before that, nothing."""
    store = str(tmp_path / "s.db")
    rng = np.random.default_rng(3)
    for i in range(8):
        # Each run's own interval is tight (runs within 0.01%), the runs'
        # levels 3% apart from one to the next.
        level = 1e-3 * math.exp(rng.normal(0, 0.03))
        f = tmp_path / f"r{i}.json"
        f.write_text(json.dumps(hyperfine_doc({"x": level * (1 + 1e-4 * rng.normal(size=10))})))
        p = run("store", "add", "--store", store, "--time", str(T0 + 60 * i), str(f))
        assert p.returncode == 0, p.stderr
        lines = p.stderr.splitlines()
        if i < 5:
            assert lines == [], p.stderr
        else:
            # One line: the benchmark, its own interval, the interval with
            # history, and how many earlier runs that rests on.
            (line,) = lines
            assert names_in(line, "x"), line
            own, wide, runs = re.findall(r"\d[\d.]*(?:e[-+]?\d+)?", line)
            assert line.count("%") == 2 and f"+-{own}%" in line and f"+-{wide}%" in line, line
            assert float(own) < 0.1 and 1 < float(wide) < 20 and int(runs) == i, line


def test_every_sample_when_asked(tmp_path, run_files):
    """--samples (and VERNIER_STORE_SAMPLES=1) keeps every sample of every
    benchmark beside its units; without it, none."""
    f = run_files[0]
    doc = json.loads(Path(f).read_text())
    want = {b["name"]: [s["value"] for s in b["samples"]] for b in doc["benchmarks"]}
    store = str(tmp_path / "s.db")
    run("store", "add", "--store", store, f)
    run("store", "add", "--store", store, "--samples", f)
    p = subprocess.run([VERNIER, "store", "add", "--store", store, f], capture_output=True, text=True,
                       env=dict(os.environ, VERNIER_STORE_SAMPLES="1"))
    assert p.returncode == 0, p.stderr
    with db(store) as c:
        rows = c.execute("SELECT r.run, r.name, s.idx, s.ns FROM samples s JOIN results r "
                         "ON s.result = r.id ORDER BY r.run, r.name, s.idx").fetchall()
    assert sorted({run for run, *_ in rows}) == [2, 3]
    for run_id in (2, 3):
        for name, values in want.items():
            got = [ns for r, n, _, ns in rows if r == run_id and n == name]
            assert got == pytest.approx(values, rel=1e-12), name


def test_a_writer_waits_for_one_holding_the_lock_of_a_rollback_store(tmp_path, small_file):
    """A store still in rollback-journal mode, its write lock held by another
    connection for a second: the switch to WAL, which SQLite refuses at once
    rather than wait (a read lock cannot wait to be upgraded), is retried,
    and the result kept once the lock is let go."""
    store = str(tmp_path / "rollback.db")
    add(store, files=[small_file], nbench=1)
    c = sqlite3.connect(store)
    assert c.execute("PRAGMA journal_mode = DELETE").fetchall() == [("delete",)]
    c.close()
    holder = sqlite3.connect(store, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    held = threading.Timer(1.0, holder.execute, ["COMMIT"])
    held.start()
    t = time.monotonic()
    try:
        add(store, files=[small_file], nbench=1)
    finally:
        held.join()
        holder.close()
    assert time.monotonic() - t >= 0.9  # it waited for the lock
    with db(store) as c:
        assert c.execute("PRAGMA journal_mode").fetchall() == [("wal",)]
        assert c.execute("SELECT count(*) FROM runs").fetchall() == [(2,)]
