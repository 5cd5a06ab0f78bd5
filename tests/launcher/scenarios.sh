#!/usr/bin/env bash
# Launcher scenarios: runs oshrun on boot_check (or on the program given by
# SCENARIO_PROG) and asserts on exit status, messages, output, timing, and that
# no PE outlives the job.
#   scenarios.sh OSHRUN BOOT_CHECK SCENARIO NP
set -u
OSHRUN=$1 CHECK=$2 SCENARIO=$3 NP=${4:-1}
LAST=$((NP - 1))
T=$(mktemp -d "${TMPDIR:-/tmp}/shoal-launcher.XXXXXX")
trap 'rm -rf "$T"' EXIT
export BOOT_CHECK_PIDDIR=$T/pids
# oshrun's per-CPU locks in a folder of this run alone, so that jobs of other
# tests running at the same time do not change where these PEs are placed.
export SHOAL_BIND_LOCKDIR=$T/locks
mkdir "$SHOAL_BIND_LOCKDIR"
# In a sanitizer build, a PE's SIGSEGV must stay a real signal.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0
mkdir "$BOOT_CHECK_PIDDIR"

show() {
    echo "--- command: ${CMD:-}"
    echo "--- stdout (head):"; head -c 3000 "$T/out" 2>/dev/null; echo
    echo "--- stderr (head):"; head -c 3000 "$T/err" 2>/dev/null; echo
}
fail() { echo "FAIL [$SCENARIO np$NP]: $*"; show; exit 1; }

# No PE that wrote a pid file may be alive once oshrun has returned.
no_leftovers() {
    local f p
    for f in "$BOOT_CHECK_PIDDIR"/pe.*; do
        [ -e "$f" ] || continue
        p=$(cat "$f")
        if kill -0 "$p" 2>/dev/null; then
            kill -KILL "$p" 2>/dev/null
            fail "PE with pid $p (${f##*/}) outlived oshrun"
        fi
    done
}

# run CMD...: runs it with stdin from $STDIN (default /dev/null); sets rc and ms.
run() {
    CMD="$*"
    rm -f "$BOOT_CHECK_PIDDIR"/pe.*
    local t0=$(date +%s%N)
    "$@" <"${STDIN:-/dev/null}" >"$T/out" 2>"$T/err"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    no_leftovers
}
osh() { run "$OSHRUN" "$@"; }
# The cores among a CPU list (0-3,6), as /sys names them.
cores_of() {
    local IFS=, r
    for r in $1; do seq "${r%-*}" "${r#*-}"; done |
        while read -r c; do cat "/sys/devices/system/cpu/cpu$c/topology/thread_siblings_list" 2>/dev/null || echo "$c"; done |
        sort -u | wc -l
}

expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"; }
expect_err() { grep -Eq -- "$1" "$T/err" || fail "stderr lacks /$1/"; }
expect_out() { grep -Eq -- "$1" "$T/out" || fail "stdout lacks /$1/"; }
expect_err_lines() {
    local n
    n=$(grep -Ec -- "$1" "$T/err")
    [ "$n" -eq "$2" ] || fail "stderr has $n lines matching /$1/, expected $2"
}
# expect_before_verdict FILE VERDICT LINE...: VERDICT (a regex) matches FILE's last
# line, and each LINE is a whole line of FILE before it.
expect_before_verdict() {
    local f=$1 v=$2 l n last
    shift 2
    last=$(wc -l <"$f")
    n=$(grep -nE -- "$v" "$f" | head -1 | cut -d: -f1)
    [ -n "$n" ] || fail "no verdict /$v/"
    [ "$n" -eq "$last" ] || fail "output after the verdict"
    for l in "$@"; do
        n=$(grep -nxF -- "$l" "$f" | head -1 | cut -d: -f1)
        [ -n "$n" ] || fail "no whole line '$l'"
        [ "$n" -lt "$last" ] || fail "'$l' after the verdict"
    done
}
expect_no_err() { [ ! -s "$T/err" ] || fail "unexpected stderr"; }
# Time limits stretch by SHOAL_TEST_TIMEOUT_SCALE (a slow or loaded machine).
scaled_ms() { awk -v s="${SHOAL_TEST_TIMEOUT_SCALE:-1}" -v t="$1" 'BEGIN { printf "%d", t * s * 1000 }'; }
expect_within() {
    local lim
    lim=$(scaled_ms "$1")
    [ "$ms" -le "$lim" ] || fail "took $ms ms, expected under $lim ms"
}

# Starts oshrun in the background on PEs that sleep, waits until all have
# written their pid; sets bg.
start_sleepers() {
    CMD="$OSHRUN $*"
    rm -f "$BOOT_CHECK_PIDDIR"/pe.*
    "$OSHRUN" "$@" </dev/null >"$T/out" 2>"$T/err" &
    bg=$!
    local i
    for ((i = 0; i < 200; i++)); do
        [ "$(ls "$BOOT_CHECK_PIDDIR" | wc -l)" -eq "$NP" ] && return
        sleep 0.05
    done
    kill -KILL "$bg"
    fail "PEs did not all start within 10 s"
}

# signal_job SIG STATUS: sends SIG to oshrun, expects it to exit with STATUS promptly.
signal_job() {
    local t0=$(date +%s%N)
    kill -"$1" "$bg"
    wait "$bg"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    expect_rc "$2"
    no_leftovers
}

