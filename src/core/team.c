/* The predefined teams and context, and the errors of a bad team or PE argument. */
#include "base/error.h"
#include "base/state.h"
#include "core/team.h"
#include "transport/transport.h"

struct shoal_team_slot *shoal_team_pool;
struct shoal_team shoal_team_world = { .my_pe = -1 };
struct shoal_team shoal_team_shared = { .my_pe = -1 };
struct shoal_team shoal_ctx_dead_team = { .my_pe = -1 };
struct shoal_ctx shoal_ctx_default = { .team = &shoal_team_world };

int shoal_team_index(const struct shoal_team *team, int world_pe)
{
    if (!team->pes)
        return shoal_strided_index(team->start, team->stride, team->size, world_pe);
    int lo = 0, hi = team->size; /* binary search of the members by world PE */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (team->pes[team->by_world[mid]] < world_pe)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < team->size && team->pes[team->by_world[lo]] == world_pe ? team->by_world[lo]
                                                                        : -1;
}

void shoal_team_gone(const char *routine)
{
    shoal_fatal(routine, "the team was destroyed (shmem_team_destroy); create a new one");
}

void shoal_bad_pe(const char *routine, int pe, const struct shoal_team *team)
{
    shoal_require_init(routine);
    if (team == &shoal_ctx_dead_team)
        shoal_fatal(routine,
                    "the context was destroyed (shmem_ctx_destroy, or "
                    "shmem_team_destroy of its team); create a new one");
    if (team == &shoal_team_world)
        shoal_fatal(routine, "PE %d is out of range: valid PEs are 0..%d", pe,
                    team->size - 1);
    shoal_fatal(routine, "PE %d is out of range for the context's team: valid PEs are 0..%d",
                pe, team->size - 1);
}
