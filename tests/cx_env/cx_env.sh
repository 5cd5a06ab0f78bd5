#!/usr/bin/env bash
# Cray OpenSHMEMX's environment variables on Shoal: every one of its table is known to
# shoal-info --all; the display variables print at 1 and 2 PEs; SHMEM_ERROR_FILE,
# SHMEM_ABORT_ON_ERROR, SHMEM_THREAD_SAFETY, SHMEM_OFI_GLOBAL_EXIT, the other
# spellings and the variables mapped onto Shoal's do what they say; a variable that
# does not apply warns once per job; bad NIC values are refused with a message.
#   cx_env.sh SHOAL_INFO OSHRUN PROG
set -u
info=$1 oshrun=$2 prog=$3
scale=${SHOAL_TEST_TIMEOUT_SCALE:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}

# The table of Cray OpenSHMEMX's documentation, kept here independently of
# src/env/env_table.h.
cx_vars="SHMEM_VERSION_DISPLAY SHMEM_ENV_DISPLAY SHMEM_SYMMETRIC_SIZE SHMEM_DEBUG
SHMEM_DEBUG_LEVEL SHMEM_DEBUG_CATEGORIES SHMEM_DEBUG_RANKS SHMEM_ERROR_FILE
SHMEM_ABORT_ON_ERROR SHMEM_MEMINFO_DISPLAY SHMEM_MAX_CTX SHMEM_THREAD_SAFETY
SHMEM_LOCALITY_ONNODE SHMEM_LOCALITY_OFFNODE SHMEM_SMP_SIZE_LIMIT
SHMEM_ALLTOALL_BLOCK_SIZE SHMEM_ALLTOALL_SHORT_MSG SHMEM_ALLTOALL_SYMBUF_SIZE
SHMEM_ALLTOALL_SYNC_FREQ SHMEM_ALLTOALL_USE_GETS SHMEM_ALLTOALLV_TSIZE_CHK SHMEM_COLL_OPT_OFF SHMEM_NUM_TEAM_PSYNC
SHMEM_USE_TREE_ALLREDUCE SHMEM_REDUCE_CUTOFF_SIZE SHMEM_USE_LARGE_OPT_REDUCE
SHMEM_TEAM_SMP_REDUCE SHMEM_MASSIVE_BCAST_CUTOFF SHMEM_USE_OPT_MASSIVE_BCAST
SHMEM_USE_OPTIMIZED_VSMSG_BCAST SHMEM_TEAM_FREE_ASSO_CHILD SHMEM_TEAMS_MEM_OPT_LEVEL
SHMEM_OFI_USE_PROV_NAME SHMEM_OFI_USE_DOMAIN_NAME SHMEM_OFI_USE_FABRIC_NAME
SHMEM_OFI_PROVIDER_DISPLAY SHMEM_OFI_FABRIC_DISPLAY SHMEM_OFI_STARTUP_CONNECT SHMEM_OFI_PROGRESS SHMEM_OFI_USE_SEP
SHMEM_OFI_DEFAULT_TCLASS SHMEM_OFI_GLOBAL_EXIT SHMEM_OFI_NUM_NICS SHMEM_OFI_NIC_POLICY
SHMEM_OFI_NIC_MAPPING SHMEM_OFI_SKIP_NIC_SELECTION SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST
SHMEM_FREEMEM_THRESHOLD SHMEM_USE_DSMML SHMEM_USE_DSMML_SSHEAP SHMEM_OPTIMIZED_MEMCPY
SHMEM_USE_SMP"
known=$("$info" --env --all --parsable | sed -n 's/^env:\([A-Z_]*\):class:.*/\1/p')
n=0
for v in $cx_vars; do
    n=$((n + 1))
    grep -qx "$v" <<<"$known" || fail "shoal-info --all does not know $v"
done
[ "$n" -eq 52 ] || fail "the test's own list has $n names, not 52"

# run NAME PES [VAR=VALUE...] -- ARGS...: the program under oshrun, with those
# variables and none of the caller's SHMEM_* or transport and log choices; stdout in
# NAME.out, stderr in NAME.err, the exit status in $st.
run() {
    local name=$1 pes=$2
    shift 2
    local vars=()
    while [ "$1" != -- ]; do
        vars+=("$1")
        shift
    done
    shift
    # shellcheck disable=SC2046 # one word per -u NAME
    env $(env | sed -n 's/^\(SHMEM_[A-Z_]*\|SHOAL_\(NODE_MAP\|TRANSPORT\|BOOTSTRAP\|LOG\|LOG_FILE\)\)=.*/-u \1/p') \
        "${vars[@]}" \
        timeout $((30 * scale)) "$oshrun" -n "$pes" --timeout $((20 * scale)) "$prog" "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
    st=$?
}
# count NAME FILE REGEX WANT: WANT lines of NAME's FILE (out, err) match REGEX.
count() {
    local got
    got=$(grep -cE "$3" "$TMP/$1.$2")
    [ "$got" -eq "$4" ] ||
        fail "$1: $got lines of std$2 match '$3', want $4; stdout:$(cat "$TMP/$1.out")
stderr:$(cat "$TMP/$1.err")"
}
# atleast NAME FILE REGEX MIN: at least MIN lines match (an error every PE meets may
# reach the launcher from one PE or from several before it ends the job).
atleast() {
    local got
    got=$(grep -cE "$3" "$TMP/$1.$2")
    [ "$got" -ge "$4" ] ||
        fail "$1: $got lines of std$2 match '$3', want at least $4; stderr:$(cat "$TMP/$1.err")"
}
status() {
    [ "$st" -eq "$2" ] || fail "$1: exit status $st, want $2; stderr: $(cat "$TMP/$1.err")"
}

