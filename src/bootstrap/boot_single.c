/* A process started alone is a job of one PE: collectives have nobody to wait for. */
#include "bootstrap.h"
#include "env.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int single_init(struct shoal_boot_info *info)
{
    *info = (struct shoal_boot_info){ .rank = 0, .size = 1 };
    return 0;
}

static int single_barrier(void)
{
    return 0;
}

static int single_allgather(const void *in, void *out, size_t len)
{
    memmove(out, in, len);
    return 0;
}

static void single_finalize(void) {}

/* Nobody else to tell, and nobody who could leave. */
static void single_publish_last_sync(uint64_t syncs)
{
    (void)syncs;
}

static int single_first_left(uint64_t *syncs)
{
    (void)syncs;
    return -1;
}

static __attribute__((noreturn)) void single_abort(int status, const char *msg)
{
    /* shmem_global_exit is an exit: output the program already wrote must not be lost. */
    fflush(NULL);
    if (msg && *msg)
        fprintf(shoal_error_stream(), "%s\n", msg);
    _exit(status);
}

const struct shoal_boot_ops shoal_boot_single = {
    .name = "single",
    .init = single_init,
    .barrier = single_barrier,
    .allgather = single_allgather,
    .finalize = single_finalize,
    .publish_last_sync = single_publish_last_sync,
    .first_left = single_first_left,
    .abort = single_abort,
};
