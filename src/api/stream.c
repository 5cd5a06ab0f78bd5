/* Stream-ordered operations (shmemx_*_on_stream, docs/gpu.md).
 *
 * A call queues the operation here and two stream memory operations on the program's
 * stream: a write of the operation's sequence number into a host word ("ready") and a
 * wait on a second word ("done"). The calling thread returns at once. When the stream
 * reaches the write, the work before it on the stream is complete; a proxy thread of
 * this PE sees the word, runs the operation with the ordinary routines (blocking ones,
 * so its data is in place or delivered), and writes done, which releases the stream.
 * So each operation runs after the stream's earlier work and before its later work, on
 * every backend, across nodes too, with the host thread never waiting for the GPU.
 *
 * The words come in pairs, one per slot; an operation takes slot seq % SLOTS, so at
 * most SLOTS operations are outstanding and a further call waits for the oldest (the
 * stream memory operations compare cyclically, so sequence numbers may wrap). The
 * proxy serves operations in the order their streams reach them; a wait whose
 * condition does not hold yet stays in the list while the proxy serves the others.
 * Collectives block the proxy while they run.
 *
 * What the stream can do on its own needs no proxy: a put or get between device
 * memory of this PE and a same-node PE's device heap is a copy through the peer's IPC
 * mapping, a SET signal into such a heap a 64-bit stream write, and a wait for EQ or
 * GE on this PE's device heap a 64-bit stream wait (while the network does not write
 * device memory itself, which would need a flush before the stream goes on). */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "base/backoff.h"
#include "device/device.h"

#define SLOTS 1024u

enum sop_kind {
    SOP_PUT,
    SOP_GET,
    SOP_PUT_SIGNAL,
    SOP_SIGNAL_WAIT,
    SOP_QUIET,
    SOP_BARRIER,
    SOP_BROADCAST,
    SOP_ALLTOALL,
    SOP_REDUCE,
};

struct sop {
    struct sop *next;
    enum sop_kind kind;
    const char *routine; /* the call that queued it, for errors */
    uint32_t seq;
    void *dest;
    const void *src;
    size_t n;
    int pe; /* the target, or the broadcast's root */
    uint64_t *sig;
    uint64_t signal;
    int sig_op; /* or the comparison of a wait */
    shmem_team_t team;
    int (*reduce)(shmem_team_t, void *, const void *, size_t);
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;    /* the proxy: work queued, or stop */
    pthread_cond_t settled; /* callers: an operation finished */
    pthread_t proxy;
    int started, stop;
    uint32_t *words;     /* ready = words[2 * slot], done = words[2 * slot + 1] */
    uint32_t *words_dev; /* the same words, where the device's streams reach them */
    uint32_t next_seq;
    unsigned outstanding;
    struct sop *head, *tail;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER,
         .wake = PTHREAD_COND_INITIALIZER,
         .settled = PTHREAD_COND_INITIALIZER };

/* Slot seq's words: as the proxy reads them (words), or as streams reach them. */
static inline uint32_t *ready_word(uint32_t *words, uint32_t seq)
{
    return &words[2 * (seq % SLOTS)];
}
static inline uint32_t *done_word(uint32_t *words, uint32_t seq)
{
    return &words[2 * (seq % SLOTS) + 1];
}

static int reached(const struct sop *o)
{
    return (int32_t)(__atomic_load_n(ready_word(st.words, o->seq), __ATOMIC_ACQUIRE) -
                     o->seq) >= 0;
}

/* The comparison of shmem_uint64_test, which reads a device word by a device copy. */
static int wait_holds(const struct sop *o)
{
    return shmem_uint64_test(o->sig, o->sig_op, o->signal);
}

static void run(const struct sop *o)
{
    int rc = 0;
    switch (o->kind) {
    case SOP_PUT: shmem_putmem(o->dest, o->src, o->n, o->pe); break;
    case SOP_GET: shmem_getmem(o->dest, o->src, o->n, o->pe); break;
    case SOP_PUT_SIGNAL:
        shmem_putmem_signal(o->dest, o->src, o->n, o->sig, o->signal, o->sig_op, o->pe);
        break;
    case SOP_SIGNAL_WAIT: shoal_dev_settle_nic_writes(); break;
    case SOP_QUIET: shmem_quiet(); break;
    case SOP_BARRIER:
        shmem_quiet();
        rc = shmem_team_sync(o->team);
        break;
    case SOP_BROADCAST: rc = shmem_broadcastmem(o->team, o->dest, o->src, o->n, o->pe); break;
    case SOP_ALLTOALL: rc = shmem_alltoallmem(o->team, o->dest, o->src, o->n); break;
    case SOP_REDUCE: rc = o->reduce(o->team, o->dest, o->src, o->n); break;
    }
    if (rc)
        shoal_fatal(o->routine, "the collective failed when its stream reached it (%d)", rc);
}

