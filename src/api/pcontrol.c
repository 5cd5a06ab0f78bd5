/* shmem_pcontrol: the profiling interface's control knob (OpenSHMEM 1.5).
 * Levels: <= 0 profiling off, 1 on at the default detail (the state at start-up),
 * 2 on and buffers flushed, > 2 defined by the tool, which may read extra arguments.
 * Shoal collects no profile of its own, so it only records the level; a tool that
 * interposes shmem_pcontrol acts on it and forwards here through pshmem_pcontrol.
 * Any thread may call it at any time, even outside shmem_init/shmem_finalize. */
#include "api/api.h"

static _Atomic int profiling_level = 1;

void shmem_pcontrol(int level, ...)
{
    /* Extra arguments belong to levels > 2 and so to the tool; none are read here. */
    profiling_level = level;
}
SHOAL_PROFILED(shmem_pcontrol)
