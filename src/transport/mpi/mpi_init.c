/* Start and end of the MPI transport: Shoal's own way into MPI (mpi_world.c), the
 * PE-numbered communicator, the window sets, contexts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/mpi/mpi_tr.h"

struct mpi_tr mt;

int mpi_level(int shmem_level)
{
    switch (shmem_level) {
    case SHMEM_THREAD_FUNNELED: return MPI_THREAD_FUNNELED;
    case SHMEM_THREAD_SERIALIZED: return MPI_THREAD_SERIALIZED;
    case SHMEM_THREAD_MULTIPLE: return MPI_THREAD_MULTIPLE;
    default: return MPI_THREAD_SINGLE;
    }
}

const char *mpi_level_name(int l)
{
    return l == MPI_THREAD_MULTIPLE      ? "MPI_THREAD_MULTIPLE"
            : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
            : l == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                         : "MPI_THREAD_SINGLE";
}

void mpi_env_defaults(void)
{
#ifdef OPEN_MPI
    /* Open MPI 4.1's default one-sided component (osc/rdma over the vader
     * shared-memory BTL) crashes on atomics a process aims at itself, which
     * every SHMEM job does; osc/ucx has no such fault. A user's choice wins. */
    setenv("OMPI_MCA_osc", "ucx", 0);
    /* UCX's memory hooks outlive MPI_Finalize and were seen to crash processes
     * that unmap memory afterwards (Shoal's segments; also Open MPI's OSHMEM, see
     * docs/performance.md); its registration cache works without them. */
    setenv("OMPI_MCA_opal_common_ucx_opal_mem_hooks", "0", 0);
#endif
}

/* SHOAL_MPI_AMO=auto, from measurements (docs/transports.md): under MPICH messages,
 * several times faster than its atomics for non-fetching AMOs, though their thread
 * level costs puts (8 B about 0.2 us, 1 MiB up to 1.8 times); under Open MPI its
 * atomics, since there messages make fetching AMOs no faster and MPI_THREAD_MULTIPLE
 * costs every put and get, unless the program's own thread level needs it anyway;
 * under any other MPI its atomics, the standard's own path. */
#if defined(MPICH_VERSION) && !defined(OPEN_MPI)
#define AMO_AUTO_MSG 1
#define AMO_AUTO_WHY                                                                         \
    "under MPICH several times faster than its atomics for non-fetching AMOs, at a "         \
    "thread level that costs puts and gets (SHOAL_MPI_AMO=mpi for put-bound programs)"
#elif defined(OPEN_MPI)
#define AMO_AUTO_MSG 0
#define AMO_AUTO_WHY                                                                         \
    "under Open MPI, where the MPI_THREAD_MULTIPLE that messages need costs every put and "  \
    "get more than messages save (SHOAL_MPI_AMO=msg for AMO-bound programs)"
#else
#define AMO_AUTO_MSG 0
#define AMO_AUTO_WHY "the standard's own path, in an MPI Shoal has no measurements of"
#endif

#define AMO_MULTIPLE_WHY "the program's thread level needs MPI_THREAD_MULTIPLE anyway"

/* The MPI thread level SHMEM needs. */
static int level_needed(void)
{
    return mpi_level(mt.st->threads_inside ? SHMEM_THREAD_MULTIPLE : mt.st->thread_level);
}

static int amo_msg_wanted(void)
{
    const char *m = mt.st->cfg.mpi_amo;
    return !strcmp(m, "msg") ||
            (strcmp(m, "mpi") && (AMO_AUTO_MSG || level_needed() == MPI_THREAD_MULTIPLE));
}

/* Messages need the progress thread, so MPI_THREAD_MULTIPLE, and an MPI the
 * application cannot finalize under the thread: Shoal's own session or MPI_Init. */
static void choose_amo(int have)
{
    int forced = !strcmp(mt.st->cfg.mpi_amo, "msg");
    mt.msg = 0;
    if (!amo_msg_wanted()) {
        mt.amo_why = !strcmp(mt.st->cfg.mpi_amo, "mpi") ? "MPI-3 atomics (SHOAL_MPI_AMO=mpi)"
                                                        : "MPI-3 atomics: " AMO_AUTO_WHY;
        return;
    }
    if (!mt.world.own_mpi)
        mt.amo_why = "MPI-3 atomics: the application initialised MPI, and its "
                     "MPI_Finalize may not wait for Shoal's progress thread";
    else if (have < MPI_THREAD_MULTIPLE)
        mt.amo_why = "MPI-3 atomics: MPI does not provide MPI_THREAD_MULTIPLE, which "
                     "the AMO progress thread needs";
    else if (mpi_msg_open())
        mt.amo_why = "MPI-3 atomics: the AMO progress thread did not start";
    else {
        mt.msg = 1;
        mt.amo_why = forced ? "Shoal's messages, applied by the target's CPU atomics "
                              "(SHOAL_MPI_AMO=msg)"
                : AMO_AUTO_MSG
                ? "Shoal's messages, applied by the target's CPU atomics: " AMO_AUTO_WHY
                : "Shoal's messages, applied by the target's CPU atomics: " AMO_MULTIPLE_WHY;
        return;
    }
    if (forced)
        mt.host->warn("shmem_init", "SHOAL_MPI_AMO=msg: AMOs use %s", mt.amo_why);
}

