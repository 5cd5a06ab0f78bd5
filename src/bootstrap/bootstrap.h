/* Bootstrap: how a PE learns its rank and exchanges setup data with its peers
 * before any symmetric memory exists. One small interface, several backends
 * (the oshrun channel, PMIx, PMI-1 and PMI-2, MPI, a single-PE fallback). */
#ifndef SHOAL_BOOTSTRAP_H
#define SHOAL_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct shoal_boot_info {
    int rank;         /* out: this PE's number in the world team */
    int size;         /* out: number of PEs in the job */
    int thread_level; /* in: the SHMEM_THREAD_* level asked for (MPI starts at it) */
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
    /* Called from the handler of the fatal signal sig (so async-signal-safe), before
     * the PE dies of it: tells a launcher that would not end the job on a task's
     * death (Slurm without KillOnBadExit), or not with its status (hydra), to end it.
     * NULL where the launcher does. */
    void (*dying)(int sig);
    /* What the node-level exchange (node_exchange.c) needs; NULL where the launcher
     * cannot give it, and the exchanges are then plain allgathers.
     * node: the PEs the launcher placed on this host: the lowest rank among them
     * (the node's leader), this PE's index among them in rank order and their
     * number. -1 when the launcher does not say. */
    int (*node)(int *leader, int *local_rank, int *local_size);
    /* put: publishes len bytes under key, for any PE to get after the next
     * collect, which every PE of the job calls (a barrier that gathers what was
     * put). get: rank's value under key, in a malloc'd *out of *len bytes. */
    int (*put)(const char *key, const void *val, size_t len);
    int (*collect)(void);
    int (*get)(int rank, const char *key, void **out, size_t *len);
    /* Ends the whole job with this exit status. msg (may be NULL) is a complete line,
     * printed once: by the launcher, or here when there is none to tell. */
    __attribute__((noreturn)) void (*abort)(int status, const char *msg);
};

/* An abort's line on f, printed here since launchers differ in whether and how they
 * print one: msg, or shmem_global_exit's. The program's own output is flushed first
 * (shmem_global_exit is an exit), the line right after. */
static inline void shoal_boot_abort_notice(FILE *f, int rank, int status, const char *msg)
{
    fflush(NULL);
    if (msg && *msg)
        fprintf(f, "%s\n", msg);
    else
        fprintf(f, "shoal: PE %d called shmem_global_exit(%d); ending the job\n", rank,
                status);
    fflush(f);
}

/* Time for a launcher that ends the job on the abort before reading this PE's pipes
 * (hydra's proxy) to forward what it has just written. */
static inline void shoal_boot_abort_pause(void)
{
    struct timespec t = { 0, 100 * 1000 * 1000 };
    nanosleep(&t, NULL);
}

/* Picks the backend for this process (SHOAL_BOOTSTRAP, or from the launcher's
 * environment): the oshrun channel when started by oshrun, MPI when
 * SHOAL_TRANSPORT=mpi|mpi-all outside a PMIx launcher, PMIx when started by a
 * PMIx launcher (in builds with PMIx), PMI-2 or PMI-1 when a launcher set PMI_FD,
 * a single PE when started alone. Fails (prints, returns NULL) when another
 * launcher started us and Shoal cannot talk to it. */
const struct shoal_boot_ops *shoal_boot_select(void);

/* b's allgather and barrier, for the setup exchanges of the layers above: what names
 * the exchange for SHOAL_LOG=boot:debug, which times it. */
int shoal_boot_allgather(const struct shoal_boot_ops *b, const char *what, const void *in,
                         void *out, size_t len);
int shoal_boot_barrier(const struct shoal_boot_ops *b, const char *what);

/* Every PE's len bytes in rank order, as a table the PE reads and does not keep a
 * copy of: where the launcher tells which PEs share a host, one table per host in
 * shared memory that the host's PEs map read-only (node_exchange.c), else a private
 * allgather. Collective over the job. */
struct shoal_boot_table {
    const void *data; /* size * len bytes */
    size_t bytes;
    int shared; /* data is a mapping of the node's table, not malloc'd */
};
int shoal_boot_gather(const struct shoal_boot_ops *b, const char *what, const void *in,
                      size_t len, struct shoal_boot_table *t);
/* The job as the bootstrap's init found it, and SHOAL_NODE_EXCHANGE: given to the
 * gathers once init has succeeded (api/init.c). */
void shoal_boot_gather_job(int my_pe, int n_pes, int node_exchange);
void shoal_boot_table_release(struct shoal_boot_table *t);
/* Lets go of the node's shared control region; at shmem_finalize. */
void shoal_boot_node_fini(void);

/* Greets the launcher on PMI_FD in PMI-want (1 or 2; 0: 2 if it speaks it, else
 * 1). Returns the version agreed, or -1 after saying why there is none. */
struct shoal_config;
int shoal_boot_pmi_version(const struct shoal_config *cfg, int want);

/* The MPI module's bootstrap: the table libshoal-mpi.so (or -mpich.so) exports; its
 * messages go to err, the stream SHMEM_ERROR_FILE names. */
#define SHOAL_MODULE_BOOT_ENTRY "shoal_module_boot"
typedef const struct shoal_boot_ops *shoal_module_boot_fn(FILE *err);

extern const struct shoal_boot_ops shoal_boot_oshrun;
extern const struct shoal_boot_ops shoal_boot_single;
extern const struct shoal_boot_ops shoal_boot_pmi1;
extern const struct shoal_boot_ops shoal_boot_pmi2;
#ifdef SHOAL_HAVE_MPI_MODULE
extern const struct shoal_boot_ops shoal_boot_mpi;
#endif
#ifdef SHOAL_HAVE_PMIX
extern const struct shoal_boot_ops shoal_boot_pmix;
#endif

#endif
