/* The emulated device: memory that host code cannot touch, for tests and CI.
 *
 * Each allocation is a memfd mapped twice: at its "device address", PROT_NONE, so a
 * stray host load or store through a device pointer faults at once, and a second,
 * read-write mapping that only this file's copy routines use. A peer on the same
 * node opens the memfd through /proc/<pid>/fd (the IPC handle) and maps it the same
 * two ways, so copies into it land in the owner's memory; it holds a shared lock on
 * the memfd while it has it open, so that the owner freeing it meanwhile, undefined on
 * a GPU, is caught here ("freed while a peer has it open"). Copies are plain memcpy
 * through the second mapping and complete on return, except copy_async's: like a GPU
 * stream's, they are queued and done, in order, only at the next sync, so a caller
 * that does not wait for them (quiet) sees the old bytes, and a test can tell.
 *
 * Streams (emu.h) model a GPU's: each is a thread that runs, in order, the kernels
 * launched on it (functions that reach device memory only through this backend's
 * copies) and the stream memory operations (write a host word, wait on one). The
 * library's own copies never wait for them, as on a GPU. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "device/device.h"
#include "device/emu/emu.h"
#include "env/env.h"
#include "env/hwtopo.h"
#include "env/log.h"

struct region {
    uintptr_t dev; /* what the program sees: PROT_NONE */
    char *rw;      /* the same pages, read-write, for the copy routines */
    size_t size;
    int fd;  /* the memfd: own allocations, or a peer's held open (and locked) */
    int own; /* this process allocated it */
};

struct ipc {
    int32_t pid, fd;
    uint64_t size, off;
};

static struct region *regions;
static size_t nregions, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* copy_async's queue: addresses already turned into the read-write aliases. */
struct pending {
    char *dst;
    const char *src;
    size_t len;
};
static struct pending *queue;
static size_t nqueued, qcap;

/* The emulated GPU: on a node a topology file describes with GPUs, the one of this
 * local PE by the rule of cuda and rocm (docs/gpu.md), so that placement and NIC
 * choice for GPU PEs run without a GPU. */
static int emu_device;

static int emu_init(int local_index, char *err, size_t len)
{
    (void)err, (void)len;
    emu_device = 0;
    const char *f = shoal_env_get("SHOAL_TOPOLOGY_FILE"), *x = shoal_env_get("HWLOC_XMLFILE");
    if ((f && *f) || (x && *x)) {
        char why[256];
        struct shoal_hwtopo *t = shoal_hwtopo_load(why, sizeof why);
        if (t && t->ngpu > 0)
            emu_device = local_index % t->ngpu;
        else
            SHOAL_LOG(DEVICE, INFO, "emu: the topology file %s: device 0",
                      t ? "describes no GPU" : why);
        shoal_hwtopo_free(t);
    }
    return 0;
}

static int emu_ordinal(void)
{
    return emu_device;
}

static void emu_fini(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nregions; i++) {
        munmap((void *)regions[i].dev, regions[i].size);
        munmap(regions[i].rw, regions[i].size);
        close(regions[i].fd);
    }
    free(regions);
    regions = NULL;
    nregions = cap = 0;
    free(queue);
    queue = NULL;
    nqueued = qcap = 0;
    pthread_mutex_unlock(&lock);
}

/* The region holding [p, p + len), or NULL; under lock. */
static struct region *find(uintptr_t p, size_t len)
{
    for (size_t i = 0; i < nregions; i++)
        if (p - regions[i].dev < regions[i].size &&
            len <= regions[i].size - (p - regions[i].dev))
            return &regions[i];
    return NULL;
}

static void *map_pair(int fd, size_t size, char **rw)
{
    void *dev = mmap(NULL, size, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (dev == MAP_FAILED)
        return NULL;
    *rw = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (*rw == MAP_FAILED) {
        munmap(dev, size);
        return NULL;
    }
    return dev;
}

static void *add_region(int fd, size_t size, int own)
{
    char *rw;
    void *dev = map_pair(fd, size, &rw);
    if (!dev)
        return NULL;
    pthread_mutex_lock(&lock);
    if (nregions == cap) {
        size_t ncap = cap ? 2 * cap : 16;
        struct region *r = realloc(regions, ncap * sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&lock);
            munmap(dev, size);
            munmap(rw, size);
            return NULL;
        }
        regions = r;
        cap = ncap;
    }
    regions[nregions++] = (struct region){ (uintptr_t)dev, rw, size, fd, own };
    pthread_mutex_unlock(&lock);
    return dev;
}