static int start_mpi(void)
{
    int have = MPI_THREAD_SINGLE;
    int want = level_needed();
    /* Asked for where MPI is Shoal's to start: the AMO messages' progress thread. */
    int ask = amo_msg_wanted() ? MPI_THREAD_MULTIPLE : want;
    int rc = mpi_world_open(&mt.world, ask, &have, "shoal.transport");
    if (rc == MPI_WORLD_FINALIZED) {
        mt.host->warn("shmem_init",
                      "SHOAL_TRANSPORT=%s: the application has already called "
                      "MPI_Finalize; call shmem_init before it",
                      mt.st->cfg.transport);
        return -1;
    }
    if (rc) {
        mt.host->warn("shmem_init", "SHOAL_TRANSPORT=%s: MPI could not start (%s)",
                      mt.st->cfg.transport,
                      MPI_VERSION >= 4 ? "MPI_Session_init" : "MPI_Init_thread");
        return -1;
    }
    MT_LOG(INFO, "MPI through %s, thread level %s (SHMEM needs %s, asked for %s)",
           mpi_world_kind(&mt.world), mpi_level_name(have), mpi_level_name(want),
           mpi_level_name(ask));
    if (have < want) {
        mt.host->warn("shmem_init",
                      "SHOAL_TRANSPORT=%s: the SHMEM thread level needs %s, but "
                      "MPI provides %s; %s",
                      mt.st->cfg.transport, mpi_level_name(want), mpi_level_name(have),
                      mt.world.own_mpi ? "use an MPI built with thread support, or request "
                                         "a lower level in shmem_init_thread"
                                       : "initialise MPI with MPI_Init_thread at that level");
        mpi_world_close(&mt.world);
        return -1;
    }
    mt.have = have;
    return 0;
}

static void open_set(struct mpi_set *set, MPI_Info info)
{
    for (int s = 0; s < SHOAL_NSEGS; s++) {
        set->targets[s] = calloc((size_t)mt.nwords, sizeof(uint64_t));
        if (!set->targets[s])
            MT_FATAL("shmem_init", "out of memory for the mpi transport's target sets");
        /* The device heap's window is over what the network may reach: its host
         * alias (transport.c refused a device heap across nodes without one). */
        const struct shoal_seg *seg = &mt.st->seg[s];
        uintptr_t base = s == SHOAL_SEG_DEVICE ? mt.tp->dev_nic_base : seg->base;
        MPI_Win_create((void *)base, base ? (MPI_Aint)seg->size : 0, 1, info, mt.comm,
                       &set->win[s]);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, set->win[s]);
        MT_LOG(DEBUG, "window set %d, segment %d: %zu bytes at %p%s", (int)(set - mt.sets), s,
               base ? seg->size : 0, (void *)base,
               info == MPI_INFO_NULL ? "" : ", accumulate_ordering none");
    }
    set->dirty = 0;
}

static int ctx_setup(struct mpi_ctx *c, struct mpi_set *rma)
{
    memset(c, 0, offsetof(struct mpi_ctx, arena));
    c->rma = rma;
    c->msg_pes = calloc((size_t)mt.nwords, sizeof(uint64_t));
    if (!c->msg_pes)
        return -1;
    pthread_mutex_init(&c->lock, NULL);
    return 0;
}

static void ctx_teardown(struct mpi_ctx *c)
{
    if (mt.msg)
        mpi_msg_quiet(c);
    pthread_mutex_destroy(&c->lock);
    free(c->msg_pes);
    free(c->fetch_req);
    free(c->fetch_pe);
}

static int mpi_init(void)
{
    if (start_mpi())
        return -1;
    int size;
    MPI_Comm_split(mt.world.comm, 0, mt.st->my_pe, &mt.comm);
    MPI_Comm_size(mt.comm, &size);
    if (size != mt.st->n_pes) {
        mt.host->warn("shmem_init",
                      "MPI's job has %d processes but the SHMEM job %d PEs; "
                      "start every PE with one mpirun",
                      size, mt.st->n_pes);
        return -1;
    }
    long k = mt.st->cfg.mpi_context_windows; /* 0 to 64, as the env table accepts */
    mt.nsets = 1 + (int)k;
    mt.nwords = (mt.st->n_pes + 63) / 64;
    mt.sets = calloc((size_t)mt.nsets, sizeof *mt.sets);
    if (!mt.sets)
        return -1;
    /* Contexts' windows carry only puts and gets, whose order MPI never promises:
     * telling it that accumulates need no order either costs nothing there. The
     * AMO windows keep MPI's default order (same-location accumulates in order). */
    MPI_Info unordered;
    MPI_Info_create(&unordered);
    MPI_Info_set(unordered, "accumulate_ordering", "none");
    for (int i = 0; i < mt.nsets; i++)
        open_set(&mt.sets[i], i ? unordered : MPI_INFO_NULL);
    MPI_Info_free(&unordered);
    MT_LOG(INFO,
           "%d window set(s) of %d windows over %d PEs: the default context's (and all "
           "AMOs'), and %d shared round robin by created contexts "
           "(SHOAL_MPI_CONTEXT_WINDOWS)",
           mt.nsets, SHOAL_NSEGS, size, mt.nsets - 1);
    mt.locked = mt.st->thread_level == SHMEM_THREAD_MULTIPLE || mt.st->threads_inside;
    if (ctx_setup(&mt.dflt, &mt.sets[0]))
        return -1;
    mt.host->ctx_default->net = &mt.dflt;
    choose_amo(mt.have);
    MT_LOG(INFO, "AMOs: %s", mt.amo_why);
    return 0;
}

