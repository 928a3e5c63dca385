"""The man pages and the bash, zsh and fish completions the build makes from
the tool's --help texts (scripts/helpdoc): each page renders without a
warning and lists every option its --help lists; each shell, loading the
completion, offers the subcommands, the options and their values; a help
that leaves the layout stops the generator, and an option added to a help
shows up everywhere without a list to update."""
import os
import re
import shutil
import stat
import subprocess

import pytest

from conftest import BUILD, SOURCE, cmake_cache
from helpdoc import (bash_complete, commands, fish_complete, help_text, long_options, option_lines,
                     options, require, zsh_complete)

GEN = SOURCE / "scripts" / "helpdoc" / "gen.sh"


@pytest.fixture(scope="module")
def out():
    d = BUILD / "helpdoc"
    if cmake_cache("VN_HELPDOC") == "OFF":
        pytest.skip("configured with -DVN_HELPDOC=OFF: no man pages or completions are made")
    assert (d / ".stamp").exists(), "the build made no build/helpdoc"
    return d


def pages():
    return [("", "vernier")] + [(c, f"vernier-{c}") for c in commands()]


def render(page):
    """The page as text, each paragraph on one line (so no option is broken)."""
    require("groff")
    p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=1000n", "-P-cbou", str(page)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    # groff may draw the minus of an option as U+2212.
    return p.stdout.replace("\u2212", "-").replace("\u2010", "-")


def test_one_page_per_command(out):
    assert sorted(f.name for f in (out / "man").iterdir()) == sorted(f"{p}.1" for _, p in pages())


@pytest.mark.parametrize("cmd,page", pages())
def test_page_renders_without_warnings(out, cmd, page):
    f = out / "man" / f"{page}.1"
    render(f)
    require("man")
    p = subprocess.run(["man", "--warnings", "-l", str(f)], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, MANPAGER="cat", MANWIDTH="80"))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert page.upper() in p.stdout and "SYNOPSIS" in p.stdout


@pytest.mark.parametrize("cmd,page", pages())
def test_page_lists_every_option_of_the_help(out, cmd, page):
    text = render(out / "man" / f"{page}.1")
    lines = [line.strip() for line in text.splitlines()]
    h = help_text(cmd)
    specs = option_lines(h)
    assert specs, f"no options in the help of {page}"
    for spec in specs:
        # A tag narrower than the indent shares its line with the description.
        assert any(line == spec or line.startswith(spec + " ") for line in lines), \
            f"{page}: no entry '{spec}'"
    # The tool's summary of the command is the page's NAME.
    assert any(line.startswith(f"{page} - ") for line in lines)
    # A paragraph of the help that starts with a label ("Label: text", at
    # the margin after a blank line, as cli/cli.h lays it out) is a section
    # of the page, under the label in capitals.
    for label in re.findall(r"(?:\A|\n\n)([A-Z][a-z]*(?: [a-z]+){0,2}): ", h):
        assert label.upper() in lines, f"{page}: no section for {label!r}"
    # Every page names every other in SEE ALSO.
    see = text.split("SEE ALSO", 1)[1]
    for _, other in pages():
        assert other == page or f"{other}(1)" in see


