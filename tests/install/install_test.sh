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
             "$libdir"/cmake/Shoal/{ShoalConfig.cmake,ShoalConfigVersion.cmake,ShoalTargets.cmake} \
             "$prefix/$SHOAL_TEST_MANDIR"/man1/{oshrun,oshcc,shoal-info}.1 \
             "$prefix/$SHOAL_TEST_MANDIR"/man3/{shmem_put,shmem_long_put}.3; do
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
    # Sandia OpenSHMEM's and Open MPI's spellings.
    [ "$("$cc" -show x.c)" = "$("$cc" -showme x.c)" ] || fail "oshcc -show differs from -showme"
    [ "$("$cc" -showlibs)" = "$("$cc" -showme:link)" ] || fail "oshcc -showlibs differs from -showme:link"
    [ "$("$cc" --showme:compile)" = "-I$incdir" ] || fail "--showme:compile"
    [ "$("$cc" --showme:incdirs)" = "$incdir" ] || fail "--showme:incdirs printed $("$cc" --showme:incdirs)"
    [ "$("$cc" --showme:libdirs)" = "$libdir" ] || fail "--showme:libdirs printed $("$cc" --showme:libdirs)"
    out=$("$cc" --showme:libs)
    has_word "$out" shoal && ! has_word "$out" -lshoal || fail "--showme:libs printed $out"
    out=$("$cc" --showme:version)
    grep -qF "Shoal $SHOAL_TEST_VERSION, OpenSHMEM $SHOAL_TEST_SPEC_VERSION" <<<"$out" ||
        fail "--showme:version printed $out"
    for h in --help -h --showme:help; do
        out=$("$cc" $h) || fail "oshcc $h exited with $?"
        for o in -showme --showme:compile --showme:link --showme:incdirs --showme:libdirs \
                 --showme:libs --showme:version -showlibs -static SHOAL_CC SHMEM_CC; do
            grep -qF -- "$o" <<<"$out" || fail "oshcc $h does not mention $o"
        done
    done
    local rc=0
    "$cc" --showme:bogus >/dev/null 2>&1 || rc=$?
    [ $rc -eq 2 ] || fail "oshcc --showme:bogus exited with $rc, expected 2"
    out=$(SHMEM_CC=my-cc "$cc" -show x.c)
    [ "${out%% *}" = my-cc ] || fail "SHMEM_CC is not used: $out"
    out=$(SHOAL_CC=first-cc SHMEM_CC=my-cc "$cc" -show x.c)
    [ "${out%% *}" = first-cc ] || fail "SHOAL_CC does not win over SHMEM_CC: $out"
    out=$(SHMEM_CXX=my-cxx "$cxx" -show x.cpp)
    [ "${out%% *}" = my-cxx ] || fail "SHMEM_CXX is not used: $out"
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

