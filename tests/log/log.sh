#!/usr/bin/env bash
# log.sh MODE N LAUNCH... -- PROG: runs PROG (test_log.c) on N PEs in transport mode
# MODE (shm, ofi, mpi, device) once per SHOAL_LOG channel, each time with
# SHOAL_LOG_FILE=DIR/log-%h-%p-%j, and checks that every PE wrote its own file holding
# the lines that channel owes in that mode and no other PE's or channel's; then once
# with logging off (SHOAL_LOG_FILE still set), which must make no file and print no
# log line; and, in mode shm, that a symbolic link, a FIFO or another user's file
# planted at a PE's file name is refused (a warning, the lines on stderr, the planted
# file or the link's target untouched, no hang).
set -u
mode=$1 n=$2
shift 2
launch=()
while [ "$1" != -- ]; do launch+=("$1"); shift; done
prog=$2
scale=${SHOAL_TEST_TIMEOUT_SCALE:-1}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL ($mode, $n PEs): $*" >&2; exit 1; }

case $mode in
shm) ;;
ofi) export SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER='tcp;ofi_rxm' ;;
mpi) export SHOAL_TEST_LAUNCHER=mpirun SHOAL_TRANSPORT=mpi-all ;;
device) export SHOAL_DEVICE=emu SHMEM_SYMMETRIC_SIZE_DEVICE=1M SHMEM_ENABLE_DEVICE_AWARENESS=1 ;;
*) fail "unknown mode" ;;
esac

# owed CHANNEL PE: the lines (extended regular expressions, after "shoal: PE k:
# [channel] ") the channel owes on that PE in this mode.
owed() {
    case $1 in
    boot)
        echo 'bootstrap (oshrun|pmix|mpi) chosen'
        echo '^binding: CPUs '
        echo '^host names: ([a-z]+ allgather|node-level exchange) of [0-9]+ bytes per PE done after'
        echo '^start-up: symmetric heap setup took [0-9.]+ s \(CPU [0-9.]+ s\)'
        echo '^paths: [0-9]+ PE\(s\) through shared memory'
        echo '^start-up took [0-9.]+ s \(CPU [0-9.]+ s\)' ;;
    mem) echo '^heap [0-9]+ bytes at ' ;;
    shm) [ "$n" -gt 1 ] && echo "'s heap mapped at " ;;
    ofi) echo '^provider tcp;ofi_rxm, fabric'
         echo '^provider chosen in [0-9.]+ s \(CPU [0-9.]+ s\)'
         echo '^opening the default context.s endpoint' ;;
    mpi) echo "^MPI through (MPI_COMM_WORLD, MPI started by (Shoal|the application)|an MPI session of Shoal's own), thread level"
         echo '^window set 0, segment 0: [0-9]+ bytes'
         echo '^context 0x[0-9a-f]+ uses window set' ;;
    device) echo '^backend emu started for local PE'
            echo '^device heap 1048576 bytes at'
            echo ' is host memory' ;;
    coll) echo '^barrier [0-9]+ on the team of' ;;
    api) echo '^exit shmem_init, thread level'
         echo '^enter shmem_ctx_create$'
         echo '^exit shmem_team_split_strided after [0-9.]+ us$'
         echo '^exit shmem_barrier_all after [0-9.]+ us$'
         echo '^enter shmem_finalize$'
         if [ "$mode" = shm ]; then
             echo "^put of 8 bytes to PE [0-9]+, data offset [0-9]+: a same-node copy"
         else
             echo '^put of 8 bytes to PE [0-9]+, data offset [0-9]+: the ofi transport'
         fi ;;
    team) echo 'context 0x[0-9a-f]+, options 0x1'
          # the even PEs' team (test_log.c)
          [ $(($2 % 2)) -eq 0 ] && echo 'team of [0-9]+ \(start 0, stride [12]' ;;
    esac
}
case $mode in
shm) channels="boot mem shm coll team api" ;;
ofi) channels="boot ofi api" ;;
mpi) channels="boot mpi" ;;
device) channels="device" ;;
esac