def test_bash_completes_commands_options_values_and_files(out, tmp_path):
    script = out / "completions" / "vernier.bash"
    p = subprocess.run(["bash", "--norc", "-c", f"source {script} && complete -p vernier"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "-F _vernier" in p.stdout and p.stdout.rstrip().endswith(" vernier")
    assert bash_complete(script, "vernier ") == sorted(commands() + ["help"])
    assert bash_complete(script, "vernier help ") == sorted(commands() + ["help"])
    # vernier suite: its benchmarks, families and the prefixes between.
    suite = bash_complete(script, "vernier suite memory.l")
    assert "memory.latency" in suite and "memory.latency.random" in suite
    assert all(w.startswith("memory.l") for w in suite)
    assert bash_complete(script, "vernier suite ipc.t") == ["ipc.tcp"]
    # vernier compare: its BASE and NEW are files.
    assert bash_complete(script, "vernier ru") == ["run"]
    assert bash_complete(script, "vernier -") == sorted(options(help_text("")))
    for c in commands():
        assert set(bash_complete(script, f"vernier {c} --")) == long_options(help_text(c)), c
    assert bash_complete(script, "vernier run --wa") == ["--warmup"]
    assert bash_complete(script, "vernier run --order ") == ["alternate", "blocks", "random"]
    assert bash_complete(script, "vernier run --warmup ") == []
    (tmp_path / "data.json").write_text("{}")
    (tmp_path / "dir").mkdir()
    assert bash_complete(script, "vernier run --json da", cwd=tmp_path) == ["data.json"]
    assert bash_complete(script, "vernier stats d", cwd=tmp_path) == ["data.json", "dir"]
    assert bash_complete(script, "vernier compare d", cwd=tmp_path) == ["data.json", "dir"]
    assert bash_complete(script, "vernier report d", cwd=tmp_path) == ["data.json", "dir"]
    # "--json=FILE" comes to the function as three words.
    assert bash_complete(script, "vernier run --json = da", cwd=tmp_path) == ["data.json"]
    # After "--", the words are a command line: here a program's name.
    after = bash_complete(script, "vernier run -- bas")
    assert "bash" in after
    assert bash_complete(script, "vernier run -- ls da", cwd=tmp_path) == ["data.json"]


def test_zsh_finds_and_completes(out, tmp_path):
    require("zsh")
    fp = out / "completions"
    p = subprocess.run(["zsh", "-f", "-c", f"fpath=({fp} $fpath); autoload -U compinit; "
                        "compinit -u -D; print -r -- $_comps[vernier]"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "_vernier", p.stdout + p.stderr
    assert zsh_complete(fp, "vernier ru") == ["run"]
    assert set(zsh_complete(fp, "vernier run --")) == long_options(help_text("run"))
    assert zsh_complete(fp, "vernier run --wa") == ["--warmup"]
    assert zsh_complete(fp, "vernier run --order ") == ["alternate", "blocks", "random"]
    (tmp_path / "data.json").write_text("{}")
    assert zsh_complete(fp, "vernier stats --json da", cwd=tmp_path) == ["data.json"]
    assert zsh_complete(fp, "vernier stats da", cwd=tmp_path) == ["data.json"]
    assert zsh_complete(fp, "vernier compare da", cwd=tmp_path) == ["data.json"]
    assert zsh_complete(fp, "vernier help ru") == ["run"]
    assert zsh_complete(fp, "vernier suite ipc.t") == ["ipc.tcp"]


def test_fish_completes(out, tmp_path):
    script = out / "completions" / "vernier.fish"
    assert fish_complete(script, "vernier ru") == ["run"]
    assert sorted(fish_complete(script, "vernier ")) == sorted(commands() + ["help"])
    assert fish_complete(script, "vernier help ru") == ["run"]
    assert fish_complete(script, "vernier suite ipc.t") == ["ipc.tcp"]
    for c in commands():
        assert set(fish_complete(script, f"vernier {c} --")) == long_options(help_text(c)), c
    assert fish_complete(script, "vernier run --wa") == ["--warmup"]
    assert fish_complete(script, "vernier run --order ") == ["alternate", "blocks", "random"]
    assert fish_complete(script, "vernier run --warmup ") == []
    (tmp_path / "data.json").write_text("{}")
    assert fish_complete(script, "vernier run --json da", cwd=tmp_path) == ["data.json"]
    assert fish_complete(script, "vernier stats da", cwd=tmp_path) == ["data.json"]
    assert fish_complete(script, "vernier compare da", cwd=tmp_path) == ["data.json"]


# A stand-in for the tool: prints the helps given to it, so the generator is
# seen to take whatever a help lists.
FAKE = r"""#!/bin/sh
case "$1" in
--version) echo "vernier 9.8.7" ;;
--help) cat <<'E'
usage: vernier COMMAND [OPTIONS]

Measure things.

Commands:
  run      time whole commands

Options:
  -h, --help     show this help
E
;;
run) cat "$(dirname "$0")/run-help" ;;
esac
"""

RUN_HELP = """usage: vernier run [OPTIONS] -- CMD [ARGS...]

Runs commands.

Options:
  -w, --warmup N          untimed runs first
  --mode fast|slow        how it goes
  --log FILE              where the log goes
  -h, --help              show this help
"""


def fake_tool(tmp_path, run_help):
    tool = tmp_path / "vernier"
    tool.write_text(FAKE)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "run-help").write_text(run_help)
    return tool


def test_a_new_option_reaches_page_and_completions(tmp_path):
    tool = fake_tool(tmp_path, RUN_HELP)
    gen = tmp_path / "gen"
    mandir = tmp_path / "man-parts"
    mandir.mkdir()
    p = subprocess.run(["sh", str(GEN), str(tool), str(gen), str(mandir)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in (gen / "man").iterdir()) == ["vernier-run.1", "vernier.1"]
    text = render(gen / "man" / "vernier-run.1")
    lines = [line.strip() for line in text.splitlines()]
    for spec in ("-w, --warmup N", "--mode fast|slow", "--log FILE"):
        assert any(line == spec or line.startswith(spec + " ") for line in lines), spec
    assert "vernier 9.8.7" in text
    bash = gen / "completions" / "vernier.bash"
    assert bash_complete(bash, "vernier run -") == ["--help", "--log", "--mode", "--warmup", "-h", "-w"]
    assert bash_complete(bash, "vernier run --mode ") == ["fast", "slow"]
    assert bash_complete(bash, "vernier run -w ") == []
    if shutil.which("fish"):
        fish = gen / "completions" / "vernier.fish"
        assert fish_complete(fish, "vernier run --m") == ["--mode"]
        assert fish_complete(fish, "vernier run --mode ") == ["fast", "slow"]


@pytest.mark.parametrize("bad,named", [
    ("  --csv FILE, --raw (with --csv)\n", "'--raw (with --csv)'"),  # the option it cannot read
    ("  --export-hyperfine FILE hyperfine's layout\n", "'--export-hyperfine FILE hyperfine's layout'"),
    ("not indented\n", ""),
])
def test_a_help_out_of_layout_stops_the_generator(tmp_path, bad, named):
    tool = fake_tool(tmp_path, RUN_HELP.replace("  -h, --help", bad + "  -h, --help"))
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "old").write_text("kept")
    p = subprocess.run(["sh", str(GEN), str(tool), str(gen)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode != 0
    msg = p.stderr.strip().splitlines()
    # One line that names the help (its command), the line of it, and what it could not read.
    assert len(msg) == 1 and "run --help" in msg[0] and re.search(r"\bline 9\b", msg[0]), p.stderr
    assert named in msg[0], p.stderr
    # The output of the last good run is left as it was, and nothing half made.
    assert sorted(f.name for f in tmp_path.iterdir()) == ["gen", "run-help", "vernier"]
    assert [f.name for f in gen.iterdir()] == ["old"]


def test_a_hand_written_part_without_its_command_is_refused(tmp_path):
    tool = fake_tool(tmp_path, RUN_HELP)
    mandir = tmp_path / "parts"
    mandir.mkdir()
    (mandir / "vernier-gone.roff").write_text(".SH EXAMPLES\nnone\n")
    p = subprocess.run(["sh", str(GEN), str(tool), str(tmp_path / "gen"), str(mandir)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "vernier-gone.roff" in p.stderr
    assert not (tmp_path / "gen").exists()


def test_hand_written_parts_belong_to_pages():
    parts = sorted(f.stem for f in (SOURCE / "docs" / "man").glob("*.roff"))
    assert parts and set(parts) <= {p for _, p in pages()}