# Checks "[TAG ]KIND RANK LINE xxx" lines: each names the PE it is tagged with and
# has exactly the length boot_check's echo mode gives it.
check_echo_lines() {
    awk -v tagged="$1" -v kind="$2" -v np="$NP" -v lines="$3" '
        {
            if (tagged) {
                if (match($0, /^\[[0-9]+\] /) == 0) { print "untagged line: " substr($0, 1, 80); bad = 1; next }
                tag = substr($0, 2, RLENGTH - 3); $0 = substr($0, RLENGTH + 1)
            }
            n = split($0, f, " ")
            r = f[2]; l = f[3]; x = (n >= 4) ? f[4] : ""
            want = (l * 97 + r * 13) % 9000
            if (f[1] != kind || (tagged && tag != r) || length(x) != want || x ~ /[^x]/) {
                print "mixed or damaged line: " substr($0, 1, 80); bad = 1
            }
            seen[r]++
        }
        END {
            for (r = 0; r < np; r++) if (seen[r] != lines) { print "PE " r ": " seen[r] + 0 " lines, expected " lines; bad = 1 }
            exit bad
        }' || fail "$2 lines were not passed on whole"
}

case $SCENARIO in
boot)
    osh -n "$NP" "$CHECK" ok
    expect_rc 0
    expect_no_err
    osh -np "$NP" "$CHECK" ok
    expect_rc 0
    osh --np="$NP" "$CHECK" ok
    expect_rc 0
    ;;
exit_status)
    osh -n "$NP" "$CHECK" exit 3 "$LAST"
    expect_rc 3
    expect_err "^oshrun: PE $LAST \(pid [0-9]+\) exited with status 3; ending the job$"
    expect_err_lines '^oshrun:' 1
    expect_within 5
    osh -n "$NP" false
    expect_rc 1
    ;;
segv)
    for r in 0 "$LAST"; do
        osh -n "$NP" "$CHECK" segv "$r"
        expect_rc 139
        expect_err "^oshrun: PE $r \(pid [0-9]+\) was killed by signal 11 \(Segmentation fault.*\); ending the job$"
        expect_within 5
    done
    ;;
sigkill)
    osh -n "$NP" "$CHECK" kill "$LAST"
    expect_rc 137
    expect_err "^oshrun: PE $LAST \(pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job$"
    expect_within 5
    ;;
abort)
    osh -n "$NP" "$CHECK" abort 5 "$LAST"
    expect_rc 5
    expect_err "^oshrun: PE $LAST called shmem_global_exit\(5\); ending the job$"
    expect_err_lines '^oshrun:' 1
    expect_within 5
    osh -n "$NP" "$CHECK" abort 7 0 "disk on fire"
    expect_rc 7
    expect_err "^disk on fire$"
    expect_err "^oshrun: PE 0 aborted \(exit status 7\); ending the job$"
    osh -n "$NP" "$CHECK" abort 0 "$LAST"
    expect_rc 0
    expect_err "called shmem_global_exit\(0\)"
    ;;
nofinalize)
    osh -n "$NP" "$CHECK" nofinalize "$LAST"
    expect_rc 1
    expect_err "^oshrun: PE $LAST \(pid [0-9]+\) exited without calling shmem_finalize; ending the job$"
    expect_within 5
    ;;
noinit)
    # A program that never calls shmem_init may exit 0, with a warning that it
    # may not be linked with Shoal (N separate one-PE runs otherwise look fine) ...
    osh -n "$NP" "$CHECK" noinit
    expect_rc 0
    expect_err "^oshrun: warning: $NP of $NP PEs exited without ever calling shmem_init; if .*boot_check is not an OpenSHMEM program linked with Shoal"
    expect_err_lines . 1
    osh -n "$NP" true
    expect_rc 0
    expect_err "^oshrun: warning: $NP of $NP PEs exited without ever calling shmem_init"
    osh -n "$NP" "$CHECK" ok
    expect_no_err
    # ... but not while the other PEs wait for it.
    if [ "$NP" -gt 1 ]; then
        osh -n "$NP" "$CHECK" noinit-one "$LAST"
        expect_rc 1
        expect_err "^oshrun: PE $LAST exited without calling shmem_init, but PE [0-9]+ waits for it in a setup barrier; ending the job$"
        expect_within 5
    fi
    ;;
timeout)
    osh -n "$NP" --timeout 2 "$CHECK" hang "$LAST"
    expect_rc 124
    expect_err "^oshrun: the job ran longer than --timeout 2 s; still running: PE $LAST \(running\)"
    if [ "$NP" -gt 1 ]; then
        expect_err "PE 0(-$((NP - 2)))? \(in a setup barrier\)"
    fi
    # 2 s, up to 2 s for answers to where each PE is (boot_check gives none), the end.
    expect_within 7
    # PEs that ignore SIGTERM get SIGKILL two seconds later.
    osh -n "$NP" --timeout=0.5 "$CHECK" hang-all ignore-term
    expect_rc 124
    expect_err "still running: PE 0(-$LAST)? \(running\)"
    [ "$ms" -ge 2000 ] || fail "PEs ignoring SIGTERM ended after $ms ms, before the 2 s grace"
    expect_within 8
    ;;
output)
    osh -n "$NP" --tag-output "$CHECK" echo 40
    expect_rc 0
    check_echo_lines 1 out 20 <"$T/out"
    check_echo_lines 1 err 20 <"$T/err"
    osh -n "$NP" "$CHECK" echo 40
    expect_rc 0
    check_echo_lines 0 out 20 <"$T/out"
    check_echo_lines 0 err 20 <"$T/err"
    for opt in -l --prefix; do
        osh -n "$NP" "$opt" "$CHECK" partial
        expect_out "^\[$LAST\] partial-$LAST$"
    done
    ;;
