#!/bin/sh
# Shoal jobs under Slurm's srun --mpi=pmi2 on this machine: brings up a private
# single-host Slurm (munged, slurmctld, slurmd, with their own configuration, sockets,
# ports and state in a temporary folder), runs the checks, and removes all of it.
#   slurm_pmi2.sh WORLD API_CHECK CRASH [MPI]
# WORLD: tests/pmi's world program; API_CHECK and CRASH: the failure programs; MPI,
# when given, also runs WORLD with SHOAL_TRANSPORT=mpi (the MPI transport on MPICH).
# Exits 77 (skipped) without root or Debian's slurm-wlm and munge.
world=$1 api_check=$2 crash=$3 mpi=${4:-}
scale=${SHOAL_TEST_TIMEOUT_SCALE:-1}

skip() {
    echo "skipped: $*"
    exit 77
}
[ "$(id -u)" = 0 ] || skip "a private Slurm needs root"
for c in munged slurmctld slurmd srun; do
    command -v $c >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
    command -v $c >/dev/null 2>&1 || skip "no $c (install slurm-wlm and munge)"
done
[ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmi2.so ] ||
    ls /usr/lib/*/slurm*/mpi_pmi2.so >/dev/null 2>&1 || skip "Slurm has no mpi_pmi2 plugin"

T=$(mktemp -d /tmp/shoal-slurm.XXXXXX) || exit 1
chmod 755 "$T" # munged wants its socket's folder open to all
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$p" 2>/dev/null
    done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
    echo "FAIL: $*" >&2
    for f in "$T"/log/*; do [ -s "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
    exit 1
}

# Ports no one listens on (the private cluster must not meet another).
port=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))') || skip "python3 cannot pick ports"
set -- $port
ctld_port=$1 slurmd_port=$2
host=$(hostname -s)
cpus=8 # an 8-PE job fits one node, oversubscribed on smaller machines
mkdir -p "$T/log" "$T/state" "$T/spool"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge.key"
munged --force --socket="$T/munge.sock" --key-file="$T/munge.key" \
    --pid-file="$T/munged.pid" --seed-file="$T/munge.seed" --log-file="$T/log/munged.log" ||
    fail "munged did not start"
pids=$(cat "$T/munged.pid")

cat >"$T/slurm.conf" <<CONF
ClusterName=shoaltest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=2
MessageTimeout=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N "$host" >"$T/log/slurmd.out" 2>&1 &
pids="$pids $!"
i=0
until sinfo -h -o %T 2>/dev/null | grep -Eq '^(idle|mix)'; do
    i=$((i + 1))
    [ $i -lt $((150 * scale)) ] || fail "the private Slurm did not come up in $((15 * scale)) s"
    sleep 0.1
done

# One allocation for every step: no scheduling between them.
salloc --no-shell -n $cpus -J shoaltest >"$T/log/salloc.out" 2>&1 ||
    fail "salloc did not grant the node"
jobid=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' "$T/log/salloc.out")
[ -n "$jobid" ] || fail "salloc named no job"

limit=$((40 * scale))
out=$T/out err=$T/err
# job WANT_RC ENV... -- SRUN ARGS: runs srun --mpi=pmi2, checks its status.
job() {
    want=$1
    shift
    envs=
    while [ "$1" != -- ]; do envs="$envs $1"; shift; done
    shift
    echo "+ $envs srun --mpi=pmi2 $*"
    # srun ends its step when told to stop (and returns 137 for tasks it killed).
    env $envs timeout $limit srun --jobid="$jobid" --mpi=pmi2 "$@" </dev/null >"$out" 2>"$err"
    rc=$?
    cat "$out"
    cat "$err" >&2
    [ $rc -ne 124 ] || fail "srun did not end within $limit s"
    case $want in
    nonzero) [ $rc -ne 0 ] || fail "srun returned 0, expected a failure" ;;
    *) [ $rc -eq "$want" ] || fail "srun returned $rc, expected $want" ;;
    esac
}
for n in 1 2 4 8; do
    job 0 SHMEM_VERSION=1 -- -n $n "$world"
    grep -q "bootstrap: pmi2;" "$out" || fail "the job did not bootstrap through PMI-2"
done
job 0 SHMEM_VERSION=1 SHOAL_BOOTSTRAP=pmi1 -- -n 2 "$world"
grep -q "bootstrap: pmi1;" "$out" || fail "the job did not bootstrap through PMI-1"
# A PE that dies ends the step, named, with a failing status.
job nonzero -- -n 4 "$api_check" global_exit 3 3
grep -q "^shoal: PE 3 called shmem_global_exit(3); ending the job$" "$err" ||
    fail "no message naming PE 3"
job nonzero -- -n 2 "$api_check" nofinalize 1
grep -q "^shoal: PE 1: exited with status 0 without calling shmem_finalize" "$err" ||
    fail "no message naming PE 1"
job nonzero -- -n 4 "$crash" segv
grep -q "^shoal: PE 3: killed by signal 11" "$err" || fail "no message naming PE 3"
if [ -n "$mpi" ]; then
    # MPICH's own allocations at exit are not Shoal's: no leak check (ASan builds).
    job 0 SHMEM_VERSION=1 SHOAL_TRANSPORT=mpi-all ASAN_OPTIONS=detect_leaks=0 -- -n 4 "$world"
    grep -q "bootstrap: mpi;" "$out" || fail "the job did not take its world from MPI"
fi
echo "slurm_pmi2: OK"
