/* The slow part of waiting: once spinning has not paid off, give the core away.
 * CI runs 8 PEs on 2 cores; a PE that keeps spinning there delays the very PE
 * it waits for. sched_yield alone is weak under EEVDF, so long waits also sleep,
 * growing to SHOAL_YIELD_SLEEP_US. */
#include <sched.h>
#include <time.h>

#include "core/backoff.h"
#include "core/state.h"

void shoal_backoff_slow(struct shoal_backoff *b, unsigned spins)
{
    unsigned over = b->polls - spins;
    if (over < 64 || shoal.cfg.yield_sleep_us <= 0) {
        sched_yield();
        return;
    }
    long us = (long)(over - 64) / 16 + 1;
    if (us > shoal.cfg.yield_sleep_us)
        us = shoal.cfg.yield_sleep_us;
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}