for pes in 1 2; do
    run version$pes $pes SHMEM_VERSION_DISPLAY=1 -- plain
    status version$pes 0
    count version$pes out "^Shoal .*OpenSHMEM .*$pes PEs? on" 1
    run env$pes $pes SHMEM_ENV_DISPLAY=1 SHMEM_USE_DSMML=1 -- plain
    status env$pes 0
    count env$pes out '^Environment variables \(SHMEM_INFO\)' 1
    count env$pes out '^  SHMEM_USE_DSMML +1$' 1
    count env$pes out 'not applicable here: HPE' 3
    run meminfo$pes $pes SHMEM_MEMINFO_DISPLAY=1 -- plain
    status meminfo$pes 0
    count meminfo$pes out '^  symmetric heap +[0-9]+ bytes at .*memfd.*'"$pes"' PEs' 1
done

# The provider by Cray OpenSHMEMX's name, where the build has libfabric.
if "$info" --parsable | grep -q '^transport:ofi:'; then
    run prov 2 SHOAL_NODE_MAP=pe "SHMEM_OFI_USE_PROV_NAME=tcp;ofi_rxm" SHMEM_VERSION_DISPLAY=1 \
        -- plain
    status prov 0
    count prov out '2 PEs on 2 nodes; .*ofi \(provider tcp;ofi_rxm\)' 1
    # A provider that is not here: the message names the variable the script set.
    run noprov 2 SHOAL_NODE_MAP=pe SHMEM_OFI_USE_PROV_NAME=cxi -- plain
    status noprov 1
    atleast noprov err 'for SHMEM_OFI_USE_PROV_NAME=cxi .*set SHMEM_OFI_USE_PROV_NAME to one' 1
    # SHMEM_OFI_PROVIDER_DISPLAY: PE 0 names the provider, and the NIC and address of
    # each PE of its node (here itself: one PE a node; on one host, loopback);
    # SHMEM_INFO says which NIC PE 0 is bound to.
    run pdisp 2 SHOAL_NODE_MAP=pe "SHMEM_OFI_PROVIDER=tcp;ofi_rxm" SHMEM_OFI_PROVIDER_DISPLAY=1 \
        SHMEM_INFO=1 -- plain
    status pdisp 0
    count pdisp out '^shmem: provider tcp;ofi_rxm, 1 NIC\(s\) a node \(policy ONE\)$' 1
    count pdisp out '^shmem: PE 0: NIC 0 lo, address fi_sockaddr_in://127\.0\.0\.1:[0-9]+$' 1
    count pdisp out '^shmem: PE 1:' 0
    count pdisp out '^  NIC: PE 0 bound to NIC 0 lo, address fi_sockaddr_in://127\.0\.0\.1:[0-9]+ \(node.s NICs: lo; policy ONE\)$' 1
fi

# Not applicable: one warning per job, from PE 0. The NIC variables apply (a node
# with one NIC has nothing to choose) and warn of nothing.
run na 2 SHMEM_USE_DSMML=1 SHMEM_OFI_NUM_NICS=2:1,3 SHMEM_OFI_NIC_POLICY=ROUND-ROBIN -- plain
status na 0
count na err '^shoal: warning: SHMEM_USE_DSMML is a Cray OpenSHMEMX variable that does not apply' 1
count na err 'SHMEM_OFI_N' 0

# Bad NIC values: refused, naming the variable, before any PE runs the program (the
# parser's other cases: unit.env).
bad=1
for v in SHMEM_OFI_NUM_NICS=2:1 SHMEM_OFI_NIC_POLICY=SPREAD \
    "SHMEM_OFI_NIC_MAPPING=0:0-1; 1:1"; do
    run nic$bad 1 SHMEM_OFI_NIC_POLICY=USER "$v" -- plain
    status nic$bad 1
    count nic$bad err "^shoal: shmem_init: ${v%%=*}=.*(expected|no PE is mapped twice)" 1
    bad=$((bad + 1))