static void *emu_alloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size == 0 || size > SIZE_MAX - page)
        return NULL;
    size = (size + page - 1) & ~(page - 1);
    int fd = memfd_create("shoal-emu-device", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *p = NULL;
    if (ftruncate(fd, (off_t)size) == 0)
        p = add_region(fd, size, 1);
    if (!p)
        close(fd);
    return p;
}

/* Removes the region starting exactly at p (own allocation or opened peer memory). An
 * own allocation that a peer still has open stays, and the call fails. */
static int drop(void *p, int own)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nregions; i++) {
        struct region r = regions[i];
        if (r.dev != (uintptr_t)p || r.own != own)
            continue;
        if (own && flock(r.fd, LOCK_EX | LOCK_NB)) {
            pthread_mutex_unlock(&lock);
            fprintf(shoal_error_stream(),
                    "shoal: emu: device memory at %p freed while a peer has it open "
                    "(undefined on a GPU)\n",
                    p);
            return -1;
        }
        regions[i] = regions[--nregions];
        pthread_mutex_unlock(&lock);
        munmap((void *)r.dev, r.size);
        munmap(r.rw, r.size);
        close(r.fd);
        return 0;
    }
    pthread_mutex_unlock(&lock);
    return -1;
}

static int emu_free(void *p)
{
    return drop(p, 1);
}

static int emu_query(const void *p, uintptr_t *base, size_t *len)
{
    pthread_mutex_lock(&lock);
    struct region *r = find((uintptr_t)p, 1);
    if (r) {
        *base = r->dev;
        *len = r->size;
    }
    pthread_mutex_unlock(&lock);
    return r != NULL;
}

/* The read-write alias of device range [p, p + len), or NULL when it is not one. The
 * lock is not held during the copy: freeing memory that a copy is using is the
 * program's error, as on a real device. */
static char *rw_of(const void *p, size_t len)
{
    pthread_mutex_lock(&lock);
    struct region *r = find((uintptr_t)p, len);
    char *a = r ? r->rw + ((uintptr_t)p - r->dev) : NULL;
    pthread_mutex_unlock(&lock);
    return a;
}

static int emu_h2d(void *dst, const void *src, size_t len)
{
    char *d = rw_of(dst, len);
    if (!d || rw_of(src, 1))
        return -1;
    memcpy(d, src, len);
    return 0;
}

static int emu_d2h(void *dst, const void *src, size_t len)
{
    char *s = rw_of(src, len);
    if (!s || rw_of(dst, 1))
        return -1;
    memcpy(dst, s, len);
    return 0;
}

static int emu_d2d(void *dst, const void *src, size_t len)
{
    char *d = rw_of(dst, len), *s = rw_of(src, len);
    if (!d || !s)
        return -1;
    memmove(d, s, len);
    return 0;
}

static int emu_ipc_get(void *p, struct shoal_dev_ipc *h)
{
    struct ipc c = { .pid = getpid() };
    pthread_mutex_lock(&lock);
    struct region *r = find((uintptr_t)p, 1);
    if (r && r->own) {
        c.fd = r->fd;
        c.size = r->size;
        c.off = (uintptr_t)p - r->dev;
    }
    pthread_mutex_unlock(&lock);
    if (!c.size)
        return -1;
    memset(h, 0, sizeof *h);
    memcpy(h->bytes, &c, sizeof c);
    return 0;
}

static void *emu_ipc_open(const struct shoal_dev_ipc *h)
{
    struct ipc c;
    memcpy(&c, h->bytes, sizeof c);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)c.pid, (int)c.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *p = NULL;
    if (flock(fd, LOCK_SH) == 0)
        p = add_region(fd, c.size, 0);
    if (!p)
        close(fd);
    return p ? p + c.off : NULL;
}

static int emu_ipc_close(void *p)
{
    uintptr_t base;
    size_t len;
    if (!emu_query(p, &base, &len))
        return -1;
    return drop((void *)base, 0);
}

/* dst, src: device ranges by their aliases, host ones as they are. */
static int emu_copy_async(void *dst, const void *src, size_t len)
{
    char *d = rw_of(dst, len);
    const char *s = rw_of(src, len);
    d = d ? d : rw_of(dst, 1) ? NULL : dst;
    s = s ? s : rw_of(src, 1) ? NULL : src;
    if (!d || !s)
        return -1;
    pthread_mutex_lock(&lock);
    if (nqueued == qcap) {
        size_t ncap = qcap ? 2 * qcap : 64;
        struct pending *q = realloc(queue, ncap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&lock);
            return -1;
        }
        queue = q;
        qcap = ncap;
    }
    queue[nqueued++] = (struct pending){ d, s, len };
    pthread_mutex_unlock(&lock);
    return 0;
}

