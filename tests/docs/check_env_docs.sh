#!/bin/sh
# Every variable in the environment table is documented in docs/environment.md,
# and the user variables also in the README's table, so the docs cannot drift.
# The list and each variable's class come from shoal-info --parsable --all.
set -e
info="$1"; src="$2"
status=0
for v in $("$info" --env --parsable --all | sed -n 's/^env:\([A-Z_]*\):class:.*/\1/p'); do
    grep -q "\`$v" "$src/docs/environment.md" || { echo "missing from docs/environment.md: $v"; status=1; }
done
for v in $("$info" --env --parsable | sed -n 's/^env:\([A-Z_]*\):class:user$/\1/p'); do
    grep -q "\`$v\`" "$src/README.md" || { echo "missing from README.md: $v"; status=1; }
done
[ $status -eq 0 ] && echo "every environment variable is documented"
exit $status
