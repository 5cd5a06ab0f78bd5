/* The node-level exchange behind shoal_boot_gather. A plain allgather hands every PE
 * its own copy of all N PEs' cards, and under PMIx costs each PE one request to its
 * server per peer: PEs per node x N per node, for every exchange. Here the lowest PE
 * of each host (its leader) collects the host's cards through shared memory,
 * publishes them as one value, and after one collect reads one value per host;
 * it writes the table into a memfd that the host's other PEs map read-only. Per
 * host that is one copy of N cards and a request per host.
 *
 * The shared memory is memfds, as for the heap (mem/segment.c): nothing is named,
 * a peer opens one through /proc/<leader>/fd/<n>, which only the job's user may,
 * and the leader closes its descriptor once every peer has mapped it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap.h"
#include "env.h"
#include "log.h"

/* Largest card that goes through the node's slots; larger ones take the plain
 * allgather (every PE decides alike: len is the same on all). */
#define CARD_MAX 1024

struct slot {
    _Atomic uint64_t seq;    /* the exchange whose card this is */
    _Atomic uint64_t mapped; /* the last exchange whose table this PE has mapped */
    int32_t pid, rank;
    char card[CARD_MAX];
} __attribute__((aligned(64)));

/* The host's control region: the leader's, mapped by every PE of the host. */
struct ctl {
    _Atomic uint64_t ready;  /* the exchange whose table is table_fd */
    _Atomic uint32_t failed; /* the leader gave up: its message says why */
    int32_t leader_pid;
    int32_t table_fd; /* in the leader's process */
    uint64_t table_bytes;
    struct slot slot[];
};

/* Published by each leader, for its host's PEs to find the control region. */
struct ctl_card {
    int32_t pid, fd;
};

static struct {
    int my_pe, n_pes, enabled; /* shoal_boot_gather_job */
    int state;                 /* 0: not decided, 1: node tables, -1: plain allgathers */
    int leader, local_rank, local_size;
    struct ctl *ctl;
    size_t ctl_bytes;
    int ctl_fd; /* leader: until every peer has mapped the region */
} nx = { .ctl_fd = -1 };
/* Numbers the exchanges across re-initialisations: keys never meet older ones. */
static uint64_t nx_seq;

void shoal_boot_gather_job(int my_pe, int n_pes, int node_exchange)
{
    nx.my_pe = my_pe;
    nx.n_pes = n_pes;
    nx.enabled = node_exchange;
}

static int leading(void)
{
    return nx.my_pe == nx.leader;
}

static int fail(const char *what, const char *why)
{
    fprintf(shoal_error_stream(), "shoal: PE %d: node-level exchange (%s): %s\n", nx.my_pe,
            what, why);
    if (nx.ctl && leading())
        atomic_store_explicit(&nx.ctl->failed, 1, memory_order_release);
    return -1;
}

