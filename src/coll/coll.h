/* What the collectives layer offers the API layer besides the public collectives. */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H

struct shoal_team;

/* Synchronizes the members of team and completes the default context's operations;
 * the caller is a member. */
void shoal_team_barrier(struct shoal_team *team);
void shoal_barrier_world(void);

#endif
