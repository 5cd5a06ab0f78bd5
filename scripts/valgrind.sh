#!/bin/sh
# Runs a few basic tests on 2 PEs with every PE under valgrind memcheck; fails on
# any memory error or definite leak. Builds in build-valgrind (no sanitizers:
# valgrind and ASan do not mix).
#   scripts/valgrind.sh [TEST_PROGRAM...]   (paths relative to build-valgrind)
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build-valgrind
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSHOAL_WERROR=ON >/dev/null
cmake --build "$dir"
if [ $# -eq 0 ]; then
    set -- tests/api/api.setup tests/api/api.rma_typed tests/api/api.amo tests/api/api.wait \
        tests/api/api.signal tests/api/api.malloc tests/api/api.coll_reduce tests/api/api.static \
        "tests/stress/stress_random --seeds 1:2 --phases 10 --ops 100"
fi
failed=""
for t in "$@"; do
    echo "== valgrind, 2 PEs: $t"
    # shellcheck disable=SC2086
    if ! "$dir/tools/oshrun/oshrun" -n 2 --timeout 600 valgrind -q --error-exitcode=99 \
            --leak-check=full --errors-for-leak-kinds=definite $dir/$t; then
        failed="$failed [$t]"
    fi
done
if [ -n "$failed" ]; then
    echo "valgrind.sh: memcheck found errors in:$failed"
    exit 1
fi
echo "valgrind.sh: memcheck clean on $# programs"
