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
 * SHOAL_SPIN_COUNT set to 0 or more replaces the count. */
#include <sched.h>
#include <time.h>

#include "core/backoff.h"
#include "core/state.h"

#define OWN_CORE_SPINS 8192u    /* pause ~40 ns on recent x86 */
#define OWN_CORE_NET_SPINS 512u /* each poll drives the provider: ~1 us */
#define BUSY_HOST_SPINS 200u
#define SHARED_SPINS 0u

void shoal_backoff_setup(void)
{
    if (shoal.cfg.spin_count >= 0)
        shoal.spin_polls = (unsigned)shoal.cfg.spin_count;
    else if (shoal.own_core)
        shoal.spin_polls = shoal.multi_node ? OWN_CORE_NET_SPINS : OWN_CORE_SPINS;
    else if (shoal.host_busy)
        shoal.spin_polls = BUSY_HOST_SPINS;
    else
        shoal.spin_polls = SHARED_SPINS;
    /* Shared cores: a poll that drives the network costs system calls, and the
     * peers it waits for need this core to progress too: give it up far sooner. */
    if (shoal.multi_node && !shoal.own_core)
        shoal.spin_polls >>= 6;
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
    if (shoal.own_core && shoal.cfg.spin_count < 0 && !shoal.net_self_progress) {
        if (over % 1024 == 0)
            sched_yield();
        else
            shoal_cpu_relax();
        return;
    }
    if (over < 64 || shoal.cfg.yield_sleep_us <= 0) {
        sched_yield();
        return;
    }
    long us = (long)(over - 64) / 16 + 1;
    if (us > shoal.cfg.yield_sleep_us)
        us = shoal.cfg.yield_sleep_us;
    /* Across nodes, woken early by traffic: the message waited for, or a peer's
     * operation this PE must serve (providers with manual progress). */
    if (nap) {
        nap(us);
        return;
    }
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}
