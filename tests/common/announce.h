/* The end of a round of puts on the default context, told through another one:
 * shmem_quiet, then flag[me] = r + 1 at every other PE over side (a private context:
 * an endpoint, so connections, of its own that nothing orders with the default
 * context's), quiet on side; then, for each other PE src in turn (me - 1, me - 2, ...),
 * wait until flag[src] here has reached r + 1 and at once call check(src, r, arg),
 * which must find all of src's puts of round r: quiet alone made them so, and no
 * further wait gives late data time to land. flag is symmetric, one word per PE. */
#ifndef SHOAL_TEST_ANNOUNCE_H
#define SHOAL_TEST_ANNOUNCE_H

#include <shmem.h>

static inline void announce_round(shmem_ctx_t side, long *flag, int r,
                                  void (*check)(int src, int r, void *arg), void *arg)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_quiet();
    for (int d = 1; d < npes; d++)
        shmem_ctx_long_p(side, &flag[me], r + 1, (me + d) % npes);
    shmem_ctx_quiet(side);
    for (int d = 1; d < npes; d++) {
        int src = (me + npes - d) % npes;
        shmem_long_wait_until(&flag[src], SHMEM_CMP_GE, r + 1);
        check(src, r, arg);
    }
}

#endif
