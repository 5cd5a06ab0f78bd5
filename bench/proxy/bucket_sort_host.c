/* The bucket sort's device steps on host threads: each stream is a thread that runs
 * its queue in order, as a GPU stream runs its kernels. A step copies its input out of
 * device memory, counts, buckets or sorts it on the host and copies the result back,
 * through Shoal's device layer when Shoal has a device (on `emu` host code cannot touch
 * device memory any other way), or works on plain host memory when there is none (and
 * when built with another OpenSHMEM, without BUCKET_SORT_SHOAL_DEVICE). */
#include "bucket_sort.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BUCKET_SORT_SHOAL_DEVICE
#include <shmemx_device.h>

#include "device/device.h"
#define HAVE_DEV (shoal_dev != NULL)
#else
#define HAVE_DEV 0
#endif

static struct bs_geom geom;

static int oops(const char *what, size_t bytes)
{
    fprintf(stderr, "bucket_sort: PE %d: host kernels: %s (%zu bytes) failed\n", geom.me,
            what, bytes);
    return -1;
}

static int to_dev(void *dst, const void *src, size_t bytes)
{
    if (!bytes)
        return 0;
#ifdef BUCKET_SORT_SHOAL_DEVICE
    if (HAVE_DEV)
        return shoal_dev_h2d(dst, src, bytes) ? oops("copy to the device", bytes) : 0;
#endif
    memcpy(dst, src, bytes);
    return 0;
}

static int from_dev(void *dst, const void *src, size_t bytes)
{
    if (!bytes)
        return 0;
#ifdef BUCKET_SORT_SHOAL_DEVICE
    if (HAVE_DEV)
        return shoal_dev_d2h(dst, src, bytes) ? oops("copy from the device", bytes) : 0;
#endif
    memcpy(dst, src, bytes);
    return 0;
}

static void *dev_alloc(size_t bytes)
{
#ifdef BUCKET_SORT_SHOAL_DEVICE
    if (HAVE_DEV)
        return shoal_dev_alloc(bytes ? bytes : 1);
#endif
    return malloc(bytes ? bytes : 1);
}

static void dev_free(void *p)
{
    if (!p)
        return;
#ifdef BUCKET_SORT_SHOAL_DEVICE
    if (HAVE_DEV) {
        shoal_dev_free(p);
        return;
    }
#endif
    free(p);
}

/* ---- the steps ---------------------------------------------------------------------- */

static int do_bucket(const unsigned char *dtable, size_t n, unsigned char *dout,
                     uint64_t *counts)
{
    size_t eb = (size_t)geom.eb;
    int npes = geom.npes, rc = 0;
    memset(counts, 0, (size_t)npes * sizeof *counts);
    if (!n)
        return 0;
    unsigned char *in = malloc(n * eb), *out = malloc(n * eb);
    uint32_t *dest = malloc(n * sizeof *dest);
    uint64_t *at = malloc((size_t)npes * sizeof *at);
    if (!in || !out || !dest || !at)
        rc = oops("allocation for bucketing", n * eb);
    else
        rc = from_dev(in, dtable, n * eb);
    if (!rc) {
        for (size_t i = 0; i < n; i++) /* count */
            counts[dest[i] = (uint32_t)bs_dest(bs_key(in + i * eb, geom.word), geom.word,
                                               npes)]++;
        at[0] = 0; /* where each bucket starts */
        for (int d = 1; d < npes; d++)
            at[d] = at[d - 1] + counts[d - 1];
        for (size_t i = 0; i < n; i++) /* bucket */
            memcpy(out + at[dest[i]]++ * eb, in + i * eb, eb);
        rc = to_dev(dout, out, n * eb);
    }
    free(at);
    free(dest);
    free(out);
    free(in);
    return rc;
}

struct pair {
    uint64_t key;
    size_t at;
};