static int emu_sync(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nqueued; i++)
        memmove(queue[i].dst, queue[i].src, queue[i].len);
    nqueued = 0;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* The device's reduction is host code over the aliases, as a kernel would run it over
 * device memory: one loop per element type and operation. */
#define EMU_RED_LOOP(T, EXPR)                                                                \
    do {                                                                                     \
        T *a = (T *)d;                                                                       \
        const T *b = (const T *)s;                                                           \
        for (size_t i = 0; i < n; i++)                                                       \
            a[i] = EXPR;                                                                     \
    } while (0)
#define EMU_RED_ARITH(T)                                                                     \
    switch (op) {                                                                            \
    case SHOAL_DEV_RED_SUM: EMU_RED_LOOP(T, a[i] + b[i]); return 0;                          \
    case SHOAL_DEV_RED_PROD: EMU_RED_LOOP(T, a[i] * b[i]); return 0;                         \
    case SHOAL_DEV_RED_MAX: EMU_RED_LOOP(T, a[i] > b[i] ? a[i] : b[i]); return 0;            \
    case SHOAL_DEV_RED_MIN: EMU_RED_LOOP(T, a[i] < b[i] ? a[i] : b[i]); return 0;            \
    }
#define EMU_RED_INT(T)                                                                       \
    do {                                                                                     \
        EMU_RED_ARITH(T)                                                                     \
        switch (op) {                                                                        \
        case SHOAL_DEV_RED_AND: EMU_RED_LOOP(T, a[i] & b[i]); return 0;                      \
        case SHOAL_DEV_RED_OR: EMU_RED_LOOP(T, a[i] | b[i]); return 0;                       \
        case SHOAL_DEV_RED_XOR: EMU_RED_LOOP(T, a[i] ^ b[i]); return 0;                      \
        }                                                                                    \
        return -1;                                                                           \
    } while (0)
#define EMU_RED_REAL(T)                                                                      \
    do {                                                                                     \
        EMU_RED_ARITH(T)                                                                     \
        return -1;                                                                           \
    } while (0)
#define EMU_RED_COMPLEX(T)                                                                   \
    do {                                                                                     \
        if (op == SHOAL_DEV_RED_SUM)                                                         \
            EMU_RED_LOOP(T, a[i] + b[i]);                                                    \
        else if (op == SHOAL_DEV_RED_PROD)                                                   \
            EMU_RED_LOOP(T, a[i] * b[i]);                                                    \
        else                                                                                 \
            return -1;                                                                       \
        return 0;                                                                            \
    } while (0)

static int emu_reduce_rw(char *d, const char *s, size_t n, size_t esize, int kind, int op)
{
    switch (kind * 32 + (int)esize) {
    case SHOAL_DEV_RED_SIGNED * 32 + 1: EMU_RED_INT(int8_t);
    case SHOAL_DEV_RED_SIGNED * 32 + 2: EMU_RED_INT(int16_t);
    case SHOAL_DEV_RED_SIGNED * 32 + 4: EMU_RED_INT(int32_t);
    case SHOAL_DEV_RED_SIGNED * 32 + 8: EMU_RED_INT(int64_t);
    case SHOAL_DEV_RED_UNSIGNED * 32 + 1: EMU_RED_INT(uint8_t);
    case SHOAL_DEV_RED_UNSIGNED * 32 + 2: EMU_RED_INT(uint16_t);
    case SHOAL_DEV_RED_UNSIGNED * 32 + 4: EMU_RED_INT(uint32_t);
    case SHOAL_DEV_RED_UNSIGNED * 32 + 8: EMU_RED_INT(uint64_t);
    case SHOAL_DEV_RED_REAL * 32 + sizeof(float): EMU_RED_REAL(float);
    case SHOAL_DEV_RED_REAL * 32 + sizeof(double): EMU_RED_REAL(double);
    case SHOAL_DEV_RED_REAL * 32 + sizeof(long double): EMU_RED_REAL(long double);
    case SHOAL_DEV_RED_COMPLEX * 32 + sizeof(float _Complex): EMU_RED_COMPLEX(float _Complex);
    case SHOAL_DEV_RED_COMPLEX * 32 + sizeof(double _Complex):
        EMU_RED_COMPLEX(double _Complex);
    }
    return -1;
}