run() { # LOGSPEC OUT: one job, its stdout and stderr in OUT
    SHOAL_LOG=$1 SHOAL_LOG_FILE="$dir/log-%h-%p-%j" \
        "${launch[@]}" -n "$n" --timeout $((60 * scale)) "$prog" >"$2" 2>&1 ||
        { cat "$2"; fail "SHOAL_LOG=$1: the job failed"; }
}

for ch in $channels; do
    rm -f "$dir"/log-*
    run "$ch:trace" "$dir/out"
    grep -q '^shoal: PE [0-9]*: \[' "$dir/out" && { cat "$dir/out"; fail "$ch: log lines on the terminal"; }
    for pe in $(seq 0 $((n - 1))); do
        set -- "$dir"/log-"$(hostname)"-"$pe"-*
        [ $# -eq 1 ] && [ -f "$1" ] || { ls -l "$dir"; fail "$ch: PE $pe has no file of its own (or several)"; }
        f=$1
        perm=$(stat -c %a "$f")
        [ "$perm" = 600 ] || fail "$ch: $f has mode $perm, not 600"
        other=$(grep -v "^shoal: PE $pe: \[$ch\] " "$f" | head -3)
        [ -z "$other" ] || { cat "$f"; fail "$ch: PE $pe's file holds other lines: $other"; }
        while IFS= read -r want; do
            sed "s/^shoal: PE $pe: \[$ch\] //" "$f" | grep -Eq -- "$want" ||
                { cat "$f"; fail "$ch: PE $pe logged no line matching /$want/"; }
        done < <(owed "$ch" "$pe")
    done
    echo "ok: $ch: $n files, one per PE, with the lines owed"
done

# Off: SHOAL_LOG unset or off, SHOAL_LOG_FILE set.
for spec in "" "all:off"; do
    rm -f "$dir"/log-*
    run "$spec" "$dir/out"
    ls "$dir"/log-* >/dev/null 2>&1 && fail "SHOAL_LOG='$spec' made a log file"
    grep -q '^shoal: ' "$dir/out" && { cat "$dir/out"; fail "SHOAL_LOG='$spec' printed: $(grep '^shoal: ' "$dir/out" | head -1)"; }
done
echo "ok: logging off writes nothing"

[ "$mode" = shm ] || exit 0
# Planted at PE 0's name: a link to a file of the user's, and a FIFO. Neither may be
# written through or block; the lines go to stderr with a warning.
echo keep >"$dir/target"
ln -s "$dir/target" "$dir/plant-0"
mkfifo "$dir/plant-1"
# Another user's file (as root, one made and given away; otherwise not checked).
other_user=0
if [ "$(id -u)" = 0 ] && echo theirs >"$dir/plant-2" && chown 65534 "$dir/plant-2"; then
    other_user=1
fi
SHOAL_LOG=mem:info SHOAL_LOG_FILE="$dir/plant-%p" \
    "${launch[@]}" -n "$n" --timeout $((60 * scale)) "$prog" >"$dir/out" 2>&1 ||
    { cat "$dir/out"; fail "planted files: the job failed"; }
[ "$(cat "$dir/target")" = keep ] || fail "the log was written through a symbolic link"
grep -q "PE 0: warning: SHOAL_LOG_FILE: cannot log to $dir/plant-0 (it is a symbolic link)" "$dir/out" &&
    grep -q '^shoal: PE 0: \[mem\] heap' "$dir/out" ||
    { cat "$dir/out"; fail "PE 0 did not refuse the symbolic link, or lost its lines"; }
if [ "$n" -gt 1 ]; then
    grep -q "PE 1: warning: SHOAL_LOG_FILE: cannot log to $dir/plant-1 (" "$dir/out" &&
        grep -q '^shoal: PE 1: \[mem\] heap' "$dir/out" ||
        { cat "$dir/out"; fail "PE 1 did not refuse the FIFO, or lost its lines"; }
fi
if [ "$n" -gt 2 ] && [ "$other_user" = 1 ]; then
    grep -q "PE 2: warning: SHOAL_LOG_FILE: cannot log to $dir/plant-2 (it belongs to another user)" "$dir/out" &&
        [ "$(cat "$dir/plant-2")" = theirs ] ||
        { cat "$dir/out"; fail "PE 2 did not refuse another user's file"; }
fi
echo "ok: a planted link, FIFO or other user's file is refused"