longline)
    # A line longer than oshrun's buffer comes out in pieces, each tagged, none mixed.
    osh -n "$NP" --tag-output "$CHECK" longline
    expect_rc 0
    awk -v np="$NP" '
        match($0, /^\[[0-9]+\] /) { r = substr($0, 2, RLENGTH - 3); body = substr($0, RLENGTH + 1)
            if (body ~ ("[^" (r % 10) "]")) { print "PE " r " piece has foreign bytes"; bad = 1 }
            total[r] += length(body); next }
        { print "untagged line"; bad = 1 }
        END { for (r = 0; r < np; r++) if (total[r] != 150000) { print "PE " r ": " total[r] + 0 " bytes"; bad = 1 }
              exit bad }' "$T/out" || fail "long lines damaged"
    ;;
partial)
    osh -n "$NP" --tag-output "$CHECK" partial
    expect_rc 0
    for ((r = 0; r < NP; r++)); do expect_out "^\[$r\] partial-$r$"; done
    if [ "$NP" -eq 1 ]; then
        osh -n 1 "$CHECK" partial
        [ "$(od -c "$T/out")" = "$(printf 'partial-0' | od -c)" ] || fail "untagged output not passed on as is"
    fi
    ;;
partial_end)
    # Every PE leaves a partial line (even PEs on stdout, odd ones on stderr); then
    # PE LAST dies. oshrun passes each on whole, on a line of its own, before the
    # verdict, and nothing after it. Into one file (2>&1), as on a terminal, then
    # tagged, then into separate files.
    mkdir "$T/said"
    for how in kill exit nofinalize abort; do
        case $how in
        kill) want=137 verdict="^oshrun: PE $LAST \(pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job$" ;;
        exit) want=3 verdict="^oshrun: PE $LAST \(pid [0-9]+\) exited with status 3; ending the job$" ;;
        nofinalize) want=1 verdict="^oshrun: PE $LAST \(pid [0-9]+\) exited without calling shmem_finalize; ending the job$" ;;
        abort) want=4 verdict="^oshrun: PE $LAST aborted \(exit status 4\); ending the job$" ;;
        esac
        rm -f "$T/said"/*
        run bash -c '"$@" 2>&1' - "$OSHRUN" -n "$NP" "$CHECK" partial-end "$how" "$LAST" "$T/said"
        expect_rc "$want"
        lines=()
        for ((r = 0; r < NP; r++)); do lines+=("partial-end-$r"); done
        [ "$how" = abort ] && lines+=("disk on fire")
        expect_before_verdict "$T/out" "$verdict" "${lines[@]}"
    done
    rm -f "$T/said"/*
    run bash -c '"$@" 2>&1' - "$OSHRUN" -n "$NP" --tag-output "$CHECK" partial-end kill "$LAST" "$T/said"
    expect_rc 137
    lines=()
    for ((r = 0; r < NP; r++)); do lines+=("[$r] partial-end-$r"); done
    expect_before_verdict "$T/out" "^oshrun: PE $LAST .*killed by signal 9" "${lines[@]}"
    rm -f "$T/said"/*
    osh -n "$NP" "$CHECK" partial-end kill "$LAST" "$T/said"
    expect_rc 137
    lines=()
    for ((r = 1; r < NP; r += 2)); do lines+=("partial-end-$r"); done
    expect_before_verdict "$T/err" "^oshrun: PE $LAST .*killed by signal 9" "${lines[@]}"
    for ((r = 0; r < NP; r += 2)); do grep -qxF "partial-end-$r" "$T/out" || fail "stdout lacks the line partial-end-$r"; done
    [ "$(tail -c 1 "$T/out" | od -An -c | tr -d ' ')" = '\n' ] || fail "stdout's last line was not ended"
    ;;
late)
    # PEs that end or hang before shmem_init are named, and only they: "odd", the
    # odd-numbered PEs (PE 0 alone at one PE); "rest", all but PE 0.
    odd=$(seq 1 2 "$LAST" | paste -sd, | sed 's/,/, /g')
    if [ "$LAST" -ge 3 ]; then rest="1-$LAST"; else rest=$(seq 1 "$LAST" | paste -sd, | sed 's/,/, /g'); fi
    if [ "$NP" -eq 1 ]; then odd=0 rest=0; fi
    named() { case $1 in *[,-]*) echo "PEs $1" ;; *) echo "PE $1" ;; esac; }
    last_odd=$((NP == 1 ? 0 : LAST - (1 - LAST % 2)))
    for how in kill exit; do
        rm -rf "$T/late" && mkdir "$T/late"
        osh -n "$NP" "$CHECK" late odd "$how" "$T/late"
        if [ "$how" = kill ]; then
            expect_rc 137
            expect_err "^oshrun: PE $last_odd \(pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job$"
        else
            expect_rc 3
            expect_err "^oshrun: PE $last_odd \(pid [0-9]+\) exited with status 3; ending the job$"
        fi
        expect_err "^oshrun: $(named "$odd") never connected to oshrun \(did the program call shmem_init\?\)$"
        expect_err_lines 'never connected' 1
        expect_within 10
    done
    # Stopped from outside (here SIGTERM), PEs still running are named too.
    rm -rf "$T/late" && mkdir "$T/late"
    CMD="$OSHRUN -n $NP $CHECK late rest hang $T/late"
    rm -f "$BOOT_CHECK_PIDDIR"/pe.*
    "$OSHRUN" -n "$NP" "$CHECK" late rest hang "$T/late" </dev/null >"$T/out" 2>"$T/err" &
    bg=$!
    limit=$(($(date +%s%3N) + $(scaled_ms 20)))
    until compgen -G "$T/late/hung.*" >/dev/null; do
        if ! kill -0 "$bg" 2>/dev/null || [ "$(date +%s%3N)" -gt "$limit" ]; then
            kill -KILL "$bg" 2>/dev/null
            wait "$bg"
            fail "the last late PE did not start to hang"
        fi
        sleep 0.02
    done
    signal_job TERM 143
    expect_err "^oshrun: got signal 15 \(Terminated\); ending the job$"
    expect_err "^oshrun: $(named "$rest") never connected to oshrun \(did the program call shmem_init\?\)$"
    ;;
stdin)
    printf 'alpha\nbeta\n' >"$T/in"
    STDIN=$T/in osh -n "$NP" --tag-output "$CHECK" stdin
    expect_rc 0
    expect_out '^\[0\] alpha$'
    expect_out '^\[0\] beta$'
    expect_out '^\[0\] stdin eof after 11 bytes$'
    for ((r = 1; r < NP; r++)); do expect_out "^\[$r\] stdin eof after 0 bytes$"; done
    STDIN=$T/in osh -n "$NP" --tag-output --stdin none "$CHECK" stdin
    expect_out '^\[0\] stdin eof after 0 bytes$'
    STDIN=$T/in osh -n "$NP" --tag-output --stdin "$LAST" "$CHECK" stdin
    expect_out "^\[$LAST\] stdin eof after 11 bytes$"
    # --stdin all: every PE reads the same bytes.
    STDIN=$T/in osh -n "$NP" --tag-output --stdin all "$CHECK" stdin
    expect_rc 0
    for ((r = 0; r < NP; r++)); do
        expect_out "^\[$r\] beta$"
        expect_out "^\[$r\] stdin eof after 11 bytes$"
    done
    head -c 300000 /dev/zero | BOOT_CHECK_QUIET=1 "$OSHRUN" -n "$NP" -l --stdin=all "$CHECK" stdin >"$T/out" 2>"$T/err"
    rc=$?
    expect_rc 0
    [ "$(grep -c 'stdin eof after 300000 bytes$' "$T/out")" -eq "$NP" ] || fail "--stdin all did not give every PE all 300000 bytes"
    # More than any pipe holds, through a pipe: oshrun must not block on it.
    head -c 3000000 /dev/zero | BOOT_CHECK_QUIET=1 "$OSHRUN" -n "$NP" -l "$CHECK" stdin >"$T/out" 2>"$T/err"
    rc=$?
    expect_rc 0
    expect_out '^\[0\] stdin eof after 3000000 bytes$'
    ;;
progress)
    # Partial lines ("\rprogress i/n") are passed on while the PE runs, not at its end:
    # every PE holds after its first piece until this test has seen all first pieces
    # and creates the file $T/go. Waiting for the output rather than for a time, the
    # check does not race with the PEs; only a launcher that holds pieces back runs
    # into the limit (20 s, scaled).
    for tag in "" --tag-output; do
        CMD="$OSHRUN -n $NP $tag $CHECK progress 4 $T/go"
        rm -f "$BOOT_CHECK_PIDDIR"/pe.* "$T/go"
        "$OSHRUN" -n "$NP" $tag "$CHECK" progress 4 "$T/go" </dev/null >"$T/out" 2>"$T/err" &
        bg=$!
        limit=$(($(date +%s%3N) + $(scaled_ms 20)))
        until [ "$(grep -ao "progress-[0-9]* 1/4" "$T/out" | sort -u | wc -l)" -eq "$NP" ]; do
            if ! kill -0 "$bg" 2>/dev/null || [ "$(date +%s%3N)" -gt "$limit" ]; then
                touch "$T/go"
                wait "$bg"
                fail "the first partial line of every PE did not come while the PEs ran"
            fi
            sleep 0.05
        done
        touch "$T/go"
        wait "$bg"
        rc=$?
        expect_rc 0
        if [ -n "$tag" ]; then
            # Every line is tagged and ends with the last progress piece of one PE.
            for ((r = 0; r < NP; r++)); do
                grep -aq "^\[$r\] .*progress-$r 4/4\$" "$T/out" || fail "PE $r's last piece is not on a tagged line"
            done
            ! grep -av '^\[[0-9]*\] ' "$T/out" | grep -q . || fail "untagged line"
        else
            [ "$(grep -ao "progress-0 [0-9]/4" "$T/out" | wc -l)" -eq 4 ] || fail "pieces lost"
        fi
    done
    ;;
binding)
    # Each PE gets CPUs of its own when the PEs fit the CPUs oshrun may use;
    # otherwise they are spread over the cores round robin (unless the mask is
    # one core). An inherited mask is respected.
    allowed=$(taskset -pc $$ | sed 's/.*: //')
    ncpu=$(nproc)
    osh -n "$NP" "$CHECK" where
    expect_rc 0
    if [ "$NP" -le "$ncpu" ]; then
        sets=$(sed -n 's/^where [0-9]* cpus=\([^ ]*\) .*/\1/p' "$T/out")
        [ "$(tr ',' '\n' <<<"$sets" | sort | uniq -d | wc -l)" -eq 0 ] || fail "PEs share CPUs: $sets"
        expect_out "binding=(core|hwthread) "
    elif [ "$(cores_of "$allowed")" -gt 1 ]; then
        [ "$(grep -c "binding=core:spread " "$T/out")" -eq "$NP" ] || fail "oversubscribed PEs were not spread over the cores"
        # Round robin: no CPU set has two PEs more than another.
        counts=$(sed -n 's/^where [0-9]* cpus=\([^ ]*\) .*/\1/p' "$T/out" | sort | uniq -c | awk '{print $1}' | sort -n)
        [ $(($(tail -1 <<<"$counts") - $(head -1 <<<"$counts"))) -le 1 ] || fail "PEs not spread evenly: $counts"
        # A job holding one of the CPUs leaves them to the kernel.
        rm -f "$BOOT_CHECK_PIDDIR"/pe.*
        "$OSHRUN" -n 1 --bind-to core "$CHECK" hang-all </dev/null >/dev/null 2>&1 &
        holder=$!
        for ((i = 0; i < 200; i++)); do [ -s "$BOOT_CHECK_PIDDIR/pe.0" ] && break; sleep 0.05; done
        osh -n "$NP" --report-bindings "$CHECK" where
        kill -TERM "$holder"
        wait "$holder"
        [ "$(grep -c "binding=none " "$T/out")" -eq "$NP" ] || fail "oversubscribed PEs were spread over a CPU another job holds"
        expect_err "not bound \(other oshrun jobs hold the CPUs they would get\)"
    fi
    osh -n "$NP" --bind-to hwthread "$CHECK" where
    expect_rc 0
    [ "$(grep -Ec "cpus=[0-9]+ " "$T/out")" -eq "$NP" ] || fail "--bind-to hwthread gave a PE more than one CPU"
    for how in "--bind-to none" "--bind-to=none"; do
        osh -n "$NP" $how "$CHECK" where
        [ "$(grep -c "binding=none " "$T/out")" -eq "$NP" ] || fail "$how bound the PEs"
    done
    SHOAL_BIND=none osh -n "$NP" "$CHECK" where
    [ "$(grep -c "binding=none " "$T/out")" -eq "$NP" ] || fail "SHOAL_BIND=none bound the PEs"
    SHOAL_BIND=none osh -n "$NP" --bind-to core "$CHECK" where
    expect_out "binding=core"
    # --report-bindings says what each PE got, and it is what the PE sees.
    osh -n "$NP" --report-bindings --bind-to hwthread "$CHECK" where
    expect_rc 0
    for ((r = 0; r < NP; r++)); do
        c=$(sed -n "s/^where $r cpus=\([^ ]*\) .*/\1/p" "$T/out")
        expect_err "^oshrun: PE $r bound to CPUs $c \(hwthread(, shared with other PEs)?\), NUMA [0-9,-]+(, NIC [^ ]+ \([A-Z-]+\))?$"
    done
    osh -n "$NP" --report-bindings --bind-to none "$CHECK" where
    expect_err "^oshrun: PEs 0-$LAST not bound \(--bind-to none\): each may run on CPUs [0-9]"
    SHOAL_BIND=bogus osh -n "$NP" "$CHECK" where
    expect_rc 2
    expect_err 'SHOAL_BIND="bogus" is not valid'
    osh -n "$NP" --bind-to socket --map-by socket "$CHECK" where
    expect_rc 0
    expect_out "binding=socket:shared"
    # Concurrent jobs take different CPUs: while one job holds a core, the next
    # gets another, and a job that needs them all gets one CPU per PE, the free
    # ones first and the held one last.
    if [ "$NP" -eq 1 ] && [ "$ncpu" -ge 2 ]; then
        # The last job's pid file would pass for the holder's before it writes its own.
        rm -f "$BOOT_CHECK_PIDDIR"/pe.*
        "$OSHRUN" -n 1 "$CHECK" hang-all </dev/null >/dev/null 2>&1 &
        holder=$!
        for ((i = 0; i < 200; i++)); do [ -s "$BOOT_CHECK_PIDDIR/pe.0" ] && break; sleep 0.05; done
        held=$(taskset -pc "$(cat "$BOOT_CHECK_PIDDIR/pe.0")" | sed 's/.*: //')
        osh -n 1 --report-bindings "$CHECK" where
        expect_rc 0
        expect_out "binding=core "
        ! grep -q "cpus=$held " "$T/out" || { kill -KILL "$holder"; fail "a second job was put on the held CPU $held"; }
        osh -n "$ncpu" --report-bindings "$CHECK" where
        kill -TERM "$holder"
        wait "$holder"
        expect_rc 0
        [ "$(grep -Ec "binding=(core|hwthread) " "$T/out")" -eq "$ncpu" ] || fail "a job that needs every CPU was not bound while CPU $held is held"
        sets=$(sed -n 's/^where [0-9]* cpus=\([^ ]*\) .*/\1/p' "$T/out")
        [ "$(sort <<<"$sets" | uniq -d | wc -l)" -eq 0 ] || fail "PEs share CPUs beside another job: $sets"
        ! grep -q "^where 0 cpus=$held " "$T/out" || fail "PE 0 was put on the held CPU $held while others were free"
        expect_err "^oshrun: PE 0 bound to CPUs [0-9,-]+ \((core|hwthread), free ones first, then ones another oshrun job holds\), NUMA [0-9,-]+(, NIC [^ ]+ \([A-Z-]+\))?$"
    fi
    # Under a mask of one CPU, every PE stays on it.
    last=$(tr ',' '\n' <<<"$allowed" | tail -1 | sed 's/.*-//')
    run taskset -c "$last" "$OSHRUN" -n "$NP" "$CHECK" where
    expect_rc 0
    [ "$(grep -c "cpus=$last " "$T/out")" -eq "$NP" ] || fail "a PE left the inherited mask $last"
    ;;
