/* The provider's own round trips, measured with libfabric alone (no SHMEM), so that
 * Shoal's network figures read against them. Two processes on the first two CPUs this
 * one may use, each with RDM endpoints of the provider SHMEM_OFI_PROVIDER names
 * (default tcp;ofi_rxm); the target only drives its provider (fi_cq_read in a loop),
 * as a PE waiting in Shoal does. The initiator measures, 8 bytes each, rounds
 * interleaved, the median of the rounds' means:
 *   ofi_read_rt        fi_read, waited for on a counter: a get;
 *   ofi_write_read_rt  fi_inject_write, then fi_read from the same target, waited for
 *                      on the read counter: where the provider orders a read after
 *                      writes (FI_ORDER_RAW), the write is visible at the target once
 *                      the read returns: Shoal's put + quiet;
 *   ofi_write_dc_rt    fi_writemsg with FI_DELIVERY_COMPLETE, waited for on the CQ: a
 *                      write whose completion means it is visible at the target;
 *   ofi_write_cntr     fi_inject_write on an endpoint with a write counter, waited for
 *                      on that counter with the provider's default completion
 *                      (FI_TRANSMIT_COMPLETE), as a quiet that waits for the put
 *                      counter does: over tcp;ofi_rxm it completes once the socket has
 *                      taken the data, without word from the target, so that the write
 *                      may still be unapplied there, and is no round trip;
 *   ofi_pingpong       half round trip of a ping-pong by fi_inject_write into a word
 *                      the other side polls in memory: a one-way message.
 * Output: RESULT lines as the SHMEM programs print them, impl "machine"; argv[1], the
 * iterations per round. Ends with status 77 (skip) where the provider is missing. */
#define _GNU_SOURCE
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "limits.h"

#define ROUNDS 5
#define NAME_MAX_LEN 256

/* Endpoint 0 has no write counter (rxm then sends an inject at once, uncounted);
 * endpoint 1 has one, for ofi_write_cntr. */
enum { EP_PLAIN, EP_WCNTR, NEPS };

struct side {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct {
        struct fid_ep *ep;
        struct fid_cq *cq;
        struct fid_cntr *rcntr, *wcntr;
        struct fid_mr *mr;
        void *desc;
        fi_addr_t peer;
        uint64_t raddr, rkey;
        uint64_t reads, writes;
    } e[NEPS];
    volatile uint64_t *buf; /* word 0: the ping-pong's; word 1: reads and writes */
    uint64_t completed;     /* CQ entries seen: the writes that ask for one */
};

/* What the processes share besides the endpoints: when to stop. */
struct control {
    volatile int stop;
};

static void check(int rc, const char *what)
{
    if (rc) {
        fprintf(stderr, "ofi_rt: %s: %s (%d)\n", what, fi_strerror(rc < 0 ? -rc : rc), rc);
        exit(1);
    }
}

static void pin_nth(int n)
{
    int cpu = limits_nth_cpu(n);
    if (cpu < 0)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
}

