/* shmemx_device.h: device-initiated communication. Kernels put, get, signal, wait and
 * run AMOs on symmetric objects of the device heap (SHMEM_SPACE_DEVICE) themselves.
 *
 * The same header serves CUDA C++ and HIP (the routines are __device__ functions) and
 * plain C (kernels of the emulated device, run by shmemx_device_launch on its own
 * threads). Every routine is header-only code over one state (struct shmemx_dev_state)
 * that the library builds per PE: where device code may load and store each PE's
 * device heap (same-node peers: the IPC mapping; emu: the backend's read-write alias),
 * and the command ring of the host proxy thread that serves every other PE through
 * the library's transports. docs/gpu.md, "Device-initiated communication", says what
 * each routine does, which threads may call it, and its limits. Collectives from device
 * code (barriers, reductions over a team) are in shoal/device_coll.h, included at the
 * end.
 *
 * CUDA: call shmemx_cuda_bind() once per translation unit that uses the routines,
 * after shmem_init and before launching its kernels. */
#ifndef SHMEMX_DEVICE_H
#define SHMEMX_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <shmem.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#include <stdio.h>
#define SHMEMX_DEV_GPU 1
#define SHMEMX_DEV_FN static __device__ __forceinline__
#else
#include <sched.h>
#define SHMEMX_DEV_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the shared state (host-pinned memory; the library fills it) ------------------ */

/* One command of the ring, 64 bytes. seq tells the slot's state for ticket t:
 * t = free for the producer of ticket t; t + 1 = posted; t + 2 = answered (blocking
 * commands: the proxy has done it, ret holds the result, the producer frees it);
 * t + slots = free for the next lap. */
struct shmemx_dev_cmd {
    uint64_t seq;
    uint32_t op; /* SHMEMX_DEV_OP_* | amo << 8 | width << 16 | SHMEMX_DEV_WAIT */
    int32_t pe;
    uint64_t dst;    /* offset in the device heap */
    uint64_t src;    /* offset in the device heap, or the value */
    uint64_t len;    /* bytes, or the compare value of a compare-and-swap */
    uint64_t sig;    /* offset of the signal word */
    uint64_t signal; /* the signal value; the signal operation is in op */
    uint64_t ret;    /* the answer of a blocking command */
};

/* The ring's control words, each where one side writes. */
struct shmemx_dev_ring {
    uint64_t head; /* tickets taken by producers */
    uint64_t stalls; /* posts that found their slot still in use (ring full) */
    char pad0[48];
    uint64_t done;   /* commands complete, in ticket order (the proxy) */
    uint32_t asleep; /* the proxy sleeps and wants a wake (emu) or waits a nap out */
    uint32_t bell;   /* producers bump it to wake a sleeping proxy */
    uint32_t state;  /* SHMEMX_DEV_PROXY_* */
    uint32_t slots;  /* a power of two, at least 4 */
    uint64_t wakes;  /* times the proxy slept and was woken by a producer */
    uint64_t batches; /* times the proxy took commands from the ring (one or more) */
    uint64_t merged;  /* puts the proxy issued as part of the put before them */
    char pad1[16];
};

struct shmemx_dev_state {
    int32_t my_pe, n_pes;
    uint32_t direct_amo; /* same-node AMOs may run directly (every PE on one node) */
    uint32_t pad;
    uint64_t heap_base, heap_size; /* this PE's device heap, as the program sees it */
    struct shmemx_dev_ring *ring;  /* NULL when every PE is reached directly */
    struct shmemx_dev_cmd *cmd;    /* ring->slots commands */
    char **peer; /* peer[pe]: where device code loads and stores PE pe's device heap;
                    NULL: through the proxy */
};

enum {
    SHMEMX_DEV_OP_PUT = 1,
    SHMEMX_DEV_OP_GET,
    SHMEMX_DEV_OP_P,
    SHMEMX_DEV_OP_G,
    SHMEMX_DEV_OP_AMO,
    SHMEMX_DEV_OP_PUT_SIGNAL
};
#define SHMEMX_DEV_WAIT (1u << 24)    /* the producer waits for the answer */
#define SHMEMX_DEV_SIG_ADD (1u << 25) /* put-with-signal: SHMEM_SIGNAL_ADD */
enum {
    SHMEMX_DEV_AMO_FETCH,
    SHMEMX_DEV_AMO_SET,
    SHMEMX_DEV_AMO_SWAP,
    SHMEMX_DEV_AMO_CSWAP,
    SHMEMX_DEV_AMO_ADD,
    SHMEMX_DEV_AMO_AND,
    SHMEMX_DEV_AMO_OR,
    SHMEMX_DEV_AMO_XOR
};
enum { SHMEMX_DEV_PROXY_RUNNING = 1, SHMEMX_DEV_PROXY_STOPPED = 2 };
#define SHMEMX_DEV_EMU_WARP 32 /* threads of an emu warp, as a CUDA warp */

/* ---- host routines (libshoal) ------------------------------------------------------ */
#pragma GCC visibility push(default)

/* This PE's state, built at the first call (after shmem_init, on every PE that uses
 * device-initiated routines); a pointer device code may read. Ends the job when there
 * is no device heap or the backend offers no device-initiated communication. */
struct shmemx_dev_state *shmemx_device_state(void);
/* emu only: runs kernel(thread, nthreads, arg) on nthreads threads and returns once
 * every thread has returned and every command they issued is complete. */
void shmemx_device_launch(void (*kernel)(int thread, int nthreads, void *arg), int nthreads,
                          void *arg);
/* Waits until every command device code has issued so far is complete. */
void shmemx_device_quiet(void);
/* For the emu routines below: wakes a sleeping proxy; sleeps a few microseconds (a
 * waiting kernel thread); ends the job with a message. */
