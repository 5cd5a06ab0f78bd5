/* shmem_init / shmem_finalize and the routines that frame a job's life. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/devinit.h"
#include "bootstrap/bootstrap.h"
#include "build_info.h"
#include "coll/coll.h"
#include "env/log.h"
#include "base/routine.h"
#include "base/signals.h"
#include "core/topology.h"
#include "mem/alloc.h"
#include "mem/device_heap.h"
#include "mem/segment.h"

/* The team pool, the active sets' alltoall box and the alltoallv boxes (one per PE)
 * after it are carved from the heap before any user allocation, so every PE finds
 * them at the same offsets. */
#define SHOAL_HEAP_RESERVE                                                                   \
    (SHOAL_TEAM_SLOTS * sizeof(struct shoal_team_slot) + SHOAL_SET_BOX_BYTES)

static void init_teams(void)
{
    shoal_team_world = (struct shoal_team){ .start = 0,
                                            .stride = 1,
                                            .size = shoal.n_pes,
                                            .my_pe = shoal.my_pe,
                                            .slot = 0,
                                            .res = &shoal_team_pool[0] };
    /* The node's PEs; topology init fills in its shape. */
    shoal_team_shared = (struct shoal_team){ .slot = 1, .res = &shoal_team_pool[1] };
    shoal_ctx_default = (struct shoal_ctx){ .team = &shoal_team_world };
    shoal_sleepers = &shoal_team_pool[0].sync[SHOAL_TEAM_SLEEP_WORD];
    shoal_teams_reset();
}

static int init_heap(struct shoal_seg *heap)
{
    size_t user = shoal.cfg.symmetric_size;
    /* Whole pages, so that the user's part stays what was asked for. */
    size_t box = ((size_t)shoal.n_pes * sizeof(struct shoal_a2av_box) + 4095) & ~(size_t)4095;
    size_t total = ((user + 4095) & ~(size_t)4095) + SHOAL_HEAP_RESERVE + box;
    if (total < user || shoal_heap_create(heap, total))
        return -1;
    /* The heap may have grown to a whole number of huge pages: all of it is usable. */
    shoal_heap_alloc = shoal_alloc_create(heap->size);
    if (!shoal_heap_alloc)
        return -1;
    size_t off = shoal_alloc_get(shoal_heap_alloc, SHOAL_HEAP_RESERVE + box, 64);
    if (off == SHOAL_ALLOC_FAIL)
        return -1;
    shoal_team_pool = (struct shoal_team_slot *)(heap->base + off);
    shoal_set_box = (unsigned char *)(shoal_team_pool + SHOAL_TEAM_SLOTS);
    shoal_a2av_box = (struct shoal_a2av_box *)(shoal_set_box + SHOAL_SET_BOX_BYTES);
    return 0;
}

/* SHOAL_TRANSPORT (one of the table's words): checked before anything is set up,
 * since mpi needs an MPI job. */
static void check_transport(void)
{
    const char *t = shoal.cfg.transport;
    /* Under PMI the MPI library must be the launcher's only client (select.c). */
    if (strncmp(t, "mpi", 3) == 0 && strcmp(shoal.boot->name, "pmix") != 0 &&
        strcmp(shoal.boot->name, "mpi") != 0)
        shoal_fatal("shmem_init",
                    "SHOAL_TRANSPORT=%s needs an MPI job, but this PE was "
                    "started by %s; launch the program with mpirun -n N (Open MPI) or "
                    "mpiexec.hydra -n N (MPICH), leave SHOAL_BOOTSTRAP unset, or unset "
                    "SHOAL_TRANSPORT to use shared memory and libfabric",
                    t, shoal.boot->name);
}

/* What the bootstrap waits for while it starts, for the blocked-PE report. */
static const char *boot_phase(const struct shoal_boot_ops *boot)
{
    if (boot == &shoal_boot_oshrun)
        return "connecting to the launcher (oshrun)";
    if (boot == &shoal_boot_single)
        return "starting the bootstrap (single PE)";
    if (boot == &shoal_boot_pmi1 || boot == &shoal_boot_pmi2)
        return "connecting to the launcher (PMI)";
    if (!strcmp(boot->name, "mpi"))
        return "starting MPI (the MPI bootstrap)";
    return "connecting to the launcher (PMIx)";
}

