/* Waiting for peers: each poll drives the network, whose peers' operations on this
 * PE may need this PE's help to land (providers with manual progress), then backs
 * off (base/backoff.h). Nothing to drive on one node. */
#ifndef SHOAL_PROGRESS_H
#define SHOAL_PROGRESS_H

#include "base/backoff.h"
#include "base/state.h"
#include "transport/transport.h"

static inline void shoal_progress(void)
{
    if (SHOAL_UNLIKELY(shoal.multi_node))
        shoal_tp_progress();
}

/* spin_polls already counts the cost of driving the network (backoff.c). */
static inline void shoal_backoff(struct shoal_backoff *b)
{
    shoal_progress();
    shoal_backoff_spin(b, shoal_wait.spin_polls, shoal_net_nap());
}

#endif