static int emu_reduce(void *dst, const void *src, size_t n, size_t esize, int kind, int op)
{
    if (!n) /* whether it reduces this pair: the loops touch nothing */
        return emu_reduce_rw(NULL, NULL, 0, esize, kind, op);
    size_t len = n * esize;
    char *d = rw_of(dst, len), *s = rw_of(src, len);
    if (!d || !s || emu_sync()) /* after the copies queued before it, as on a stream */
        return -1;
    return emu_reduce_rw(d, s, n, esize, kind, op);
}

/* The network registers the read-write alias as host memory, as it would register
 * GPU memory for GPUDirect RDMA. */
static void emu_nic(void *p, struct shoal_dev_nic *nic)
{
    void *alias = rw_of(p, 1);
    *nic = (struct shoal_dev_nic){ alias ? SHOAL_DEV_IFACE_ALIAS : SHOAL_DEV_IFACE_NONE, 0,
                                   alias };
}

/* ---- streams ------------------------------------------------------------------------ */

enum item_kind { ITEM_KERNEL, ITEM_WRITE, ITEM_WAIT, ITEM_COPY, ITEM_WRITE64, ITEM_WAIT64 };

struct item {
    enum item_kind kind;
    void (*fn)(void *);
    void *arg;
    uint32_t *w;
    uint32_t v;
    void *dst; /* ITEM_COPY: device ranges; ITEM_WRITE64, ITEM_WAIT64: dst, v64, eq */
    const void *src;
    size_t len;
    uint64_t v64;
    int eq;
};

/* ITEM_WAIT64's test, on device memory read through its alias. */
static int holds64(const struct item *it)
{
    uint64_t x;
    if (emu_d2h(&x, it->dst, sizeof x))
        return 1; /* not device memory: refused when queued, so never here */
    return it->eq ? x == it->v64 : (int64_t)(x - it->v64) >= 0;
}

/* A GPU polls the words of its stream memory operations in hardware; the stream
 * thread that stands in for it sleeps on a futex on the word, which the host's writer
 * wakes (emu_stream_word_written), and which a timeout ends for writers that do not (a
 * plain store by other code). It does not spin first: on a host whose cores the PEs
 * share, a spin takes the core the proxy needs to write the word (2 PEs on 2 cores: 8
 * B stream put through the proxy 28 us spinning 2 us first, 19-28 us not). */
#define WAIT_NAP_NS 1000000L

static void wait_word(uint32_t *w, uint32_t v)
{
    for (;;) {
        uint32_t seen = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        if ((int32_t)(seen - v) >= 0)
            return;
        struct timespec nap = { 0, WAIT_NAP_NS };
        syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, &nap, NULL, 0);
    }
}