void shmemx_device_wake_proxy(void);
void shmemx_device_nap(void);
void shmemx_device_abort(const char *routine, const char *what);
/* For the warp and block forms in emu kernels: the calling kernel thread's rank in its
 * warp (warp != 0: SHMEMX_DEV_EMU_WARP consecutive threads of the launch) or block
 * (every thread of the launch) and the group's size; a barrier of that group. Outside
 * an emu kernel thread they end the job naming routine. */
int shmemx_device_group(int warp, int *rank, const char *routine);
void shmemx_device_group_sync(int warp, const char *routine);
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* ---- primitives: plain C (emu) or the GPU's --------------------------------------- */

#ifdef SHMEMX_DEV_GPU
/* A copy of the state in device memory (its peer table too), so that the routines read
 * it at device speed; only the ring stays in host memory. */
static __device__ struct shmemx_dev_state shmemx_dev_st_;
#define shmemx_st_() (&shmemx_dev_st_)

SHMEMX_DEV_FN uint64_t shmemx_ld64_(const uint64_t *p)
{
    uint64_t v = *(const volatile uint64_t *)p;
    __threadfence_system();
    return v;
}
SHMEMX_DEV_FN uint32_t shmemx_ld32_(const uint32_t *p)
{
    uint32_t v = *(const volatile uint32_t *)p;
    __threadfence_system();
    return v;
}
SHMEMX_DEV_FN void shmemx_st64_(uint64_t *p, uint64_t v)
{
    __threadfence_system();
    *(volatile uint64_t *)p = v;
}
SHMEMX_DEV_FN uint64_t shmemx_fadd64_(uint64_t *p, uint64_t v)
{
    return atomicAdd_system((unsigned long long *)p, (unsigned long long)v);
}
SHMEMX_DEV_FN void shmemx_fence_(void)
{
    __threadfence_system();
}
SHMEMX_DEV_FN void shmemx_pause_(unsigned *polls)
{
    (void)polls;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(100);
#endif
}
SHMEMX_DEV_FN void shmemx_wake_(struct shmemx_dev_ring *r)
{
    /* No system call from a kernel: the proxy naps in short slices and sees the bell. */
    atomicAdd_system(&r->bell, 1u);
}
#define shmemx_abort_(routine, what)                                                         \
    do {                                                                                     \
        printf("shoal: PE %d: %s: %s\n", shmemx_dev_st_.my_pe, routine, what);              \
        __trap();                                                                            \
    } while (0)

/* Width-generic atomics on PE-reachable memory, system scope. */
SHMEMX_DEV_FN uint64_t shmemx_amo_here_(void *p, unsigned w, unsigned op, uint64_t v,
                                        uint64_t cmp)
{
    if (w == 4) {
        unsigned int *q = (unsigned int *)p, x = (unsigned int)v;
        switch (op) {
        case SHMEMX_DEV_AMO_FETCH: return atomicAdd_system(q, 0u);
        case SHMEMX_DEV_AMO_SET: atomicExch_system(q, x); return 0;
        case SHMEMX_DEV_AMO_SWAP: return atomicExch_system(q, x);
        case SHMEMX_DEV_AMO_CSWAP: return atomicCAS_system(q, (unsigned int)cmp, x);
        case SHMEMX_DEV_AMO_ADD: return atomicAdd_system(q, x);
        case SHMEMX_DEV_AMO_AND: return atomicAnd_system(q, x);
        case SHMEMX_DEV_AMO_OR: return atomicOr_system(q, x);
        default: return atomicXor_system(q, x);
        }
    }
    unsigned long long *q = (unsigned long long *)p, x = (unsigned long long)v;
    switch (op) {
    case SHMEMX_DEV_AMO_FETCH: return atomicAdd_system(q, 0ull);
    case SHMEMX_DEV_AMO_SET: atomicExch_system(q, x); return 0;
    case SHMEMX_DEV_AMO_SWAP: return atomicExch_system(q, x);
    case SHMEMX_DEV_AMO_CSWAP: return atomicCAS_system(q, (unsigned long long)cmp, x);
    case SHMEMX_DEV_AMO_ADD: return atomicAdd_system(q, x);
    case SHMEMX_DEV_AMO_AND: return atomicAnd_system(q, x);
    case SHMEMX_DEV_AMO_OR: return atomicOr_system(q, x);
    default: return atomicXor_system(q, x);
    }
}

/* Binds this translation unit's kernels to this PE's state (host code): copies it and
 * its peer table into device memory. 0, or -1. */
static inline int shmemx_cuda_bind(void)
{
    struct shmemx_dev_state s; /* read through its device address, as kernels would */
    size_t n;
    char **peer;
#ifdef __HIPCC__
    if (hipMemcpy(&s, shmemx_device_state(), sizeof s, hipMemcpyDefault) != hipSuccess)
        return -1;
    n = (size_t)s.n_pes * sizeof *s.peer;
    if (hipMalloc((void **)&peer, n) != hipSuccess ||
        hipMemcpy(peer, s.peer, n, hipMemcpyDefault) != hipSuccess)
        return -1;
    s.peer = peer;
    return hipMemcpyToSymbol(HIP_SYMBOL(shmemx_dev_st_), &s, sizeof s) == hipSuccess ? 0 : -1;
#else
    if (cudaMemcpy(&s, shmemx_device_state(), sizeof s, cudaMemcpyDefault) != cudaSuccess)
        return -1;
    n = (size_t)s.n_pes * sizeof *s.peer;
    if (cudaMalloc((void **)&peer, n) != cudaSuccess ||
        cudaMemcpy(peer, s.peer, n, cudaMemcpyDefault) != cudaSuccess)
        return -1;
    s.peer = peer;
    return cudaMemcpyToSymbol(shmemx_dev_st_, &s, sizeof s) == cudaSuccess ? 0 : -1;
#endif
}
#else /* plain C: kernels of the emulated device, on host threads */
#define shmemx_st_() shmemx_device_state()