options)
    # -x, -wdir, --output-filename, --map-by, -N and the options accepted for
    # compatibility, each checked by what the PEs see.
    mkdir -p "$T/wd"
    FOO=outer osh -n "$NP" -x FOO=inner -x BAR=1 -x BAR=2 -x HOME "$CHECK" where FOO
    expect_rc 0
    [ "$(grep -c "var=inner$" "$T/out")" -eq "$NP" ] || fail "-x FOO=inner did not reach every PE"
    osh -n "$NP" -x BAR=1 -x BAR=2 "$CHECK" where BAR
    [ "$(grep -c "var=2$" "$T/out")" -eq "$NP" ] || fail "the last -x BAR did not win"
    osh -n "$NP" -wdir "$T/wd" "$CHECK" where
    [ "$(grep -c "cwd=$T/wd " "$T/out")" -eq "$NP" ] || fail "-wdir did not set the PEs' directory"
    osh -n "$NP" --wdir "$T/nonexistent" "$CHECK" where
    expect_rc 1
    expect_err "^oshrun: -wdir $T/nonexistent: No such file or directory"
    osh -n "$NP" --output-filename "$T/of" "$CHECK" echo 4
    expect_rc 0
    check_echo_lines 0 out 2 <"$T/out"
    w=${#NP}
    for ((r = 0; r < NP; r++)); do
        d=$T/of/1/rank.$(printf "%0${w}d" $r)
        [ -f "$d/stdout" ] && [ -f "$d/stderr" ] || fail "no $d/stdout and stderr"
        [ "$(grep -c "^out $r " "$d/stdout")" -eq 2 ] || fail "$d/stdout lacks PE $r's lines"
        [ "$(grep -c "^err $r " "$d/stderr")" -eq 2 ] || fail "$d/stderr lacks PE $r's lines"
        ! grep -qv "^out $r " "$d/stdout" || fail "$d/stdout has other PEs' lines"
    done
    for m in core slot node socket hwthread core:OVERSUBSCRIBE; do
        osh -n "$NP" --map-by "$m" "$CHECK" where
        expect_rc 0
        [ "$(grep -c "^where " "$T/out")" -eq "$NP" ] || fail "--map-by $m"
    done
    osh -n "$NP" --map-by ppr:2:node "$CHECK" where
    expect_rc 2
    expect_err "use mpirun"
    osh -N "$NP" "$CHECK" where
    expect_rc 0
    [ "$(grep -c "^where " "$T/out")" -eq "$NP" ] || fail "-N $NP alone did not start $NP PEs"
    osh --npernode "$NP" -n "$NP" --oversubscribe --allow-run-as-root --mca btl self,vader \
        -mca pml ob1 --host localhost:"$NP" "$CHECK" where
    expect_rc 0
    [ "$(grep -c "^where " "$T/out")" -eq "$NP" ] || fail "accepted options changed the job"
    ;;
handoff)
    # A job for other hosts goes to a PMIx launcher, with the same options ...
    mkdir -p "$T/bin"
    printf '#!/bin/sh\n[ "$1" = --version ] && { echo "mpirun (Open MPI) 9.9"; exit 0; }\nprintf "%%s\\n" "$@" >%s/args\nexit 7\n' "$T" >"$T/bin/mpirun"
    chmod +x "$T/bin/mpirun"
    PATH=$T/bin:$PATH osh -n 4 --host nodeA,nodeB:2 -x A=1 --mca btl self -l --bind-to core "$CHECK" ok 'x y'
    expect_rc 7
    expect_err "^oshrun: --host names nodeA, another machine; oshrun starts PEs on this machine only, so it hands the job to the PMIx launcher $T/bin/mpirun:$"
    [ "$(tr '\n' ' ' <"$T/args")" = "-n 4 --host nodeA,nodeB:2 -x A=1 --mca btl self --bind-to core --tag-output $CHECK ok x y " ] ||
        fail "mpirun got: $(tr '\n' ' ' <"$T/args")"
    printf 'localhost slots=2\nnodeC slots=2 # second\n' >"$T/hosts"
    PATH=$T/bin:$PATH osh -n 4 --hostfile "$T/hosts" "$CHECK" ok
    expect_rc 7
    expect_err "hostfile $T/hosts names nodeC"
    PATH=$T/bin:$PATH osh -n 4 -N 2 "$CHECK" ok
    expect_rc 7
    expect_err "^oshrun: -n 4 with -N 2 needs 2 nodes"
    # ... or, with none in PATH, oshrun says what to use instead.
    PATH=/nonexistent osh -n 2 -H nodeA "$CHECK" ok
    expect_rc 2
    expect_err "finds no PMIx launcher .*; run the job with mpirun or srun --mpi=pmix"
    # This machine's own names stay here.
    printf 'localhost\n%s slots=4\n' "$(hostname)" >"$T/hosts"
    osh -n 2 --hostfile "$T/hosts" -H "localhost,$(hostname):2" "$CHECK" ok
    expect_rc 0
    expect_no_err
    ;;
