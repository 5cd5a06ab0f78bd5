/* Signal routines without payload: fetch, add, set. */
#include "api/pair.h"
#include "api/rma.h"

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    /* Programs poll with it: let the network land what peers sent. */
    shoal_progress();
    uint64_t v;
    if (SHOAL_UNLIKELY(shoal_dev_sym(sig_addr)))
        shoal_dev_read_sym(&v, sig_addr, sizeof v);
    else
        v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    return v;
}
SHOAL_PROFILED(shmem_signal_fetch)

static inline void signal_add(const char *fn, shmem_ctx_t ctx, uint64_t *sig, uint64_t v,
                              int pe)
{
    shoal_signal_update(fn, ctx, sig, v, SHMEM_SIGNAL_ADD, pe);
}

static inline void signal_set(const char *fn, shmem_ctx_t ctx, uint64_t *sig, uint64_t v,
                              int pe)
{
    shoal_signal_update(fn, ctx, sig, v, SHMEM_SIGNAL_SET, pe);
}

SHOAL_DEFINE_PAIR(void, signal_add, signal_add,
                  (uint64_t * sig_addr, uint64_t signal, int pe), (sig_addr, signal, pe))
SHOAL_DEFINE_PAIR(void, signal_set, signal_set,
                  (uint64_t * sig_addr, uint64_t signal, int pe), (sig_addr, signal, pe))
