#!/usr/bin/env bash
# Install checks: install_test.sh STEP, with the SHOAL_TEST_* variables set by
# tests/install/CMakeLists.txt. "setup" installs the build tree into
# $SHOAL_TEST_PREFIX; every other step checks that tree as a user would use it.
set -euo pipefail

step=$1
prefix=$SHOAL_TEST_PREFIX
bindir=$prefix/$SHOAL_TEST_BINDIR
incdir=$prefix/$SHOAL_TEST_INCLUDEDIR
libdir=$prefix/$SHOAL_TEST_LIBDIR
src=$SHOAL_TEST_SOURCE_DIR
work=$SHOAL_TEST_WORK/$step

fail() {
    echo "FAIL ($step): $*" >&2
    exit 1
}

# Runs "$@" under the installed launcher at 2 PEs and checks both PEs greeted.
run_hello() {
    local out=$work/run.out
    "${oshrun:-$bindir/oshrun}" -n 2 "$@" >"$out" 2>&1 ||
        fail "oshrun -n 2 $* exited with $?: $(cat "$out")"
    for pe in 0 1; do
        grep -qF "hello from PE $pe of 2" "$out" ||
            fail "$*: no 'hello from PE $pe of 2' in: $(cat "$out")"
    done
    [ "$(grep -c 'hello from PE' "$out")" -eq 2 ] ||
        fail "$*: expected exactly 2 greetings, got: $(cat "$out")"
}

# Succeeds when the text $1 contains the word $2 (space-separated).
has_word() {
    case " $1 " in *" $2 "*) return 0 ;; esac
    return 1
}

step_setup() {
    rm -rf "$prefix"
    "$SHOAL_TEST_CMAKE" --install "$SHOAL_TEST_BUILD_DIR" --prefix "$prefix" \
        ${SHOAL_TEST_CONFIG:+--config "$SHOAL_TEST_CONFIG"} >"$work/install.log" 2>&1 ||
        fail "cmake --install failed: $(cat "$work/install.log")"
}

step_files() {
    local f
    for f in "$bindir"/{oshcc,oshc++,oshcxx,oshrun,shoal-info} \
             "$incdir"/{shmem.h,shmemx.h} \
             "$libdir"/{libshoal.so,libshoal.a,pkgconfig/shoal.pc} \
             "$libdir"/cmake/Shoal/{ShoalConfig.cmake,ShoalConfigVersion.cmake,ShoalTargets.cmake}; do
        [ -e "$f" ] || fail "missing $f"
    done
    for f in oshcc oshc++ oshcxx oshrun shoal-info; do
        [ -x "$bindir/$f" ] || fail "$bindir/$f is not executable"
    done
    # A tree that names the build directory breaks once the build is deleted.
    if grep -rlF "$SHOAL_TEST_BUILD_DIR" "$bindir"/osh{cc,c++} "$libdir/pkgconfig" \
            "$libdir/cmake/Shoal"; then
        fail "the files above refer to the build directory $SHOAL_TEST_BUILD_DIR"
    fi
}

step_wrappers() {
    local cc=$bindir/oshcc cxx=$bindir/oshc++ out
    out=$("$cc" -showme hello.c -o hello)
    has_word "$out" "$SHOAL_TEST_CC" || fail "oshcc -showme does not name $SHOAL_TEST_CC: $out"
    has_word "$out" -lshoal || fail "oshcc -showme has no -lshoal: $out"
    has_word "$out" "-I$incdir" || fail "oshcc -showme has no -I$incdir: $out"
    has_word "$out" hello.c || fail "oshcc -showme dropped the arguments: $out"
    out=$("$cxx" -showme x.cpp)
    has_word "$out" "$SHOAL_TEST_CXX" || fail "oshc++ -showme does not name $SHOAL_TEST_CXX: $out"
    for flag in -c -S -E -M -MM; do
        out=$("$cc" -showme "$flag" hello.c)
        ! has_word "$out" -lshoal || fail "oshcc -showme $flag links: $out"
    done
    out=$("$cc" -showme:compile)
    [ "$out" = "-I$incdir" ] || fail "oshcc -showme:compile printed '$out', not -I$incdir"
    out=$("$cc" -showme:link)
    has_word "$out" -lshoal || fail "oshcc -showme:link has no -lshoal: $out"
    has_word "$out" "-Wl,-rpath,$libdir" || fail "oshcc -showme:link has no rpath to $libdir: $out"
    out=$("$cc" -showme 'a b' "it's")
    has_word "$out" "'a b'" && has_word "$out" "'it'\\''s'" ||
        fail "oshcc -showme does not quote arguments for the shell: $out"

    # The override variables must replace the compiler and keep every argument.
    cat >"$work/record.sh" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$work/record.args"
exec "\$REAL" "\$@"
EOF
    chmod +x "$work/record.sh"
    check_override oshcc SHOAL_CC c "$SHOAL_TEST_CC"
    check_override oshc++ SHOAL_CXX cpp "$SHOAL_TEST_CXX"
}