SHMEMX_DEV_FN uint64_t shmemx_ld64_(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
SHMEMX_DEV_FN uint32_t shmemx_ld32_(const uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
SHMEMX_DEV_FN void shmemx_st64_(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
SHMEMX_DEV_FN uint64_t shmemx_fadd64_(uint64_t *p, uint64_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
SHMEMX_DEV_FN void shmemx_fence_(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
/* Emu kernels share the cores with the proxy and the other PEs: yield, then nap. */
SHMEMX_DEV_FN void shmemx_pause_(unsigned *polls)
{
    if (++*polls < 32)
        sched_yield();
    else
        shmemx_device_nap();
}
SHMEMX_DEV_FN void shmemx_wake_(struct shmemx_dev_ring *r)
{
    (void)r;
    shmemx_device_wake_proxy();
}
#define shmemx_abort_(routine, what) shmemx_device_abort(routine, what)

SHMEMX_DEV_FN uint64_t shmemx_amo_here_(void *p, unsigned w, unsigned op, uint64_t v,
                                        uint64_t cmp)
{
#define SHMEMX_AMO_C_(T)                                                                     \
    do {                                                                                     \
        T *q = (T *)p, x = (T)v, o = (T)cmp;                                                 \
        switch (op) {                                                                        \
        case SHMEMX_DEV_AMO_FETCH: return __atomic_load_n(q, __ATOMIC_SEQ_CST);              \
        case SHMEMX_DEV_AMO_SET: __atomic_store_n(q, x, __ATOMIC_SEQ_CST); return 0;         \
        case SHMEMX_DEV_AMO_SWAP: return __atomic_exchange_n(q, x, __ATOMIC_SEQ_CST);        \
        case SHMEMX_DEV_AMO_CSWAP:                                                           \
            __atomic_compare_exchange_n(q, &o, x, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
            return o;                                                                        \
        case SHMEMX_DEV_AMO_ADD: return __atomic_fetch_add(q, x, __ATOMIC_SEQ_CST);          \
        case SHMEMX_DEV_AMO_AND: return __atomic_fetch_and(q, x, __ATOMIC_SEQ_CST);          \
        case SHMEMX_DEV_AMO_OR: return __atomic_fetch_or(q, x, __ATOMIC_SEQ_CST);            \
        default: return __atomic_fetch_xor(q, x, __ATOMIC_SEQ_CST);                          \
        }                                                                                    \
    } while (0)
    if (w == 4)
        SHMEMX_AMO_C_(uint32_t);
    SHMEMX_AMO_C_(uint64_t);
#undef SHMEMX_AMO_C_
}
#endif

/* ---- the engine ------------------------------------------------------------------- */

/* The offset of [p, p + n) in this PE's device heap; ends the job when it is not there. */
SHMEMX_DEV_FN uint64_t shmemx_off_(const struct shmemx_dev_state *st, const void *p,
                                   size_t n, const char *routine)
{
    uint64_t o = (uint64_t)(uintptr_t)p - st->heap_base;
    if (o >= st->heap_size || n > st->heap_size - o)
        shmemx_abort_(routine, "the address is not a symmetric object of the device heap "
                               "(SHMEM_SPACE_DEVICE); device-initiated routines take only "
                               "those, and values");
    return o;
}

SHMEMX_DEV_FN char *shmemx_peer_(const struct shmemx_dev_state *st, int pe,
                                 const char *routine)
{
    if (pe < 0 || pe >= st->n_pes)
        shmemx_abort_(routine, "the PE number is out of range (0 to shmem_n_pes() - 1)");
    return st->peer[pe];
}

SHMEMX_DEV_FN void shmemx_check_proxy_(const struct shmemx_dev_ring *r, const char *routine)
{
    if (shmemx_ld32_(&r->state) != SHMEMX_DEV_PROXY_RUNNING)
        shmemx_abort_(routine, "the proxy thread has stopped with commands unfinished "
                               "(shmem_finalize ran while a kernel was still "
                               "communicating); end every kernel before shmem_finalize");
}

SHMEMX_DEV_FN void shmemx_bell_(struct shmemx_dev_ring *r)
{
    shmemx_fence_();
    if (shmemx_ld32_(&r->asleep))
        shmemx_wake_(r);
}

/* Posts one command and returns its ticket; waits while the ring is full. */
SHMEMX_DEV_FN uint64_t shmemx_post_(const struct shmemx_dev_state *st, uint32_t op, int pe,
                                    uint64_t dst, uint64_t src, uint64_t len, uint64_t sig,
                                    uint64_t signal, const char *routine)
{
    struct shmemx_dev_ring *r = st->ring;
    uint64_t t = shmemx_fadd64_(&r->head, 1);
    struct shmemx_dev_cmd *c = &st->cmd[t & (r->slots - 1)];
    if (shmemx_ld64_(&c->seq) != t) {
        unsigned polls = 0;
        shmemx_fadd64_(&r->stalls, 1);
        shmemx_bell_(r);
        while (shmemx_ld64_(&c->seq) != t) {
            shmemx_check_proxy_(r, routine);
            shmemx_pause_(&polls);
        }
    }
    c->op = op;
    c->pe = pe;
    c->dst = dst;
    c->src = src;
    c->len = len;
    c->sig = sig;
    c->signal = signal;
    shmemx_st64_(&c->seq, t + 1);
    shmemx_bell_(r);
    return t;
}

/* Waits for the answer of the blocking command of ticket t, then frees its slot. */
SHMEMX_DEV_FN uint64_t shmemx_answer_(const struct shmemx_dev_state *st, uint64_t t,
                                      const char *routine)
{
    struct shmemx_dev_ring *r = st->ring;
    struct shmemx_dev_cmd *c = &st->cmd[t & (r->slots - 1)];
    unsigned polls = 0;
    while (shmemx_ld64_(&c->seq) != t + 2) {
        shmemx_check_proxy_(r, routine);
        shmemx_pause_(&polls);
    }
    uint64_t v = *(volatile uint64_t *)&c->ret;
    shmemx_st64_(&c->seq, t + r->slots);
    return v;
}

SHMEMX_DEV_FN void shmemx_copy_(char *d, const char *s, size_t n)
{
    memcpy(d, s, n);
}

/* A put, or with get a get, of n bytes between dest and source (symmetric objects of
 * the device heap): a copy through the peer's mapping where device code reaches it,
 * otherwise a command to the proxy, whose answer a blocking one (not nbi) waits for. */
SHMEMX_DEV_FN void shmemx_rma_(void *dest, const void *source, size_t n, int pe, int nbi,
                               int get, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    if (!n)
        return;
    char *p = shmemx_peer_(st, pe, routine);
    uint64_t d = shmemx_off_(st, dest, n, routine), s = shmemx_off_(st, source, n, routine);
    if (p) {
        char *here = st->peer[st->my_pe];
        if (get)
            shmemx_copy_(here + d, p + s, n);
        else
            shmemx_copy_(p + d, here + s, n);
        return;
    }
    uint32_t op = get ? SHMEMX_DEV_OP_GET : SHMEMX_DEV_OP_PUT;
    uint64_t t = shmemx_post_(st, op | (nbi ? 0u : SHMEMX_DEV_WAIT), pe, d, s, n, 0, 0,
                              routine);
    if (!nbi)
        shmemx_answer_(st, t, routine);
}

/* p and g of w <= 8 bytes, the value as bits. */
SHMEMX_DEV_FN void shmemx_p_(void *dest, uint64_t bits, unsigned w, int pe,
                             const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    char *p = shmemx_peer_(st, pe, routine);
    uint64_t d = shmemx_off_(st, dest, w, routine);
    if (p)
        shmemx_copy_(p + d, (const char *)&bits, w);
    else
        shmemx_post_(st, SHMEMX_DEV_OP_P | w << 16, pe, d, bits, w, 0, 0, routine);
}

SHMEMX_DEV_FN uint64_t shmemx_g_(const void *source, unsigned w, int pe, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    char *p = shmemx_peer_(st, pe, routine);
    uint64_t s = shmemx_off_(st, source, w, routine), v = 0;
    if (p)
        shmemx_copy_((char *)&v, p + s, w);
    else
        v = shmemx_answer_(st,
                           shmemx_post_(st, SHMEMX_DEV_OP_G | SHMEMX_DEV_WAIT | w << 16, pe, 0,
                                        s, w, 0, 0, routine),
                           routine);
    return v;
}

SHMEMX_DEV_FN uint64_t shmemx_amo_(void *dest, unsigned w, unsigned op, uint64_t v,
                                   uint64_t cmp, int fetch, int pe, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    char *p = shmemx_peer_(st, pe, routine);
    uint64_t d = shmemx_off_(st, dest, w, routine);
    if (p && st->direct_amo)
        return shmemx_amo_here_(p + d, w, op, v, cmp);
    uint64_t t = shmemx_post_(st,
                              SHMEMX_DEV_OP_AMO | op << 8 | w << 16 |
                                      (fetch ? SHMEMX_DEV_WAIT : 0u),
                              pe, d, v, cmp, 0, 0, routine);
    return fetch ? shmemx_answer_(st, t, routine) : 0;
}

SHMEMX_DEV_FN void shmemx_put_signal_(void *dest, const void *source, size_t n,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                      int nbi, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    char *p = shmemx_peer_(st, pe, routine);
    uint64_t d = n ? shmemx_off_(st, dest, n, routine) : 0;
    uint64_t s = n ? shmemx_off_(st, source, n, routine) : 0;
    uint64_t g = shmemx_off_(st, sig_addr, sizeof *sig_addr, routine);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemx_abort_(routine, "sig_op must be SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD");
    if (p) {
        unsigned amo = sig_op == SHMEM_SIGNAL_ADD ? SHMEMX_DEV_AMO_ADD : SHMEMX_DEV_AMO_SET;
        if (n)
            shmemx_copy_(p + d, st->peer[st->my_pe] + s, n);
        shmemx_fence_(); /* the payload is visible before the signal */
        if (st->direct_amo)
            shmemx_amo_here_(p + g, 8, amo, signal, 0);
        else /* atomic with other nodes' updates of the word only at the proxy (AMOs) */
            shmemx_post_(st, SHMEMX_DEV_OP_AMO | amo << 8 | 8u << 16, pe, g, signal, 0, 0, 0,
                         routine);
        return;
    }
    uint32_t op = SHMEMX_DEV_OP_PUT_SIGNAL | (nbi ? 0u : SHMEMX_DEV_WAIT) |
                  (sig_op == SHMEM_SIGNAL_ADD ? SHMEMX_DEV_SIG_ADD : 0u);
    uint64_t t = shmemx_post_(st, op, pe, d, s, n, g, signal, routine);
    if (!nbi)
        shmemx_answer_(st, t, routine);
}

SHMEMX_DEV_FN int shmemx_cmp_(int cmp, uint64_t a, uint64_t b, int is_signed)
{
    int lt = is_signed ? (int64_t)a < (int64_t)b : a < b;
    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return !lt && a != b;
    case SHMEM_CMP_GE: return !lt;
    case SHMEM_CMP_LT: return lt;
    default: return lt || a == b;
    }
}

/* Polls a word of this PE's device heap until cmp holds; returns the value seen. */
SHMEMX_DEV_FN uint64_t shmemx_wait_(const void *ivar, unsigned w, int is_signed, int cmp,
                                    uint64_t value, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmemx_abort_(routine, "cmp must be one of SHMEM_CMP_EQ, NE, GT, GE, LT, LE");
    char *q = st->peer[st->my_pe] + shmemx_off_(st, ivar, w, routine);
    unsigned polls = 0;
    for (;;) {
        uint64_t v = shmemx_amo_here_(q, w, SHMEMX_DEV_AMO_FETCH, 0, 0);
        if (w == 4 && is_signed)
            v = (uint64_t)(int64_t)(int32_t)v; /* compare as the type does */
        if (shmemx_cmp_(cmp, v, w == 4 && is_signed ? (uint64_t)(int64_t)(int32_t)value
                                                    : value,
                        is_signed)) {
            shmemx_fence_(); /* what the signal guards is read after it */
            return v;
        }
        shmemx_pause_(&polls);
    }
}

/* ---- the routines ----------------------------------------------------------------- */
SHMEMX_DEV_FN int shmemx_dev_my_pe(void)
{
    return shmemx_st_()->my_pe;
}
SHMEMX_DEV_FN int shmemx_dev_n_pes(void)
{
    return shmemx_st_()->n_pes;
}

/* Where device code may load and store dest on pe (same node), or NULL. */
SHMEMX_DEV_FN void *shmemx_dev_ptr(const void *dest, int pe)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    char *p = shmemx_peer_(st, pe, "shmemx_dev_ptr");
    return p ? p + shmemx_off_(st, dest, 1, "shmemx_dev_ptr") : NULL;
}

SHMEMX_DEV_FN void shmemx_dev_putmem(void *dest, const void *source, size_t n, int pe)
{
    shmemx_rma_(dest, source, n, pe, 0, 0, "shmemx_dev_putmem");
}
SHMEMX_DEV_FN void shmemx_dev_putmem_nbi(void *dest, const void *source, size_t n, int pe)
{
    shmemx_rma_(dest, source, n, pe, 1, 0, "shmemx_dev_putmem_nbi");
}
SHMEMX_DEV_FN void shmemx_dev_getmem(void *dest, const void *source, size_t n, int pe)
{
    shmemx_rma_(dest, source, n, pe, 0, 1, "shmemx_dev_getmem");
}
SHMEMX_DEV_FN void shmemx_dev_getmem_nbi(void *dest, const void *source, size_t n, int pe)
{
    shmemx_rma_(dest, source, n, pe, 1, 1, "shmemx_dev_getmem_nbi");
}
SHMEMX_DEV_FN void shmemx_dev_putmem_signal(void *dest, const void *source, size_t n,
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,
                                            int pe)
{
    shmemx_put_signal_(dest, source, n, sig_addr, signal, sig_op, pe, 0,
                       "shmemx_dev_putmem_signal");
}
SHMEMX_DEV_FN void shmemx_dev_putmem_signal_nbi(void *dest, const void *source, size_t n,
                                                uint64_t *sig_addr, uint64_t signal,
                                                int sig_op, int pe)
{
    shmemx_put_signal_(dest, source, n, sig_addr, signal, sig_op, pe, 1,
                       "shmemx_dev_putmem_signal_nbi");
}

/* Every put, AMO and signal issued before it, by any thread of this PE, is complete. */
SHMEMX_DEV_FN void shmemx_dev_quiet(void)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    shmemx_fence_();
    struct shmemx_dev_ring *r = st->ring;
    if (!r)
        return;
    uint64_t t = shmemx_ld64_(&r->head);
    if (shmemx_ld64_(&r->done) >= t)
        return;
    shmemx_bell_(r);
    unsigned polls = 0;
    while (shmemx_ld64_(&r->done) < t) {
        shmemx_check_proxy_(r, "shmemx_dev_quiet");
        shmemx_pause_(&polls);
    }
}

/* Puts issued before it reach each PE before puts, AMOs and signals issued after it.
 * A PE may get direct stores and proxied commands (every AMO takes the proxy when
 * there is one), and nothing orders a later store behind a command still in the ring,
 * so with proxied commands pending it completes them, as quiet does. */
SHMEMX_DEV_FN void shmemx_dev_fence(void)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    shmemx_fence_();
    struct shmemx_dev_ring *r = st->ring;
    if (r && shmemx_ld64_(&r->done) != shmemx_ld64_(&r->head))
        shmemx_dev_quiet();
}

SHMEMX_DEV_FN uint64_t shmemx_dev_signal_wait_until(uint64_t *sig_addr, int cmp,
                                                    uint64_t value)
{
    return shmemx_wait_(sig_addr, 8, 0, cmp, value, "shmemx_dev_signal_wait_until");
}

SHMEMX_DEV_FN uint64_t shmemx_dev_signal_fetch(const uint64_t *sig_addr)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    char *q = st->peer[st->my_pe] + shmemx_off_(st, sig_addr, 8, "shmemx_dev_signal_fetch");
    return shmemx_amo_here_(q, 8, SHMEMX_DEV_AMO_FETCH, 0, 0);
}

/* Typed families, from the specification's type tables (shoal/type_tables.h). The
 * value of p, g and the AMOs travels as bits: two's complement makes signed and
 * unsigned alike, floats only move. */
/* Every RMA type of at most 8 bytes (long double is not one): p and g, and the RMA
 * types of device code. */
#define SHMEMX_DEV_PG_TYPES_(X)                                                              \
    X(float, float) X(double, double) X(char, char) X(signed char, schar) X(short, short)   \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)                 \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                  \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)    \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)             \
    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

