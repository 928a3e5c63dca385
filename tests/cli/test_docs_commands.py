"""Every command the README and docs/ show runs as written.

The commands are the lines of fenced blocks: those after a "$ " prompt in
a transcript, every line of a ```sh block, and in a plain block with no
prompt the lines that begin with `vernier` or `build/`, but synopses (a
`[` or a placeholder in capitals, FILE). Which run:

- those whose first word is `vernier`, a program of this build
  (`build/...`), or a pipe into one (`seq 1000 | vernier run ...`);
- not those that need root or a loaded kernel module (`sudo`, `vernier
  kbench`, `vernier trace`: tests/cli/test_kbench.py and test_trace.py run
  them in a VM), nor `make`, `cc`, `export`, `python3` and programs the
  reader builds elsewhere (`./bench`).

Each document's commands run in order in one folder of their own, so a
file one writes (`--json base.json`) is there for the next. A command that
reads a file nothing there wrote (`latencies.txt`) must still be read as
written: not a usage error (exit 2), only a file it cannot read (exit 1).
A command whose transcript shows the tool's own error as its first line
must fail; any other must succeed (`--fail-on-regression` may exit 3).
`vernier suite` without `--quick` (a minute or more) is run with `--list`
added: its names and options are read as they would be, nothing measured."""
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import BUILD, SOURCE, VERNIER

DOCS = [SOURCE / "README.md", *sorted((SOURCE / "docs").glob("*.md"))]
NOT_RUN = ("sudo", "make", "cc", "export", "fpath=", "python3", "./", "ls")
NEEDS_ROOT = ("kbench", "trace")


def commands(path):
    """(command, expects_an_error) for each command line of path's blocks."""
    out = []
    text = path.read_text()
    for m in re.finditer(r"^```([a-z]*)\n(.*?)^```", text, re.S | re.M):
        kind, body = m.group(1), m.group(2).splitlines()
        for i, line in enumerate(body):
            if line.startswith("$ "):
                cmd = line[2:]
                following = body[i + 1] if i + 1 < len(body) else ""
                words = cmd.split("|")[-1].split()
                tool = words[0] if words else ""
                sub = words[1] if len(words) > 1 else ""
                err = bool(re.match(r"^(vernier \w+|[\w./-]+): ", following)) and \
                    following.startswith((f"vernier {sub}:", Path(tool).name + ":"))
                out.append((cmd, err))
            elif kind in ("sh", "bash") and line.strip() and not line.startswith("#"):
                out.append((line.split("  #")[0].strip(), False))
            elif kind == "" and not any(l.startswith("$ ") for l in body) and \
                    re.match(r"^(vernier [a-z]+\b(?!:)|build/)", line) and "[" not in line and \
                    not re.search(r"\b[A-Z]{3,}\b", line.split("  #")[0]):
                out.append((line.split("  #")[0].strip(), False))
    return out


def runnable(cmd):
    words = cmd.split()
    if not words or words[0].startswith(NOT_RUN):
        return False
    last = cmd.split("|")[-1].split()
    tool = last[0] if last else ""
    if tool != "vernier" and not tool.startswith("build/"):
        return False
    return not (tool == "vernier" and len(last) > 1 and last[1] in NEEDS_ROOT)


def all_commands():
    out = []
    for doc in DOCS:
        for cmd, err in commands(doc):
            if runnable(cmd):
                out.append((doc.relative_to(SOURCE).as_posix(), cmd, err))
    return out


COMMANDS = all_commands()


def test_the_selection_finds_the_documented_commands():
    docs = {d for d, _, _ in COMMANDS}
    assert {"README.md", "docs/compare.md", "docs/run.md", "docs/suite.md"} <= docs
    assert len(COMMANDS) >= 25


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A folder per document, with build/ and vernier where the docs have
    them: the build's programs under build/, the tool on PATH."""
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "vernier").symlink_to(VERNIER)
    made = {}

    def folder(doc):
        if doc not in made:
            d = tmp_path_factory.mktemp(doc.replace("/", "_"))
            (d / "build").symlink_to(BUILD)
            made[doc] = d
        return made[doc]
    folder.path = f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    return folder


def inputs_missing(cmd, cwd):
    """Files the command reads that nothing in cwd wrote: its operands that
    look like files (a .json, .txt or .db name: a store is read too) and
    are not outputs."""
    words = shlex.split(cmd.split("|")[-1])
    outputs = set()
    for i, w in enumerate(words[:-1]):
        if w in ("--json", "-o", "--markdown", "--csv", "--export-json", "--report", "--png",
                 "--export-csv", "--export-markdown"):
            outputs.add(words[i + 1])
    return [w for w in words[1:] if re.search(r"\.(json|txt|db)$", w) and w not in outputs
            and not (cwd / w).exists()]


@pytest.mark.parametrize("doc, cmd, err", COMMANDS, ids=[f"{d}: {c[:60]}" for d, c, _ in COMMANDS])
def test_documented_command_runs_as_written(folders, doc, cmd, err):
    cwd = folders(doc)
    words = cmd.split()
    if words[:2] == ["vernier", "suite"] and "--quick" not in words and "--list" not in words:
        cmd += " --list"
    missing = inputs_missing(cmd, cwd)
    env = dict(os.environ, PATH=folders.path)
    env.pop("NO_COLOR", None)
    p = subprocess.run(["sh", "-c", cmd], cwd=cwd, capture_output=True, text=True, timeout=600,
                       env=env)
    out = p.stdout + p.stderr
    if missing:
        # Not there to read: only the file may be the trouble, and the
        # message names one that is missing.
        assert p.returncode == 1 and any(m in out for m in missing), (missing, out)
        return
    if err:
        assert p.returncode != 0, out
        assert p.returncode != 2 or "see '" in out
        return
    ok = (0, 3) if "--fail-on-regression" in cmd else (0,)
    assert p.returncode in ok, (p.returncode, out[-2000:])