static int init_first(const char *fn, int requested)
{
    /* First: a PE held up while it starts answers oshrun's SIGURG with the phase. */
    shoal_signals_report_on(fn);
    char err[512];
    /* SHOAL_LOG, when set, wins over Cray OpenSHMEMX's level and categories. */
    int cx = 0;
    if (shoal_env_load(&shoal.cfg, err, sizeof err) ||
        shoal_env_cx_apply(&shoal.cfg, err, sizeof err) ||
        shoal_log_parse(shoal.cfg.log, err, sizeof err) ||
        (cx = shoal_log_parse_cx(*shoal.cfg.log ? 0 : shoal.cfg.debug_level,
                                 *shoal.cfg.log ? "" : shoal.cfg.debug_categories,
                                 shoal.cfg.debug_ranks, err, sizeof err)) < 0 ||
        shoal_log_target(shoal.cfg.log_file, err, sizeof err)) {
        fprintf(shoal_error_stream(), "shoal: shmem_init: %s\n", err);
        return -1;
    }
    if (cx > 0)
        fprintf(shoal_error_stream(), "shoal: warning: shmem_init: %s\n", err);
    shoal.boot = shoal_boot_select();
    if (!shoal.boot)
        return -1;
    /* Under a launcher stdout is a pipe; line buffering keeps a PE's last lines
     * when another PE's failure ends the job. */
    if (shoal.boot != &shoal_boot_single)
        setvbuf(stdout, NULL, _IOLBF, 0);
    shoal_init_phase(boot_phase(shoal.boot));
    struct shoal_boot_info info = { .thread_level = requested };
    SHOAL_LOG(BOOT, INFO, "bootstrap %s chosen (SHOAL_BOOTSTRAP=%s)", shoal.boot->name,
              shoal.cfg.bootstrap);
    if (shoal.boot->init(&info)) {
        shoal_log_start(-1);
        return -1;
    }
    shoal_log_start(info.rank);
    shoal.my_pe = info.rank;
    shoal.n_pes = info.size;
    shoal_boot_gather_job(info.rank, info.size, shoal.cfg.node_exchange);
    shoal.thread_level = requested;
    /* Cray OpenSHMEMX's programs read the level granted from here. */
    static const char *const levels[] = { "SHMEM_THREAD_SINGLE", "SHMEM_THREAD_FUNNELED",
                                          "SHMEM_THREAD_SERIALIZED",
                                          "SHMEM_THREAD_MULTIPLE" };
    setenv("SHMEM_THREAD_SAFETY", levels[requested - SHMEM_THREAD_SINGLE], 1);
    check_transport();
    SHOAL_LOG(BOOT, INFO, "bootstrap %s: PE %d of %d, thread level %d", shoal.boot->name,
              shoal.my_pe, shoal.n_pes, requested);

    shoal_init_phase("symmetric heap setup");
    if (init_heap(&shoal.seg[SHOAL_SEG_HEAP]) ||
        shoal_static_setup(&shoal.seg[SHOAL_SEG_DATA]))
        shoal_fatal("shmem_init",
                    "cannot create the symmetric segments (heap %zu bytes); "
                    "check SHMEM_SYMMETRIC_SIZE and available memory",
                    shoal.cfg.symmetric_size);
    SHOAL_LOG(MEM, INFO, "heap %zu bytes at %p, static data %zu bytes at %p",
              shoal.seg[SHOAL_SEG_HEAP].size, (void *)shoal.seg[SHOAL_SEG_HEAP].base,
              shoal.seg[SHOAL_SEG_DATA].size, (void *)shoal.seg[SHOAL_SEG_DATA].base);
    init_teams();
    shoal_init_phase("exchanging host names with the other PEs");
    if (shoal_topology_init(&shoal_team_shared))
        shoal_fatal("shmem_init", "cannot exchange host names with the other PEs");
    if (!shoal.cfg.locality_offnode && shoal.multi_node)
        shoal_fatal("shmem_init",
                    "SHMEM_LOCALITY_OFFNODE=0 turns the network path off, but this job's PEs "
                    "sit on %d nodes; run them on one node or unset SHMEM_LOCALITY_OFFNODE",
                    shoal.n_nodes);
    if (shoal_env_cx_check_local(&shoal.cfg, shoal_team_shared.size, err, sizeof err))
        shoal_fatal("shmem_init", "%s", err);
    shoal_heap_report(shoal_team_shared.my_pe == 0);
    shoal_backoff_setup();
    /* Before the transports: the network registers the device heap. */
    shoal_init_phase("device heap setup (exchanging handles with the other PEs)");
    shoal_device_init(shoal_team_shared.my_pe);
    shoal_transport_init();
    /* Providers may have installed crash handlers while starting (psm). */
    shoal_signals_reclaim();
    shoal.init_count = 1;
    shoal.ever_initialized = 1;
    shoal_banner();
    shoal_init_phase("waiting for the other PEs in the closing barrier");
    shoal_barrier_world();
    shoal_init_phase(NULL);
    return 0;
}