usage)
    osh
    expect_rc 2
    expect_err '^Usage: oshrun'
    for args in "-n 0 true" "-n x true" "-n" "-n 2" "--bogus -n 2 true" "--timeout abc -n 1 true" \
                "-n 2 --stdin 9 true" "--stdin foo -n 1 true" "true" "-n -3 true" \
                "-n 1 --bind-to board true" "-n 1 --map-by disk true" "-n 1 -x 1A true" \
                "-n 1 -x =v true" "-n 1 --mca btl" "-n 1 -wdir" "-N 0 true"; do
        # shellcheck disable=SC2086
        osh $args
        expect_rc 2
        expect_err '^oshrun: '
        expect_err "Run 'oshrun --help'"
    done
    osh true
    expect_err 'give the number of PEs with -n N'
    osh --bogus -n 2 true
    expect_err "unknown option '--bogus'"
    osh --help
    expect_rc 0
    for o in -n -np --np -l --tag-output --prefix --timeout --stdin --help --version -x -wdir \
             --output-filename --bind-to --map-by -N --npernode --host --hostfile --oversubscribe \
             --allow-run-as-root --mca --report-bindings SHOAL_BIND; do
        grep -q -- "$o" "$T/out" || fail "--help does not document $o"
    done
    osh -h
    expect_rc 0
    osh --version
    expect_rc 0
    expect_out '^oshrun \(Shoal\) [0-9]+\.[0-9]+'
    # Options end at the program: its own options are not oshrun's.
    osh -n 1 "$CHECK" noinit --timeout x -n 0
    expect_rc 0
    osh -n1 -- "$CHECK" noinit
    expect_rc 0
    ;;
