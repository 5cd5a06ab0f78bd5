/* Starting the transports and choosing this PE's paths (struct shoal_path), the host
 * paths themselves, and resolving device-heap addresses. */
#include "transport/transport.h"

#include <string.h>

#include "base/routine.h"
#include "env/log.h"
#include "transport/module.h"

struct shoal_tp_state shoal_tp = { .net = &shoal_net_none };

/* A device heap of a job that spans nodes must be reachable by the network transport
 * the way the device layer offers it (mem/device_heap.c recorded how). */
static void check_device_reach(void)
{
    enum shoal_dev_iface iface = (enum shoal_dev_iface)shoal_tp.dev_nic_iface;
    if (!shoal.multi_node || !shoal.seg[SHOAL_SEG_DEVICE].size ||
        (iface != SHOAL_DEV_IFACE_NONE && (shoal_tp.net->dev_ifaces & (1u << iface))))
        return;
    shoal_fatal(
            "shmem_init",
            "the %s network transport cannot reach %s device memory (offered as %s), which a "
            "device heap across nodes needs; use a transport that can (unset "
            "SHOAL_TRANSPORT: libfabric reaches CUDA and ROCm memory through a provider "
            "with FI_HMEM; Shoal's MPI transport reaches no GPU memory, as it does not "
            "use a device-aware MPI), run every PE on one node, or set "
            "SHMEM_SYMMETRIC_SIZE_DEVICE=0",
            shoal_tp.net->name, shoal_dev->name, shoal_dev_iface_name(iface));
}

/* SHOAL_LOG=boot: which path reaches each PE (puts and gets; AMOs take one for all). */
static void log_paths(void)
{
    int mapped = 0;
    for (int pe = 0; pe < shoal.n_pes; pe++) {
        int shm = shoal_shm_peer[SHOAL_SEG_HEAP][pe] != NULL;
        mapped += shm;
        SHOAL_LOG(BOOT, DEBUG, "path to PE %d: %s%s", pe,
                  shm ? "same node (shared memory)" : "network, ",
                  shm ? "" : shoal_tp.net->name);
    }
    SHOAL_LOG(BOOT, INFO,
              "paths: %d PE(s) through shared memory, %d through the network (%s); AMOs "
              "through %s; device-aware routing %s",
              mapped, shoal.n_pes - mapped, shoal_tp.net->name,
              shoal.multi_node ? shoal_tp.net->name : "shared memory",
              shoal.dev_in_play ? "on" : "off");
}

/* The paths this PE takes, wrapped once here: device memory, then the network's
 * local polling, then the counting, so each wrapper sees the operation as the caller
 * issued it. The library's own copies take the table below the counting and polling
 * (transport.h). */
static void install_paths(void)
{
    const struct shoal_path *p = &shoal_path_host;
    int wrapped = 0;
    if (shoal.dev_in_play) {
        p = shoal_path_dev_wrap(p);
        wrapped = SHOAL_WRAP_GET | SHOAL_WRAP_OPS;
    }
    shoal_copy_path = p;
    /* A same-node get makes no network call: a PE polling same-node memory with gets
     * would never serve its peers' operations that wait for its progress. */
    if (shoal_tp.net->local_poll) {
        p = shoal_path_poll_wrap(p);
        wrapped |= SHOAL_WRAP_GET;
    }
    if (shoal.cfg.pcntr) {
        p = shoal_path_pcntr_wrap(p);
        wrapped = SHOAL_WRAP_GET | SHOAL_WRAP_OPS;
    }
    if (SHOAL_LOG_ON(API, TRACE)) {
        p = shoal_path_trace_wrap(p);
        wrapped = SHOAL_WRAP_GET | SHOAL_WRAP_OPS;
    }
    shoal.path = p;
    shoal.wrapped = wrapped;
    SHOAL_LOG(BOOT, DEBUG, "operation paths: %s%s%s%s",
              shoal.dev_in_play ? "device-aware, " : "",
              shoal_tp.net->local_poll ? "same-node gets drive progress, " : "",
              SHOAL_LOG_ON(API, TRACE) ? "traced (SHOAL_LOG=api:trace), " : "",
              shoal.cfg.pcntr ? "counted (SHOAL_PCNTR)" : "host");
}