static void wake_word(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

struct shoal_emu_stream {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct item *items;
    size_t head, tail, cap; /* ring of cap items; an item leaves (head++) once run */
    int stop;
};

static void *stream_main(void *arg)
{
    struct shoal_emu_stream *st = arg;
    pthread_mutex_lock(&st->mu);
    for (;;) {
        while (st->head == st->tail && !st->stop)
            pthread_cond_wait(&st->cv, &st->mu);
        if (st->head == st->tail)
            break;
        struct item it = st->items[st->head % st->cap];
        pthread_mutex_unlock(&st->mu);
        switch (it.kind) {
        case ITEM_KERNEL: it.fn(it.arg); break;
        case ITEM_WRITE:
            /* The proxy may sleep on the word (api/stream.c): a GPU's write cannot
             * wake it, this one does. */
            __atomic_store_n(it.w, it.v, __ATOMIC_RELEASE);
            wake_word(it.w);
            break;
        case ITEM_WRITE64:
            if (emu_h2d(it.dst, &it.v64, sizeof it.v64))
                fprintf(shoal_error_stream(),
                        "shoal: emu: a stream write to %p left device memory\n", it.dst);
            break;
        case ITEM_WAIT64:
            while (!holds64(&it))
                usleep(20);
            break;
        case ITEM_COPY:
            if (emu_d2d(it.dst, it.src, it.len))
                fprintf(shoal_error_stream(),
                        "shoal: emu: a stream copy of %zu bytes from %p to %p left "
                        "device memory; the stream skipped it\n",
                        it.len, it.src, it.dst);
            break;
        case ITEM_WAIT: wait_word(it.w, it.v); break;
        }
        pthread_mutex_lock(&st->mu);
        st->head++;
        pthread_cond_broadcast(&st->cv);
    }
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

struct shoal_emu_stream *shoal_emu_stream_create(void)
{
    struct shoal_emu_stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->cap = 256;
    st->items = calloc(st->cap, sizeof *st->items);
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    if (!st->items || pthread_create(&st->thread, NULL, stream_main, st)) {
        free(st->items);
        free(st);
        return NULL;
    }
    return st;
}

static int enqueue(struct shoal_emu_stream *st, struct item it)
{
    pthread_mutex_lock(&st->mu);
    if (st->tail - st->head == st->cap) { /* full: grow, keeping the order */
        struct item *n = calloc(2 * st->cap, sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&st->mu);
            return -1;
        }
        for (size_t i = st->head; i != st->tail; i++)
            n[i % (2 * st->cap)] = st->items[i % st->cap];
        free(st->items);
        st->items = n;
        st->cap *= 2;
    }
    st->items[st->tail++ % st->cap] = it;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    return 0;
}

int shoal_emu_launch(struct shoal_emu_stream *st, void (*fn)(void *), void *arg)
{
    return enqueue(st, (struct item){ .kind = ITEM_KERNEL, .fn = fn, .arg = arg });
}

void shoal_emu_stream_synchronize(struct shoal_emu_stream *st)
{
    pthread_mutex_lock(&st->mu);
    while (st->head != st->tail)
        pthread_cond_wait(&st->cv, &st->mu);
    pthread_mutex_unlock(&st->mu);
}

void shoal_emu_stream_destroy(struct shoal_emu_stream *st)
{
    shoal_emu_stream_synchronize(st);
    pthread_mutex_lock(&st->mu);
    st->stop = 1;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    pthread_join(st->thread, NULL);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
    free(st->items);
    free(st);
}

static int emu_stream_write(void *stream, uint32_t *w, uint32_t v)
{
    if (!stream)
        return -1;
    return enqueue(stream, (struct item){ .kind = ITEM_WRITE, .w = w, .v = v });
}

static int emu_stream_wait(void *stream, uint32_t *w, uint32_t v)
{
    if (!stream)
        return -1;
    return enqueue(stream, (struct item){ .kind = ITEM_WAIT, .w = w, .v = v });
}

static void emu_stream_word_written(uint32_t *w)
{
    wake_word(w);
}

static int emu_stream_copy(void *stream, void *dst, const void *src, size_t len)
{
    if (!stream)
        return -1;
    return enqueue(stream,
                   (struct item){ .kind = ITEM_COPY, .dst = dst, .src = src, .len = len });
}

static int emu_stream_write64(void *stream, uint64_t *w, uint64_t v)
{
    if (!stream || !rw_of(w, sizeof *w))
        return -1;
    return enqueue(stream, (struct item){ .kind = ITEM_WRITE64, .dst = w, .v64 = v });
}

static int emu_stream_wait64(void *stream, uint64_t *w, uint64_t v, int eq)
{
    if (!stream || !rw_of(w, sizeof *w))
        return -1;
    return enqueue(stream,
                   (struct item){ .kind = ITEM_WAIT64, .dst = w, .v64 = v, .eq = eq });
}

/* Nothing to flush: the network writes emu memory through the host alias. */
static int emu_flush_nic_writes(void)
{
    return 0;
}

/* Kernels are host threads: ordinary host memory is what they and the proxy share, and
 * they load and store device memory through its read-write alias. */
static void *emu_host_alloc(size_t size, void **dev)
{
    void *p = calloc(1, size);
    *dev = p;
    return p;
}

static void emu_host_free(void *p)
{
    free(p);
}

static void *emu_kernel_ptr(void *p)
{
    return rw_of(p, 1);
}

const struct shoal_dev_ops shoal_dev_emu = {
    .name = "emu",
    .ordinal = emu_ordinal,
    .init = emu_init,
    .fini = emu_fini,
    .alloc = emu_alloc,
    .free = emu_free,
    .query = emu_query,
    .h2d = emu_h2d,
    .d2h = emu_d2h,
    .d2d = emu_d2d,
    .ipc_get = emu_ipc_get,
    .ipc_open = emu_ipc_open,
    .ipc_close = emu_ipc_close,
    .sync = emu_sync,
    .copy_async = emu_copy_async,
    .nic = emu_nic,
    .flush_nic_writes = emu_flush_nic_writes,
    .stream_write = emu_stream_write,
    .stream_wait = emu_stream_wait,
    .stream_word_written = emu_stream_word_written,
    .stream_copy = emu_stream_copy,
    .stream_write64 = emu_stream_write64,
    .stream_wait64 = emu_stream_wait64,
    .host_alloc = emu_host_alloc,
    .host_free = emu_host_free,
    .kernel_ptr = emu_kernel_ptr,
    .host_kernels = 1,
    .reduce = emu_reduce,
};