done
run map3 2 SHMEM_OFI_NIC_POLICY=USER SHMEM_OFI_NIC_MAPPING=0:0 -- plain
status map3 1
atleast map3 err 'maps no NIC for local PE 1 of this node.s 2' 1
run map4 2 SHMEM_OFI_NIC_POLICY=USER "SHMEM_OFI_NIC_MAPPING=0:0; 1:1" -- plain
status map4 0

# SHMEM_ERROR_FILE: the library's error (a put to a PE out of range) on stdout.
run err_default 2 -- badput
status err_default 1
atleast err_default err 'shmem_long_put: PE 2 is out of range' 1
count err_default out 'shmem_long_put' 0
run err_stdout 2 SHMEM_ERROR_FILE=stdout -- badput
status err_stdout 1
atleast err_stdout out 'shmem_long_put: PE 2 is out of range' 1
count err_stdout err 'shmem_long_put' 0
count err_stdout out 'the bad put returned' 0

# SHMEM_ABORT_ON_ERROR: the PE ends by SIGABRT (oshrun's status 128+6).
ulimit -c 0
run abort 1 SHMEM_ABORT_ON_ERROR=1 -- badput
status abort 134
count abort err 'shmem_long_put: PE 1 is out of range' 1
count abort err '^shoal: PE 0: killed by signal 6' 1

# SHMEM_THREAD_SAFETY: what the program reads is the level granted.
for level in 0 3; do
    run thread$level 2 SHMEM_THREAD_SAFETY=stale -- thread $level
    status thread$level 0
    name=$([ $level = 0 ] && echo SINGLE || echo MULTIPLE)
    count thread$level out "^PE [01]: SHMEM_THREAD_SAFETY=SHMEM_THREAD_$name granted $level$" 2
done

# SHMEM_OFI_GLOBAL_EXIT=0: shmem_global_exit is exit() (atexit handlers run).
run gexit 1 -- global_exit
status gexit 3
count gexit out 'through exit\(\)' 0
run gexit0 1 SHMEM_OFI_GLOBAL_EXIT=0 -- global_exit
status gexit0 3
count gexit0 out 'through exit\(\)' 1

# Mapped onto Shoal's variables: the values in force, as SHMEM_INFO shows them.
run mapped 1 SHMEM_INFO=1 SHMEM_COLL_OPT_OFF=1 SHMEM_OFI_PROGRESS=AUTO -- plain
status mapped 0
count mapped out "^  SHOAL_COLL_NODE_AWARE +off \\(from Cray OpenSHMEMX's variables\\)$" 1
count mapped out "^  SHMEM_OFI_PROGRESS_THREAD +off \\(from Cray OpenSHMEMX's variables\\)$" 1
run collbad 1 SHMEM_COLL_OPT_OFF=barrier,gather -- plain
status collbad 1
count collbad err 'SHMEM_COLL_OPT_OFF="barrier,gather": "gather" is not a collective' 1
run onnode 2 SHMEM_VERSION=1 SHMEM_LOCALITY_ONNODE=0 -- plain
status onnode 0
count onnode out '2 PEs on 2 nodes' 1
run offnode 2 SHOAL_NODE_MAP=pe SHMEM_LOCALITY_OFFNODE=0 -- plain
status offnode 1
atleast offnode err 'SHMEM_LOCALITY_OFFNODE=0 turns the network path off' 1
run teams 2 SHMEM_NUM_TEAM_PSYNC=2 -- teams 3
status teams 0
count teams out '^PE [01]: 2 of 3 teams made$' 2

# SHMEM_DEBUG_*: onto SHOAL_LOG's channels, on the PEs named.
run debug 2 SHMEM_DEBUG_LEVEL=1 SHMEM_DEBUG_CATEGORIES=init SHMEM_DEBUG_RANKS=1 -- plain
status debug 0
atleast debug err '^shoal: PE 1: \[boot\]' 1
count debug err '^shoal: PE 0: ' 0
count debug err '\[(mem|shm|ofi|coll|team)\]' 0
run debugbad 1 SHMEM_DEBUG_LEVEL=2 SHMEM_DEBUG_CATEGORIES=init,bogus -- plain
status debugbad 0
count debugbad err 'warning: shmem_init: SHMEM_DEBUG_CATEGORIES="init,bogus": category "bogus" has no counterpart here and is ignored' 1
atleast debugbad err '^shoal: PE 0: \[boot\]' 1
run debugranks 1 SHMEM_DEBUG_LEVEL=2 SHMEM_DEBUG_RANKS=0-x -- plain
status debugranks 1
count debugranks err 'SHMEM_DEBUG_RANKS="0-x" is not valid' 1

[ $failed -eq 0 ] && echo "Cray OpenSHMEMX's variables: all checks passed"
exit $failed