notfound)
    osh -n "$NP" shoal-no-such-program-xyz
    expect_rc 127
    expect_err "^oshrun: cannot run 'shoal-no-such-program-xyz': not found in PATH"
    expect_err_lines . 1
    osh -n "$NP" "$T/missing"
    expect_rc 127
    expect_err "cannot run '$T/missing': no such file"
    printf '#!/bin/sh\n' >"$T/noexec"
    osh -n "$NP" "$T/noexec"
    expect_rc 127
    expect_err "is not executable"
    osh -n "$NP" "$T"
    expect_rc 127
    expect_err "is a directory"
    printf 'not a program' >"$T/garbage"
    chmod +x "$T/garbage"
    osh -n "$NP" "$T/garbage"
    expect_rc 127
    expect_err "cannot run '$T/garbage': Exec format error"
    expect_err_lines . 1
    ;;
sigterm)
    start_sleepers -n "$NP" "$CHECK" hang-all
    signal_job TERM 143
    expect_err "^oshrun: got signal 15 \(Terminated\); ending the job$"
    expect_within 4
    start_sleepers -n "$NP" "$CHECK" hang-all
    signal_job HUP 129
    expect_within 4
    # PEs that ignore SIGTERM are killed two seconds later.
    start_sleepers -n "$NP" "$CHECK" hang-all ignore-term
    signal_job TERM 143
    expect_within 6
    ;;
