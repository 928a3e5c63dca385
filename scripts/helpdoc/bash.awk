# Writes the bash completion of vernier from the records gathered by
# collect.awk. The function stands alone; it uses bash-completion's _filedir
# for file names when that is loaded, and compgen -f otherwise.

function words(c,   j, n, k, r, a) {
    r = ""
    for (j = 1; j <= nopt[c]; j++)
        r = r (r == "" ? "" : " ") opt_names[c, j]
    return r
}

# The case arms that complete the value of an option, for subcommand c.
function value_arms(c,   j, k, kinds, pat, arms) {
    split("file choices value", kinds, / /)
    arms = ""
    for (j = 1; j <= nopt[c]; j++) {
        k = arg_kind(opt_arg[c, j])
        if (k == "")
            continue
        pat = opt_names[c, j]
        gsub(/ /, "|", pat)
        if (k == "file")
            arms = arms "        " pat ") _vernier_files; return ;;\n"
        else if (k == "choices")
            arms = arms "        " pat ") COMPREPLY=($(compgen -W '" choices(opt_arg[c, j]) "' -- \"$cur\")); return ;;\n"
        else
            arms = arms "        " pat ") return ;;\n"
    }
    return arms
}

function operand_line(c) {
    if (operand[c] == "file")
        return "_vernier_files"
    if (operand[c] == "command")
        return "COMPREPLY=($(compgen -c -- \"$cur\"))"
    if (operand[c] == "subcommand")
        return "COMPREPLY=($(compgen -W '" subcommands() "' -- \"$cur\"))"
    if (operand[c] == "words")
        return "COMPREPLY=($(compgen -W '" word_list(c) "' -- \"$cur\"))"
    return ":"
}

function subcommands(   i, r) {
    r = ""
    for (i = 1; i <= ncmd; i++)
        r = r (r == "" ? "" : " ") cmd_name[i]
    return r
}

function arm(c, indent,   a, v) {
    v = value_arms(c)
    a = ""
    if (operand[c] == "command")
        a = a indent "_vernier_after_dashdash && return\n"
    if (v != "")
        a = a indent "case $prev in\n" v indent "esac\n"
    a = a indent "if [[ $cur == -* ]]; then\n"
    a = a indent "    COMPREPLY=($(compgen -W '" words(c) "' -- \"$cur\"))\n"
    a = a indent "else\n"
    a = a indent "    " operand_line(c) "\n"
    a = a indent "fi\n"
    return a
}

END {
    print "# bash completion for vernier, generated from the output of 'vernier --help'"
    print "# and 'vernier COMMAND --help' by scripts/helpdoc: edit those, not this."
    print ""
    print "_vernier_files() {"
    print "    if declare -F _filedir >/dev/null; then"
    print "        _filedir"
    print "    else"
    print "        compopt -o filenames 2>/dev/null"
    print "        COMPREPLY=($(compgen -f -- \"$cur\"))"
    print "    fi"
    print "}"
    print ""
    print "# After '--' the words are a command line: its first word is a command,"
    print "# the others are files. Returns 1 when there is no '--' before the word."
    print "_vernier_after_dashdash() {"
    print "    local i"
    print "    for ((i = 2; i < COMP_CWORD; i++)); do"
    print "        if [[ ${COMP_WORDS[i]} == -- ]]; then"
    print "            if ((i + 1 < COMP_CWORD)); then"
    print "                _vernier_files"
    print "            else"
    print "                COMPREPLY=($(compgen -c -- \"$cur\"))"
    print "            fi"
    print "            return 0"
    print "        fi"
    print "    done"
    print "    return 1"
    print "}"
    print ""
    print "_vernier() {"
    print "    local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd="
    print "    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}"
    print "    # '--name=VALUE' comes as three words when '=' breaks words."
    print "    if [[ $cur == = ]]; then"
    print "        cur="
    print "    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then"
    print "        prev=${COMP_WORDS[COMP_CWORD - 2]}"
    print "    fi"
    print "    COMPREPLY=()"
    print "    ((COMP_CWORD > 1)) && cmd=${COMP_WORDS[1]}"
    print "    case $cmd in"
    print "    '')"
    print "        if [[ $cur == -* ]]; then"
    print "            COMPREPLY=($(compgen -W '" words("") "' -- \"$cur\"))"
    print "        else"
    print "            COMPREPLY=($(compgen -W '" subcommands() "' -- \"$cur\"))"
    print "        fi"
    print "        ;;"
    for (i = 1; i <= ncmd; i++) {
        c = cmd_name[i]
        print "    " c ")"
        printf "%s", arm(c, "        ")
        print "        ;;"
    }
    print "    esac"
    print "}"
    print ""
    print "complete -F _vernier vernier"
}