static void mpi_fini(void)
{
    ctx_teardown(&mt.dflt);
    if (mt.msg)
        mpi_msg_close();
    mt.msg = 0;
    mpi_coll_fini();
    for (int i = 0; i < mt.nsets; i++)
        for (int s = 0; s < SHOAL_NSEGS; s++) {
            MPI_Win_unlock_all(mt.sets[i].win[s]);
            MPI_Win_free(&mt.sets[i].win[s]);
            free(mt.sets[i].targets[s]);
        }
    free(mt.sets);
    mt.sets = NULL;
    MPI_Comm_free(&mt.comm);
    mt.host->ctx_default->net = NULL;
    mpi_world_close(&mt.world);
}

static int mpi_ctx_create(struct shoal_ctx *ctx)
{
    struct mpi_ctx *c = malloc(sizeof *c);
    if (!c) {
        mt.host->warn("shmem_ctx_create", "out of memory");
        return -1;
    }
    unsigned i = mt.nsets > 1 ? 1 +
                    __atomic_fetch_add(&mt.next_set, 1, __ATOMIC_RELAXED) %
                            (unsigned)(mt.nsets - 1)
                              : 0;
    if (ctx_setup(c, &mt.sets[i])) {
        free(c);
        mt.host->warn("shmem_ctx_create", "out of memory");
        return -1;
    }
    ctx->net = c;
    MT_LOG(DEBUG, "context %p uses window set %u", (void *)ctx, i);
    return 0;
}

static void mpi_ctx_destroy(struct shoal_ctx *ctx)
{
    struct mpi_ctx *c = mpi_ctx_of(ctx);
    if (!c)
        return;
    ctx_teardown(c);
    free(c);
    ctx->net = NULL;
}

__attribute__((visibility("default"))) const struct shoal_transport_ops *
shoal_module_transport(const struct shoal_module_host *host);

const struct shoal_transport_ops *shoal_module_transport(const struct shoal_module_host *host)
{
    if (host->version != SHOAL_MODULE_VERSION ||
        host->state_size != sizeof(struct shoal_state) ||
        host->tp_size != sizeof(struct shoal_tp_state) ||
        host->ctx_size != sizeof(struct shoal_ctx)) {
        host->warn("shmem_init",
                   "libshoal-mpi.so is from another Shoal build than libshoal; "
                   "install both from the same build");
        return NULL;
    }
    mt.host = host;
    mt.world = (struct mpi_world)MPI_WORLD_CLOSED;
    mt.st = host->state;
    mt.tp = host->tp;
    return &mpi_ops;
}

static void mpi_info(void)
{
    printf("MPI (PE 0), thread level %s:\n", mpi_level_name(mt.have));
    printf("  AMOs: %s\n", mt.amo_why);
}

const struct shoal_transport_ops mpi_ops = {
    .name = "mpi",
    .info = mpi_info,
    .init = mpi_init,
    .fini = mpi_fini,
    .ctx_create = mpi_ctx_create,
    .ctx_destroy = mpi_ctx_destroy,
    .put = mpi_put,
    .put_nbi = mpi_put_nbi,
    .get = mpi_get,
    .get_nbi = mpi_get_nbi,
    .amo = mpi_amo,
    .amo_nbi = mpi_amo_nbi,
    .put_signal = mpi_put_signal,
    .fence = mpi_quiet,
    .quiet = mpi_quiet,
    .pe_quiet = mpi_pe_quiet,
    .local_complete = mpi_local_complete,
    .session_start = mpi_session_start,
    .session_stop = mpi_session_stop,
    .progress = mpi_progress,
    .local_poll = mpi_local_poll,
    /* A window over the device heap's host alias (emu). Memory the network must
     * register as device memory (cuda, rocm) would need a device-aware MPI, which
     * this transport does not ask for. */
    .dev_ifaces = 1u << SHOAL_DEV_IFACE_ALIAS,
    .coll = &mpi_coll,
};