/* The next operation its stream has reached (a wait: whose condition holds), or NULL. */
static struct sop *next_reached(struct sop **prev_out)
{
    struct sop *prev = NULL;
    for (struct sop *o = st.head; o; prev = o, o = o->next)
        if (reached(o) && (o->kind != SOP_SIGNAL_WAIT || wait_holds(o))) {
            *prev_out = prev;
            return o;
        }
    return NULL;
}

/* Polls while operations wait for their streams, driving the network meanwhile. With a
 * core of its own (shoal_wait.own_core) it spins for about 50 us after the last one
 * ran, since a stream that has just reached one often reaches the next soon; on cores
 * the PEs share it does not, since the spin takes the core that the thread it waits
 * for needs. Then it naps up to 50 us at a time, so a proxy waiting behind a long
 * kernel costs little CPU: a futex wait on the oldest operation's ready word, which a
 * GPU's write ends at the timeout and a stream run by a host thread (emu) at once. */
#define SPIN_US 50
#define NAP_NS 50000L

static void *proxy_main(void *arg)
{
    (void)arg;
    struct timespec idle_since;
    clock_gettime(CLOCK_MONOTONIC, &idle_since);
    pthread_mutex_lock(&st.lock);
    for (;;) {
        while (!st.head && !st.stop)
            pthread_cond_wait(&st.wake, &st.lock);
        if (!st.head)
            break;
        struct sop *prev, *o = next_reached(&prev);
        if (!o) {
            pthread_mutex_unlock(&st.lock);
            /* The program's threads may all wait for their streams, outside Shoal:
             * what peers' operations need from this PE, the proxy drives. */
            shoal_progress();
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long us = (now.tv_sec - idle_since.tv_sec) * 1000000L +
                    (now.tv_nsec - idle_since.tv_nsec) / 1000;
            if (!shoal_wait.own_core || us > SPIN_US) {
                /* Only this thread unlinks operations: the head stays while it naps. */
                pthread_mutex_lock(&st.lock);
                uint32_t seq = st.head->seq, *w = ready_word(st.words, seq);
                pthread_mutex_unlock(&st.lock);
                uint32_t seen = __atomic_load_n(w, __ATOMIC_ACQUIRE);
                if ((int32_t)(seen - seq) < 0)
                    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen,
                            &(struct timespec){ 0, NAP_NS }, NULL, 0);
            }
            pthread_mutex_lock(&st.lock);
            continue;
        }
        /* Unlinked first: callers may queue behind it while it runs. */
        if (prev)
            prev->next = o->next;
        else
            st.head = o->next;
        if (st.tail == o)
            st.tail = prev;
        pthread_mutex_unlock(&st.lock);
        run(o);
        __atomic_store_n(done_word(st.words, o->seq), o->seq, __ATOMIC_RELEASE);
        shoal_dev_stream_word_written(done_word(st.words, o->seq));
        free(o);
        clock_gettime(CLOCK_MONOTONIC, &idle_since);
        pthread_mutex_lock(&st.lock);
        st.outstanding--;
        pthread_cond_broadcast(&st.settled);
    }
    pthread_mutex_unlock(&st.lock);
    return NULL;
}

/* Under st.lock: the words and the proxy, at the first operation. */
static void start(const char *routine)
{
    if (!shoal_dev)
        shoal_fatal(routine,
                    "stream operations need a device backend; set "
                    "SHMEM_SYMMETRIC_SIZE_DEVICE or SHMEM_ENABLE_DEVICE_AWARENESS=1 "
                    "(and SHOAL_DEVICE)");
    void *dev = NULL;
    if (shoal_dev->host_alloc)
        st.words = shoal_dev->host_alloc(2 * SLOTS * sizeof *st.words, &dev);
    st.words_dev = dev;
    if (!st.words)
        shoal_fatal(routine,
                    "the %s device gives no host memory its streams can reach; "
                    "check the GPU driver",
                    shoal_dev->name);
    if (pthread_create(&st.proxy, NULL, proxy_main, NULL))
        shoal_fatal(routine, "cannot start the stream proxy thread");
    st.started = 1;
}

