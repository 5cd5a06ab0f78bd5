/* shmem_pcontrol: the profiling interface's control knob (OpenSHMEM 1.5).
 * Levels: <= 0 profiling off, 1 on at the default detail (the state at start-up),
 * 2 on and buffers flushed, > 2 defined by the tool, which may read extra arguments.
 * Shoal collects no profile of its own, so the call has no effect here, as the
 * specification allows for a library without profiling; a tool that interposes
 * shmem_pcontrol acts on the level itself (it may forward here through
 * pshmem_pcontrol, which does nothing). Any thread may call it at any time, even
 * outside shmem_init/shmem_finalize. */
#include "api/api.h"

void shmem_pcontrol(int level, ...)
{
    /* Extra arguments belong to levels > 2 and so to the tool; none are read here. */
    (void)level;
}
SHOAL_PROFILED(shmem_pcontrol)
