#!/bin/sh
# The documents and sources speak to users as the product is now: no file in docs/,
# README.md, src/, bench/ or scripts/ narrates work history ("session 9", "issue 16":
# history lives in git), and every relative link in the markdown documents names a
# file that exists. Prints each offending line as FILE:LINE: TEXT.
src="$1"
cd "$src" || { echo "check_docs_text: no source tree at $src"; exit 1; }
status=0
hits=$(grep -rnIiE '(^|[^a-z])(session [0-9]|issue ?[0-9]+|issue16)' docs README.md src bench scripts)
if [ -n "$hits" ]; then
    echo "history narrated (say what is, not when; see git log for history):"
    echo "$hits"
    status=1
fi
for md in README.md docs/*.md; do
    dir=$(dirname "$md")
    # Targets of [text](target) that are neither web addresses nor in-page anchors.
    for t in $(grep -oE '\]\([^)# ]+' "$md" | sed 's/^](//' | grep -vE '^[a-z]+:'); do
        [ -e "$dir/$t" ] || { echo "$md: broken link to $t"; status=1; }
    done
done
[ $status -eq 0 ] && echo "docs: no history narrated, every relative link resolves"
exit $status