stopped)
    # A PE stopped from outside (kill -STOP) leaves the others waiting: oshrun says
    # which after 5 s, and again when it continues; the job itself goes on.
    start_sleepers -n "$NP" "$CHECK" hang-all
    pid=$(cat "$BOOT_CHECK_PIDDIR/pe.$LAST")
    kill -STOP "$pid"
    for ((i = 0; i < 200; i++)); do grep -q "stopped by signal" "$T/err" && break; sleep 0.05; done
    expect_err "^oshrun: PE $LAST \(pid $pid\) has been stopped by signal 19 \(Stopped \(signal\)\) for [5-9] s; the PEs that wait for it cannot go on: continue it \(kill -CONT $pid\), or end the job \(Ctrl-C\)$"
    kill -CONT "$pid"
    for ((i = 0; i < 100; i++)); do grep -q "continues" "$T/err" && break; sleep 0.05; done
    expect_err "^oshrun: PE $LAST \(pid $pid\) continues$"
    signal_job TERM 143
    ;;
sigint)
    # Job control, so that the background oshrun does not start with SIGINT ignored.
    set -m
    start_sleepers -n "$NP" "$CHECK" hang-all
    signal_job INT 130
    expect_within 4
    ;;
oshrun_killed)
    # PEs must not outlive an oshrun that is killed outright.
    start_sleepers -n "$NP" "$CHECK" hang-all
    kill -KILL "$bg"
    wait "$bg"
    for ((i = 0; i < 40; i++)); do
        alive=0
        for f in "$BOOT_CHECK_PIDDIR"/pe.*; do kill -0 "$(cat "$f")" 2>/dev/null && alive=1; done
        [ $alive -eq 0 ] && break
        sleep 0.05
    done
    no_leftovers
    ;;
mismatch)
    [ "$NP" -gt 1 ] || exit 0
    osh -n "$NP" "$CHECK" mismatch
    expect_rc 1
    # Whichever PE arrives second is named first.
    expect_err "^oshrun: PE ($LAST passed 16 bytes to a setup allgather but PE [0-9]+ passed 8|[0-9]+ passed 8 bytes to a setup allgather but PE $LAST passed 16); every PE must pass the same size; ending the job$"
    expect_within 5
    ;;
nested)
    # A program started by a PE inherits SHOAL_* but not the channel: it must fail clearly.
    osh -n "$NP" "$CHECK" nested
    expect_rc 0
    expect_err "SHOAL_BOOT_FD=[0-9]+ is not an open oshrun channel"
    ;;
bench)
    osh -n "$NP" "$CHECK" bench 2000
    expect_rc 0
    cat "$T/out"
    us=$(sed -n 's/^barrier round trip through oshrun: \([0-9.]*\) us.*/\1/p' "$T/out")
    [ -n "$us" ] || fail "no timing printed"
    awk -v us="$us" 'BEGIN { exit !(us < 5000) }' || fail "barrier round trip $us us"
    ;;
single)
    # Started alone, a program is one PE; started by a launcher Shoal cannot use, it refuses.
    run "$CHECK" single
    expect_rc 0
    run "$CHECK" single 4 "bye now"
    expect_rc 4
    expect_err '^bye now$'
    OMPI_COMM_WORLD_SIZE=1 run "$CHECK" single
    expect_rc 0
    for v in OMPI_COMM_WORLD_SIZE=4 PMI_SIZE=2 SLURM_NTASKS=3; do
        env "$v" "$CHECK" ok >"$T/out" 2>"$T/err"
        rc=$?
        CMD="env $v $CHECK ok"
        expect_rc 1
        expect_err "^shoal: this program was started by .*\(${v}\), which Shoal cannot bootstrap from in this build; launch it with \`oshrun -n N prog\` instead$"
    done
    PMIX_RANK=0 run "$CHECK" ok
    expect_rc 1
    expect_err '^shoal: PMIX_RANK=0 is set but PMIX_NAMESPACE is not set'
    SHOAL_BOOT_FD=abc run "$CHECK" ok
    expect_rc 1
    expect_err '^shoal: SHOAL_BOOT_FD="abc" is not valid'
    SHOAL_BOOT_FD=57 SHOAL_RANK=0 SHOAL_SIZE=2 run "$CHECK" ok
    expect_rc 1
    expect_err '^shoal: PE 0: SHOAL_BOOT_FD=57 is not an open oshrun channel'
    SHOAL_BOOT_FD=0 SHOAL_RANK=5 SHOAL_SIZE=2 run "$CHECK" ok
    expect_rc 1
    expect_err 'do not describe a PE of a job'
    run "$CHECK" lost-contact
    expect_rc 1
    expect_err '^shoal: PE 0: lost contact with oshrun'
    ;;