# oshcc -static links a program with no shared Shoal, libfabric or PMIx, or
# says which static libraries are missing (checked here independently).
step_static() {
    local rc=0 out
    out=$("$bindir/oshcc" -static "$src/hello.c" -o "$work/hello_static" 2>&1) || rc=$?
    if [ $rc -eq 0 ]; then
        ! ldd "$work/hello_static" 2>/dev/null | grep -q libshoal ||
            fail "oshcc -static left libshoal shared: $(ldd "$work/hello_static")"
        run_hello "$work/hello_static"
        return
    fi
    grep -q "^oshcc: -static: cannot link a fully static program: .* not installed: " <<<"$out" ||
        fail "oshcc -static failed without saying why: $out"
    local lib named=0
    for lib in $(sed -n 's/.*not installed:\(.*\) (Debian.*/\1/p' <<<"$out"); do
        named=1
        case $("$SHOAL_TEST_CC" -print-file-name="$lib") in
            /*) fail "oshcc -static says $lib is missing, but the compiler finds it" ;;
        esac
    done
    [ $named -eq 1 ] || fail "oshcc -static named no missing library: $out"
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
    # The flags are meant to split into words; their rpath lets the program run
    # without LD_LIBRARY_PATH.
    "$SHOAL_TEST_CC" "$src/hello.c" -o "$work/hello" $flags ||
        fail "could not build hello.c with: $flags"
    env -u LD_LIBRARY_PATH "$work/hello" >/dev/null ||
        fail "a program linked with pkg-config --libs shoal does not run without LD_LIBRARY_PATH: $flags"
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
                SHMEM_SYMMETRIC_SIZE "default 512M" "shm                same-node load/store" \
                "oshrun             oshrun's launcher channel" \
                "pmi2               PMI-2 wire protocol" "pmi1               PMI-1 (simple)"; do
        grep -qF -- "$want" <<<"$out" || fail "shoal-info does not show '$want': $out"
    done
    local shown real
    shown=$(awk '$1 == "Prefix" { print $2 }' <<<"$out")
    real=$(cd "$prefix" && pwd -P)
    [ "$shown" = "$real" ] || fail "shoal-info shows prefix '$shown', expected $real"

    # --parsable: key:value lines only, and what the build really has, with the
    # versions pkg-config reports for the libraries behind it.
    local p
    p=$("$info" --parsable --all) || fail "shoal-info --parsable --all exited with $?"
    ! grep -qv '^[a-z_]*:[^:]' <<<"$p" || fail "not key:value: $(grep -v '^[a-z_]*:[^:]' <<<"$p" | head -3)"
    grep -qx "version:shoal:$SHOAL_TEST_VERSION" <<<"$p" || fail "no version:shoal line"
    grep -qx "path:prefix:$real" <<<"$p" || fail "no path:prefix:$real line"
    grep -qx "path:mandir:$real/share/man" <<<"$p" || fail "no path:mandir line"
    grep -q '^transport:shm:' <<<"$p" || fail "no transport:shm"
    grep -q '^bootstrap:oshrun:' <<<"$p" || fail "no bootstrap:oshrun"
    grep -q '^device:emu:' <<<"$p" || fail "no device:emu line"
    grep -Eq '^device:cuda:runtime:libcuda.so.1 (not )?found$' <<<"$p" || fail "no device:cuda:runtime line"
    local v
    if [ -n "${SHOAL_TEST_HAVE_OFI:-}" ]; then
        v=$("$SHOAL_TEST_PKG_CONFIG" --modversion libfabric)
        grep -qx "transport:ofi:version:runtime:libfabric ${v%.*}" <<<"$p" ||
            fail "libfabric runtime version is not ${v%.*}: $(grep '^transport:ofi' <<<"$p")"
        grep -q "^transport:ofi:providers:.*tcp" <<<"$p" || fail "--all lists no tcp provider"
    else
        ! grep -q '^transport:ofi' <<<"$p" || fail "reports ofi in a build without libfabric"
    fi
    if [ -n "${SHOAL_TEST_HAVE_PMIX:-}" ]; then
        v=$("$SHOAL_TEST_PKG_CONFIG" --modversion pmix)
        grep -q "^bootstrap:pmix:version:runtime:.*PMIx $v" <<<"$p" ||
            fail "PMIx runtime version is not $v: $(grep '^bootstrap:pmix' <<<"$p")"
    else
        ! grep -q '^bootstrap:pmix' <<<"$p" || fail "reports pmix in a build without PMIx"
    fi
    grep -qx 'env:SHOAL_BOOT_FD:class:launcher' <<<"$p" || fail "--all lacks the launcher variables"
    grep -qx 'env:SHOAL_CC:class:other' <<<"$p" || fail "--all lacks the names other programs read"
    p=$("$info" --parsable)
    ! grep -q 'class:launcher' <<<"$p" || fail "--parsable without --all lists launcher variables"

    out=$("$info" --env) || fail "shoal-info --env exited with $?"
    grep -qF SHMEM_SYMMETRIC_SIZE <<<"$out" || fail "shoal-info --env lacks SHMEM_SYMMETRIC_SIZE"
    ! grep -qF "Build type" <<<"$out" || fail "shoal-info --env prints more than variables"
    out=$("$info" --version) || fail "shoal-info --version exited with $?"
    grep -qF "Shoal $SHOAL_TEST_VERSION" <<<"$out" || fail "shoal-info --version printed: $out"
    out=$("$info" --help)
    for o in --env --all --parsable --version; do
        grep -qF -- "$o" <<<"$out" || fail "shoal-info --help does not list $o"
    done
    local rc=0
    "$info" --bogus 2>/dev/null || rc=$?
    [ $rc -eq 2 ] || fail "shoal-info --bogus exited with $rc, expected 2"
}

# Manual pages: man finds every routine's page through MANPATH, each name the
# library exports has one, and every page names something that exists.
step_man() {
    command -v man >/dev/null || fail "man not found; install man-db (scripts/install-deps.sh)"
    local mandir=$prefix/$SHOAL_TEST_MANDIR out f
    export MANPATH=$mandir MANWIDTH=100 MAN_DISABLE_SECCOMP=1
    out=$(man shmem_long_put 2>&1) || fail "man shmem_long_put failed: $out"
    grep -q "copy contiguous data" <<<"$out" && grep -q "shmem_TYPENAME_put" <<<"$out" ||
        fail "man shmem_long_put does not show shmem_put(3): $out"
    grep -q "unsigned long long *ulonglong" <<<"$out" || fail "shmem_put(3) lacks its type table"
    case $(man -w shmem_long_put) in
        "$mandir"/man3/shmem_long_put.3 | "$mandir"/man3/shmem_put.3) ;;
        *) fail "man -w shmem_long_put: $(man -w shmem_long_put)" ;;
    esac
    [ "$(cat "$mandir/man3/shmem_long_put.3")" = ".so man3/shmem_put.3" ] ||
        fail "shmem_long_put.3 does not include shmem_put.3"
    man shmemx_pcntr_get_all | grep -q "#include <shmemx.h>" ||
        fail "shmemx_pcntr_get_all(3) does not name shmemx.h, where it is declared"
    man shmem_long_put | grep -q "#include <shmem.h>" || fail "shmem_put(3) does not name shmem.h"
    for f in oshrun oshcc oshc++ oshcxx shoal-info; do
        out=$(man 1 "$f" 2>&1) || fail "man 1 $f failed: $out"
    done
    man oshrun | grep -q -- "--bind-to core|hwthread|socket|package|numa|l3cache|none" || fail "oshrun(1) lacks oshrun --help"
    man shoal-info | grep -q -- "--parsable" || fail "shoal-info(1) lacks --parsable"
    man oshc++ | grep -q -- "--showme:libdirs" || fail "oshc++(1) is not oshcc(1)"
    for f in shmem_int_atomic_fetch_add shmem_ctx_uint64_atomic_swap_nbi shmem_double_sum_reduce \
             shmem_long_wait_until_any_vector shmem_put64_signal_nbi shmem_team_split_2d \
             shmemx_long_ibput shmemx_local_complete shmemx_int_sum_inscan; do
        man -w "$f" >/dev/null 2>&1 || fail "no manual page for $f"
    done
    nm -D --defined-only "$libdir/libshoal.so" | awk '$2 == "T" || $2 == "W" { print $3 }' |
        grep -E '^(shmemx?_|start_pes$|_my_pe$|_num_pes$|sh(malloc|free|realloc|memalign)$)' |
        sort >"$work/exported"
    [ -s "$work/exported" ] || fail "cannot list libshoal's routines with nm"
    ls "$mandir/man3" | sed 's/\.3$//' | sort >"$work/pages"
    comm -23 "$work/exported" "$work/pages" >"$work/no_page"
    [ ! -s "$work/no_page" ] || fail "routines without a manual page: $(head -20 "$work/no_page" | tr '\n' ' ')"
    # Besides exported routines, a page may name a macro or an inline function of
    # the headers (the C11 generic names, shmemx.h's Sandia OpenSHMEM aliases, the
    # device routines of shmemx_device.h).
    printf '#include <shmem.h>\n#include <shmemx.h>\n#include <shmemx_device.h>\n' >"$work/both.c"
    { "$SHOAL_TEST_CC" -dM -E -I"$incdir" "$work/both.c" |
          sed -n 's/^#define \(shmemx\{0,1\}_[a-z0-9_]*\).*/\1/p'
      "$SHOAL_TEST_CC" -E -I"$incdir" "$work/both.c" | grep -oE '\bshmemx_[a-z0-9_]+ *\(' |
          sed 's/ *($//'; } | sort -u >"$work/macros"
    comm -13 "$work/exported" "$work/pages" | comm -23 - "$work/macros" >"$work/no_routine"
    [ ! -s "$work/no_routine" ] || fail "pages for names Shoal lacks: $(head -20 "$work/no_routine" | tr '\n' ' ')"
}

mkdir -p "$work"
cd "$work"
"step_$step"
echo "PASS ($step)"
