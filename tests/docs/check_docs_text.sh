#!/bin/sh
# The documents and sources speak to users as the product is now: no file in docs/,
# README.md, src/, bench/ or scripts/ narrates work history ("session 9", "issue 16":
# history lives in git), and every relative link in the markdown documents names a
# file that exists and, with an anchor, one of its headings. Prints each offence
# (FILE:LINE: TEXT for the history).
src="$1"
cd "$src" || { echo "check_docs_text: no source tree at $src"; exit 1; }
status=0
hits=$(grep -rnIiE '(^|[^a-z])(session [0-9]|issue ?[0-9]+|issue16)' docs README.md src bench scripts)
if [ -n "$hits" ]; then
    echo "history narrated (say what is, not when; see git log for history):"
    echo "$hits"
    status=1
fi
for md in README.md docs/*.md docs/data/README.md; do
    dir=$(dirname "$md")
    # Targets of [text](target) that are not web addresses: the file must exist, and an
    # anchor must match one of its headings as GitHub names them (lower case, spaces
    # to hyphens, punctuation dropped).
    for t in $(grep -oE '\]\([^) ]+\)' "$md" | sed 's/^](//; s/)$//' | grep -vE '^[a-z]+:'); do
        f=${t%%#*}
        [ -n "$f" ] && f="$dir/$f" || f="$md"
        [ -e "$f" ] || { echo "$md: broken link to $t"; status=1; continue; }
        case "$t" in *#*) ;; *) continue ;; esac
        sed -n 's/^#\{1,6\} //p' "$f" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g' |
            grep -qxF -- "${t#*#}" || { echo "$md: no heading for $t"; status=1; }
    done
done
[ $status -eq 0 ] && echo "docs: no history narrated, every relative link and anchor resolves"
exit $status
