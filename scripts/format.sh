#!/bin/sh
# Formats Shoal's C sources with the repository's .clang-format, or with --check
# lists the files that differ from it and fails (for CI). Sources: every tracked
# .c and .h under src/, tools/, tests/, bench/, fuzz/ and examples/; include/
# (the public headers, laid out for readers) is left as written.
#
#   scripts/format.sh            rewrite the files in place
#   scripts/format.sh --check    change nothing; exit 1 when a file is not formatted
set -eu
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
command -v "$CLANG_FORMAT" >/dev/null 2>&1 ||
    { echo "format.sh: $CLANG_FORMAT not found; run scripts/install-deps.sh" >&2; exit 2; }
files=$(git ls-files 'src/*.[ch]' 'tools/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' \
        'fuzz/*.[ch]' 'examples/*.[ch]')
case "${1:-}" in
--check)
    bad=0
    for f in $files; do
        if ! "$CLANG_FORMAT" --style=file "$f" | cmp -s - "$f"; then
            echo "not formatted: $f"
            bad=$((bad + 1))
        fi
    done
    [ "$bad" -eq 0 ] || { echo "format.sh: $bad file(s) differ; run scripts/format.sh" >&2; exit 1; }
    echo "format.sh: every file is formatted"
    ;;
"")
    # shellcheck disable=SC2086
    "$CLANG_FORMAT" --style=file -i $files
    ;;
*)
    echo "usage: scripts/format.sh [--check]" >&2
    exit 2
    ;;
esac
