/* Bootstrap: how a PE learns its rank and exchanges setup data with its peers
 * before any symmetric memory exists. One small interface, several backends
 * (the oshrun channel, PMIx, a single-PE fallback). */
#ifndef SHOAL_BOOTSTRAP_H
#define SHOAL_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

struct shoal_boot_info {
    int rank; /* this PE's number in the world team */
    int size; /* number of PEs in the job */
};

struct shoal_boot_ops {
    const char *name;
    /* Fills *info. Returns 0, or nonzero after printing why it failed. */
    int (*init)(struct shoal_boot_info *info);
    /* Blocks until every PE of the job has entered. */
    int (*barrier)(void);
    /* Every PE contributes len bytes; out receives size*len bytes in rank order. */
    int (*allgather)(const void *in, void *out, size_t len);
    /* Tells the launcher this PE finished shmem_finalize, so its exit is expected. */
    void (*finalize)(void);
    /* Publishes, once, that this PE has made its last synchronisation of the world
     * team, the syncs-th (its shmem_finalize's): it takes part in no collective
     * after it. */
    void (*publish_last_sync)(uint64_t syncs);
    /* The PE with the fewest syncs among those that published theirs, or -1 when
     * none has (yet). May ask the launcher: call it only from a wait's slow path. */
    int (*first_left)(uint64_t *syncs);
    /* Ends the whole job with this exit status. msg (may be NULL) is a complete line,
     * printed once: by the launcher, or here when there is none to tell. */
    __attribute__((noreturn)) void (*abort)(int status, const char *msg);
};

/* Picks the backend for this process: the oshrun channel when started by oshrun,
 * PMIx when started by a PMIx launcher (in builds with PMIx), a single PE when
 * started alone. Fails (prints, returns NULL) when another launcher
 * started us and Shoal cannot talk to it. */
const struct shoal_boot_ops *shoal_boot_select(void);

extern const struct shoal_boot_ops shoal_boot_oshrun;
extern const struct shoal_boot_ops shoal_boot_single;
#ifdef SHOAL_HAVE_PMIX
extern const struct shoal_boot_ops shoal_boot_pmix;
#endif

#endif
