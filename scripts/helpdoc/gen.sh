#!/bin/sh
# Generates vernier's man pages and its bash, zsh and fish completions from
# the --help texts of the built tool, so that they say what the tool does:
#
#   scripts/helpdoc/gen.sh VERNIER OUTDIR [MANDIR [DOCDIR]]
#
# VERNIER is the built tool; OUTDIR receives man/vernier.1, man/vernier-CMD.1
# for each command 'vernier --help' lists, and completions/vernier.bash,
# completions/_vernier, completions/vernier.fish. MANDIR (default docs/man)
# holds the hand-written part of each page, PAGE.roff, put before SEE ALSO.
# DOCDIR, where the documentation is installed, is named under SEE ALSO, so
# that a page's docs/NAME.md can be found there.
# Only POSIX sh and awk are used, so the build needs nothing more. OUTDIR is
# replaced whole, and only once every file was made.
set -eu

if [ $# -lt 2 ] || [ $# -gt 4 ]; then
    echo "usage: $0 VERNIER OUTDIR [MANDIR [DOCDIR]]" >&2
    exit 2
fi
vernier=$1
outdir=$2
here=$(cd "$(dirname "$0")" && pwd)
mandir=${3:-$here/../../docs/man}
docdir=${4:-}

tmp="$outdir.tmp"
rm -rf "$tmp"
mkdir -p "$tmp/man" "$tmp/completions"
trap 'rm -rf "$tmp"' EXIT

version=$("$vernier" --version)
version=${version#vernier }
# A reproducible date when the packager sets one (reproducible-builds.org).
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
    date=$(date -u +%Y-%m-%d)
fi

records="$tmp/records"
"$vernier" --help >"$tmp/help"
awk -v cmd= -f "$here/parse.awk" "$tmp/help" >"$records"
cmds=$(awk -F '\t' '$1 == "" && $2 == "C" { print $3 }' "$records")
if [ -z "$cmds" ]; then
    echo "$0: 'vernier --help' lists no commands" >&2
    exit 1
fi
for c in $cmds; do
    "$vernier" "$c" --help >"$tmp/help-$c"
    awk -v cmd="$c" -f "$here/parse.awk" "$tmp/help-$c" >>"$records"
done

for c in "" $cmds; do
    page=vernier${c:+-$c}
    tail=
    [ -f "$mandir/$page.roff" ] && tail="$mandir/$page.roff"
    awk -v page_cmd="$c" -v version="$version" -v date="$date" -v tail="$tail" -v docdir="$docdir" \
        -f "$here/man.awk" "$records" >"$tmp/man/$page.1"
done
# A hand-written part with no page is a command that went away.
for f in "$mandir"/*.roff; do
    [ -e "$f" ] || continue
    page=$(basename "$f" .roff)
    if [ ! -f "$tmp/man/$page.1" ]; then
        echo "$0: $f belongs to no page: 'vernier --help' lists no such command" >&2
        exit 1
    fi
done

# The completions also know: vernier help COMMAND, and vernier suite's
# benchmarks, its families and the dotted prefixes between them.
{
    printf '\tC\thelp\tthe options of a command, as COMMAND --help shows them\n'
    printf 'help\tU\tvernier help COMMAND\n'
    "$vernier" suite --list | awk '{
        n = split($1, p, ".")
        w = p[1]
        if (!(w in seen)) { seen[w] = 1; print "suite\tW\t" w }
        for (i = 2; i <= n; i++) {
            w = w "." p[i]
            if (!(w in seen)) { seen[w] = 1; print "suite\tW\t" w }
        }
    }'
} >>"$records"

for sh in bash zsh fish; do
    case $sh in
        bash) name=vernier.bash ;;
        zsh) name=_vernier ;;
        fish) name=vernier.fish ;;
    esac
    awk -f "$here/collect.awk" -f "$here/$sh.awk" "$records" >"$tmp/completions/$name"
done

rm -f "$records" "$tmp"/help*
rm -rf "$outdir"
mv "$tmp" "$outdir"
trap - EXIT
