#!/bin/sh
# Fresh machine to a full test run: dependencies, build with tests, run every test.
# SHOAL_SANITIZE=address (ASan+UBSan) or thread (TSan) builds and tests that variant
# in build-<sanitizer>.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build
extra=""
if [ -n "$SHOAL_SANITIZE" ]; then
    dir="build-$SHOAL_SANITIZE"
    extra="-DSHOAL_SANITIZE=$SHOAL_SANITIZE"
fi
cmake -S . -B "$dir" -G Ninja -DSHOAL_WERROR=ON $extra
cmake --build "$dir"
cd "$dir"
ctest --output-on-failure -j "${SHOAL_TEST_JOBS:-2}" "$@"
