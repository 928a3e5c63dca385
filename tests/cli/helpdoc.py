"""What the tests of the man pages and completions read from the tool's
--help, with parsers of their own (not scripts/helpdoc's), so a fault of the
generator shows as a difference; and drivers of bash, zsh and fish."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import run


def commands():
    """The subcommands 'vernier --help' lists."""
    text = run("--help", check=0).stdout
    block = text.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.startswith("  ")]


def help_text(cmd):
    return run(*([cmd] if cmd else []), "--help", check=0).stdout


def option_lines(text):
    """The option part of each option line: "-x, --name ARG"."""
    return [re.split(r"  ", line[2:], maxsplit=1)[0] for line in text.splitlines()
            if re.match(r"  -", line)]


def options(text):
    """Every option name the option lines of a help list."""
    names = set()
    for spec in option_lines(text):
        names.update(re.findall(r"(?<![\w-])--?[A-Za-z0-9][\w-]*", spec))
    return names


def long_options(text):
    return {o for o in options(text) if o.startswith("--")}


def require(tool):
    if not shutil.which(tool):
        pytest.skip(f"{tool} is not installed (scripts/install-deps installs it)")


def bash_complete(script, line, cwd=None, preamble=""):
    """The candidates bash's completion function offers for line (a trailing
    space starts a new word), as COMPREPLY holds them."""
    require("bash")
    words = line.split()
    if line.endswith(" "):
        words.append("")
    prog = (f"{preamble}\nsource {script!s} || exit 3\n"
            "COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
            "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n"
            "f=$(complete -p vernier | sed -n 's/.*-F \\([^ ]*\\) .*/\\1/p')\n"
            "\"$f\" vernier \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
            "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog, "_", *words],
                       capture_output=True, text=True, timeout=30, cwd=cwd)
    assert p.returncode == 0, p.stderr
    return sorted(x for x in p.stdout.splitlines() if x)


# Drives an interactive zsh in a pseudo-terminal (zsh/zpty), presses Tab
# after the line, and prints each candidate zsh's completion system adds.
ZSH_DRIVER = r"""
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "PROMPT=''; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'vn_end() { print -r -- "VN""-END"; }; comppostfuncs=(vn_end)'
zpty -w z 'compadd() { local -a h; builtin compadd -O h "$@"; print -rl -- "VN""-HIT "${^h}; builtin compadd "$@"; }'
zpty -w z "bindkey '^I' complete-word"
zpty -w z "$2"$'\t'
zpty -r z out '*VN-END*'
print -r -- "$out" | tr -d '\r' | sed -n 's/^.*VN-HIT //p' | sort -u
zpty -d z
"""


def zsh_complete(fpath_dir, line, cwd=None):
    require("zsh")
    p = subprocess.run(["zsh", "-f", "-c", ZSH_DRIVER, "_", str(fpath_dir), line],
                       capture_output=True, text=True, timeout=60, cwd=cwd)
    assert p.returncode == 0, p.stderr
    return sorted(x for x in p.stdout.splitlines() if x)


def fish_complete(script, line, cwd=None, env=None):
    """fish's candidates for line (complete -C), without their descriptions."""
    require("fish")
    # Without a script, fish finds the completion itself, which it does only
    # with its configuration read (that sets the paths it looks in).
    src = f"source {script!s}; " if script else ""
    config = ["--no-config"] if script else []
    e = dict(os.environ, **(env or {}))
    p = subprocess.run(["fish", *config, "-c", src + "complete -C $argv[1]", line],
                       capture_output=True, text=True, timeout=30, cwd=cwd, env=e)
    assert p.returncode == 0, p.stderr
    return sorted(x.split("\t")[0] for x in p.stdout.splitlines() if x)
