# Writes the fish completion of vernier from the records gathered by
# collect.awk: one `complete` line per option, each only after its subcommand.

function fq(s) {
    gsub(/\\/, "\\\\", s)
    gsub(/'/, "\\'", s)
    return "'" s "'"
}

function lines(c, cond,   j, n, w, i, r, k) {
    for (j = 1; j <= nopt[c]; j++) {
        r = "complete -c vernier -n " fq(cond)
        n = split(opt_names[c, j], w, / /)
        for (i = 1; i <= n; i++)
            r = r (w[i] ~ /^--/ ? " -l " substr(w[i], 3) : " -s " substr(w[i], 2))
        k = arg_kind(opt_arg[c, j])
        if (k == "file")
            r = r " -r -F"
        else if (k == "choices")
            r = r " -x -a " fq(choices(opt_arg[c, j]))
        else if (k == "value")
            r = r " -x"
        print r " -d " fq(opt_desc[c, j])
    }
}

END {
    print "# fish completion for vernier, generated from the output of 'vernier --help'"
    print "# and 'vernier COMMAND --help' by scripts/helpdoc: edit those, not this."
    print ""
    print "complete -c vernier -f"
    for (i = 1; i <= ncmd; i++)
        print "complete -c vernier -n __fish_use_subcommand -a " cmd_name[i] " -d " fq(cmd_summary[i])
    lines("", "__fish_use_subcommand")
    for (i = 1; i <= ncmd; i++) {
        c = cmd_name[i]
        print ""
        cond = "__fish_seen_subcommand_from " c
        lines(c, cond)
        if (operand[c] == "file")
            print "complete -c vernier -n " fq(cond) " -F"
        else if (operand[c] == "command")
            print "complete -c vernier -n " fq(cond) " -a '(__fish_complete_command)'"
        else if (operand[c] == "subcommand")
            print "complete -c vernier -n " fq(cond) " -a " fq(subs())
        else if (operand[c] == "words")
            print "complete -c vernier -n " fq(cond) " -a " fq(word_list(c))
    }
}

function subs(   i, r) {
    r = ""
    for (i = 1; i <= ncmd; i++)
        r = r (r == "" ? "" : " ") cmd_name[i]
    return r
}
