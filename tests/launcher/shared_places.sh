#!/usr/bin/env bash
# What another local user can leave in the shared places oshrun uses must neither
# stop a job nor make it write the other user's (or the victim's own) files.
# The attacker is a second local user, created when this runs as root and it is
# missing; the test is skipped (77) when there is no way to act as one.
#   shared_places.sh OSHRUN BOOT_CHECK CASE
#   CASE: output (--output-filename in a shared folder), locks (per-CPU lock files)
set -u
OSHRUN=$1 CHECK=$2 CASE=$3
ATTACKER=shoal-attacker
fail() {
    echo "FAIL [$CASE]: $*"
    echo "--- stderr:"; head -c 2000 "$T/err" 2>/dev/null; echo
    exit 1
}
[ "$(id -u)" -eq 0 ] || { echo "skipped: acting as a second user needs root"; exit 77; }
command -v setpriv >/dev/null || { echo "skipped: no setpriv to act as a second user"; exit 77; }
if ! id "$ATTACKER" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$ATTACKER" 2>/dev/null ||
        id "$ATTACKER" >/dev/null 2>&1 || { echo "skipped: cannot create user $ATTACKER"; exit 77; }
fi
uid=$(id -u "$ATTACKER") gid=$(id -g "$ATTACKER")
as_attacker() { setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }
# A shared folder like /tmp: everyone writes, sticky.
T=$(mktemp -d "${TMPDIR:-/tmp}/shoal-shared.XXXXXX")
trap 'rm -rf "$T"' EXIT
chmod 1777 "$T"
export BOOT_CHECK_PIDDIR=$T/pids
mkdir -m 1777 "$BOOT_CHECK_PIDDIR"
# run CMD...: as oshrun's user, with a limit so that a hang fails instead of blocking.
run() {
    timeout -k 5 60 "$@" </dev/null >"$T/out" 2>"$T/err"
    rc=$?
    [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "$* hung"
}

case $CASE in
output)
    victim=$T/victim-file
    echo precious >"$victim"
    # The attacker lays out the job's output tree with its own symbolic links.
    as_attacker mkdir -p "$T/out1/1/rank.0" "$T/out2/1"
    as_attacker ln -s "$victim" "$T/out1/1/rank.0/stdout"
    as_attacker ln -s "$T" "$T/out2/1/rank.0"
    as_attacker ln -s "$T/pids" "$T/out3"
    run "$OSHRUN" -n 1 --output-filename "$T/out1" "$CHECK" echo 1
    [ "$rc" -eq 1 ] || fail "a tree another user made was used (exit $rc)"
    grep -q "^oshrun: --output-filename: cannot use $T/out1: it belongs to another user" "$T/err" ||
        fail "no message naming the other user's directory"
    [ "$(cat "$victim")" = precious ] || fail "the victim's file was overwritten"
    # A directory of the victim's own, with a link another user could not make
    # there, but one made while the folder was open to others.
    mkdir -p "$T/mine/1/rank.0"
    ln -s "$victim" "$T/mine/1/rank.0/stdout"
    run "$OSHRUN" -n 1 --output-filename "$T/mine" "$CHECK" echo 1
    [ "$rc" -eq 1 ] || fail "a symbolic link was written through (exit $rc)"
    grep -q "cannot use $T/mine/1/rank.0/stdout: it is a symbolic link" "$T/err" ||
        fail "no message naming the symbolic link"
    [ "$(cat "$victim")" = precious ] || fail "the victim's file was overwritten"
    run "$OSHRUN" -n 1 --output-filename "$T/out3" "$CHECK" echo 1
    [ "$rc" -eq 1 ] || fail "another user's symbolic link was followed (exit $rc)"
    grep -q "cannot use $T/out3: it is another user's symbolic link" "$T/err" ||
        fail "no message naming the other user's link"
    # A FIFO in the victim's tree must not hold the job up.
    mkdir -p "$T/fifo/1/rank.0"
    mkfifo "$T/fifo/1/rank.0/stderr"
    run "$OSHRUN" -n 1 --output-filename "$T/fifo" "$CHECK" echo 1
    [ "$rc" -eq 1 ] || fail "a FIFO was accepted as an output file (exit $rc)"
    # A fresh tree in the shared folder works, and is the victim's.
    run "$OSHRUN" -n 2 --output-filename "$T/fresh" "$CHECK" echo 1
    [ "$rc" -eq 0 ] || fail "a fresh output tree failed (exit $rc)"
    [ "$(stat -c %u "$T/fresh/1/rank.1/stdout")" -eq 0 ] || fail "output file not the job's"
    grep -q "^out 1 " "$T/fresh/1/rank.1/stdout" || fail "PE 1's output is not in its file"
    echo "output: another user's files and links are refused, never written"
    ;;
locks)
    # The attacker plants a FIFO, a symbolic link and an unreadable file where the
    # per-CPU lock files go; jobs must still start at once.
    L=$T/locks
    mkdir -m 1777 "$L"
    ncpu=$(nproc)
    as_attacker mkfifo "$L/shoal-oshrun-cpu0.lock"
    [ "$ncpu" -lt 2 ] || as_attacker ln -s /etc/passwd "$L/shoal-oshrun-cpu1.lock"
    SHOAL_BIND_LOCKDIR=$L run "$OSHRUN" -n 1 --report-bindings "$CHECK" where
    [ "$rc" -eq 0 ] || fail "a job with a FIFO at a lock file failed (exit $rc)"
    [ "$(grep -c "shoal-oshrun-cpu0.lock cannot serve as a CPU lock (not a regular file); CPU 0 is treated as taken" "$T/err")" -eq 1 ] ||
        fail "not one warning about the FIFO"
    # Taken CPUs come last: one is used only when no CPU is free.
    if [ "$ncpu" -gt 2 ]; then
        ! grep -q "PE 0 bound to CPUs 0 " "$T/err" || fail "PE 0 was bound to the CPU whose lock is a FIFO while others were free"
    else
        grep -Eq "PE 0 bound to CPUs [0-9,-]+ \((core|hwthread), free ones first, then ones another oshrun job holds\)" "$T/err" ||
            fail "with every CPU taken, PE 0 was not given one"
    fi
    # Lock files a job makes under umask 077 stay open to other users' jobs.
    L2=$T/locks2
    mkdir -m 1777 "$L2"
    as_attacker mkdir "$T/apids"
    as_attacker sh -c "umask 077; SHOAL_BIND_LOCKDIR=$L2 BOOT_CHECK_PIDDIR=$T/apids '$OSHRUN' -n 1 '$CHECK' where" \
        >"$T/out" 2>"$T/err" </dev/null || fail "the attacker's own job failed"
    for f in "$L2"/shoal-oshrun-cpu*.lock; do
        [ -e "$f" ] || fail "no lock file was made"
        [ "$(( 0$(stat -c %a "$f") & 0444 ))" -eq $((0444)) ] ||
            fail "$f has mode $(stat -c %a "$f"): other users' jobs cannot lock it"
    done
    # A lock directory that does not exist is refused before any PE starts.
    SHOAL_BIND_LOCKDIR=$T/nonexistent run "$OSHRUN" -n 1 "$CHECK" where
    [ "$rc" -eq 2 ] || fail "a missing SHOAL_BIND_LOCKDIR gave exit $rc, not 2"
    grep -q "^oshrun: SHOAL_BIND_LOCKDIR=\"$T/nonexistent\" is not valid: No such file or directory" "$T/err" ||
        fail "no message naming SHOAL_BIND_LOCKDIR"
    echo "locks: planted files neither stop nor misplace a job"
    ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