static void queue(shmemx_stream_t stream, struct sop *proto)
{
    const char *routine = proto->routine;
    shoal_require_init(routine);
    struct sop *o = malloc(sizeof *o);
    if (!o)
        shoal_fatal(routine, "out of memory for a stream operation");
    *o = *proto;
    o->next = NULL;
    pthread_mutex_lock(&st.lock);
    if (!st.started)
        start(routine);
    while (st.outstanding >= SLOTS) /* the oldest slot is still in use */
        pthread_cond_wait(&st.settled, &st.lock);
    o->seq = ++st.next_seq;
    if (shoal_dev_stream_write(stream, ready_word(st.words_dev, o->seq), o->seq) ||
        shoal_dev_stream_wait(stream, done_word(st.words_dev, o->seq), o->seq))
        shoal_fatal(routine,
                    "the %s device refused a stream memory operation on stream %p; pass "
                    "a stream of the device Shoal uses (%s)",
                    shoal_dev->name, stream,
                    shoal_dev == &shoal_dev_emu ? "an emu stream" : "its current context");
    st.outstanding++;
    if (st.tail)
        st.tail->next = o;
    else
        st.head = o;
    st.tail = o;
    pthread_cond_signal(&st.wake);
    pthread_mutex_unlock(&st.lock);
}

void shoal_stream_drain(const char *routine)
{
    if (!st.started)
        return;
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += 30;
    pthread_mutex_lock(&st.lock);
    while (st.outstanding)
        if (pthread_cond_timedwait(&st.settled, &st.lock, &limit))
            shoal_fatal(routine,
                        "%u stream operations still wait for their streams after 30 s; "
                        "let every stream that has them run (synchronize the streams) "
                        "before %s",
                        st.outstanding, routine);
    pthread_mutex_unlock(&st.lock);
}

void shoal_stream_fini(void)
{
    if (!st.started)
        return;
    shoal_stream_drain("shmem_finalize");
    pthread_mutex_lock(&st.lock);
    st.stop = 1;
    pthread_cond_signal(&st.wake);
    pthread_mutex_unlock(&st.lock);
    pthread_join(st.proxy, NULL);
    st.started = st.stop = 0;
    shoal_dev->host_free(st.words);
    st.words = st.words_dev = NULL;
}

/* Checked when queued, so that a mistake names the call that made it. */
static struct shoal_rref check_rma(const char *routine, const void *sym, size_t n, int pe)
{
    struct shoal_rref r;
    shoal_remote(routine, SHMEM_CTX_DEFAULT, sym, n, pe, &r);
    return r;
}

/* Whether every page of host memory [a, e) is mapped readable (and writable), by the
 * kernel's own account in /proc/self/maps. */
static int maps_allow(uintptr_t a, uintptr_t e, int write)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return 1; /* nothing to tell by: the operation itself will show */
    char *line = NULL;
    size_t cap = 0;
    int ok = 0;
    while (getline(&line, &cap, f) > 0) {
        unsigned long lo, hi;
        char perm[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) != 3 || hi <= a)
            continue;
        if (lo > a || perm[0] != 'r' || (write && perm[1] != 'w'))
            break; /* a hole, or a mapping the operation may not use */
        a = hi;
        if (a >= e) {
            ok = 1;
            break;
        }
    }
    free(line);
    fclose(f);
    return ok;
}

/* Up to this size the kernel populating the pages is cheaper than reading the maps
 * (about 0.4 us a page against a fixed 30-150 us). */
#define POPULATE_MAX ((uintptr_t)256 << 10)

/* Whether host memory [p, p + n) may be read (and written) by the proxy. For a small
 * buffer the kernel answers in one system call, faulting the pages in as the operation
 * would; a large one, or a mapping the kernel will not populate (a driver's pinned
 * memory, or a kernel before 5.14), is looked up in the maps. */
static int host_range_ok(const void *p, size_t n, int write)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p & ~(page - 1);
    uintptr_t e = (uintptr_t)p + n;
    if (e - a > POPULATE_MAX)
        return maps_allow(a, e, write);
    if (!madvise((void *)a, e - a, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ))
        return 1;
    if (errno == ENOMEM || errno == EFAULT) /* unmapped, or a fault on access */
        return 0;
    return maps_allow(a, e, write);
}

/* The whole local buffer [p, p + n) of routine, when queued, so that a bad one ends the
 * job naming the call, instead of faulting the proxy or being skipped by the stream
 * long after the call returned. what: "source" or "destination" (then written). */
