#!/bin/bash
# oshrun --map-by numa and --bind-to numa on this machine, for real: the PEs start,
# each runs where --report-bindings says, in the NUMA domain it names; and the same
# with the Milan topology file, whose domains beyond this machine's CPUs get no PEs.
# Then GPU PEs on emu with the Perlmutter file: PE r's device is r mod 4, the GPU
# --report-bindings names.
# usage: run_here.sh OSHRUN BOOT_CHECK API_CHECK TOPOLOGY_DIR
set -u
OSHRUN=$1 CHECK=$2 API=$3 DIR=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
scale=${SHOAL_TEST_TIMEOUT_SCALE:-1}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# "0-2,5" and "0,1,2,5" alike, as "0 1 2 5".
expand() {
    local p i out=()
    IFS=, read -ra parts <<<"$1"
    for p in "${parts[@]}"; do
        if [[ $p == *-* ]]; then
            for ((i = ${p%-*}; i <= ${p#*-}; i++)); do out+=("$i"); done
        else
            out+=("$p")
        fi
    done
    echo "${out[*]}"
}
ncpu=$(nproc)
# The PE counts every launcher test runs at, and one PE more than the CPUs.
for np in 1 2 4 $((ncpu + 1)); do
    for how in "--map-by numa" "--map-by numa --bind-to numa" "--map-by l3cache"; do
        for file in "" "$DIR/milan-nps4.xml"; do
            what="-n $np $how${file:+ (SHOAL_TOPOLOGY_FILE=$(basename "$file"))}"
            SHOAL_TOPOLOGY_FILE=$file SHOAL_BIND_LOCKDIR= timeout $((30 * scale)) \
                "$OSHRUN" -n "$np" $how --report-bindings --timeout $((20 * scale)) \
                "$CHECK" where >"$T/out" 2>"$T/err"
            rc=$?
            [ $rc -eq 0 ] || { fail "$what: exit $rc: $(cat "$T/err")"; continue; }
            for ((r = 0; r < np; r++)); do
                c=$(sed -n "s/^where $r cpus=\([^ ]*\) .*/\1/p" "$T/out")
                line=$(grep -E "^oshrun: PE $r bound to CPUs [0-9,-]+ \((core|numa|l3cache)(, shared with other PEs)?\), NUMA [0-9]+(, NIC [^ ]+ \([A-Z-]+\))?$" "$T/err")
                said=$(sed -n 's/^oshrun: PE [0-9]* bound to CPUs \([^ ]*\) .*/\1/p' <<<"$line")
                [ -n "$line" ] && [ "$(expand "$said")" = "$(expand "$c")" ] ||
                    fail "$what: PE $r runs on CPUs '$c', which --report-bindings does not say: $(grep "PE $r " "$T/err")"
            done
            # The file's domains other than this machine's first get no PEs here.
            [ -z "$file" ] || ! grep -Eq "NUMA [1-7]\b" "$T/err" || [ "$ncpu" -gt 16 ] ||
                fail "$what: a PE was placed in a NUMA domain with none of this machine's CPUs: $(cat "$T/err")"
        done
    done
done
for np in 1 2 4 5; do
    SHOAL_DEVICE=emu SHOAL_TOPOLOGY_FILE=$DIR/perlmutter.xml SHOAL_LOG=device:info \
        SHOAL_BIND_LOCKDIR= timeout $((30 * scale)) "$OSHRUN" -n $np --report-bindings \
        --timeout $((20 * scale)) "$API" plain >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] || { fail "emu -n $np: exit $rc: $(cat "$T/err")"; continue; }
    for ((r = 0; r < np; r++)); do
        grep -q "backend emu started for local PE $r: device $((r % 4)) " "$T/err" ||
            fail "emu -n $np: PE $r does not use device $((r % 4)): $(grep -a 'backend emu' "$T/err")"
        grep -Eq "^oshrun: PE $r bound to CPUs [0-9,-]+ \(core[^)]*\), NUMA [0-9]+, GPU cuda$((r % 4)), NIC cxi$((r % 4)) \(AUTO\)$" "$T/err" ||
            fail "emu -n $np: PE $r is not reported with GPU cuda$((r % 4)) and NIC cxi$((r % 4)): $(grep "PE $r " "$T/err")"
    done
done
[ $fails -eq 0 ] && echo "oshrun --map-by numa runs here at 1, 2, 4 and $((ncpu + 1)) PEs;" \
    "emu GPU PEs use device r mod 4 of perlmutter.xml"
exit $((fails > 0))
