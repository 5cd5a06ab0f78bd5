#!/bin/sh
# SHMEM_OFI_LOWER_PE=1 where the progress thread may not be raised (CAP_SYS_NICE
# dropped when run as root; RLIMIT_NICE as it is): on 2 PEs over tcp;ofi_rxm,
# test_ofi_progress busy_gets checks that each thread leads its PE by 10 nice
# levels or none; here, from SHMEM_INFO, which: 10 where PE 0 has a core of its own
# (the PE lowered to 10, or, where RLIMIT_NICE lets the thread rise, shared), none
# where PEs share cores (a busy host at start-up counts so: then only that case is
# checked, and said).
#   lower_pe.sh OSHRUN PROGRAM
oshrun=$1
prog=$2
drop=""
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv > /dev/null 2>&1 ||
        { echo "SKIP: setpriv (util-linux) is needed to drop CAP_SYS_NICE"; exit 77; }
    drop="setpriv --bounding-set=-sys_nice"
    $drop true 2> /dev/null ||
        { echo "SKIP: cannot drop CAP_SYS_NICE here (setpriv --bounding-set needs CAP_SETPCAP)"; exit 77; }
fi
out=$(env -u SHOAL_SPIN_COUNT SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER='tcp;ofi_rxm' \
      SHMEM_OFI_LOWER_PE=1 SHMEM_INFO=1 $drop "$oshrun" -n 2 --timeout 60 "$prog" busy_gets 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: the job exited $rc"; exit 1; }
# "progress priority on PE 0: thread T, PE P, PE at start S"
set -- $(echo "$out" | sed -n 's/^progress priority on PE 0: thread \(-*[0-9]*\), PE \(-*[0-9]*\), PE at start \(-*[0-9]*\)$/\1 \2 \3/p')
[ $# -eq 3 ] || { echo "FAIL: PE 0 printed no priorities"; exit 1; }
t=$1 p=$2 s=$3
if echo "$out" | grep -q '^Waiting (PE 0): .*(it has a core of its own)'; then
    want=$((s + 10 > 19 ? 19 : s + 10))
    if [ "$t" -eq "$s" ] && [ "$p" -eq "$want" ]; then
        echo "OK: PE 0 lowered from nice $s to $p beside its thread"
    elif [ "$t" -lt "$s" ] && [ "$(ulimit -e)" != 0 ] && [ $((p - t)) -eq 10 ]; then
        echo "OK: RLIMIT_NICE $(ulimit -e) let the thread rise to $t, the PE at $p"
    else
        echo "FAIL: PE 0 has a core of its own, yet its thread is at nice $t, the PE at $p (from $s)"
        exit 1
    fi
elif [ "$t" -eq "$s" ] && [ "$p" -eq "$s" ]; then
    echo "OK (PEs share cores here: nothing lowered; the own-core case is not checked)"
else
    echo "FAIL: PEs share cores, yet the thread is at nice $t, the PE at $p (from $s)"
    exit 1
fi
