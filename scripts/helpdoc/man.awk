# Writes the man page of one subcommand (or of the tool, page_cmd = "") in
# roff from the records of parse.awk for all of them: NAME, SYNOPSIS,
# DESCRIPTION and the sections of the help, then the hand-written part (the
# file named by tail, when it exists), then SEE ALSO naming every page.
# Variables: page_cmd, version, date, tail.

function esc(s,   n, w, i, r) {
    gsub(/\\/, "\\e", s)
    # Option names are typed, so their hyphens are minus signs (\-), which
    # a reader can copy; other hyphens stay hyphens.
    n = split(s, w, / /)
    r = ""
    for (i = 1; i <= n; i++) {
        if (w[i] ~ /^[('"]*-/)
            gsub(/-/, "\\-", w[i])
        r = r (i > 1 ? " " : "") w[i]
    }
    if (r ~ /^[.']/)
        r = "\\&" r
    return r
}

# "-x, --name ARG" in bold names and an italic argument.
function tag(spec,   n, items, i, w, nw, r, eq, k) {
    n = split(spec, items, /, /)
    r = ""
    for (i = 1; i <= n; i++) {
        eq = index(items[i], "=")
        if (items[i] ~ /^[^ ]*=/ && eq > 0)
            r = r (i > 1 ? ", " : "") "\\fB" esc(substr(items[i], 1, eq - 1)) "\\fR=\\fI" esc(substr(items[i], eq + 1)) "\\fR"
        else {
            nw = split(items[i], w, / /)
            r = r (i > 1 ? ", " : "") "\\fB" esc(w[1]) "\\fR"
            for (k = 2; k <= nw; k++)
                r = r " \\fI" esc(w[k]) "\\fR"
        }
    }
    return r
}

function upper_words(s) {
    return toupper(s)
}

function section(name) {
    print ".SH " (name ~ / / ? "\"" name "\"" : name)
}

BEGIN {
    FS = "\t"
    title = page_cmd == "" ? "vernier" : "vernier-" page_cmd
    nsee = 0
    in_options = 0
    where = "synopsis"
}

# The summary of a subcommand is its line in the tool's list of commands.
$1 == "" && $2 == "C" {
    summary[$3] = $4
    see[++nsee] = $3
}

$1 == "" && $2 == "P" && !("" in summary) {
    s = $3
    sub(/\.$/, "", s)
    summary[""] = tolower(substr(s, 1, 1)) substr(s, 2)
}

$1 != page_cmd {
    next
}

{
    n++
    kind[n] = $2
    f3[n] = $3
    f4[n] = $4
    f5[n] = $5
    f6[n] = $6
}

END {
    if (!(page_cmd in summary)) {
        printf "man.awk: the tool's help lists no command '%s'\n", page_cmd > "/dev/stderr"
        exit 1
    }
    print ".\\\" Generated from the output of '" (page_cmd == "" ? "vernier --help" : "vernier " page_cmd " --help") "'"
    print ".\\\" by scripts/helpdoc; edit the help in cli/ or docs/man/" title ".roff instead."
    print ".TH " toupper(esc(title)) " 1 \"" date "\" \"vernier " version "\" \"User Commands\""
    section("NAME")
    print esc(title) " \\- " esc(summary[page_cmd])
    section("SYNOPSIS")
    for (i = 1; i <= n; i++) {
        if (kind[i] != "U")
            continue
        s = f3[i]
        prog = page_cmd == "" ? "vernier" : "vernier " page_cmd
        if (index(s, prog) == 1) {
            print ".B " prog
            s = substr(s, length(prog) + 2)
        }
        if (s != "")
            print esc(s)
        print ".br"
    }
    described = 0
    for (i = 1; i <= n; i++) {
        if (kind[i] == "P") {
            if (where == "synopsis") {
                section("DESCRIPTION")
                where = "text"
            } else
                print ".PP"
            print esc(f3[i])
        } else if (kind[i] == "S") {
            if (f3[i] == "opts") {
                if (!in_options)
                    section("OPTIONS")
                if (f4[i] != "Options")
                    print ".SS " esc(f4[i])
                in_options = 1
            } else {
                section(toupper(f4[i]))
                in_options = 0
            }
            where = "section"
        } else if (kind[i] == "O") {
            print ".TP"
            print tag(f3[i])
            print esc(f6[i])
        } else if (kind[i] == "C") {
            print ".TP"
            print "\\fB" esc(f3[i]) "\\fR"
            print esc(f4[i]) "; see \\fBvernier\\-" esc(f3[i]) "\\fR(1)."
        }
    }
    if (tail != "") {
        while ((getline line < tail) > 0)
            print line
        close(tail)
    }
    section("SEE ALSO")
    r = ""
    if (page_cmd != "")
        r = "\\fBvernier\\fR(1)"
    for (i = 1; i <= nsee; i++)
        if (see[i] != page_cmd)
            r = r (r == "" ? "" : ",\n") "\\fBvernier\\-" esc(see[i]) "\\fR(1)"
    print r
    if (docdir != "") {
        print ".PP"
        print "The guides named docs/NAME.md are installed in \\fI" esc(docdir) "/docs/\\fR, with README.md in \\fI" esc(docdir) "\\fR."
    }
}
