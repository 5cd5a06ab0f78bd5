/* The teams every collective test runs on: SHMEM_TEAM_WORLD, then the odd PEs
 * (split_strided(WORLD, 1, 2, n/2)). A PE outside the odd team holds
 * SHMEM_TEAM_INVALID, and a collective called with it must fail, not hang. */
#ifndef SHOAL_TEST_COLL_TEAMS_H
#define SHOAL_TEST_COLL_TEAMS_H

#include "check.h"

static inline void coll_on_teams(void (*test)(shmem_team_t team, const char *name),
                                 int (*call_with)(shmem_team_t team))
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    test(SHMEM_TEAM_WORLD, "world");
    if (npes < 2)
        return;
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    CHECK((odd != SHMEM_TEAM_INVALID) == (me % 2 == 1 && me / 2 < npes / 2));
    if (odd != SHMEM_TEAM_INVALID)
        test(odd, "odd-PE");
    else
        CHECK(call_with(odd) != 0);
    shmem_team_destroy(odd);
}

#endif