static int cmp_pairs(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* As the GPU sorts: (key, index) pairs, then a gather of the elements. */
static int do_sort(unsigned char *dbuf, size_t n)
{
    size_t eb = (size_t)geom.eb;
    int rc;
    if (n < 2)
        return 0;
    unsigned char *in = malloc(n * eb), *out = malloc(n * eb);
    struct pair *p = malloc(n * sizeof *p);
    if (!in || !out || !p)
        rc = oops("allocation for sorting", n * eb);
    else
        rc = from_dev(in, dbuf, n * eb);
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            p[i] = (struct pair){ bs_key(in + i * eb, geom.word), i };
        qsort(p, n, sizeof *p, cmp_pairs);
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * eb, in + p[i].at * eb, eb);
        rc = to_dev(dbuf, out, n * eb);
    }
    free(p);
    free(out);
    free(in);
    return rc;
}

#ifdef BUCKET_SORT_SHOAL_DEVICE
/* GA_DI's exchange as an emu kernel (shmemx_device_launch): kernel threads that reach
 * the device heap only through the device API. Thread t serves the destinations
 * i = t, t + nthreads, ... in the rotated order of the host's appends. */
struct exch_arg {
    struct bs_exch x;
    const uint64_t *counts;
    size_t *start; /* where bucket d starts */
};

static void exch_kernel(int t, int nthreads, void *arg)
{
    const struct exch_arg *a = arg;
    const struct bs_exch *x = &a->x;
    int me = shmemx_dev_my_pe(), npes = shmemx_dev_n_pes();
    size_t eb = (size_t)geom.eb;
    for (int i = t; i < npes; i += nthreads) {
        int d = (me + 1 + i) % npes;
        size_t n = (size_t)a->counts[d];
        for (size_t k = 0; k < n; k += x->chunk) {
            size_t len = n - k < x->chunk ? n - k : x->chunk;
            size_t off = (size_t)shmemx_dev_long_atomic_fetch_add(x->fill, (long)len, d);
            int room = off <= x->cap && len <= x->cap - off;
            shmemx_dev_putmem_signal_nbi((char *)x->recv + (room ? off * eb : 0),
                                         (const char *)x->buck + (a->start[d] + k) * eb,
                                         room ? len * eb : 0, x->arrived, len,
                                         SHMEM_SIGNAL_ADD, d);
        }
        shmemx_dev_uint64_atomic_add(x->senders, 1, d);
    }
    shmemx_dev_quiet();
    if (t == 0) { /* every PE has reserved its room here, then everything has landed */
        shmemx_dev_uint64_wait_until(x->senders, SHMEM_CMP_GE, (uint64_t)npes);
        long fill = shmemx_dev_long_atomic_fetch(x->fill, me);
        shmemx_dev_uint64_wait_until(x->arrived, SHMEM_CMP_GE, (uint64_t)fill);
    }
}

static int do_exchange(const struct bs_exch *x, const uint64_t *counts)
{
    int npes = geom.npes;
    struct exch_arg a = { *x, counts, malloc((size_t)npes * sizeof *a.start) };
    if (!a.start)
        return oops("allocation for the exchange", (size_t)npes * sizeof *a.start);
    for (int d = 0; d < npes; d++)
        a.start[d] = d ? a.start[d - 1] + (size_t)counts[d - 1] : 0;
    shmemx_device_launch(exch_kernel, npes < 4 ? npes : 4, &a);
    free(a.start);
    return 0;
}
#endif

/* ---- streams: one thread each, running its queue in order ------------------------- */

enum kind { BUCKET, SORT, EXCHANGE };

struct task {
    enum kind kind;
    const void *in;
    void *out;
    size_t n;
    uint64_t *counts; /* a bucketing's; an exchange's: the bucketing's before it */
    struct bs_exch x;
};

#define QUEUE 8

static struct stream {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct task q[QUEUE];
    unsigned head, tail; /* queued, the one running included: [head, tail) */
    int failed, stop, started;
    uint64_t *counts; /* of the bucketing queued last */
} streams[BS_STREAMS];

static void *stream_main(void *arg)
{
    struct stream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->head == s->tail && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->head == s->tail)
            break;
        struct task t = s->q[s->head % QUEUE];
        pthread_mutex_unlock(&s->mu);
        int rc = t.kind == SORT    ? do_sort(t.out, t.n)
                : t.kind == BUCKET ? do_bucket(t.in, t.n, t.out, t.counts)
#ifdef BUCKET_SORT_SHOAL_DEVICE
                                   : do_exchange(&t.x, t.counts);
