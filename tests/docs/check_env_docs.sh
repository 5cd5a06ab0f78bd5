#!/bin/sh
# Every variable in the environment table is documented in docs/environment.md
# and in the README's table (user variables), so the docs cannot drift.
set -e
info="$1"; src="$2"
status=0
for v in $("$info" --env | awk '/^  [A-Z_]+ /{print $1}'); do
    grep -q "\`$v\`" "$src/docs/environment.md" || { echo "missing from docs/environment.md: $v"; status=1; }
done
for v in $("$info" --env | awk '/^  (SHMEM|SHOAL)_[A-Z_]+ /{print $1}' | grep -v -e SHOAL_BOOT_FD -e SHOAL_RANK -e SHOAL_SIZE -e SHOAL_BINDING); do
    grep -q "\`$v\`" "$src/README.md" || { echo "missing from README.md: $v"; status=1; }
done
[ $status -eq 0 ] && echo "every environment variable is documented"
exit $status
