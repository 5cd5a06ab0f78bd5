#!/bin/sh
# libshoal.so must not depend on any MPI library (the mpi transport is a module
# loaded at run time), while libshoal-mpi.so does: otherwise this check proves nothing.
#   no_mpi_link.sh LIBSHOAL LIBSHOAL_MPI
lib=$1 module=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
deps=$(ldd "$lib") || fail "ldd $lib failed"
echo "$deps" | grep -Ei 'lib(mpi|mpich|open-rte|open-pal)[^ ]*\.so' &&
    fail "$lib links an MPI library (above); MPI belongs in libshoal-mpi.so only"
ldd "$module" | grep -Eq 'lib(mpi|mpich)[^ ]*\.so' ||
    fail "$module does not link MPI: is this the mpi transport module?"
objdump -T "$module" | grep -q 'shoal_module_transport' ||
    fail "$module does not export shoal_module_transport"
echo "ok: $lib has no MPI dependency; $module carries it"