static int open_side(struct side *s, const char *prov)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return -1;
    h->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->domain_attr->mr_mode =
            FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_LOCAL | FI_MR_ENDPOINT | FI_MR_PROV_KEY;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->mode = 0;
    h->fabric_attr->prov_name = strdup(prov);
    int rc = fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, h, &s->info);
    fi_freeinfo(h);
    if (rc)
        return -1;
    check(fi_fabric(s->info->fabric_attr, &s->fabric, NULL), "fi_fabric");
    check(fi_domain(s->fabric, s->info, &s->domain, NULL), "fi_domain");
    struct fi_av_attr av = { .type = FI_AV_TABLE };
    check(fi_av_open(s->domain, &av, &s->av, NULL), "fi_av_open");
    s->buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s->buf == MAP_FAILED)
        check(-FI_ENOMEM, "mmap");
    for (int i = 0; i < NEPS; i++) {
        struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE };
        struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE };
        check(fi_endpoint(s->domain, s->info, &s->e[i].ep, NULL), "fi_endpoint");
        check(fi_cq_open(s->domain, &cq, &s->e[i].cq, NULL), "fi_cq_open");
        check(fi_cntr_open(s->domain, &ca, &s->e[i].rcntr, NULL), "fi_cntr_open");
        check(fi_ep_bind(s->e[i].ep, &s->av->fid, 0), "fi_ep_bind av");
        check(fi_ep_bind(s->e[i].ep, &s->e[i].cq->fid,
                         FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION),
              "fi_ep_bind cq");
        check(fi_ep_bind(s->e[i].ep, &s->e[i].rcntr->fid, FI_READ), "fi_ep_bind cntr");
        if (i == EP_WCNTR) {
            check(fi_cntr_open(s->domain, &ca, &s->e[i].wcntr, NULL), "fi_cntr_open");
            check(fi_ep_bind(s->e[i].ep, &s->e[i].wcntr->fid, FI_WRITE), "fi_ep_bind cntr");
        }
        check(fi_enable(s->e[i].ep), "fi_enable");
        check(fi_mr_reg(s->domain, (void *)s->buf, 4096,
                        FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
                        (uint64_t)i + 1, 0, &s->e[i].mr, NULL),
              "fi_mr_reg");
        if (s->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
            check(fi_mr_bind(s->e[i].mr, &s->e[i].ep->fid, 0), "fi_mr_bind");
            check(fi_mr_enable(s->e[i].mr), "fi_mr_enable");
        }
        s->e[i].desc = fi_mr_desc(s->e[i].mr);
    }
    return 0;
}

/* What each side tells the other about endpoint i. */
struct card {
    size_t namelen;
    char name[NAME_MAX_LEN];
    uint64_t addr, key;
};

static void exchange(struct side *s, int fd)
{
    for (int i = 0; i < NEPS; i++) {
        struct card mine = { .namelen = NAME_MAX_LEN }, theirs;
        check(fi_getname(&s->e[i].ep->fid, mine.name, &mine.namelen), "fi_getname");
        mine.addr = (s->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)s->buf : 0;
        mine.key = fi_mr_key(s->e[i].mr);
        if (write(fd, &mine, sizeof mine) != sizeof mine ||
            read(fd, &theirs, sizeof theirs) != sizeof theirs)
            check(-FI_EIO, "address exchange");
        if (fi_av_insert(s->av, theirs.name, 1, &s->e[i].peer, 0, NULL) != 1)
            check(-FI_EADDRNOTAVAIL, "fi_av_insert");
        s->e[i].raddr = theirs.addr;
        s->e[i].rkey = theirs.key;
    }
}

static void drive(struct side *s)
{
    struct fi_cq_entry ev[8];
    for (int i = 0; i < NEPS; i++) {
        ssize_t n = fi_cq_read(s->e[i].cq, ev, 8);
        if (n > 0)
            s->completed += (uint64_t)n;
        else if (n != -FI_EAGAIN)
            check((int)n, "fi_cq_read");
    }
}