#define SHMEMX_DEV_RMA_(T, N)                                                                \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                        \
        shmemx_rma_(dest, source, nelems * sizeof(T), pe, 0, 0, "shmemx_dev_" #N "_put");       \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_nbi(T *dest, const T *source, size_t nelems,     \
                                                int pe)                                      \
    {                                                                                        \
        shmemx_rma_(dest, source, nelems * sizeof(T), pe, 1, 0, "shmemx_dev_" #N "_put_nbi");   \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                        \
        shmemx_rma_(dest, source, nelems * sizeof(T), pe, 0, 1, "shmemx_dev_" #N "_get");       \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get_nbi(T *dest, const T *source, size_t nelems,     \
                                                int pe)                                      \
    {                                                                                        \
        shmemx_rma_(dest, source, nelems * sizeof(T), pe, 1, 1, "shmemx_dev_" #N "_get_nbi");   \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_signal(T *dest, const T *source, size_t nelems,  \
                                                   uint64_t *sig_addr, uint64_t signal,      \
                                                   int sig_op, int pe)                       \
    {                                                                                        \
        shmemx_put_signal_(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe,   \
                           0, "shmemx_dev_" #N "_put_signal");                               \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_signal_nbi(T *dest, const T *source,             \
                                                       size_t nelems, uint64_t *sig_addr,    \
                                                       uint64_t signal, int sig_op, int pe)  \
    {                                                                                        \
        shmemx_put_signal_(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe,   \
                           1, "shmemx_dev_" #N "_put_signal_nbi");                           \
    }
/* Device code has no long double (CUDA treats it as double): host-only there. */
#ifdef SHMEMX_DEV_GPU
SHMEMX_DEV_PG_TYPES_(SHMEMX_DEV_RMA_)
#else
SHMEM_RMA_TYPES(SHMEMX_DEV_RMA_)
#endif
#undef SHMEMX_DEV_RMA_

/* ---- warp and block forms ---------------------------------------------------------- */
/* Every thread of the warp or block calls them with the same arguments. Same-node
 * PEs: the threads split the copy (each stores its share), so the call returns in
 * each thread once the whole group's copy is done; a put-with-signal's signal is
 * issued by the group's first thread after every share is stored and fenced. Other
 * PEs: the first thread posts the one command (and for the blocking forms waits for
 * its answer) while the others wait for it. Every form ends with a barrier of the
 * group, so it returns in all threads as the thread form would in one. */
#ifdef SHMEMX_DEV_GPU
/* The calling thread's rank in its warp (warp != 0) or block, and the group's size: a
 * block's last warp may be partial. */
SHMEMX_DEV_FN unsigned shmemx_grp_(int warp, unsigned *size, const char *routine)
{
    (void)routine;
    unsigned i = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    if (!warp) {
        *size = nt;
        return i;
    }
    unsigned first = i - i % warpSize;
    *size = nt - first < (unsigned)warpSize ? nt - first : (unsigned)warpSize;
    return i - first;
}
SHMEMX_DEV_FN void shmemx_grp_sync_(int warp, unsigned size, const char *routine)
{
    (void)routine;
    if (!warp)
        __syncthreads();
    else
#ifdef __HIPCC__
        __builtin_amdgcn_wave_barrier(); /* a wavefront runs in lockstep */
#else
        __syncwarp(size >= 32 ? 0xffffffffu : (1u << size) - 1u);
#endif
}
/* Thread i of nt copies every nt-th 16-byte word (coalesced), or byte when the two
 * addresses disagree modulo 16. */
SHMEMX_DEV_FN void shmemx_copy_grp_(char *d, const char *s, size_t n, unsigned i,
                                    unsigned nt)
{
    size_t k = 0;
    if ((((uintptr_t)d ^ (uintptr_t)s) & 15) == 0) {
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        head = head < n ? head : n;
        for (k = i; k < head; k += nt)
            d[k] = s[k];
        size_t w = (n - head) / 16;
        uint4 *dv = (uint4 *)(d + head);
        const uint4 *sv = (const uint4 *)(s + head);
        for (k = i; k < w; k += nt)
            dv[k] = sv[k];
        k = head + w * 16;
    }
    for (k += i; k < n; k += nt)
        d[k] = s[k];
}
#else
SHMEMX_DEV_FN unsigned shmemx_grp_(int warp, unsigned *size, const char *routine)
{
    int rank;
    *size = (unsigned)shmemx_device_group(warp, &rank, routine);
    return (unsigned)rank;
}
SHMEMX_DEV_FN void shmemx_grp_sync_(int warp, unsigned size, const char *routine)
{
    (void)size;
    shmemx_device_group_sync(warp, routine);
}
/* Thread i of nt copies the i-th of nt contiguous shares (whole cache lines). */
SHMEMX_DEV_FN void shmemx_copy_grp_(char *d, const char *s, size_t n, unsigned i,
                                    unsigned nt)
{
    size_t share = ((n + nt - 1) / nt + 63) & ~(size_t)63, a = (size_t)i * share;
    if (a < n)
        memcpy(d + a, s + a, n - a < share ? n - a : share);
}
#endif

SHMEMX_DEV_FN void shmemx_grp_rma_(int warp, void *dest, const void *source, size_t n, int pe,
                                   int nbi, int get, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    unsigned size, rank = shmemx_grp_(warp, &size, routine);
    char *p = shmemx_peer_(st, pe, routine);
    if (p && n) {
        uint64_t d = shmemx_off_(st, dest, n, routine), s = shmemx_off_(st, source, n, routine);
        char *here = st->peer[st->my_pe];
        if (get)
            shmemx_copy_grp_(here + d, p + s, n, rank, size);
        else
            shmemx_copy_grp_(p + d, here + s, n, rank, size);
    } else if (!p && rank == 0) {
        shmemx_rma_(dest, source, n, pe, nbi, get, routine);
    }
    shmemx_grp_sync_(warp, size, routine);
}

SHMEMX_DEV_FN void shmemx_grp_put_signal_(int warp, void *dest, const void *source, size_t n,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,
                                          int pe, int nbi, const char *routine)
{
    const struct shmemx_dev_state *st = shmemx_st_();
    unsigned size, rank = shmemx_grp_(warp, &size, routine);
    char *p = shmemx_peer_(st, pe, routine);
    if (p) {
        if (n) {
            uint64_t d = shmemx_off_(st, dest, n, routine);
            uint64_t s = shmemx_off_(st, source, n, routine);
            shmemx_copy_grp_(p + d, st->peer[st->my_pe] + s, n, rank, size);
        }
        shmemx_fence_(); /* each share is visible before the signal */
        shmemx_grp_sync_(warp, size, routine);
        if (rank == 0) /* the signal alone: the payload is there */
            shmemx_put_signal_(dest, source, 0, sig_addr, signal, sig_op, pe, nbi, routine);
    } else if (rank == 0) {
        shmemx_put_signal_(dest, source, n, sig_addr, signal, sig_op, pe, nbi, routine);
    }
    shmemx_grp_sync_(warp, size, routine);
}

#define SHMEMX_DEV_GRP_(G, W)                                                                \
    SHMEMX_DEV_FN void shmemx_dev_putmem_##G(void *dest, const void *source, size_t n, int pe) \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, n, pe, 0, 0, "shmemx_dev_putmem_" #G);              \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_putmem_nbi_##G(void *dest, const void *source, size_t n,   \
                                                 int pe)                                     \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, n, pe, 1, 0, "shmemx_dev_putmem_nbi_" #G);          \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_getmem_##G(void *dest, const void *source, size_t n, int pe) \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, n, pe, 0, 1, "shmemx_dev_getmem_" #G);              \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_getmem_nbi_##G(void *dest, const void *source, size_t n,   \
                                                 int pe)                                     \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, n, pe, 1, 1, "shmemx_dev_getmem_nbi_" #G);          \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_putmem_signal_##G(void *dest, const void *source, size_t n, \
                                                    uint64_t *sig_addr, uint64_t signal,     \
                                                    int sig_op, int pe)                      \
    {                                                                                        \
        shmemx_grp_put_signal_(W, dest, source, n, sig_addr, signal, sig_op, pe, 0,          \
                               "shmemx_dev_putmem_signal_" #G);                              \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_putmem_signal_nbi_##G(void *dest, const void *source,      \
                                                        size_t n, uint64_t *sig_addr,        \
                                                        uint64_t signal, int sig_op, int pe) \
    {                                                                                        \
        shmemx_grp_put_signal_(W, dest, source, n, sig_addr, signal, sig_op, pe, 1,          \
                               "shmemx_dev_putmem_signal_nbi_" #G);                          \
    }
SHMEMX_DEV_GRP_(warp, 1)
SHMEMX_DEV_GRP_(block, 0)
#undef SHMEMX_DEV_GRP_

/* Typed warp and block forms, over the same types as the thread forms. */
#define SHMEMX_DEV_GRP_T1_(T, N, G, W)                                                       \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_##G(T *dest, const T *source, size_t nelems,     \
                                                int pe)                                      \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, nelems * sizeof(T), pe, 0, 0,                       \
                        "shmemx_dev_" #N "_put_" #G);                                        \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_nbi_##G(T *dest, const T *source, size_t nelems, \
                                                    int pe)                                  \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, nelems * sizeof(T), pe, 1, 0,                       \
                        "shmemx_dev_" #N "_put_nbi_" #G);                                    \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get_##G(T *dest, const T *source, size_t nelems,     \
                                                int pe)                                      \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, nelems * sizeof(T), pe, 0, 1,                       \
                        "shmemx_dev_" #N "_get_" #G);                                        \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get_nbi_##G(T *dest, const T *source, size_t nelems, \
                                                    int pe)                                  \
    {                                                                                        \
        shmemx_grp_rma_(W, dest, source, nelems * sizeof(T), pe, 1, 1,                       \
                        "shmemx_dev_" #N "_get_nbi_" #G);                                    \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_signal_##G(T *dest, const T *source,             \
                                                       size_t nelems, uint64_t *sig_addr,    \
                                                       uint64_t signal, int sig_op, int pe)  \
    {                                                                                        \
        shmemx_grp_put_signal_(W, dest, source, nelems * sizeof(T), sig_addr, signal,        \
                               sig_op, pe, 0, "shmemx_dev_" #N "_put_signal_" #G);           \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_signal_nbi_##G(T *dest, const T *source,         \
                                                           size_t nelems, uint64_t *sig_addr, \
                                                           uint64_t signal, int sig_op,      \
                                                           int pe)                           \
    {                                                                                        \
        shmemx_grp_put_signal_(W, dest, source, nelems * sizeof(T), sig_addr, signal,        \
                               sig_op, pe, 1, "shmemx_dev_" #N "_put_signal_nbi_" #G);       \
    }
#define SHMEMX_DEV_GRP_T_(T, N) SHMEMX_DEV_GRP_T1_(T, N, warp, 1) SHMEMX_DEV_GRP_T1_(T, N, block, 0)
#ifdef SHMEMX_DEV_GPU
SHMEMX_DEV_PG_TYPES_(SHMEMX_DEV_GRP_T_)
#else
SHMEM_RMA_TYPES(SHMEMX_DEV_GRP_T_)
#endif
#undef SHMEMX_DEV_GRP_T_
#undef SHMEMX_DEV_GRP_T1_

#define SHMEMX_DEV_PG_(T, N)                                                                 \
    SHMEMX_DEV_FN void shmemx_dev_##N##_p(T *dest, T value, int pe)                          \
    {                                                                                        \
        uint64_t b = 0;                                                                      \
        memcpy(&b, &value, sizeof value);                                                    \
        shmemx_p_(dest, b, sizeof value, pe, "shmemx_dev_" #N "_p");                         \
    }                                                                                        \
    SHMEMX_DEV_FN T shmemx_dev_##N##_g(const T *source, int pe)                              \
    {                                                                                        \
        uint64_t b = shmemx_g_(source, sizeof(T), pe, "shmemx_dev_" #N "_g");                \
        T v;                                                                                 \
        memcpy(&v, &b, sizeof v);                                                            \
        return v;                                                                            \
    }
SHMEMX_DEV_PG_TYPES_(SHMEMX_DEV_PG_)
#undef SHMEMX_DEV_PG_

#define SHMEMX_DEV_AMO_CALL_(T, dest, op, v, cmp, fetch, pe, name)                           \
    uint64_t vb = 0, cb = 0;                                                                 \
    T vv = (v), cv = (cmp);                                                                  \
    memcpy(&vb, &vv, sizeof vv);                                                             \
    memcpy(&cb, &cv, sizeof cv);                                                             \
    uint64_t r = shmemx_amo_(dest, sizeof(T), op, vb, cb, fetch, pe, name);                  \
    T out;                                                                                   \
    memcpy(&out, &r, sizeof out);

#define SHMEMX_DEV_AMO_STD_(T, N)                                                            \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_add(T *dest, T value, int pe)              \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, dest, SHMEMX_DEV_AMO_ADD, value, 0, 1, pe,                   \
                             "shmemx_dev_" #N "_atomic_fetch_add")                           \
        return out;                                                                          \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_add(T *dest, T value, int pe)                 \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, dest, SHMEMX_DEV_AMO_ADD, value, 0, 0, pe,                   \
                             "shmemx_dev_" #N "_atomic_add")                                 \
        (void)out;                                                                           \
    }                                                                                        \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_inc(T *dest, int pe)                       \
    {                                                                                        \
        return shmemx_dev_##N##_atomic_fetch_add(dest, (T)1, pe);                            \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_inc(T *dest, int pe)                          \
    {                                                                                        \
        shmemx_dev_##N##_atomic_add(dest, (T)1, pe);                                         \
    }                                                                                        \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)   \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, dest, SHMEMX_DEV_AMO_CSWAP, value, cond, 1, pe,              \
                             "shmemx_dev_" #N "_atomic_compare_swap")                        \
        return out;                                                                          \
    }                                                                                        \
    SHMEMX_DEV_FN T shmemx_dev_##N##_wait_until(T *ivar, int cmp, T value)                   \
    {                                                                                        \
        uint64_t vb = 0;                                                                     \
        memcpy(&vb, &value, sizeof value);                                                   \
        uint64_t r = shmemx_wait_(ivar, sizeof(T), (T)-1 < (T)1, cmp, vb,                    \
                                  "shmemx_dev_" #N "_wait_until");                           \
        T out;                                                                               \
        memcpy(&out, &r, sizeof out);                                                        \
        return out;                                                                          \
    }
SHMEM_AMO_STD_TYPES(SHMEMX_DEV_AMO_STD_)
#undef SHMEMX_DEV_AMO_STD_

#define SHMEMX_DEV_AMO_EXT_(T, N)                                                            \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch(const T *source, int pe)                   \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, (T *)source, SHMEMX_DEV_AMO_FETCH, 0, 0, 1, pe,              \
                             "shmemx_dev_" #N "_atomic_fetch")                               \
        return out;                                                                          \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_set(T *dest, T value, int pe)                 \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, dest, SHMEMX_DEV_AMO_SET, value, 0, 0, pe,                   \
                             "shmemx_dev_" #N "_atomic_set")                                 \
        (void)out;                                                                           \
    }                                                                                        \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_swap(T *dest, T value, int pe)                   \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, dest, SHMEMX_DEV_AMO_SWAP, value, 0, 1, pe,                  \
                             "shmemx_dev_" #N "_atomic_swap")                                \
        return out;                                                                          \
    }
SHMEM_AMO_EXT_TYPES(SHMEMX_DEV_AMO_EXT_)
#undef SHMEMX_DEV_AMO_EXT_

#define SHMEMX_DEV_AMO_BIT1_(T, N, OP, op)                                                   \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_##op(T *dest, T value, int pe)             \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, dest, SHMEMX_DEV_AMO_##OP, value, 0, 1, pe,                  \
                             "shmemx_dev_" #N "_atomic_fetch_" #op)                          \
        return out;                                                                          \
    }                                                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_##op(T *dest, T value, int pe)                \
    {                                                                                        \
        SHMEMX_DEV_AMO_CALL_(T, dest, SHMEMX_DEV_AMO_##OP, value, 0, 0, pe,                  \
                             "shmemx_dev_" #N "_atomic_" #op)                                \
        (void)out;                                                                           \
    }
#define SHMEMX_DEV_AMO_BIT_(T, N)                                                            \
    SHMEMX_DEV_AMO_BIT1_(T, N, AND, and)                                                     \
    SHMEMX_DEV_AMO_BIT1_(T, N, OR, or) SHMEMX_DEV_AMO_BIT1_(T, N, XOR, xor)
SHMEM_AMO_BIT_TYPES(SHMEMX_DEV_AMO_BIT_)
#undef SHMEMX_DEV_AMO_BIT_
#undef SHMEMX_DEV_AMO_BIT1_

#include <shoal/device_coll.h>

#endif