#else
                                   : -1; /* host_kernels.exchange is NULL */
#endif
        pthread_mutex_lock(&s->mu);
        s->failed |= rc != 0;
        s->head++; /* done: sync may return */
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static int enqueue(int stream, struct task t)
{
    struct stream *s = &streams[stream];
    pthread_mutex_lock(&s->mu);
    while (s->tail - s->head == QUEUE)
        pthread_cond_wait(&s->cv, &s->mu);
    s->q[s->tail++ % QUEUE] = t;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static int host_sync(int stream)
{
    struct stream *s = &streams[stream];
    pthread_mutex_lock(&s->mu);
    while (s->head != s->tail)
        pthread_cond_wait(&s->cv, &s->mu);
    int failed = s->failed;
    s->failed = 0;
    pthread_mutex_unlock(&s->mu);
    return failed ? -1 : 0;
}

static int host_bucket(int stream, const void *table, size_t n, void *out, uint64_t *counts)
{
    streams[stream].counts = counts;
    return enqueue(stream,
                   (struct task){ .kind = BUCKET,
                                  .in = table,
                                  .out = out,
                                  .n = n,
                                  .counts = counts });
}

static int host_sort(int stream, void *buf, size_t n)
{
    return enqueue(stream, (struct task){ .kind = SORT, .out = buf, .n = n });
}

static const char *host_no_exchange(void)
{
#ifdef BUCKET_SORT_SHOAL_DEVICE
    static char why[96];
    if (!HAVE_DEV || shoal_dev->host_kernels)
        return NULL;
    snprintf(why, sizeof why, "the %s device runs no host-thread kernels (use its own -K)",
             shoal_dev->name);
    return why;
#else
    return "the host-thread kernels need Shoal's device API";
#endif
}

#ifdef BUCKET_SORT_SHOAL_DEVICE
static int host_exchange(int stream, const struct bs_exch *x)
{
    if (!streams[stream].counts) {
        fprintf(stderr,
                "bucket_sort: PE %d: an exchange queued with no bucketing before it\n",
                geom.me);
        return -1;
    }
    return enqueue(stream,
                   (struct task){
                           .kind = EXCHANGE, .counts = streams[stream].counts, .x = *x });
}
#endif

static void host_fini(void)
{
    for (int i = 0; i < BS_STREAMS; i++) {
        struct stream *s = &streams[i];
        if (!s->started)
            continue;
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th, NULL);
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        memset(s, 0, sizeof *s);
    }
}

static int host_init(const struct bs_geom *g, const char *file)
{
    geom = *g;
    if (file) {
        fprintf(stderr, "bucket_sort: PE %d: the host kernels take no kernels file (-k)\n",
                g->me);
        return -1;
    }
    for (int i = 0; i < BS_STREAMS; i++) {
        struct stream *s = &streams[i];
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        if (pthread_create(&s->th, NULL, stream_main, s)) {
            fprintf(stderr, "bucket_sort: PE %d: cannot start a host stream thread\n", g->me);
            host_fini();
            return -1;
        }
        s->started = 1;
    }
    return 0;
}

static const char *host_describe(void)
{
#ifdef BUCKET_SORT_SHOAL_DEVICE
    if (HAVE_DEV) {
        static char what[64];
        snprintf(what, sizeof what, "host threads, through the %s device's copies",
                 shoal_dev->name);
        return what;
    }
#endif
    return "host threads on host memory (no device)";
}

static int host_h2d(void *dst, const void *src, size_t bytes)
{
    return to_dev(dst, src, bytes);
}

static int host_d2h(void *dst, const void *src, size_t bytes)
{
    return from_dev(dst, src, bytes);
}

const struct bs_kernels bs_host_kernels = {
    .name = "host",
    .describe = host_describe,
    .init = host_init,
    .fini = host_fini,
    .alloc = dev_alloc,
    .free = dev_free,
    .h2d = host_h2d,
    .d2h = host_d2h,
    .bucket = host_bucket,
    .sort = host_sort,
#ifdef BUCKET_SORT_SHOAL_DEVICE
    .exchange = host_exchange,
#endif
    .no_exchange = host_no_exchange,
    .sync = host_sync,
};
