/* The transport layer's out-of-line parts: starting the transports, the network
 * halves of transport.h's dispatchers, and the library's own words and copies. */
#include "transport/transport.h"

#include <string.h>

#include "base/routine.h"
#include "env/log.h"
#include "transport/module.h"

/* A device heap of a job that spans nodes must be reachable by the network transport
 * the way the device layer offers it (mem/device_heap.c recorded how). */
static void check_device_reach(void)
{
    enum shoal_dev_iface iface = (enum shoal_dev_iface)shoal.dev_nic_iface;
    if (!shoal.multi_node || !shoal.seg[SHOAL_SEG_DEVICE].size ||
        (iface != SHOAL_DEV_IFACE_NONE && (shoal.net->dev_ifaces & (1u << iface))))
        return;
    shoal_fatal(
            "shmem_init",
            "the %s network transport cannot reach %s device memory (offered as %s), which a "
            "device heap across nodes needs; use a transport that can (unset "
            "SHOAL_TRANSPORT: libfabric reaches CUDA and ROCm memory through a provider "
            "with FI_HMEM; Shoal's MPI transport reaches no GPU memory, as it does not "
            "use a device-aware MPI), run every PE on one node, or set "
            "SHMEM_SYMMETRIC_SIZE_DEVICE=0",
            shoal.net->name, shoal_dev->name, shoal_dev_iface_name(iface));
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
                  shm ? "" : shoal.net->name);
    }
    SHOAL_LOG(BOOT, INFO,
              "paths: %d PE(s) through shared memory, %d through the network (%s); AMOs "
              "through %s; device-aware routing %s",
              mapped, shoal.n_pes - mapped, shoal.net->name,
              shoal.multi_node ? shoal.net->name : "shared memory",
              shoal.slow_paths & SHOAL_PATHS_DEV ? "on" : "off");
}

/* PEs on other nodes need the network transport; a one-node job uses none. */
void shoal_transport_init(void)
{
    shoal_init_phase("shared-memory setup (exchanging segments with the other PEs)");
    if (shoal_transport_shm.init())
        shoal_fatal("shmem_init", "cannot exchange symmetric segments with the other PEs");
    shoal.net = &shoal_net_none;
    /* SHOAL_TRANSPORT=mpi or mpi-all (api/init.c checked the value and the launcher). */
    if (shoal.multi_node && strncmp(shoal.cfg.transport, "mpi", 3) == 0) {
        shoal.net = shoal_module_load("mpi");
    } else if (shoal.multi_node) {
        if (!shoal_net_ofi)
            shoal_fatal("shmem_init",
                        "this job spans %d nodes, but this Shoal was built "
                        "without libfabric; install libfabric-dev and rebuild, or run every "
                        "PE on one node",
                        shoal.n_nodes);
        shoal.net = shoal_net_ofi;
    }
    check_device_reach();
    shoal_init_phase("starting the network transport");
    if (shoal.net->init())
        shoal_fatal("shmem_init", "cannot start the %s network transport", shoal.net->name);
    /* Read once: the dispatchers' one flag then sends operations to be counted, and
     * same-node gets to drive a network transport that needs it. */
    if (shoal.cfg.pcntr)
        shoal.slow_paths |= SHOAL_PATHS_PCNTR;
    if (shoal.net->local_poll)
        shoal.slow_paths |= SHOAL_PATHS_POLL;
    if (SHOAL_LOG_ON(BOOT, INFO))
        log_paths();
}

void shoal_transport_fini(void)
{
    shoal.slow_paths &= ~(SHOAL_PATHS_PCNTR | SHOAL_PATHS_POLL);
    shoal.net->fini();
    shoal.net = &shoal_net_none;
    shoal.net_provider = NULL;
    shoal_transport_shm.fini();
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
        shoal.net->amo_nbi(ctx, &a, r->pe);
    else
        shoal.net->amo(ctx, &a, r->pe);
}

void shoal_net_put_signal(shmem_ctx_t ctx, const struct shoal_rref *dst, const void *src,
                          size_t len, const struct shoal_rref *sig, uint64_t signal,
                          enum shoal_amo_op sig_op, int nbi)
{
    dst->tp->put_signal(ctx, dst->seg, dst->off, src, len, sig->seg, sig->off, signal, sig_op,
                        nbi, dst->pe);
}