static int init_common(const char *fn, int requested, int *provided)
{
    SHOAL_LOG(BOOT, DEBUG, "%s: entry, thread level %d asked, %d init(s) before", fn,
              requested, shoal.init_count);
    if (requested < SHMEM_THREAD_SINGLE)
        requested = SHMEM_THREAD_SINGLE;
    if (requested > SHMEM_THREAD_MULTIPLE)
        requested = SHMEM_THREAD_MULTIPLE;
    if (shoal.init_count > 0) {
        /* 1.6: a repeated init only counts; the library is already up. */
        shoal.init_count++;
        if (provided)
            *provided = shoal.thread_level;
        shoal_barrier_world();
        return 0;
    }
    if (shoal.ever_initialized) {
        /* Not the launcher's fault: the bootstrap channel and the PMIx connection are
         * gone with the last finalize, and the library cannot start twice. */
        if (shoal.n_pes > 0)
            fprintf(shoal_error_stream(),
                    "shoal: PE %d: %s: called after the last shmem_finalize; Shoal "
                    "cannot be initialized again in the same process: call shmem_init once "
                    "(or nest shmem_init/shmem_finalize pairs) per program\n",
                    shoal.my_pe, fn);
        else
            fprintf(shoal_error_stream(),
                    "shoal: %s: called after the last shmem_finalize; Shoal cannot be "
                    "initialized again in the same process\n",
                    fn);
        return -1;
    }
    if (init_first(fn, requested)) {
        SHOAL_LOG(BOOT, DEBUG, "%s: start-up failed", fn);
        shoal_init_phase(NULL);
        return -1;
    }
    if (provided)
        *provided = shoal.thread_level;
    SHOAL_LOG(BOOT, DEBUG, "%s: exit, PE %d of %d on %d node(s), thread level %d", fn,
              shoal.my_pe, shoal.n_pes, shoal.n_nodes, shoal.thread_level);
    /* The log starts inside start-up, so the routine's entry goes unlogged. */
    SHOAL_LOG(API, DEBUG, "exit %s, thread level %d provided", fn, shoal.thread_level);
    return 0;
}

void shmem_init(void)
{
    if (init_common(__func__, SHMEM_THREAD_SINGLE, NULL))
        exit(1);
}
SHOAL_PROFILED(shmem_init)

int shmem_init_thread(int requested, int *provided)
{
    return init_common(__func__, requested, provided) ? -1 : 0;
}
SHOAL_PROFILED(shmem_init_thread)

void shmem_query_thread(int *provided)
{
    shoal_require_init("shmem_query_thread");
    *provided = shoal.thread_level;
}
SHOAL_PROFILED(shmem_query_thread)

void shmem_query_initialized(int *initialized)
{
    *initialized = shoal.init_count > 0;
}
SHOAL_PROFILED(shmem_query_initialized)

void shmem_finalize(void)
{
    /* A finalize too many (a program's exit path that finalizes again) harms nothing
     * once the library is down: say so and go on, as other implementations do. */
    if (SHOAL_UNLIKELY(shoal.init_count <= 0 && shoal.ever_initialized)) {
        shoal_warn("shmem_finalize",
                   "called again after the last shmem_finalize, with no shmem_init to "
                   "match; ignored (call shmem_finalize once per shmem_init)");
        return;
    }
    shoal_require_init("shmem_finalize");
    SHOAL_LOG(BOOT, DEBUG, "shmem_finalize: entry, %d init(s) open", shoal.init_count);
    SHOAL_LOG(API, DEBUG, "enter shmem_finalize");
    /* Stream operations first: the proxy may be in a collective of its own. */
    shoal_stream_drain("shmem_finalize");
    /* Device-issued operations are complete before the barrier, like the host's. */
    if (shoal.init_count == 1) {
        shoal_threads_check_finalize();
        shoal_devinit_fini();
    }
    /* The barrier completes the default context's operations. */
    shoal_barrier_world();
    if (--shoal.init_count > 0) {
        SHOAL_LOG(BOOT, DEBUG, "shmem_finalize: exit, %d init(s) still open",
                  shoal.init_count);
        return;
    }
    shoal_stream_fini();
    /* This PE takes part in no collective after this barrier: a PE still waiting in
     * a later one learns so and ends the job instead of waiting forever (coll/stall.c). */
    shoal.boot->publish_last_sync(shoal_team_world.barrier_epoch);
    fflush(stdout);
    shoal_teams_release();
    shoal_transport_fini();
    shoal_device_fini();
    shoal_heap_destroy();
    shoal_topology_fini();
    shoal_alloc_destroy(shoal_heap_alloc);
    shoal_heap_alloc = NULL;
    shoal_team_pool = NULL;
    shoal_sleepers = NULL;
    shoal_set_box = NULL;
    shoal_a2av_box = NULL;
    SHOAL_LOG(BOOT, DEBUG, "shmem_finalize: exit, the library is down");
    shoal.boot->finalize();
}
SHOAL_PROFILED(shmem_finalize)

void shmem_global_exit(int status)
{
    SHOAL_LOG(BOOT, DEBUG, "shmem_global_exit(%d)", status);
    fflush(stdout);
    fflush(stderr);
    /* Cray OpenSHMEMX's SHMEM_OFI_GLOBAL_EXIT=0: only this PE ends. */
    if (shoal.init_count > 0 && !shoal.cfg.ofi_global_exit)
        exit(status);
    if (shoal.boot)
        shoal.boot->abort(status, NULL);
    exit(status);
}
SHOAL_PROFILED(shmem_global_exit)

/* start_pes (deprecated 1.2) implies finalization at exit. */
static void finalize_at_exit(void)
{
    if (shoal.init_count > 0)
        shmem_finalize();
}

void start_pes(int npes)
{
    (void)npes;
    if (shoal.init_count > 0)
        return;
    shmem_init();
    atexit(finalize_at_exit);
}
SHOAL_PROFILED(start_pes)