static void check_local(const char *routine, const void *p, size_t n, const char *what)
{
    int write = what[0] == 'd';
    uintptr_t a = (uintptr_t)p, start, end;
    if (!n)
        return;
    if (n > UINTPTR_MAX - a)
        shoal_fatal(routine, "the local %s %p of %zu bytes wraps around the address space",
                    what, p, n);
    if (shoal_dev_extent(p, &start, &end)) {
        if (n > end - a)
            shoal_fatal(routine,
                        "the local %s %p of %zu bytes runs %zu bytes past the end of the %s "
                        "allocation holding it [%p, %p)%s; pass a buffer that lies in one "
                        "allocation",
                        what, p, n, (size_t)(a + n - end), shoal_dev->name, (void *)start,
                        (void *)end,
                        start == shoal.seg[SHOAL_SEG_DEVICE].base ? " (the device heap)"
                                                                  : "");
        return;
    }
    if (!host_range_ok(p, n, write))
        shoal_fatal(routine,
                    "the local %s %p of %zu bytes is not %s host memory of this process "
                    "(nor device memory); pass a buffer that stays valid until the stream "
                    "has passed the call",
                    what, p, n, write ? "writable" : "readable");
}

/* n * k bytes, for a buffer of n elements of k bytes. */
static size_t times(const char *routine, size_t n, size_t k)
{
    size_t b;
    if (__builtin_mul_overflow(n, k, &b))
        shoal_fatal(routine, "%zu elements of %zu bytes overflow the address space", n, k);
    return b;
}

/* The same-node peer's copy of a device-heap object, or NULL. */
static void *peer_device(const struct shoal_rref *r)
{
    if (r->seg != SHOAL_SEG_DEVICE || !shoal_tp.dev_peer[r->pe])
        return NULL;
    return (char *)shoal_tp.dev_peer[r->pe] + r->off;
}

/* The peer's copy when local is device memory too: then the stream copies on its own. */
static void *stream_copyable(const struct shoal_rref *r, const void *local)
{
    return shoal_dev_is_device(local) ? peer_device(r) : NULL;
}

static void check_team(const char *routine, shmem_team_t team)
{
    if (!shoal_team_ok(routine, team))
        shoal_fatal(routine, "the team is SHMEM_TEAM_INVALID or destroyed");
}

void shmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                             shmemx_stream_t stream)
{
    struct shoal_rref r = check_rma(__func__, dest, nbytes, pe);
    check_local(__func__, source, nbytes, "source");
    void *peer = stream_copyable(&r, source);
    if (peer && shoal_dev_stream_copy(stream, peer, source, nbytes) == 0)
        return;
    queue(stream,
          &(struct sop){ .kind = SOP_PUT,
                         .routine = __func__,
                         .dest = dest,
                         .src = source,
                         .n = nbytes,
                         .pe = pe });
}
SHOAL_PROFILED(shmemx_putmem_on_stream)

void shmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                             shmemx_stream_t stream)
{
    struct shoal_rref r = check_rma(__func__, source, nbytes, pe);
    check_local(__func__, dest, nbytes, "destination");
    void *peer = stream_copyable(&r, dest);
    if (peer && shoal_dev_stream_copy(stream, dest, peer, nbytes) == 0)
        return;
    queue(stream,
          &(struct sop){ .kind = SOP_GET,
                         .routine = __func__,
                         .dest = dest,
                         .src = source,
                         .n = nbytes,
                         .pe = pe });
}
SHOAL_PROFILED(shmemx_getmem_on_stream)

void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    shmemx_stream_t stream)
{
    struct shoal_rref r = check_rma(__func__, dest, nbytes, pe);
    struct shoal_rref rs = check_rma(__func__, sig_addr, sizeof *sig_addr, pe);
    check_local(__func__, source, nbytes, "source");
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shoal_fatal(__func__, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                    sig_op);
    void *peer = stream_copyable(&r, source), *peer_sig = peer_device(&rs);
    /* The payload's copy completes before the stream's write of the signal. */
    if (peer && peer_sig && sig_op == SHMEM_SIGNAL_SET &&
        shoal_dev_stream_copy(stream, peer, source, nbytes) == 0) {
        if (shoal_dev_stream_write64(stream, peer_sig, signal))
            shoal_fatal(__func__, "the %s device refused a stream write of the signal",
                        shoal_dev->name);
        return;
    }
    queue(stream,
          &(struct sop){ .kind = SOP_PUT_SIGNAL,
                         .routine = __func__,
                         .dest = dest,
                         .src = source,
                         .n = nbytes,
                         .pe = pe,
                         .sig = sig_addr,
                         .signal = signal,
                         .sig_op = sig_op });
}
SHOAL_PROFILED(shmemx_putmem_signal_on_stream)