/* ---- The library's own words and copies --------------------------------------------- */

/* A library-internal symmetric address is always symmetric. */
static struct shoal_rref own(const void *addr, int pe)
{
    struct shoal_rref r;
    if (SHOAL_UNLIKELY(shoal_resolve(addr, pe, &r) < 0))
        shoal_bad_addr("shoal", addr, pe);
    return r;
}

uint64_t shoal_word_fetch_op(enum shoal_amo_op op, uint64_t *word, uint64_t v, int pe)
{
    struct shoal_rref r = own(word, pe);
    uint64_t old;
    shoal_tp_amo(SHMEM_CTX_DEFAULT, &r, op, SHOAL_AMO_UINT64, v, 0, &old, 0,
                 __ATOMIC_ACQ_REL);
    return old;
}

uint64_t shoal_word_read(const uint64_t *word, int pe)
{
    return shoal_word_fetch_op(SHOAL_AMO_READ, (uint64_t *)word, 0, pe);
}

void shoal_word_add(uint64_t *word, uint64_t v, int pe)
{
    struct shoal_rref r = own(word, pe);
    shoal_tp_amo(SHMEM_CTX_DEFAULT, &r, SHOAL_AMO_ADD, SHOAL_AMO_UINT64, v, 0, NULL, 0,
                 __ATOMIC_RELEASE);
}

void shoal_word_store(uint64_t *word, uint64_t v, int pe, size_t payload)
{
    struct shoal_rref r = own(word, pe);
    /* Each such word has one writer at a time and no AMO in flight when it is
     * stored, so a CPU store cannot break the network's atomicity. */
    if (r.ptr) {
        shoal_shm_release_after(payload);
        __atomic_store_n((uint64_t *)r.ptr, v, __ATOMIC_RELEASE);
        return;
    }
    /* The payload put before it must land first. */
    if (payload)
        r.tp->fence(SHMEM_CTX_DEFAULT);
    shoal_net_amo(SHMEM_CTX_DEFAULT, &r, SHOAL_AMO_WRITE, SHOAL_AMO_UINT64, v, 0, NULL, 0);
}

void shoal_word_signal(int pe, void *dest_sym, const void *src, size_t len, uint64_t *word,
                       uint64_t count)
{
    struct shoal_rref w = own(word, pe);
    if (w.ptr) {
        if (len)
            shoal_shm_copy(own(dest_sym, pe).ptr, src, len);
        shoal_shm_release_after(len);
        __atomic_store_n((uint64_t *)w.ptr, count, __ATOMIC_RELEASE);
        return;
    }
    /* Adds commute: signals of one writer need no order among themselves. */
    if (len) {
        struct shoal_rref d = own(dest_sym, pe);
        shoal_shm_release_after(0); /* this thread's same-node stores first, as for AMOs */
        shoal_net_put_signal(SHMEM_CTX_DEFAULT, &d, src, len, &w, 1, SHOAL_AMO_ADD, 0);
    } else {
        shoal_net_amo(SHMEM_CTX_DEFAULT, &w, SHOAL_AMO_ADD, SHOAL_AMO_UINT64, 1, 0, NULL, 0);
    }
}

void shoal_copy_to(int pe, void *dest_sym, const void *src, size_t len)
{
    struct shoal_rref r = own(dest_sym, pe);
    if (SHOAL_UNLIKELY(shoal.slow_paths & SHOAL_PATHS_DEV))
        shoal_dev_put(SHMEM_CTX_DEFAULT, &r, src, len, 0);
    else
        r.tp->put(SHMEM_CTX_DEFAULT, r.seg, r.off, src, len, pe);
}

void shoal_copy_from(int pe, void *dst, const void *src_sym, size_t len)
{
    struct shoal_rref r = own(src_sym, pe);
    if (SHOAL_UNLIKELY(shoal.slow_paths & SHOAL_PATHS_DEV))
        shoal_dev_get(SHMEM_CTX_DEFAULT, dst, &r, len, 0);
    else
        r.tp->get(SHMEM_CTX_DEFAULT, dst, r.seg, r.off, len, pe);
}
