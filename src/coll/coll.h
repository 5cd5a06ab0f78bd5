/* What the collectives layer offers the API layer besides the public collectives. */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H

#include <stddef.h>
#include <stdint.h>

struct shoal_team;

/* Symmetric, SHOAL_SET_BOX_BYTES after the team pool (api/init.c): where strided
 * active-set alltoalls pack blocks for the network (coll/alltoall.c). */
extern unsigned char *shoal_set_box;
#define SHOAL_SET_BOX_BYTES ((size_t)64 * 1024)

/* Symmetric, one entry per world PE after the set box (api/init.c): entry p holds what
 * PE p last told this PE in a variable-size all-to-all (coll/alltoallv.c). Each word
 * has p as its only writer and this PE resets it, so the two alternate. */
struct shoal_a2av_box {
    uint64_t lim;   /* payload: a receiver's limit, or a sender's granted length */
    uint64_t req;   /* 1 + where a receiver takes the block (push), or 1 + a sender's size */
    uint64_t grant; /* packed: 1 + where the receiver lays the sender's block */
    uint64_t done;  /* 1 + the length of the block that has landed */
};
extern struct shoal_a2av_box *shoal_a2av_box;

/* Synchronizes the members of team and completes the default context's operations;
 * the caller is a member. */
void shoal_team_barrier(struct shoal_team *team);
void shoal_barrier_world(void);

#endif
