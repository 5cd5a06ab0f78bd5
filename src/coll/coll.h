/* What the collectives layer offers the API layer besides the public collectives. */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H

#include <stddef.h>

struct shoal_team;

/* Symmetric, SHOAL_SET_BOX_BYTES after the team pool (api/init.c): where strided
 * active-set alltoalls pack blocks for the network (coll/alltoall.c). */
extern unsigned char *shoal_set_box;
#define SHOAL_SET_BOX_BYTES ((size_t)64 * 1024)

/* Synchronizes the members of team and completes the default context's operations;
 * the caller is a member. */
void shoal_team_barrier(struct shoal_team *team);
void shoal_barrier_world(void);

#endif
