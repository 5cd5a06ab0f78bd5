/* Waiting for peers: each poll drives the network, whose peers' operations on this
 * PE may need this PE's help to land (providers with manual progress), then backs
 * off (core/backoff.h). Nothing to drive on one node. */
#ifndef SHOAL_PROGRESS_H
#define SHOAL_PROGRESS_H

#include "core/backoff.h"
#include "core/state.h"
#include "transport/transport.h"

static inline void shoal_progress(void)
{
    if (SHOAL_UNLIKELY(shoal.multi_node))
        shoal.net->progress();
}

static inline void shoal_backoff(struct shoal_backoff *b)
{
    unsigned spins = (unsigned)shoal.cfg.spin_count;
    if (SHOAL_UNLIKELY(shoal.multi_node)) {
        shoal.net->progress();
        /* A poll that drives the network costs system calls, and the peers it waits
         * for need this core to progress too: give it up far sooner. */
        spins >>= 6;
    }
    shoal_backoff_spin(b, spins);
}

#endif
