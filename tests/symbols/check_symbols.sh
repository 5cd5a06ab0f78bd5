#!/bin/sh
# ABI checks on the built library:
#  - every exported OpenSHMEM routine has its pshmem_ profiling twin;
#  - nothing is exported outside the shmem_/pshmem_/shmemx_ names, the deprecated
#    1.2 names and the handle objects (and ASan's __odr_asan markers in sanitizer
#    builds), so internal symbols cannot leak;
#  - with --coverage, reports how much of openshmem-symbols.txt is exported and,
#    with --require SECTION..., fails when a listed section is incomplete.
set -e
lib="$1"; list="$2"; shift 2
exported=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
status=0

for s in $(echo "$exported" | grep -E '^(shmem_|shmemx_|start_pes$|_my_pe$|_num_pes$|shmalloc$|shfree$|shrealloc$|shmemalign$)'); do
    echo "$exported" | grep -qx "p$s" || { echo "no profiling twin for $s"; status=1; }
done
leaks=$(echo "$exported" | grep -v -E '^p?(shmem_|shmemx_|start_pes$|_my_pe$|_num_pes$|shmalloc$|shfree$|shrealloc$|shmemalign$)' \
        | grep -v -E '^shoal_(ctx_default|team_world|team_shared)$' \
        | grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' \
        | grep -v -E '^__odr_asan\.' || true)
if [ -n "$leaks" ]; then
    echo "internal symbols exported:"; echo "$leaks"; status=1
fi

required=""
while [ $# -gt 0 ]; do
    case "$1" in
    --require) shift; required="$required $1" ;;
    esac
    shift
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '/^# 1.6/{s="1.6"; next} /^# extensions/{s="extensions"; next} /^#/{next}
     NF{ if (s=="") s="1.5"; print $1 > (dir "/" s) }' "$list"
echo "$exported" > "$tmp/exported"
for s in 1.5 1.6 extensions; do
    want=$(wc -l < "$tmp/$s")
    have=$(grep -cxF -f "$tmp/$s" "$tmp/exported" || true)
    echo "section $s: $have of $want exported"
    for r in $required; do
        if [ "$r" = "$s" ] && [ "$have" -ne "$want" ]; then
            grep -vxF -f "$tmp/exported" "$tmp/$s" | head -20 | sed 's/^/  missing: /'
            status=1
        fi
    done
done
[ $status -eq 0 ] && echo "symbol checks passed"
exit $status
