#!/bin/sh
# Fresh machine to a running job: dependencies, build, install into ./install,
# compile examples/demo.c with the installed oshcc and run it on 4 PEs.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DSHOAL_BUILD_TESTS=OFF
cmake --build build
cmake --install build --prefix "$PWD/install"
install/bin/oshcc -O2 examples/demo.c -o build/demo
install/bin/oshrun -n 4 build/demo
