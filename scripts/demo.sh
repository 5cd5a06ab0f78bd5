#!/bin/sh
# Fresh machine to a running job: dependencies, build, install into ./install,
# compile examples/demo.c with the installed oshcc and run it on 4 PEs.
# Each step prints one line; a step that fails prints its whole output
# (kept in build/demo-logs/ either way).
set -e
cd "$(dirname "$0")/.."
logs=build/demo-logs
mkdir -p "$logs"
step() {
    what=$1 log=$logs/$2
    shift 2
    printf '%s ... ' "$what"
    if "$@" >"$log" 2>&1; then
        echo "done"
    else
        status=$?
        echo "failed (exit $status); its output ($log):"
        cat "$log"
        exit "$status"
    fi
}
step "installing dependencies" deps.log scripts/install-deps.sh
step "configuring" configure.log cmake -S . -B build -G Ninja -DSHOAL_BUILD_TESTS=OFF
step "building" build.log cmake --build build
step "installing into ./install" install.log cmake --install build --prefix "$PWD/install"
step "compiling examples/demo.c with install/bin/oshcc" oshcc.log \
    install/bin/oshcc -O2 examples/demo.c -o build/demo
echo "running install/bin/oshrun -n 4 build/demo:"
install/bin/oshrun -n 4 build/demo
