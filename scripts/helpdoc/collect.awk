# Gathers the records of parse.awk for the completion writers (bash.awk,
# zsh.awk, fish.awk, each read after this file): the subcommands, and per
# subcommand ("" for the tool) its options and what its operands are.
#
#   ncmd, cmd_name[i], cmd_summary[i]       subcommands, in the help's order
#   nopt[c], opt_names[c, j], opt_arg[c, j], opt_desc[c, j]
#   operand[c]                              "command", "file", "subcommand", "words" or ""
#   nword[c], word[c, k]                    with "words": the operands there are
#
# Besides parse.awk's records, gen.sh gives the completions two of its own:
#   W  WORD                                 an operand the subcommand takes (its
#                                           benchmarks, for vernier suite)
# and the help command's synopsis (vernier help COMMAND).

BEGIN {
    FS = "\t"
    ncmd = 0
}

$2 == "C" && $1 == "" {
    cmd_name[++ncmd] = $3
    cmd_summary[ncmd] = $4
}

$2 == "O" {
    j = ++nopt[$1]
    opt_names[$1, j] = $4
    opt_arg[$1, j] = $5
    opt_desc[$1, j] = short_desc($6)
}

# What the operands are, from the first usage line: "CMD" a command line,
# "FILE" a file, "COMMAND" one of the subcommands.
# Optional groups that start with an option ("[--json FILE]") are left out
# first, innermost first, so that an option's FILE is not taken for an operand.
$2 == "U" && !($1 in operand) {
    u = $3
    while (gsub(/\[-[^][]*\]/, "", u) > 0)
        ;
    if (u ~ /[[ ]FILE/ || u ~ / BASE/)
        operand[$1] = "file"
    else if (u ~ /[ ]COMMAND/)
        operand[$1] = "subcommand"
    else if (u ~ /[ ']CMD/)
        operand[$1] = "command"
    else
        operand[$1] = ""
}

# The first clause of a description, for the one line a shell shows.
function short_desc(s,   p) {
    p = index(s, "; ")
    if (p > 0)
        s = substr(s, 1, p - 1)
    if (length(s) > 70)
        s = substr(s, 1, 67) "..."
    return s
}

# What an option's argument is: "file" (its name holds FILE), "choices" (words
# between '|' that are not all capitals, as alternate|random|blocks), "value"
# (anything else the shell cannot guess), or "" (no argument).
function arg_kind(arg) {
    if (arg == "")
        return ""
    if (arg ~ /FILE/)
        return "file"
    if (choices(arg) != "")
        return "choices"
    return "value"
}

function choices(arg,   n, w, i, r) {
    if (index(arg, "|") == 0)
        return ""
    n = split(arg, w, /\|/)
    r = ""
    for (i = 1; i <= n; i++)
        if (w[i] ~ /^[a-z][a-z0-9_-]*$/)
            r = r (r == "" ? "" : " ") w[i]
    return r
}

$2 == "W" {
    operand[$1] = "words"
    word[$1, ++nword[$1]] = $3
}

# The words of operand "words", space separated.
function word_list(c,   k, r) {
    r = ""
    for (k = 1; k <= nword[c]; k++)
        r = r (r == "" ? "" : " ") word[c, k]
    return r
}