/* Retries a post the provider refuses for now, driving it meanwhile. */
#define POST(s, call)                                                                        \
    do {                                                                                     \
        ssize_t rc_;                                                                         \
        while ((rc_ = (call)) == -FI_EAGAIN)                                                 \
            drive(s);                                                                        \
        check((int)rc_, #call);                                                              \
    } while (0)

/* The target: drives its provider and answers the ping-pong until told to stop. */
static void serve(struct side *s, struct control *ctl)
{
    uint64_t echoed = 0;
    while (!ctl->stop) {
        drive(s);
        uint64_t v = s->buf[0];
        if (v != echoed) {
            POST(s,
                 fi_inject_write(s->e[EP_PLAIN].ep, &v, 8, s->e[EP_PLAIN].peer,
                                 s->e[EP_PLAIN].raddr, s->e[EP_PLAIN].rkey));
            echoed = v;
        }
    }
}

static void wait_cntr(struct side *s, struct fid_cntr *c, uint64_t n)
{
    while (fi_cntr_read(c) < n)
        drive(s);
}

static void wait_cq(struct side *s, uint64_t n)
{
    while (s->completed < n)
        drive(s);
}

enum { READ_RT, WRITE_READ_RT, WRITE_DC_RT, WRITE_CNTR, PINGPONG, NKINDS };
static const char *const names[NKINDS] = { "ofi_read_rt", "ofi_write_read_rt",
                                           "ofi_write_dc_rt", "ofi_write_cntr",
                                           "ofi_pingpong" };

/* One round of kind k: the mean time of one operation, microseconds. */
static double measure(struct side *s, int k, long iters)
{
    static uint64_t ping;
    struct fid_ep *ep = s->e[EP_PLAIN].ep;
    fi_addr_t peer = s->e[EP_PLAIN].peer;
    uint64_t raddr = s->e[EP_PLAIN].raddr + 8, key = s->e[EP_PLAIN].rkey, v = 1;
    struct iovec iov = { &v, 8 };
    void *desc = s->e[EP_PLAIN].desc;
    struct fi_rma_iov rma = { raddr, 8, key };
    struct fi_msg_rma msg = { .msg_iov = &iov,
                              .desc = &desc,
                              .iov_count = 1,
                              .addr = peer,
                              .rma_iov = &rma,
                              .rma_iov_count = 1 };
    double t0 = limits_now_us();
    for (long i = 0; i < iters; i++) {
        switch (k) {
        case WRITE_READ_RT:
            POST(s, fi_inject_write(ep, &v, 8, peer, raddr, key));
            /* The read settles the write. */
            /* fall through */
        case READ_RT:
            POST(s, fi_read(ep, (void *)&s->buf[2], 8, desc, peer, raddr, key, NULL));
            wait_cntr(s, s->e[EP_PLAIN].rcntr, ++s->e[EP_PLAIN].reads);
            break;
        case WRITE_DC_RT:
            v = (uint64_t)i;
            POST(s, fi_writemsg(ep, &msg, FI_DELIVERY_COMPLETE | FI_COMPLETION));
            wait_cq(s, s->completed + 1);
            break;
        case WRITE_CNTR:
            POST(s,
                 fi_inject_write(s->e[EP_WCNTR].ep, &v, 8, s->e[EP_WCNTR].peer,
                                 s->e[EP_WCNTR].raddr + 8, s->e[EP_WCNTR].rkey));
            wait_cntr(s, s->e[EP_WCNTR].wcntr, ++s->e[EP_WCNTR].writes);
            break;
        case PINGPONG:
            ping++;
            POST(s, fi_inject_write(ep, &ping, 8, peer, s->e[EP_PLAIN].raddr, key));
            while (s->buf[0] != ping)
                drive(s);
            break;
        }
    }
    double t = (limits_now_us() - t0) / (double)iters;
    return k == PINGPONG ? t / 2 : t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long iters = limits_iters(argc, argv, 2000, "iterations per round");
    const char *prov = getenv("SHMEM_OFI_PROVIDER");
    if (!prov || !*prov)
        prov = "tcp;ofi_rxm";
    struct control *ctl = mmap(NULL, sizeof *ctl, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int sv[2];
    if (ctl == MAP_FAILED || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        perror("ofi_rt");
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    struct side s = { 0 };
    pin_nth(pid == 0 ? 1 : 0);
    if (open_side(&s, prov)) {
        if (pid == 0)
            _exit(77);
        waitpid(pid, NULL, 0);
        printf("# ofi_rt: provider %s is not available here\n", prov);
        return 77;
    }
    exchange(&s, pid == 0 ? sv[1] : sv[0]);
    if (pid == 0) {
        serve(&s, ctl);
        _exit(0);
    }
    for (int k = 0; k < NKINDS; k++) /* warm up: connections, caches */
        measure(&s, k, iters / 10 + 1);
    double t[NKINDS][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < NKINDS; k++)
            t[k][r] = measure(&s, k, iters);
    ctl->stop = 1;
    waitpid(pid, NULL, 0);
    printf("# ofi_rt: provider %s, %ld iterations x %d rounds, median [min, max] us\n",
           s.info->fabric_attr->prov_name, iters, ROUNDS);
    for (int k = 0; k < NKINDS; k++) {
        qsort(t[k], ROUNDS, sizeof t[k][0], cmp);
        printf("# %-18s %8.2f [%.2f, %.2f]\n", names[k], t[k][ROUNDS / 2], t[k][0],
               t[k][ROUNDS - 1]);
        limits_result(names[k], 8, "lat_us", t[k][ROUNDS / 2]);
    }
    return 0;
}
