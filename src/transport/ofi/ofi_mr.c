/* Memory registration: the symmetric segments (remotely accessible, keys and
 * addresses exchanged with every PE), local buffers a context owns, and the
 * registration cache for large transfers from buffers outside the segments when
 * the provider needs local buffers registered (FI_MR_LOCAL). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "transport/ofi/ofi.h"

/* What each PE tells the others about itself. */
/* remote first: on a host with a node table, the table is ofi.remote. */
struct ofi_card {
    struct ofi_remote remote[SHOAL_NSEGS];
    uint32_t nic, nnic; /* the PE's NIC, of its node's (ofi.nic) */
    uint64_t addrlen;
    char addr[OFI_ADDR_MAX];
};

/* A memory key nobody outside the job can guess: random over the provider's key
 * size. The keys travel to the other PEs only through the bootstrap. */
static uint64_t random_key(void)
{
    uint64_t k;
    if (getrandom(&k, sizeof k, 0) != (ssize_t)sizeof k)
        shoal_fatal("shmem_init",
                    "getrandom failed: %s; Shoal needs the kernel's random "
                    "numbers for unguessable memory keys",
                    strerror(errno));
    if (ofi.mode.key_bytes && ofi.mode.key_bytes < sizeof k)
        k &= ((uint64_t)1 << (8 * ofi.mode.key_bytes)) - 1;
    return k;
}

/* Registers buf, memory of the given FI_HMEM interface and device, and, where the
 * provider ties MRs to endpoints, binds it to c's. The key is the provider's own
 * (FI_MR_PROV_KEY) or a random one, drawn again in the unlikely case that it is taken. */
static int mr_regattr(struct ofi_ctx *c, void *buf, size_t len, uint64_t access,
                      enum fi_hmem_iface iface, int device, struct fid_mr **mr)
{
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    struct fi_mr_attr attr = {
        .mr_iov = &iov, .iov_count = 1, .access = access, .iface = iface
    };
    if (iface == FI_HMEM_CUDA)
        attr.device.cuda = device;
    int rc, tries = 0;
    do {
        attr.requested_key = (ofi.mode.mr_mode & FI_MR_PROV_KEY) ? 0 : random_key();
        rc = fi_mr_regattr(ofi.domain, &attr, 0, mr);
    } while (rc == -FI_ENOKEY && ++tries < 8);
    if (rc)
        return rc;
    if (ofi.mode.mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(*mr, &c->ep->fid, 0)) || (rc = fi_mr_enable(*mr))) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
        }
    }
    return rc;
}

int ofi_mr_reg(struct ofi_ctx *c, void *buf, size_t len, uint64_t access, struct fid_mr **mr)
{
    return mr_regattr(c, buf, len, access, FI_HMEM_SYSTEM, 0, mr);
}

/* How libfabric registers segment s: host memory, or the device heap as the device
 * layer offers it (a host alias is host memory; FI_HMEM_SYSTEM, CUDA and ROCR need
 * the FI_HMEM capability, which ofi_init.c asked for). */
static enum fi_hmem_iface seg_iface(int s)
{
    if (s != SHOAL_SEG_DEVICE)
        return FI_HMEM_SYSTEM;
    switch ((enum shoal_dev_iface)shoal_tp.dev_nic_iface) {
    case SHOAL_DEV_IFACE_CUDA: return FI_HMEM_CUDA;
    case SHOAL_DEV_IFACE_ROCR: return FI_HMEM_ROCR;
    default: return FI_HMEM_SYSTEM;
    }
}

int ofi_mr_segments(void)
{
    for (int s = 0; s < SHOAL_NSEGS; s++) {
        /* A device heap the NIC cannot reach (nic_base 0) is not registered; such a
         * job spanning nodes was refused at shmem_init (transport/transport.c). */
        if (!shoal.seg[s].size || !shoal_seg_nic_base(s))
            continue;
        int rc = mr_regattr(ofi.dflt, (void *)shoal_seg_nic_base(s), shoal.seg[s].size,
                            FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
                            seg_iface(s), shoal_tp.dev_nic_device, &ofi.seg_mr[s]);
        if (rc && s == SHOAL_SEG_DEVICE && shoal_tp.dev_nic_iface != SHOAL_DEV_IFACE_ALIAS) {
            shoal_warn("shmem_init",
                       "libfabric provider %s cannot register the %s device heap "
                       "(%zu bytes) as %s of device %d through FI_HMEM: %s; use a "
                       "libfabric built with that interface's support, another "
                       "SHMEM_OFI_PROVIDER, run every PE on one node, or set "
                       "SHMEM_SYMMETRIC_SIZE_DEVICE=0",
                       ofi.info->fabric_attr->prov_name, shoal_dev->name, shoal.seg[s].size,
                       shoal_dev_iface_name((enum shoal_dev_iface)shoal_tp.dev_nic_iface),
                       shoal_tp.dev_nic_device, fi_strerror(-rc));
            return -1;
        }
        if (rc) {
            shoal_warn("shmem_init",
                       "libfabric cannot register the symmetric %s (%zu bytes): "
                       "%s; lower SHMEM_SYMMETRIC_SIZE, raise the locked-memory limit "
                       "(ulimit -l), or choose another SHMEM_OFI_PROVIDER",
                       s == SHOAL_SEG_HEAP             ? "heap"
                               : s == SHOAL_SEG_DEVICE ? "device heap"
                                                       : "data segment",
                       shoal.seg[s].size, fi_strerror(-rc));
            return -1;
        }
        ofi.seg_desc[s] = fi_mr_desc(ofi.seg_mr[s]);
    }
    return 0;
}

