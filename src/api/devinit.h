/* Device-initiated communication (devinit.c). */
#ifndef SHOAL_API_DEVINIT_H
#define SHOAL_API_DEVINIT_H

/* At the last shmem_finalize, before its barrier, once every kernel has ended: the
 * proxy thread completes what the ring holds and stops; the state is freed. */
void shoal_devinit_fini(void);

#endif
