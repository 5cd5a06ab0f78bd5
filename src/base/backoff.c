/* The slow part of waiting, and how long a wait spins.
 *
 * A wait spins with a pause between polls, driving the network on every poll
 * when the job spans nodes, then yields the core, then sleeps, growing to
 * SHOAL_YIELD_SLEEP_US (across nodes, a sleep that network traffic for this PE
 * ends: the network transport's nap); on a core of its own it goes on spinning,
 * yielding every 1024 polls. A PE with a core of its own spins long (OWN_CORE_*: a
 * few hundred microseconds), so that a peer's answer finds it polling and a
 * target keeps driving the provider. Where PEs outnumber cores (CI runs 8 PEs on
 * 2) it does not spin at all: the PE it waits for is most likely waiting for a
 * core, quite possibly this one, so the first poll that finds nothing yields it
 * (8 PEs on 2 cores, pinned: barrier 100 -> 25 us against 200 pause-polls first,
 * which held the core ~10 us per turn). Long waits then sleep: a PE that has
 * slept is favoured by the scheduler when it wakes, where one that spun has used
 * its share, and sched_yield alone is weak under EEVDF. Where the job's PEs fit
 * their cores but the host was busy at start-up (other jobs), the peer is most
 * likely on a CPU of its own: a short spin first (2 PEs at load 30: barrier
 * 0.1-1.7 us, against 1.5-4.5 us yielding at once).
 * SHOAL_SPIN_COUNT set to 0 or more replaces the count.
 *
 * A yield is only a quick hand-over while the tasks beside this PE on its CPU
 * are the job's own waiting PEs, which yield too. A yield forfeits the rest of
 * the yielder's slice in the scheduler's virtual time (seen on 6.18: a crowded
 * PE's vruntime grew 200 times faster than its CPU time), so beside any task
 * that does not yield (another job, a build, a spinning PE of another job) the
 * yielder falls behind and that task keeps the CPU for a whole slice, 2-5 ms
 * at HZ=250, on every step of a collective that needs a PE on that CPU. PEs the
 * kernel places move away from such a task; pinned ones cannot (stress_sync, 4
 * PEs pinned 2 per CPU beside a busy loop on CPU 0: 10.7 s against 0.03-0.6 s
 * unbound). A sleeping task forfeits nothing and preempts the busy one when it
 * wakes, so once a yield has kept this PE off its CPU for longer than any turn
 * of its own peers (YIELD_SLOW_NS), its waits sleep briefly instead of yielding,
 * and a yield now and then (1 ms later, then twice as long each time it is still
 * slow, up to 64 ms) finds out whether that task has gone (same run: 0.2-0.5 s
 * pinned). A shorter timer slack than the default 50 us makes it far
 * worse (5 us: 8 s), so the sleep is the plainest one. Same-node waits only:
 * see shoal_backoff_slow.
 * A wait for one of the library's own words (collectives, same node) sleeps on a
 * futex on that word instead, and the writer on this node that stores to it wakes
 * the sleeper when the target's count of sleepers is nonzero: the woken PE preempts
 * the busy task at once rather than at its timer (2 PEs beside the mixed load of
 * bench/load/load.sh: barrier 78.7 -> 20.5 us, 8-byte reduce 22 -> 7.6, medians of
 * 10 rounds). */
#include <linux/futex.h>
#include <limits.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/backoff.h"
#include "base/state.h"
#include "env/log.h"

struct shoal_wait_policy shoal_wait;

#define OWN_CORE_SPINS 8192u    /* pause ~40 ns on recent x86 */
#define OWN_CORE_NET_SPINS 512u /* each poll drives the provider: ~1 us */
#define BUSY_HOST_SPINS 200u
#define SHARED_SPINS 0u
#define YIELD_SLOW_NS 200000LL   /* 8 PEs on 2 CPUs hand over in < 50 us */
#define PROBE_FIRST_NS 1000000LL /* a busy task seen once may be gone soon */
#define PROBE_LAST_NS 64000000LL /* a probe beside one that stays costs a slice */

/* Until when this PE's waits sleep instead of yielding (CLOCK_MONOTONIC, ns), and
 * the interval to the next probe: doubling on each slow yield, halving on each
 * quick one. Any thread's finding serves all of the PE's threads. */
static long long sleep_until_ns, probe_ns;

/* Where a crowded PE pinned by oshrun goes once a task outside the job shows up
 * on its CPU: the kernel then moves it away from that task, which a pinned PE
 * cannot escape. Once per PE, by the first thread that sees it. */
static cpu_set_t unpin_cpus;
static int unpin_pending;

void shoal_backoff_unpin_to(const cpu_set_t *cpus)
{
    unpin_cpus = *cpus;
    unpin_pending = 1;
}

uint64_t *shoal_sleepers;

/* Futexes on the low half of a 64-bit word (little-endian: its address), not
 * private: the word is in memory that the same-node peers map too. */
