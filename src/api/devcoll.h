/* The emu launcher's blocks, for the block forms of collectives from device code
 * (devcoll.c; shoal/device_coll.h). */
#ifndef SHOAL_API_DEVCOLL_H
#define SHOAL_API_DEVCOLL_H

/* One launch's threads: made before they start, freed after they are joined. */
struct shoal_devcoll_block;
struct shoal_devcoll_block *shoal_devcoll_block_new(const char *fn, int nthreads);
void shoal_devcoll_block_free(struct shoal_devcoll_block *b);
/* Called by kernel thread i of block b before it runs the kernel. */
void shoal_devcoll_lane(struct shoal_devcoll_block *b, int i);

#endif
