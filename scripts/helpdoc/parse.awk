# Reads the --help text of vernier or one of its subcommands and writes it as
# records, one a line, fields separated by tabs, for the man page and the
# completion writers (man.awk, bash.awk, zsh.awk, fish.awk):
#
#   U  TEXT                        a synopsis line, without "usage: "
#   S  KIND NAME                   a section begins; KIND is opts, cmds or text
#   P  TEXT                        a paragraph, its lines joined
#   O  SPEC NAMES ARG DESC         an option: SPEC as written, NAMES the option
#                                  names (space separated), ARG its argument or ""
#   C  NAME SUMMARY                a subcommand
#
# Every record starts with the variable cmd (the subcommand, "" for the tool),
# so the records of several helps can be read together.
#
# The layout of a help that this understands (cli/cli.h says it too):
#   - it starts with "usage: ", and lines indented under it are more usages;
#   - paragraphs are separated by blank lines; those before any section are
#     the description;
#   - a line "Heading:" alone starts a section of entries, each on a line of
#     its own indented by two spaces: an option ("-x, --long ARG") or a
#     subcommand name, then at least two spaces, then what it does; lines
#     indented deeper continue the entry above;
#   - a paragraph "Label: text" is a section of its own (as "Exit status: ...").
# A line this cannot read stops the build with its line number, so a help
# that leaves the layout is found when it is written, not by a reader.

function fail(msg) {
    fail_at(NR, msg)
}

function fail_at(line, msg) {
    printf "helpdoc: line %d of 'vernier %s--help': %s\n", line, (cmd == "" ? "" : cmd " "), msg > "/dev/stderr"
    failed = 1
    exit 1
}

function trim(s) {
    sub(/^[ ]+/, "", s)
    sub(/[ ]+$/, "", s)
    return s
}

function out(kind, rest) {
    print cmd "\t" kind "\t" rest
}

function flush_para() {
    if (para != "") {
        out("P", para)
        para = ""
    }
}

function flush_entry(   n, items, i, w, nw, names, arg, k, rest, bad) {
    if (entry_spec == "")
        return
    if (entry_spec ~ /^-/) {
        names = ""
        arg = ""
        n = split(entry_spec, items, /, /)
        for (i = 1; i <= n; i++) {
            nw = split(items[i], w, / /)
            if (nw == 1 && index(w[1], "=") > 0) {
                # "--name=ARG"
                nw = 2
                w[2] = substr(w[1], index(w[1], "=") + 1)
                w[1] = substr(w[1], 1, index(w[1], "=") - 1)
            }
            bad = w[1] !~ /^(-[A-Za-z0-9]|--[a-z0-9][a-z0-9-]*)$/
            # An option may take several arguments ("-P, --scan NAME MIN
            # MAX"), each a metavariable in capitals: a lower-case word is
            # a description that lacks its two spaces.
            for (k = 3; k <= nw; k++)
                bad = bad || w[k] !~ /^[A-Z][A-Z0-9_.,:]*$/
            if (bad)
                fail_at(entry_line, "cannot read the option '" items[i] "' (want '-x, --name ARG', then two spaces)")
            names = names (names == "" ? "" : " ") w[1]
            rest = ""
            for (k = 2; k <= nw; k++)
                rest = rest (rest == "" ? "" : " ") w[k]
            if (rest != "" && arg == "")
                arg = rest
        }
        out("O", entry_spec "\t" names "\t" arg "\t" entry_desc)
    } else {
        if (entry_spec !~ /^[a-z][a-z0-9-]*$/)
            fail_at(entry_line, "cannot read the entry '" entry_spec "' (want a name, then two spaces)")
        out("C", entry_spec "\t" entry_desc)
    }
    entry_spec = entry_desc = ""
}

# The kind of a section is known from its first entry, so its record waits.
function begin_section(name) {
    pending = name
}

function emit_pending(kind) {
    if (pending != "") {
        out("S", kind "\t" pending)
        pending = ""
    }
}

BEGIN {
    state = "start"    # start, usage, text, entries
    para = entry_spec = entry_desc = pending = ""
}

{
    gsub(/\t/, "        ")
    sub(/[ ]+$/, "")
}

state == "start" {
    if ($0 !~ /^usage: /)
        fail("the help must start with 'usage: '")
    out("U", substr($0, 8))
    state = "usage"
    next
}

state == "usage" && /^ +[^ ]/ {
    out("U", trim($0))
    next
}

/^$/ {
    flush_entry()
    flush_para()
    if (state == "entries")
        state = "entries-gap"
    else
        state = "text"
    next
}

# A heading alone: a section of entries follows.
(state == "text" || state == "entries-gap") && /^[A-Z][A-Za-z ]*:$/ {
    begin_section(substr($0, 1, length($0) - 1))
    state = "entries"
    next
}

(state == "entries" || state == "entries-gap") && /^  [^ ]/ {
    flush_entry()
    state = "entries"
    line = substr($0, 3)
    entry_line = NR
    gap = index(line, "  ")
    if (gap > 0) {
        entry_spec = substr(line, 1, gap - 1)
        entry_desc = trim(substr(line, gap))
    } else {
        entry_spec = line
        entry_desc = ""
    }
    emit_pending(entry_spec ~ /^-/ ? "opts" : "cmds")
    next
}

state == "entries" && /^   +[^ ]/ {
    if (entry_spec == "")
        fail("an indented line that continues no entry")
    entry_desc = entry_desc (entry_desc == "" ? "" : " ") trim($0)
    next
}

state == "entries" {
    fail("a line in a section of entries that is not indented; a blank line must end the section")
}

# A paragraph at the margin: "Label: text" is a section of its own.
state == "text" || state == "entries-gap" {
    state = "para"
    if (match($0, /^[A-Z][a-z]*( [a-z]+)?( [a-z]+)?: /)) {
        out("S", "text\t" substr($0, 1, RLENGTH - 2))
        para = substr($0, RLENGTH + 1)
    } else
        para = trim($0)
    next
}

state == "para" {
    para = para " " trim($0)
    next
}

state == "usage" {
    fail("a blank line must follow the usage lines")
}

END {
    if (failed)
        exit 1
    if (state == "start")
        fail("the help is empty")
    flush_entry()
    flush_para()
}