void shoal_backoff_wake_slow(const uint64_t *word)
{
    syscall(SYS_futex, (const uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Sleeps up to us microseconds, or until a writer stores to b's word. The count goes
 * up before the word is read again, so a writer that stored after that read finds
 * the futex's value changed or the count raised. */
static void sleep_on_word(const struct shoal_backoff *b, long us)
{
    __atomic_add_fetch(shoal_sleepers, 1, __ATOMIC_SEQ_CST);
    uint64_t cur = __atomic_load_n(b->word, __ATOMIC_SEQ_CST);
    if (b->until ? cur < b->until : cur == 0) {
        struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
        syscall(SYS_futex, (const uint32_t *)b->word, FUTEX_WAIT, (uint32_t)cur, &ts, NULL,
                0);
    }
    __atomic_sub_fetch(shoal_sleepers, 1, __ATOMIC_RELEASE);
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void nap_or_sleep(const struct shoal_backoff *b, long us, shoal_nap_fn *nap)
{
    if (nap && b->local && b->word && shoal_sleepers && shoal_wait.net_served) {
        /* Across nodes, a word only same-node writers store to, while the network
         * transport's thread serves the peers. */
        sleep_on_word(b, shoal_backoff_woken_us(us));
        return;
    }
    if (nap) {
        nap(us);
        return;
    }
    if (b->word && shoal_sleepers) {
        sleep_on_word(b, us);
        return;
    }
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* Gives the CPU away for a moment: a yield while yields hand it to the job's own
 * PEs, a short sleep for a while after one handed it to something else. */
static void give_way(const struct shoal_backoff *b)
{
    long long t0 = now_ns();
    if (t0 < __atomic_load_n(&sleep_until_ns, __ATOMIC_RELAXED)) {
        nap_or_sleep(b, 1, NULL);
        return;
    }
    sched_yield();
    long long t1 = now_ns(), probe = __atomic_load_n(&probe_ns, __ATOMIC_RELAXED);
    if (t1 - t0 > YIELD_SLOW_NS) {
        probe = probe < PROBE_FIRST_NS ? PROBE_FIRST_NS : probe * 2;
        if (probe > PROBE_LAST_NS)
            probe = PROBE_LAST_NS;
        __atomic_store_n(&probe_ns, probe, __ATOMIC_RELAXED);
        __atomic_store_n(&sleep_until_ns, t1 + probe, __ATOMIC_RELAXED);
        SHOAL_LOG(COLL, DEBUG,
                  "a yield took %lld us (the CPU went to a task outside the job): waits "
                  "sleep for %lld ms",
                  (t1 - t0) / 1000, probe / 1000000);
        if (__atomic_exchange_n(&unpin_pending, 0, __ATOMIC_RELAXED))
            sched_setaffinity(0, sizeof unpin_cpus, &unpin_cpus);
    } else if (probe) {
        /* One quick yield after sleeping proves little: the sleeps left this PE
         * ahead in virtual time, so it may keep its CPU once even beside a busy
         * task. The interval shrinks instead, and is gone after a few. */
        __atomic_store_n(&probe_ns, probe / 2 < PROBE_FIRST_NS ? 0 : probe / 2,
                         __ATOMIC_RELAXED);
    }
}

void shoal_backoff_setup(void)
{
    if (shoal.cfg.spin_count >= 0)
        shoal_wait.spin_polls = (unsigned)shoal.cfg.spin_count;
    else if (shoal_wait.own_core)
        shoal_wait.spin_polls = shoal.multi_node ? OWN_CORE_NET_SPINS : OWN_CORE_SPINS;
    else if (shoal_wait.host_busy)
        shoal_wait.spin_polls = BUSY_HOST_SPINS;
    else
        shoal_wait.spin_polls = SHARED_SPINS;
    /* Shared cores: a poll that drives the network costs system calls, and the
     * peers it waits for need this core to progress too: give it up far sooner. */
    if (shoal.multi_node && !shoal_wait.own_core)
        shoal_wait.spin_polls >>= 6;
}

void shoal_backoff_slow(struct shoal_backoff *b, unsigned spins, shoal_nap_fn *nap)
{
    unsigned over = b->polls - spins;
    /* A core of its own (automatic spin count): never sleep, as documented for
     * SHOAL_SPIN_COUNT. Over the network each poll drives the provider, so peers'
     * gets and AMOs on this PE are served at once rather than after a sleep or
     * a wake-up of the progress thread; the core would idle otherwise. A yield
     * now and then lets anything else that needs the core run. Not when the
     * provider's own thread needs the core to move the data (2-3 times slower
     * round trips over sockets). */
    if (shoal_wait.own_core && shoal.cfg.spin_count < 0 && !shoal_wait.net_self_progress) {
        if (over % 1024 == 0)
            sched_yield();
        else
            shoal_cpu_relax();
        return;
    }
    if (shoal.cfg.yield_sleep_us <= 0) {
        sched_yield();
        return;
    }
    /* Across nodes every peer's turn drives the provider, so a yield among the
     * job's own PEs alone can take longer than YIELD_SLOW_NS (16 PEs on 2 CPUs
     * over tcp;ofi_rxm: stress_sync 9 s yielding, 19 s sleeping): yield. */
    if (over < 64) {
        if (nap)
            sched_yield();
        else
            give_way(b);
        return;
    }
    long us = (long)(over - 64) / 16 + 1;
    if (us > shoal.cfg.yield_sleep_us)
        us = shoal.cfg.yield_sleep_us;
    /* Across nodes, woken early by traffic: the message waited for, or a peer's
     * operation this PE must serve (providers with manual progress). */
    nap_or_sleep(b, us, nap);
}
