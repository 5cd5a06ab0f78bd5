/* A test on the ring of all PEs: this PE, the PE count, and its neighbours right =
 * me + 1 and left = me - 1, modulo npes (at 1 PE both are this PE). */
#ifndef SHOAL_TEST_RING_H
#define SHOAL_TEST_RING_H

#include <shmem.h>

static int me, npes, right, left;

/* Starts Shoal (shmem_init) and sets the four. */
static inline void ring_init(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
}

#endif