/* PEs on other nodes need the network transport; a one-node job uses none. */
void shoal_transport_init(void)
{
    shoal_init_phase("shared-memory setup (exchanging segments with the other PEs)");
    if (shoal_transport_shm.init())
        shoal_fatal("shmem_init", "cannot exchange symmetric segments with the other PEs");
    shoal_tp.net = &shoal_net_none;
    if (!shoal.multi_node)
        SHOAL_LOG(BOOT, DEBUG, "network transport: none, every PE on this node");
    /* SHOAL_TRANSPORT=mpi or mpi-all (api/init.c checked the value and the launcher). */
    if (shoal.multi_node && strncmp(shoal.cfg.transport, "mpi", 3) == 0) {
        SHOAL_LOG(BOOT, DEBUG, "network transport: mpi (SHOAL_TRANSPORT=%s)",
                  shoal.cfg.transport);
        shoal_tp.net = shoal_module_load("mpi");
    } else if (shoal.multi_node) {
        SHOAL_LOG(BOOT, DEBUG, "network transport: ofi, for %d nodes", shoal.n_nodes);
        if (!shoal_net_ofi)
            shoal_fatal("shmem_init",
                        "this job spans %d nodes, but this Shoal was built "
                        "without libfabric; install libfabric-dev and rebuild, or run every "
                        "PE on one node",
                        shoal.n_nodes);
        shoal_tp.net = shoal_net_ofi;
    }
    check_device_reach();
    shoal_init_phase("starting the network transport");
    if (shoal_tp.net->init())
        shoal_fatal("shmem_init", "cannot start the %s network transport",
                    shoal_tp.net->name);
    install_paths();
    if (SHOAL_LOG_ON(BOOT, INFO))
        log_paths();
}

void shoal_transport_fini(void)
{
    SHOAL_LOG(BOOT, DEBUG, "stopping the %s network transport", shoal_tp.net->name);
    shoal.wrapped = 0;
    shoal.path = &shoal_path_host;
    shoal_copy_path = &shoal_path_host;
    shoal_tp.net->fini();
    shoal_tp.net = &shoal_net_none;
    shoal_tp.net_provider = NULL;
    shoal_transport_shm.fini();
}

struct shoal_rref shoal_resolve_device(uintptr_t a, int pe)
{
    uintptr_t off = a - shoal.seg[SHOAL_SEG_DEVICE].base;
    if (off >= shoal.seg[SHOAL_SEG_DEVICE].size)
        return (struct shoal_rref){ .seg = -1 };
    return (struct shoal_rref){ .ptr = NULL,
                                .tp = shoal_pe_local(pe) ? &shoal_transport_shm
                                                         : shoal_tp.net,
                                .seg = SHOAL_SEG_DEVICE,
                                .pe = pe,
                                .off = off };
}

void shoal_net_amo(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                   enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch, int nbi)
{
    /* The operands in the type's own width (the low bytes of v and cmp). */
    uint32_t v32 = (uint32_t)v, c32 = (uint32_t)cmp;
    int narrow = shoal_amo_width(type) == 4;
    struct shoal_amo a = { .op = op,
                           .type = type,
                           .seg = r->seg,
                           .off = r->off,
                           .operand = narrow ? (void *)&v32 : (void *)&v,
                           .compare = narrow ? (void *)&c32 : (void *)&cmp,
                           .fetch = fetch,
                           .user = !!(nbi & SHOAL_AMO_FROM_USER),
                           .signal = !!(nbi & SHOAL_AMO_SIGNAL) };
    nbi &= ~(SHOAL_AMO_FROM_USER | SHOAL_AMO_SIGNAL);
    /* Stores of this thread to same-node memory come before the AMO that may
     * announce them. */
    shoal_shm_release_after(0);
    if (nbi && fetch)
        shoal_tp.net->amo_nbi(ctx, &a, r->pe);
    else
        shoal_tp.net->amo(ctx, &a, r->pe);
}

/* ---- The host paths: a mapped object inline, the rest over the network ------------- */

static void host_put(shmem_ctx_t ctx, const struct shoal_rref *r, const void *src, size_t len,
                     int nbi)
{
    shoal_tp_put_host(ctx, r, src, len, nbi);
}

static void host_get(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r, size_t len,
                     int nbi)
{
    shoal_tp_get_host(ctx, dst, r, len, nbi);
}

static void host_amo(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                     enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch, int nbi)
{
    shoal_tp_amo_host(ctx, r, op, type, v, cmp, fetch, nbi, __ATOMIC_SEQ_CST);
}

static void host_put_signal(shmem_ctx_t ctx, const struct shoal_put_signal *ps)
{
    shoal_tp_put_signal_host(ctx, ps);
}

static void host_fence(shmem_ctx_t ctx)
{
    shoal_shm_fence();
    shoal_tp.net->fence(ctx);
}

static void host_quiet(shmem_ctx_t ctx)
{
    shoal_shm_fence();
    shoal_tp.net->quiet(ctx);
}

const struct shoal_path shoal_path_host = {
    .put = host_put,
    .get = host_get,
    .amo = host_amo,
    .put_signal = host_put_signal,
    .fence = host_fence,
    .quiet = host_quiet,
};

const struct shoal_path *shoal_copy_path = &shoal_path_host;