# check_override WRAPPER VARIABLE EXTENSION REAL_COMPILER
check_override() {
    local wrapper=$1 var=$2 file=$work/trivial.$3 arg
    printf 'int main(void) { return 0; }\n' >"$file"
    rm -f "$work/record.args"
    env REAL="$4" "$var=$work/record.sh" "$bindir/$wrapper" -DMARK=1 "$file" -o "$file.out" ||
        fail "$wrapper with $var set could not build $file"
    [ -f "$work/record.args" ] || fail "$wrapper did not run \$$var"
    for arg in -DMARK=1 "$file" -lshoal "-I$incdir"; do
        grep -qxF -- "$arg" "$work/record.args" ||
            fail "\$$var did not get $arg from $wrapper: $(cat "$work/record.args")"
    done
}

step_oshcc() {
    "$bindir/oshcc" "$src/hello.c" -o "$work/hello" || fail "oshcc could not build hello.c"
    # A separate compile and link must work too.
    "$bindir/oshcc" -c "$src/hello.c" -o "$work/hello.o" || fail "oshcc -c failed"
    "$bindir/oshcc" "$work/hello.o" -o "$work/hello2" || fail "oshcc could not link hello.o"
    run_hello "$work/hello"
    run_hello "$work/hello2"
    # The installed shmem.h names Shoal's version, and SHOAL_NUMVERSION agrees with it.
    printf '#include <shmem.h>\n#include <stdio.h>\nint main(void) { printf("%%d.%%d.%%d %%d\\n", SHOAL_VERSION_MAJOR, SHOAL_VERSION_MINOR, SHOAL_VERSION_PATCH, SHOAL_NUMVERSION); return 0; }\n' \
        >"$work/version.c"
    "$bindir/oshcc" "$work/version.c" -o "$work/version" || fail "oshcc could not build version.c"
    local v=$SHOAL_TEST_VERSION num out
    num=$(( ${v%%.*} * 10000 + $(echo "$v" | cut -d. -f2) * 100 + ${v##*.} ))
    out=$("$work/version")
    [ "$out" = "$v $num" ] || fail "shmem.h says version '$out', expected '$v $num'"
}

step_oshcxx() {
    "$bindir/oshc++" "$src/hello.cpp" -o "$work/hello" || fail "oshc++ could not build hello.cpp"
    "$bindir/oshcxx" "$src/hello.cpp" -o "$work/hello_alias" || fail "oshcxx could not build hello.cpp"
    run_hello "$work/hello"
    run_hello "$work/hello_alias"
    # The C++ overloads of the generic names, from the installed headers.
    local t=$SHOAL_TEST_SOURCE_DIR/../api/test_cxx_generic.cpp
    "$bindir/oshc++" -std=c++11 -I"$SHOAL_TEST_SOURCE_DIR/../common" "$t" -o "$work/cxx_generic" ||
        fail "oshc++ could not build test_cxx_generic.cpp"
    "$bindir/oshrun" -n 2 --timeout 60 "$work/cxx_generic" ||
        fail "the C++ generic-name test failed when built with oshc++"
}

step_pkgconfig() {
    command -v "$SHOAL_TEST_PKG_CONFIG" >/dev/null ||
        fail "pkg-config not found; install it (apt-get install pkg-config)"
    export PKG_CONFIG_PATH=$libdir/pkgconfig
    local pc=$SHOAL_TEST_PKG_CONFIG version flags static
    version=$("$pc" --modversion shoal) || fail "pkg-config does not know shoal"
    [ "$version" = "$SHOAL_TEST_VERSION" ] ||
        fail "pkg-config says version $version, expected $SHOAL_TEST_VERSION"
    flags=$("$pc" --cflags --libs shoal)
    static=$("$pc" --static --libs shoal)
    has_word "$static" -lm && has_word "$static" -lpthread ||
        fail "pkg-config --static --libs lacks -lm -lpthread: $static"
    # The flags are meant to split into words.
    "$SHOAL_TEST_CC" "$src/hello.c" -o "$work/hello" $flags \
        "-Wl,-rpath,$("$pc" --variable=libdir shoal)" ||
        fail "could not build hello.c with: $flags"
    run_hello "$work/hello"
}

step_cmake_package() {
    local bdir=$work/build
    rm -rf "$bdir"
    "$SHOAL_TEST_CMAKE" -S "$src/cmake_project" -B "$bdir" -G "$SHOAL_TEST_GENERATOR" \
        -DCMAKE_MAKE_PROGRAM="$SHOAL_TEST_MAKE_PROGRAM" -DCMAKE_C_COMPILER="$SHOAL_TEST_CC" \
        -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
        fail "configuring a find_package(Shoal) project failed: $(cat "$work/configure.log")"
    grep -qF "Found Shoal $SHOAL_TEST_VERSION (OpenSHMEM $SHOAL_TEST_SPEC_VERSION)" \
        "$work/configure.log" || fail "find_package(Shoal) set the wrong versions: $(cat "$work/configure.log")"
    "$SHOAL_TEST_CMAKE" --build "$bdir" >"$work/build.log" 2>&1 ||
        fail "building against Shoal::shoal / Shoal::shoal_static failed: $(cat "$work/build.log")"
    run_hello "$bdir/hello_shared"
    run_hello "$bdir/hello_static"
}

# A moved install tree (here into a path with a space) must still work: nothing in
# it may depend on the prefix it was installed to.
step_relocated() {
    local moved="$work/moved tree/shoal" out
    rm -rf "$work/moved tree"
    mkdir -p "$work/moved tree"
    cp -a "$prefix" "$moved"
    local mbin=$moved/$SHOAL_TEST_BINDIR mlib=$moved/$SHOAL_TEST_LIBDIR
    out=$("$mbin/oshcc" -showme:compile)
    [ "$out" = "'-I$moved/$SHOAL_TEST_INCLUDEDIR'" ] ||
        fail "moved oshcc -showme:compile printed $out"
    out=$("$mbin/oshcc" -showme:link)
    has_word "$out" "'-Wl,-rpath,$mlib'" || fail "moved oshcc -showme:link printed $out"
    "$mbin/oshcc" "$src/hello.c" -o "$work/hello" || fail "moved oshcc could not build hello.c"
    # Through a symlink elsewhere, as when a user links it into ~/bin.
    ln -sf "$mbin/oshcc" "$work/oshcc-link"
    out=$("$work/oshcc-link" -showme:compile)
    [ "$out" = "'-I$moved/$SHOAL_TEST_INCLUDEDIR'" ] ||
        fail "a symlink to the moved oshcc printed $out"
    oshrun=$mbin/oshrun
    run_hello "$work/hello"
}

step_shoal_info() {
    local info=$bindir/shoal-info out
    out=$("$info") || fail "shoal-info exited with $?"
    for want in "Shoal $SHOAL_TEST_VERSION" "OpenSHMEM $SHOAL_TEST_SPEC_VERSION" \
                SHMEM_SYMMETRIC_SIZE "default 512M" "shm (same-node load/store)"; do
        grep -qF -- "$want" <<<"$out" || fail "shoal-info does not show '$want': $out"
    done
    local shown real
    shown=$(awk '$1 == "Prefix" { print $2 }' <<<"$out")
    real=$(cd "$prefix" && pwd -P)
    [ "$shown" = "$real" ] || fail "shoal-info shows prefix '$shown', expected $real"
    out=$("$info" --env) || fail "shoal-info --env exited with $?"
    grep -qF SHMEM_SYMMETRIC_SIZE <<<"$out" || fail "shoal-info --env lacks SHMEM_SYMMETRIC_SIZE"
    ! grep -qF "Build type" <<<"$out" || fail "shoal-info --env prints more than variables"
    out=$("$info" --version) || fail "shoal-info --version exited with $?"
    grep -qF "Shoal $SHOAL_TEST_VERSION" <<<"$out" || fail "shoal-info --version printed: $out"
    "$info" --help | grep -qF -- --env || fail "shoal-info --help does not list --env"
    local rc=0
    "$info" --bogus 2>/dev/null || rc=$?
    [ $rc -eq 2 ] || fail "shoal-info --bogus exited with $rc, expected 2"
}

mkdir -p "$work"
cd "$work"
"step_$step"
echo "PASS ($step)"
