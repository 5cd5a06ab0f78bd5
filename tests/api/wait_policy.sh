#!/usr/bin/env bash
# How a waiting PE waits, as SHMEM_INFO reports it, against the CPUs this test may
# use (nproc): with a core per PE it spins and never sleeps (or spins briefly when
# the host was busy at start-up: other jobs, parallel tests); with more PEs than CPUs, or every
# PE squeezed onto one CPU by taskset, not at all (0 polls); SHOAL_SPIN_COUNT sets the count.
#   wait_policy.sh OSHRUN PROG
set -u
oshrun=$1 prog=$2
cpus=$(nproc)
fail() { echo "FAIL: $*" >&2; exit 1; }
policy() { # prints PE 0's "Waiting" line of a job run with the given prefix
    env -u SHOAL_NODE_MAP SHMEM_INFO=1 "$@" 2>&1 | grep '^Waiting (PE 0)' || true
}
if [ "$cpus" -ge 2 ]; then
    got=$(policy "$oshrun" -n 2 --timeout 30 "$prog")
    [[ $got == *"8192 polls, then polls on, yielding every 1024 (it has a core of its own)"* ||
       $got == *": 200 polls, then yields and sleeps (the host was busy at start-up)"* ]] ||
        fail "2 PEs on $cpus CPUs: '$got'"
fi
# Work that stays runnable (a busy loop per CPU) marks the host busy however
# the start-up samples fall; a passing task does not (topology.c).
if [ "$cpus" -ge 2 ]; then
    hogs=()
    for _ in $(seq "$cpus"); do
        timeout 60 sh -c 'while :; do :; done' &
        hogs+=($!)
    done
    got=$(policy "$oshrun" -n 2 --timeout 30 "$prog")
    kill "${hogs[@]}" 2>/dev/null
    wait "${hogs[@]}" 2>/dev/null
    [[ $got == *": 200 polls, then yields and sleeps (the host was busy at start-up)"* ]] ||
        fail "2 PEs on $cpus CPUs beside $cpus busy loops: '$got'"
fi
got=$(policy "$oshrun" -n $((cpus + 1)) --timeout 60 "$prog")
[[ $got == *": 0 polls, then yields and sleeps (PEs outnumber its cores)"* ]] ||
    fail "$((cpus + 1)) PEs on $cpus CPUs: '$got'"
got=$(policy taskset -c 0 "$oshrun" -n 2 --timeout 30 "$prog")
[[ $got == *": 0 polls, then yields and sleeps (PEs outnumber its cores)"* ]] ||
    fail "2 PEs on one CPU (taskset): '$got'"
got=$(policy env SHOAL_SPIN_COUNT=7 "$oshrun" -n 2 --timeout 30 "$prog")
[[ $got == *"7 polls, then yields and sleeps (SHOAL_SPIN_COUNT)"* ]] ||
    fail "SHOAL_SPIN_COUNT=7: '$got'"
echo "wait policy OK on $cpus CPUs"