void ofi_mr_segments_close(void)
{
    for (int s = 0; s < SHOAL_NSEGS; s++)
        if (ofi.seg_mr[s]) {
            fi_close(&ofi.seg_mr[s]->fid);
            ofi.seg_mr[s] = NULL;
        }
}

/* The keys and bases of t's cards become ofi.remote: the host's shared table as it
 * is, or a private copy without the addresses, which are in the address vector. */
static void keep_remote(struct shoal_boot_table *t)
{
    const struct ofi_card *all = t->data;
    if (t->shared) {
        ofi.remote_table = *t;
        ofi.remote = t->data;
        ofi.remote_stride = sizeof *all;
        return;
    }
    size_t n = (size_t)shoal.n_pes;
    struct ofi_remote *r = malloc(n * sizeof all->remote);
    if (!r)
        shoal_fatal("shmem_init", "out of memory for the memory keys of %d PEs", shoal.n_pes);
    for (size_t pe = 0; pe < n; pe++)
        memcpy(&r[pe * SHOAL_NSEGS], all[pe].remote, sizeof all->remote);
    shoal_boot_table_release(t);
    ofi.remote = (const char *)r;
    ofi.remote_stride = sizeof all->remote;
}

/* The NIC policy numbers each node's NICs alike (ofi_init.c, node_nics): on nodes
 * with different counts, the same variables would mean different NICs. Every PE
 * looks at every card, so that they all stop with the same message. */
static void check_nic_symmetry(const struct ofi_card *all)
{
    if (shoal.cfg.ofi_skip_nic_symmetry_test || shoal.cfg.ofi_skip_nic_selection)
        return;
    for (int pe = 1; pe < shoal.n_pes; pe++)
        if (all[pe].nnic != all[0].nnic)
            shoal_fatal("shmem_init",
                        "PE %d's node has %u NIC(s) for provider %s, PE 0's %u: the NIC "
                        "variables would choose differently on each; give every node the "
                        "same NICs (FI_TCP_IFACE or SHMEM_OFI_DOMAIN can restrict them), or "
                        "set SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST=1 to let each node number its "
                        "own",
                        pe, all[pe].nnic, ofi.info->fabric_attr->prov_name, all[0].nnic);
}

/* SHMEM_OFI_PROVIDER_DISPLAY: the provider, and each PE of PE 0's node with its NIC
 * and its address there (the NICs of one node share one list). */
static void display_nics(const struct ofi_card *all)
{
    printf("shmem: provider %s, %d NIC(s) a node (policy %s)\n",
           ofi.info->fabric_attr->prov_name, ofi.nic.count, ofi.nic.policy);
    for (int pe = 0; pe < shoal.n_pes; pe++) {
        if (!shoal_pe_local(pe))
            continue;
        char addr[OFI_ADDR_MAX * 2 + 16];
        size_t len = sizeof addr;
        if (!fi_av_straddr(ofi.av, all[pe].addr, addr, &len))
            snprintf(addr, sizeof addr, "(unprintable)");
        unsigned k = all[pe].nic;
        printf("shmem: PE %d: NIC %u %s, address %s\n", pe, k,
               k < OFI_NICS_MAX && (int)k < ofi.nic.count ? ofi.nic.name[k] : "?", addr);
    }
    fflush(stdout);
}

/* Every PE learns every PE's endpoint address and, per segment, the address
 * remote accesses name (virtual with FI_MR_VIRT_ADDR, else offsets) and key. */