void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                        shmemx_stream_t stream)
{
    struct shoal_rref r = check_rma(__func__, sig_addr, sizeof *sig_addr, shmem_my_pe());
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shoal_fatal(__func__, "cmp %d is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE",
                    cmp);
    if ((cmp == SHMEM_CMP_EQ || cmp == SHMEM_CMP_GE) && r.seg == SHOAL_SEG_DEVICE &&
        shoal_tp.dev_nic_iface < SHOAL_DEV_IFACE_CUDA &&
        shoal_dev_stream_wait64(stream, sig_addr, cmp_value, cmp == SHMEM_CMP_EQ) == 0)
        return;
    queue(stream,
          &(struct sop){ .kind = SOP_SIGNAL_WAIT,
                         .routine = __func__,
                         .sig = sig_addr,
                         .signal = cmp_value,
                         .sig_op = cmp });
}
SHOAL_PROFILED(shmemx_signal_wait_until_on_stream)

void shmemx_quiet_on_stream(shmemx_stream_t stream)
{
    queue(stream, &(struct sop){ .kind = SOP_QUIET, .routine = __func__ });
}
SHOAL_PROFILED(shmemx_quiet_on_stream)

void shmemx_barrier_all_on_stream(shmemx_stream_t stream)
{
    queue(stream,
          &(struct sop){
                  .kind = SOP_BARRIER, .routine = __func__, .team = SHMEM_TEAM_WORLD });
}
SHOAL_PROFILED(shmemx_barrier_all_on_stream)

int shmemx_team_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream)
{
    check_team(__func__, team);
    queue(stream, &(struct sop){ .kind = SOP_BARRIER, .routine = __func__, .team = team });
    return 0;
}
SHOAL_PROFILED(shmemx_team_barrier_on_stream)

int shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                  size_t nelems, int PE_root, shmemx_stream_t stream)
{
    check_team(__func__, team);
    if (PE_root < 0 || PE_root >= shmem_team_n_pes(team))
        shoal_fatal(__func__, "PE_root %d is not a member of the team (%d PEs)", PE_root,
                    shmem_team_n_pes(team));
    check_local(__func__, source, nelems, "source");
    check_local(__func__, dest, nelems, "destination");
    queue(stream,
          &(struct sop){ .kind = SOP_BROADCAST,
                         .routine = __func__,
                         .team = team,
                         .dest = dest,
                         .src = source,
                         .n = nelems,
                         .pe = PE_root });
    return 0;
}
SHOAL_PROFILED(shmemx_broadcastmem_on_stream)

int shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                 size_t nelems, shmemx_stream_t stream)
{
    check_team(__func__, team);
    size_t all = times(__func__, nelems, (size_t)shmem_team_n_pes(team));
    check_local(__func__, source, all, "source");
    check_local(__func__, dest, all, "destination");
    queue(stream,
          &(struct sop){ .kind = SOP_ALLTOALL,
                         .routine = __func__,
                         .team = team,
                         .dest = dest,
                         .src = source,
                         .n = nelems });
    return 0;
}
SHOAL_PROFILED(shmemx_alltoallmem_on_stream)

#define SHOAL_STREAM_SUM_REDUCE(T, N)                                                        \
    static int sum_##N(shmem_team_t team, void *dest, const void *src, size_t n)             \
    {                                                                                        \
        return shmem_##N##_sum_reduce(team, dest, src, n);                                   \
    }                                                                                        \
    int shmemx_##N##_sum_reduce_on_stream(shmem_team_t team, T *dest, const T *source,       \
                                          size_t nreduce, shmemx_stream_t stream)            \
    {                                                                                        \
        check_team(__func__, team);                                                          \
        size_t all = times(__func__, nreduce, sizeof(T));                                    \
        check_local(__func__, source, all, "source");                                        \
        check_local(__func__, dest, all, "destination");                                     \
        queue(stream,                                                                        \
              &(struct sop){ .kind = SOP_REDUCE,                                             \
                             .routine = __func__,                                            \
                             .team = team,                                                   \
                             .dest = dest,                                                   \
                             .src = source,                                                  \
                             .n = nreduce,                                                   \
                             .reduce = sum_##N });                                           \
        return 0;                                                                            \
    }                                                                                        \
    SHOAL_PROFILED(shmemx_##N##_sum_reduce_on_stream)
SHMEM_REDUCE_ARITH_TYPES(SHOAL_STREAM_SUM_REDUCE)