/* A memfd of bytes, mapped read-write; -1 after saying why. */
static int new_shared(const char *name, size_t bytes, void **map)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (*map == MAP_FAILED) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The leader's memfd fd, mapped with prot; NULL after saying why. */
static void *map_leaders(int pid, int fd, size_t bytes, int prot, const char *what)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int mine = open(path, (prot & PROT_WRITE ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (mine < 0) {
        char why[256];
        snprintf(why, sizeof why,
                 "cannot open the node leader's shared memory %s: %s; Shoal needs "
                 "/proc of the same-node PEs (same user, /proc not mounted hidepid), "
                 "or set SHOAL_NODE_EXCHANGE=0",
                 path, strerror(errno));
        fail(what, why);
        return NULL;
    }
    void *p = mmap(NULL, bytes, prot, MAP_SHARED, mine, 0);
    close(mine);
    if (p == MAP_FAILED) {
        fail(what, strerror(errno));
        return NULL;
    }
    return p;
}

/* Waits until *word reaches want, which the process *who (0: not known yet) does.
 * Its exit meanwhile, or the leader giving up, ends the wait with -1: the launcher
 * ends the job, but the wait must not outlast it. */
static int wait_for(_Atomic uint64_t *word, uint64_t want, const char *what,
                    const volatile int32_t *who)
{
    struct timespec nap = { 0, 0 };
    for (unsigned spin = 0;; spin++) {
        if (atomic_load_explicit(word, memory_order_acquire) >= want)
            return 0;
        if (atomic_load_explicit(&nx.ctl->failed, memory_order_acquire))
            return fail(what, "the node's leader failed; see its message");
        if (spin < 64) {
            sched_yield();
            continue;
        }
        /* Sleeps of up to 1 ms: the PEs of a host often outnumber its cores. */
        if (nap.tv_nsec < 1000000)
            nap.tv_nsec += 50000;
        nanosleep(&nap, NULL);
        int pid = *who;
        if (spin % 64 == 0 && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
            char why[160];
            snprintf(why, sizeof why,
                     "a PE of this node (pid %d) exited during start-up; see its message",
                     pid);
            return fail(what, why);
        }
    }
}

/* Decides, once, whether the exchanges go through node tables; sets up the host's
 * control region when they do. Collective: every PE decides alike (same launcher,
 * same SHOAL_NODE_EXCHANGE). */
static int node_open(const struct shoal_boot_ops *b)
{
    const char *what = "finding this node's PEs";
    nx.state = -1;
    if (!nx.enabled || !b->node || !b->put || !b->collect || !b->get ||
        b->node(&nx.leader, &nx.local_rank, &nx.local_size)) {
        SHOAL_LOG(BOOT, DEBUG, "plain exchanges: %s",
                  !nx.enabled ? "SHOAL_NODE_EXCHANGE=0"
                              : "the launcher does not say which PEs share a host");
        return 0;
    }
    if (nx.local_size < 1 || nx.local_rank < 0 || nx.local_rank >= nx.local_size ||
        nx.leader < 0 || nx.leader > nx.my_pe)
        return fail(what, "the launcher's description of this node is inconsistent");
    nx.ctl_bytes = sizeof *nx.ctl + (size_t)nx.local_size * sizeof(struct slot);
    char key[64];
    snprintf(key, sizeof key, "shoal.nx.%llu", (unsigned long long)++nx_seq);
    if (leading()) {
        void *map;
        nx.ctl_fd = new_shared("shoal-node", nx.ctl_bytes, &map);
        if (nx.ctl_fd < 0)
            return fail(what, "cannot create the node's shared memory (memfd_create)");
        nx.ctl = map;
        nx.ctl->leader_pid = getpid();
        struct ctl_card c = { getpid(), nx.ctl_fd };
        if (b->put(key, &c, sizeof c))
            return -1;
    }
    if (b->collect())
        return -1;
    if (!leading()) {
        void *v = NULL;
        size_t len = 0;
        if (b->get(nx.leader, key, &v, &len))
            return -1;
        struct ctl_card c = { 0, 0 };
        if (len == sizeof c)
            memcpy(&c, v, sizeof c);
        free(v);
        if (len != sizeof c)
            return fail(what, "the node's leader published a malformed card");
        nx.ctl = map_leaders(c.pid, c.fd, nx.ctl_bytes, PROT_READ | PROT_WRITE, what);
        if (!nx.ctl)
            return -1;
    }
    /* From here the leader can tell this PE's exit from its lateness (wait_for). */
    nx.ctl->slot[nx.local_rank].pid = getpid();
    nx.state = 1;
    SHOAL_LOG(BOOT, DEBUG, "node-level exchange: %d PE(s) on this host, leader PE %d",
              nx.local_size, nx.leader);
    return 0;
}

/* The leader's half of exchange seq: the host's cards out as one value, every
 * host's in, into a new table. */
static int lead(const struct shoal_boot_ops *b, const char *what, uint64_t seq, size_t len,
                char *key)
{
    int n = nx.n_pes, local = nx.local_size;
    /* Every peer has written this exchange's card, so has mapped the control region:
     * nobody needs to open it again. */
    if (nx.ctl_fd >= 0)
        close(nx.ctl_fd);
    nx.ctl_fd = -1;
    size_t blob_len = sizeof(int32_t) * (1 + (size_t)local) + (size_t)local * len;
    char *blob = malloc(blob_len);
    if (!blob)
        return fail(what, "out of memory");
    int32_t count = local;
    memcpy(blob, &count, sizeof count);
    for (int i = 0; i < local; i++) {
        memcpy(blob + sizeof(int32_t) * (1 + (size_t)i), &nx.ctl->slot[i].rank,
               sizeof(int32_t));
        memcpy(blob + sizeof(int32_t) * (1 + (size_t)local) + (size_t)i * len,
               nx.ctl->slot[i].card, len);
    }
    int rc = b->put(key, blob, blob_len);
    free(blob);
    if (rc || b->collect())
        return -1;

    size_t bytes = (size_t)n * len;
    void *map;
    int fd = new_shared("shoal-node-table", bytes ? bytes : 1, &map);
    char *covered = calloc((size_t)n, 1);
    if (fd < 0 || !covered) {
        if (fd >= 0)
            close(fd);
        free(covered);
        return fail(what, "cannot create the node's table (out of memory)");
    }
    char *table = map;
    /* The lowest rank not yet placed is the leader of a host not yet read: any
     * lower PE of its host would have brought it along. */
    for (int r = 0; r < n; r++) {
        if (covered[r])
            continue;
        void *v = NULL;
        size_t got = 0;
        if (b->get(r, key, &v, &got)) {
            rc = -1;
            break;
        }
        int32_t cnt = 0;
        if (got >= sizeof cnt)
            memcpy(&cnt, v, sizeof cnt);
        const char *bad = NULL;
        if (cnt < 1 || cnt > n ||
            got != sizeof(int32_t) * (1 + (size_t)cnt) + (size_t)cnt * len)
            bad = "a node's leader published a malformed table";
        for (int i = 0; !bad && i < cnt; i++) {
            int32_t pe;
            memcpy(&pe, (char *)v + sizeof(int32_t) * (1 + (size_t)i), sizeof pe);
            if (pe < r || pe >= n || covered[pe]) {
                bad = "the launcher placed a PE on two nodes";
                break;
            }
            covered[pe] = 1;
            memcpy(table + (size_t)pe * len,
                   (char *)v + sizeof(int32_t) * (1 + (size_t)cnt) + (size_t)i * len, len);
        }
        free(v);
        if (!bad && !covered[r])
            bad = "a node's leader is not among its PEs";
        if (bad) {
            rc = fail(what, bad);
            break;
        }
    }
    free(covered);
    if (rc) {
        munmap(map, bytes ? bytes : 1);
        close(fd);
        return rc;
    }
    /* The leader too reads the table through a read-only mapping (node_gather). */
    munmap(map, bytes ? bytes : 1);
    nx.ctl->table_fd = fd;
    nx.ctl->table_bytes = bytes;
    atomic_store_explicit(&nx.ctl->ready, seq, memory_order_release);
    return 0;
}

static int node_gather(const struct shoal_boot_ops *b, const char *what, const void *in,
                       size_t len, struct shoal_boot_table *t)
{
    uint64_t seq = ++nx_seq;
    char key[64];
    snprintf(key, sizeof key, "shoal.nx.%llu", (unsigned long long)seq);
    struct slot *mine = &nx.ctl->slot[nx.local_rank];
    memcpy(mine->card, in, len);
    mine->pid = getpid();
    mine->rank = nx.my_pe;
    atomic_store_explicit(&mine->seq, seq, memory_order_release);
    if (leading()) {
        for (int i = 0; i < nx.local_size; i++)
            if (wait_for(&nx.ctl->slot[i].seq, seq, what, &nx.ctl->slot[i].pid))
                return -1;
        if (lead(b, what, seq, len, key))
            return -1;
    } else if (b->collect() || wait_for(&nx.ctl->ready, seq, what, &nx.ctl->leader_pid)) {
        return -1;
    }
    size_t bytes = nx.ctl->table_bytes;
    if (bytes != (size_t)nx.n_pes * len)
        return fail(what, "the node's table has the wrong size");
    void *p = map_leaders(nx.ctl->leader_pid, nx.ctl->table_fd, bytes ? bytes : 1, PROT_READ,
                          what);
    if (!p)
        return -1;
    atomic_store_explicit(&mine->mapped, seq, memory_order_release);
    /* Once every peer has mapped the table its descriptor goes: from then on no
     * process can open it, and it lives as long as the mappings. */
    if (leading()) {
        for (int i = 0; i < nx.local_size; i++)
            if (wait_for(&nx.ctl->slot[i].mapped, seq, what, &nx.ctl->slot[i].pid)) {
                munmap(p, bytes ? bytes : 1);
                return -1;
            }
        close(nx.ctl->table_fd);
    }
    *t = (struct shoal_boot_table){ .data = p, .bytes = bytes, .shared = 1 };
    return 0;
}

int shoal_boot_gather(const struct shoal_boot_ops *b, const char *what, const void *in,
                      size_t len, struct shoal_boot_table *t)
{
    *t = (struct shoal_boot_table){ 0 };
    if (!nx.state && node_open(b))
        return -1;
    if (nx.state > 0 && len <= CARD_MAX) {
        double t0 = SHOAL_LOG_ON(BOOT, DEBUG) ? shoal_log_now() : 0;
        int rc = node_gather(b, what, in, len, t);
        SHOAL_LOG(BOOT, DEBUG, "%s: node-level exchange of %zu bytes per PE %s after %.3f s",
                  what, len, rc ? "failed" : "done", shoal_log_now() - t0);
        return rc;
    }
    size_t bytes = (size_t)nx.n_pes * len;
    void *all = malloc(bytes ? bytes : 1);
    if (!all || shoal_boot_allgather(b, what, in, all, len)) {
        free(all);
        return -1;
    }
    *t = (struct shoal_boot_table){ .data = all, .bytes = bytes };
    return 0;
}

void shoal_boot_table_release(struct shoal_boot_table *t)
{
    if (t->shared)
        munmap((void *)t->data, t->bytes ? t->bytes : 1);
    else
        free((void *)t->data);
    *t = (struct shoal_boot_table){ 0 };
}

void shoal_boot_node_fini(void)
{
    if (nx.ctl)
        munmap(nx.ctl, nx.ctl_bytes);
    if (nx.ctl_fd >= 0)
        close(nx.ctl_fd);
    nx = (typeof(nx)){ .ctl_fd = -1 };
}