int ofi_mr_exchange(void)
{
    struct ofi_card mine = { 0 };
    size_t len = sizeof mine.addr;
    int rc = fi_getname(&ofi.dflt->ep->fid, mine.addr, &len);
    if (rc)
        ofi_fatal_rc("fi_getname", rc,
                     len > sizeof mine.addr
                             ? "the provider's addresses are longer than Shoal's OFI_ADDR_MAX"
                             : "try another SHMEM_OFI_PROVIDER");
    mine.addrlen = len;
    mine.nic = (uint32_t)ofi.nic.index;
    mine.nnic = (uint32_t)ofi.nic.count;
    for (int s = 0; s < SHOAL_NSEGS; s++) {
        if (!ofi.seg_mr[s])
            continue;
        mine.remote[s].base =
                (ofi.mode.mr_mode & FI_MR_VIRT_ADDR) ? shoal_seg_nic_base(s) : 0;
        mine.remote[s].key = fi_mr_key(ofi.seg_mr[s]);
        if (mine.remote[s].key == FI_KEY_NOTAVAIL)
            shoal_fatal("shmem_init",
                        "the provider's memory keys do not fit in 64 bits "
                        "(FI_MR_RAW); choose another SHMEM_OFI_PROVIDER");
    }
    size_t n = (size_t)shoal.n_pes;
    fi_addr_t *fiaddr = calloc(n, sizeof *fiaddr);
    if (!fiaddr)
        shoal_fatal("shmem_init", "out of memory for the addresses of %d PEs", shoal.n_pes);
    struct shoal_boot_table t;
    if (shoal_boot_gather(shoal.boot, "libfabric memory keys", &mine, sizeof mine, &t))
        shoal_fatal("shmem_init", "cannot exchange libfabric addresses with the other PEs");
    const struct ofi_card *all = t.data;
    /* FI_AV_TABLE: PE pe becomes fi_addr_t pe, this PE included, so that AMOs to
     * itself go through the NIC like everyone else's. One insert per PE: string
     * addresses differ in length (the shm provider's name a pid, and pids 9999 and
     * 10000 may share a job), so they cannot be laid out as one array. */
    for (size_t pe = 0; pe < n; pe++) {
        if (all[pe].addrlen != len && ofi.info->addr_format != FI_ADDR_STR)
            shoal_fatal("shmem_init",
                        "PE %zu uses a libfabric address of %llu bytes, this PE "
                        "%zu; run every PE with the same SHMEM_OFI_PROVIDER",
                        pe, (unsigned long long)all[pe].addrlen, len);
        rc = fi_av_insert(ofi.av, all[pe].addr, 1, &fiaddr[pe], 0, NULL);
        if (rc != 1)
            ofi_fatal_rc("fi_av_insert", rc < 0 ? rc : -FI_EINVAL,
                         "check that every PE's network is reachable (SHMEM_OFI_DOMAIN)");
    }
    for (size_t pe = 0; pe < n; pe++)
        if (fiaddr[pe] != pe)
            shoal_fatal("shmem_init",
                        "libfabric's address vector did not number PE %zu as %zu; "
                        "choose another SHMEM_OFI_PROVIDER",
                        pe, pe);
    free(fiaddr);
    check_nic_symmetry(all);
    if (shoal.cfg.ofi_provider_display && shoal.my_pe == 0)
        display_nics(all);
    keep_remote(&t);
    return 0;
}

void ofi_mr_remote_free(void)
{
    if (ofi.remote_table.data)
        shoal_boot_table_release(&ofi.remote_table);
    else
        free((void *)ofi.remote);
    ofi.remote = NULL;
}

static unsigned reg_capacity(void)
{
    long n = shoal.cfg.ofi_mr_cache;
    return n <= 0 || n > OFI_REG_MAX ? OFI_REG_MAX : (unsigned)n;
}

void *ofi_reg_desc(struct ofi_ctx *c, const void *buf, size_t len)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)buf & ~(page - 1);
    uintptr_t hi = ((uintptr_t)buf + len + page - 1) & ~(page - 1);
    struct ofi_reg *victim = NULL;
    for (unsigned i = 0; i < c->nreg; i++) {
        struct ofi_reg *r = &c->reg[i];
        if (r->lo <= lo && hi <= r->hi) {
            r->used = ++c->reg_clock;
            return r->desc;
        }
        if (!victim || r->used < victim->used)
            victim = r;
    }
    if (c->nreg < reg_capacity()) {
        victim = &c->reg[c->nreg++];
    } else {
        /* The victim may be the source of a transfer still in flight. */
        ofi_wait_issued(c);
        fi_close(&victim->mr->fid);
    }
    int rc = ofi_mr_reg(c, (void *)lo, hi - lo, FI_READ | FI_WRITE, &victim->mr);
    if (rc)
        shoal_fatal("shmem_put",
                    "libfabric cannot register a local buffer of %zu bytes: %s; "
                    "raise the locked-memory limit (ulimit -l), lower SHMEM_OFI_MR_CACHE, or "
                    "transfer from symmetric memory",
                    (size_t)(hi - lo), fi_strerror(-rc));
    victim->lo = lo;
    victim->hi = hi;
    victim->desc = fi_mr_desc(victim->mr);
    victim->used = ++c->reg_clock;
    return victim->desc;
}

void ofi_reg_release(struct ofi_ctx *c)
{
    for (unsigned i = 0; i < c->nreg; i++)
        fi_close(&c->reg[i].mr->fid);
    c->nreg = 0;
}