info)
    # CHECK is api_check. SHMEM_VERSION and SHMEM_INFO name what is in use; SHMEM_INFO
    # adds each PE's CPUs; a misspelt variable gets a warning naming the right one.
    SHMEM_VERSION=1 osh -n "$NP" "$CHECK" ok
    expect_rc 0
    expect_out "^Shoal [0-9.]+, OpenSHMEM 1\.[0-9]+, $NP PEs on 1 node; bootstrap: oshrun; transport: shm"
    [ "$(grep -c '^Shoal ' "$T/out")" -eq 1 ] || fail "more than PE 0 printed the version"
    SHMEM_INFO=1 osh -n "$NP" "$CHECK" ok
    expect_rc 0
    for ((r = 0; r < NP; r++)); do
        expect_out "^PE $r on [^ ]+: CPUs [0-9][-0-9,]* \((bound by oshrun to (its own (core|hwthread)|a core shared with other PEs(, until a task outside the job holds it)?)|not bound by oshrun: --bind-to none, other oshrun jobs hold CPUs it would get, or one core for all)\)$"
    done
    expect_out '^  SHOAL_BIND +auto'
    SHMEM_INFO=1 osh -n "$NP" --bind-to none "$CHECK" ok
    [ "$(grep -c 'not bound by oshrun' "$T/out")" -eq "$NP" ] || fail "--bind-to none not reported"
    SHMEM_DEBG=1 SHOAL_SPINCOUNT=5 SHOAL_TEST_ANYTHING=1 SHOAL_CC=cc osh -n "$NP" "$CHECK" ok
    expect_rc 0
    expect_err "^shoal: warning: SHMEM_DEBG is not a variable Shoal reads; did you mean SHMEM_DEBUG\?"
    expect_err "^shoal: warning: SHOAL_SPINCOUNT is not a variable Shoal reads; did you mean SHOAL_SPIN_COUNT\?"
    expect_err_lines . 2
    if [ "$NP" -gt 1 ] && [ -n "${SHOAL_TEST_HAVE_OFI:-}" ]; then
        SHMEM_VERSION=1 SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER='tcp;ofi_rxm' osh -n "$NP" "$CHECK" ok
        expect_rc 0
        expect_out "on $NP nodes; bootstrap: oshrun; transport: shm within a node, ofi \(provider tcp;ofi_rxm\) between nodes"
    fi
    run "$CHECK" ok
    expect_no_err
    SHMEM_INFO=1 run "$CHECK" ok
    expect_out "^PE 0 on [^ ]+: CPUs [0-9][-0-9,]* \(as the shell left it\)$"
    ;;
crowd)
    # CHECK is api_check. PEs that outnumber the CPUs are spread over the cores; a
    # task outside the job on their CPU (here a busy loop on every CPU) makes each
    # leave its core for the job's CPUs, while --bind-to core stays where it is told.
    allowed=$(taskset -pc $$ | sed 's/.*: //')
    ncpu=$(nproc)
    if [ "$NP" -le "$ncpu" ] || [ "$(cores_of "$allowed")" -lt 2 ]; then
        osh -n "$NP" "$CHECK" crowd 10
        expect_rc 0
        exit 0
    fi
    hogs=()
    for ((c = 0; c < ncpu; c++)); do
        timeout 50 sh -c 'while :; do :; done' &
        hogs+=($!)
    done
    osh -n "$NP" "$CHECK" crowd 2000
    rc_auto=$rc out_auto=$(cat "$T/out")
    osh -n "$NP" --bind-to core "$CHECK" crowd 2000
    kill "${hogs[@]}"
    wait "${hogs[@]}" 2>/dev/null
    expect_rc 0
    ! grep -q "after=$ncpu " "$T/out" || fail "a PE bound by --bind-to core left its core"
    rc=$rc_auto
    expect_rc 0
    echo "$out_auto" >"$T/out"
    [ "$(grep -c "binding=core:spread$" "$T/out")" -eq "$NP" ] || fail "PEs were not spread"
    [ "$(grep -Ec "^crowd [0-9]+ before=[0-9]+ after=$ncpu " "$T/out")" -eq "$NP" ] ||
        fail "spread PEs beside busy tasks did not widen to the job's $ncpu CPUs"
    ;;
api)
    # CHECK is api_check here: the same paths through shmem_init and friends.
    osh -n "$NP" "$CHECK" ok
    expect_rc 0
    expect_no_err
    [ "$(grep -c '^PE [0-9]* of '"$NP"' done$' "$T/out")" -eq "$NP" ] || fail "not every PE finished"
    for r in 0 "$LAST"; do
        osh -n "$NP" "$CHECK" global_exit 5 "$r"
        expect_rc 5
        expect_err "^oshrun: PE $r called shmem_global_exit\(5\); ending the job$"
        expect_within 5
    done
    osh -n "$NP" "$CHECK" nofinalize "$LAST"
    expect_rc 1
    expect_err "^oshrun: PE $LAST \(pid [0-9]+\) exited without calling shmem_finalize; ending the job$"
    expect_within 5
    run "$CHECK" ok
    expect_rc 0
    expect_out '^PE 0 of 1 done$'
    OMPI_COMM_WORLD_SIZE=4 run "$CHECK" ok
    expect_rc 1
    expect_err "started by Open MPI's mpirun \(OMPI_COMM_WORLD_SIZE=4\)"
    ;;
*)
    fail "unknown scenario"
    ;;
esac
exit 0
