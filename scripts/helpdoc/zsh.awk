# Writes the zsh completion of vernier (the file _vernier, found through
# $fpath by compinit) from the records gathered by collect.awk.

# Text inside a single-quoted _arguments spec, as its [description] or message.
function zq(s) {
    gsub(/\\/, "\\\\", s)
    gsub(/\[/, "\\[", s)
    gsub(/\]/, "\\]", s)
    gsub(/:/, "\\:", s)
    gsub(/'/, "'\\''", s)
    return s
}

function action(arg,   k) {
    k = arg_kind(arg)
    if (k == "file")
        return ":" zq(tolower(arg)) ":_files"
    if (k == "choices")
        return ":" zq(tolower(arg)) ":(" choices(arg) ")"
    return ":" zq(tolower(arg)) ":"
}

function specs(c, indent,   j, n, w, i, r, a, s) {
    r = ""
    for (j = 1; j <= nopt[c]; j++) {
        n = split(opt_names[c, j], w, / /)
        for (i = 1; i <= n; i++) {
            s = w[i]
            if (opt_arg[c, j] != "")
                s = s (s ~ /^--/ ? "=" : "+")
            s = s "[" zq(opt_desc[c, j]) "]"
            if (opt_arg[c, j] != "")
                s = s action(opt_arg[c, j])
            r = r indent "'" s "' \\\n"
        }
    }
    return r
}

END {
    print "#compdef vernier"
    print "# zsh completion for vernier, generated from the output of 'vernier --help'"
    print "# and 'vernier COMMAND --help' by scripts/helpdoc: edit those, not this."
    print ""
    for (i = 1; i <= ncmd; i++) {
        c = cmd_name[i]
        print "_vernier_" c "() {"
        body = "    _arguments -s -S : \\\n" specs(c, "        ")
        if (operand[c] == "file")
            body = body "        '*:file:_files'"
        else if (operand[c] == "command")
            body = body "        '*::command line:_vernier_command_line'"
        else if (operand[c] == "subcommand")
            body = body "        '1:command:_vernier_commands'"
        else if (operand[c] == "words")
            body = body "        '*:name:(" word_list(c) ")'"
        else
            sub(/ \\\n$/, "", body)
        print body
        print "}"
        print ""
    }
    print "# The words of a command to run: after '--', or each a whole command line,"
    print "# completed as the command it starts with."
    print "_vernier_command_line() {"
    print "    if [[ $words[1] == -- ]]; then"
    print "        shift words"
    print "        (( CURRENT-- ))"
    print "    fi"
    print "    _normal"
    print "}"
    print ""
    print "_vernier_commands() {"
    print "    local -a commands"
    print "    commands=("
    for (i = 1; i <= ncmd; i++) {
        s = cmd_name[i] ":" cmd_summary[i]
        gsub(/'/, "'\\''", s)
        print "        '" s "'"
    }
    print "    )"
    print "    _describe -t commands 'vernier command' commands"
    print "}"
    print ""
    print "_vernier() {"
    print "    local curcontext=$curcontext state state_descr line ret=1"
    print "    typeset -A opt_args"
    print "    _arguments -C : \\"
    printf "%s", specs("", "        ")
    print "        '1:command:_vernier_commands' \\"
    print "        '*::argument:->argument' && ret=0"
    print "    if [[ $state == argument ]]; then"
    print "        curcontext=${curcontext%:*:*}:vernier-$words[1]:"
    print "        case $words[1] in"
    for (i = 1; i <= ncmd; i++)
        print "        " cmd_name[i] ") _vernier_" cmd_name[i] " && ret=0 ;;"
    print "        esac"
    print "    fi"
    print "    return ret"
    print "}"
    print ""
    print "_vernier \"$@\""
}
