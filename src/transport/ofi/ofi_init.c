/* Start-up and shutdown of the libfabric transport: provider selection, fabric,
 * domain and address vector, the default context, segment registration and the
 * exchange of addresses and keys with every PE. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/routine.h"
#include "device/device.h"
#include "env/hwtopo.h"
#include "transport/ofi/ofi.h"

struct ofi_state ofi;

/* Transmit queue depth of a context's own endpoint over shm (ctx_endpoint_info). */
#define OFI_CTX_SHM_TX_SIZE 64

_Noreturn void ofi_fatal_rc(const char *what, int rc, const char *remedy)
{
    shoal_fatal("ofi", "%s failed: %s (%d); %s", what, fi_strerror(rc < 0 ? -rc : rc), rc,
                remedy);
}

static int set(const char *v)
{
    return v && *v;
}

/* The device heap goes through libfabric's device-memory registration (FI_HMEM)
 * unless the device layer offers a host alias, which is host memory to the NIC;
 * transport.c refused a device heap the network cannot reach at all. */
static int hmem_wanted(void)
{
    return shoal.seg[SHOAL_SEG_DEVICE].size &&
            shoal_tp.dev_nic_iface != SHOAL_DEV_IFACE_ALIAS;
}

/* The capabilities Shoal cannot do without, and every MR mode it can handle but
 * FI_MR_PROV_KEY: a provider that lets Shoal choose memory keys gets random ones
 * (ofi_mr.c); provider-chosen keys are the fallback (select_provider). */
static struct fi_info *base_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        shoal_fatal("shmem_init", "out of memory starting libfabric");
    h->caps = FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->domain_attr->mr_mode =
            FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_LOCAL | FI_MR_ENDPOINT;
    /* Only the device heap is device memory to libfabric: local buffers are host
     * memory (dev_route.c stages device ones), so FI_MR_HMEM costs nothing. */
    if (hmem_wanted()) {
        h->caps |= FI_HMEM;
        h->domain_attr->mr_mode |= FI_MR_HMEM;
    }
    /* A progress thread (SHMEM_OFI_PROGRESS_THREAD, on by default where progress
     * is manual) drives endpoints beside the threads that use them. */
    h->domain_attr->threading = ofi.mode.locked || ofi_progress_thread_wanted()
            ? FI_THREAD_SAFE
            : FI_THREAD_DOMAIN;
    /* No FI_CONTEXT mode: puts and gets that only count on a counter carry no
     * context, so a provider that needs one per operation does not fit. */
    h->mode = 0;
    /* SHMEM_OFI_FABRIC and _DOMAIN are matched against the answers (match_names),
     * which then name the choices there are when nothing matches. */
    if (set(shoal.cfg.ofi_provider))
        h->fabric_attr->prov_name = strdup(shoal.cfg.ofi_provider);
    return h;
}

/* Appends item to a ", "-separated list in buf unless it is there already. */
static void list_add(char *buf, size_t len, const char *item)
{
    size_t used = strlen(buf), n = strlen(item);
    for (const char *p = buf; (p = strstr(p, item)); p += n)
        if ((p == buf || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return;
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", item);
}

/* Names of every provider libfabric offers here, for the error message. */
static void list_providers(char *buf, size_t len)
{
    struct fi_info *all = NULL;
    buf[0] = '\0';
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, NULL, &all) || !all) {
        snprintf(buf, len, "none (is a libfabric provider installed? see fi_info -l)");
        return;
    }
    for (struct fi_info *i = all; i; i = i->next)
        list_add(buf, len, i->fabric_attr->prov_name);
    fi_freeinfo(all);
}

static _Noreturn void no_provider(int rc)
{
    char avail[1024];
    list_providers(avail, sizeof avail);
    const char *p = set(shoal.cfg.ofi_provider) ? shoal.cfg.ofi_provider : "(any)";
    const char *var = shoal_env_set_as("SHMEM_OFI_PROVIDER");
    shoal_fatal("shmem_init",
                "no libfabric provider offers reliable datagram endpoints with "
                "RMA and atomics%s for %s=%s (fi_getinfo: %s); providers "
                "here: %s; set %s to one that supports FI_EP_RDM with "
                "FI_RMA|FI_ATOMIC (e.g. tcp;ofi_rxm)",
                ofi.mode.locked ? " and FI_THREAD_SAFE" : "", var, p, fi_strerror(-rc), avail,
                var);
}

/* Providers that pass fi_getinfo but cannot carry Shoal, with the reason.
 * ofi_rxd (over udp or sockets) crashes inside libfabric 1.17 on fetching atomics
 * and takes hundreds of microseconds per operation on loopback. ofi_rxm over
 * sockets fails fi_enable on an endpoint bound to a CQ with a wait object
 * ("unsupported wait object"), which the progress thread sleeps on; sockets
 * alone carries the same traffic. */
static const struct {
    const char *prov, *why;
} refused[] = {
    { "ofi_rxd", "its fetching atomics crash inside libfabric (seen with 1.17)" },
    { "sockets;ofi_rxm",
      "ofi_rxm cannot enable an endpoint over sockets whose completion queue has a wait "
      "object, which the progress thread needs (seen with libfabric 1.17); use sockets "
      "alone" },
};

static const char *refusal(const struct fi_info *i)
{
    for (size_t r = 0; r < sizeof refused / sizeof refused[0]; r++)
        if (strstr(i->fabric_attr->prov_name, refused[r].prov))
            return refused[r].why;
    return NULL;
}

/* The first offer that is not refused; a refused provider the user asked for ends
 * the job with a message naming the ones that work. */
static struct fi_info *first_usable(struct fi_info *all)
{
    for (struct fi_info *i = all; i; i = i->next)
        if (!refusal(i))
            return i;
    shoal_fatal("shmem_init",
                "libfabric provider %s cannot carry OpenSHMEM: %s; set "
                "SHMEM_OFI_PROVIDER to one that works: tcp;ofi_rxm (any Ethernet), "
                "verbs;ofi_rxm, cxi, efa, shm (one node) or sockets",
                all->fabric_attr->prov_name, refusal(all));
}

/* Whether to ask the provider for FI_DELIVERY_COMPLETE. shm sends every small
 * delivery-complete write through its segmentation buffer, one at a time per
 * peer and each waiting for the target's progress (about 140 us a put); its
 * plain completion is enough for quiet: writes to one range land by a CMA copy
 * before they complete, or (without CMA) wait in the target's single ordered
 * command queue, ahead of any later operation that could observe them. What it
 * queues while CMA carries gets is dealt with in adopt_info. */
static int want_delivery_complete(const struct fi_info *i)
{
    return strcmp(i->fabric_attr->prov_name, "shm") != 0;
}

/* Where each PE is: its host, its network namespace, and its IPv4 addresses (up to
 * HOST_ADDRS, loopback left out), which decide the interface that reaches the PEs of
 * other hosts (peer_reach). */
enum { HOST_ADDRS = 8 };
struct host_id {
    char name[256];
    uint64_t netns;
    uint32_t n_addr;
    struct in_addr addr[HOST_ADDRS];
};
static struct shoal_boot_table hosts_table;
static const struct host_id *hosts; /* every PE's, while the provider is chosen */

static void my_addresses(struct host_id *me)
{
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return;
    for (struct ifaddrs *i = ifs; i && me->n_addr < HOST_ADDRS; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK))
            me->addr[me->n_addr++] = ((const struct sockaddr_in *)i->ifa_addr)->sin_addr;
    freeifaddrs(ifs);
}

/* Whether every PE of the job runs on this host and in this network namespace, so
 * that loopback reaches them all (node maps that split one host included). Keeps
 * every PE's whereabouts in hosts when they do not. */
static int job_on_one_host(void)
{
    struct host_id mine;
    struct stat st;
    memset(&mine, 0, sizeof mine);
    gethostname(mine.name, sizeof mine.name - 1);
    mine.netns = stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino : 0;
    my_addresses(&mine);
    struct shoal_boot_table t;
    if (shoal_boot_gather(shoal.boot, "host addresses", &mine, sizeof mine, &t))
        shoal_fatal("shmem_init", "cannot exchange host names with the other PEs");
    const struct host_id *all = t.data;
    int one = 1;
    for (int pe = 0; pe < shoal.n_pes && one; pe++)
        one = strcmp(all[pe].name, mine.name) == 0 && all[pe].netns == mine.netns;
    if (one) {
        shoal_boot_table_release(&t);
    } else {
        hosts_table = t;
        hosts = all;
    }
    return one;
}

/* How many PEs of other hosts have an address in the subnet of the interface that
 * entry i listens on: libfabric lists a host's interfaces in its own order (a
 * container bridge or a management network may come first), and the job's traffic
 * belongs on the one its peers share. -1 when unknown (not IPv4, no such interface). */
static int peer_reach(const struct fi_info *i)
{
    if (!hosts || !i->src_addr || i->addr_format != FI_SOCKADDR_IN)
        return -1;
    struct in_addr a = ((const struct sockaddr_in *)i->src_addr)->sin_addr, mask = { 0 };
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return -1;
    for (struct ifaddrs *f = ifs; f; f = f->ifa_next)
        if (f->ifa_addr && f->ifa_netmask && f->ifa_addr->sa_family == AF_INET &&
            ((const struct sockaddr_in *)f->ifa_addr)->sin_addr.s_addr == a.s_addr)
            mask = ((const struct sockaddr_in *)f->ifa_netmask)->sin_addr;
    freeifaddrs(ifs);
    if (!mask.s_addr)
        return -1;
    const struct host_id *me = &hosts[shoal.my_pe];
    int reach = 0;
    for (int pe = 0; pe < shoal.n_pes; pe++) {
        const struct host_id *h = &hosts[pe];
        if (strcmp(h->name, me->name) == 0 && h->netns == me->netns)
            continue;
        for (uint32_t k = 0; k < h->n_addr && k < HOST_ADDRS; k++)
            if (((h->addr[k].s_addr ^ a.s_addr) & mask.s_addr) == 0) {
                reach++;
                break;
            }
    }
    return reach;
}

static int names_match(const struct fi_info *i, const char *fab, const char *dom)
{
    return (!set(fab) || strcmp(i->fabric_attr->name, fab) == 0) &&
            (!set(dom) || strcmp(i->domain_attr->name, dom) == 0);
}

static int loopback_entry(const struct fi_info *i)
{
    if (i->src_addr && i->addr_format == FI_SOCKADDR_IN)
        return ntohl(((const struct sockaddr_in *)i->src_addr)->sin_addr.s_addr) >> 24 == 127;
    if (i->src_addr && i->addr_format == FI_SOCKADDR_IN6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)i->src_addr)->sin6_addr);
    return strcmp(i->domain_attr->name, "lo") == 0;
}

/* The same host as this PE (and network namespace): the PEs that share its NICs. */
static int same_host(int pe)
{
    if (!hosts)
        return shoal_pe_local(pe);
    const struct host_id *a = &hosts[pe], *me = &hosts[shoal.my_pe];
    return strcmp(a->name, me->name) == 0 && a->netns == me->netns;
}

/* Name order, digits by value (eth2 before eth10): every node numbers the NICs
 * alike, whatever order libfabric lists them in. */
static int nic_order(const void *a, const void *b)
{
    const struct fi_info *x = *(struct fi_info *const *)a, *y = *(struct fi_info *const *)b;
    int c = strverscmp(x->domain_attr->name, y->domain_attr->name);
    return c ? c : strverscmp(x->fabric_attr->name, y->fabric_attr->name);
}

/* The node's NICs: first and the later entries of its provider that would do as
 * well and have its address format, one per domain (for tcp, an interface), in
 * nic_order. Left out: loopback, unless it is all there is, and an interface that
 * reaches fewer PEs of other hosts than the best (peer_reach; a container bridge
 * or a management network that libfabric may list first). */
static int node_nics(struct fi_info *first, const char *fab, const char *dom,
                     struct fi_info **nic)
{
    struct fi_info *cand[OFI_NICS_MAX];
    int reach[OFI_NICS_MAX], n = 0, most = -1, any_other = 0;
    for (struct fi_info *i = first; i && n < OFI_NICS_MAX; i = i->next) {
        if (strcmp(i->fabric_attr->prov_name, first->fabric_attr->prov_name) != 0 ||
            i->addr_format != first->addr_format || !names_match(i, fab, dom) || refusal(i))
            continue;
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = strcmp(cand[k]->domain_attr->name, i->domain_attr->name) == 0;
        if (dup)
            continue;
        cand[n] = i;
        reach[n] = peer_reach(i);
        any_other |= !loopback_entry(i);
        n++;
    }
    for (int k = 0; k < n; k++)
        if ((!any_other || !loopback_entry(cand[k])) && reach[k] > most)
            most = reach[k];
    int kept = 0;
    for (int k = 0; k < n; k++) {
        if (any_other && loopback_entry(cand[k]))
            continue;
        if (reach[k] < most) {
            SHOAL_LOG(OFI, INFO,
                      "interface %s (fabric %s) reaches %d PE(s) of other hosts, others %d: "
                      "not one of this node's NICs",
                      cand[k]->domain_attr->name, cand[k]->fabric_attr->name, reach[k], most);
            continue;
        }
        nic[kept++] = cand[k];
    }
    qsort(nic, (size_t)kept, sizeof *nic, nic_order);
    return kept;
}

/* The NIC this PE uses, of the node's (node_nics), by the NIC policy
 * (shoal_nic_choose: SHMEM_OFI_NUM_NICS, SHMEM_OFI_NIC_POLICY, ...); noted in
 * ofi.nic for the reports. */
static struct fi_info *choose_nic(struct fi_info *first, const char *fab, const char *dom)
{
    struct fi_info *nic[OFI_NICS_MAX];
    int n = node_nics(first, fab, dom, nic);
    const char *names[OFI_NICS_MAX];
    ofi.nic.count = n;
    for (int k = 0; k < n; k++) {
        snprintf(ofi.nic.name[k], sizeof ofi.nic.name[k], "%s", nic[k]->domain_attr->name);
        names[k] = ofi.nic.name[k];
    }
    struct shoal_nic_req req = {
        .pe = shoal.my_pe,
        .nnic = n,
        .nic_name = names,
        .gpu = -1,
        .num_nics = shoal.cfg.ofi_num_nics,
        .policy = shoal.cfg.ofi_nic_policy,
        .mapping = shoal.cfg.ofi_nic_mapping,
        .skip_selection = shoal.cfg.ofi_skip_nic_selection,
    };
    for (int pe = 0; pe < shoal.n_pes; pe++)
        if (same_host(pe)) {
            req.local_rank += pe < shoal.my_pe;
            req.local_size++;
        }
    CPU_ZERO(&req.cpus);
    if (sched_getaffinity(0, sizeof req.cpus, &req.cpus) != 0)
        CPU_ZERO(&req.cpus);
    ofi.nic.policy = shoal_nic_policy_name(&req);
    if (n < 2) { /* nothing to choose: the policy cannot change the answer */
        ofi.nic.index = 0;
        return n ? nic[0] : first;
    }
    /* Locality (NUMA, AUTO) comes from the topology; the other policies need none,
     * and each PE loading it costs start-up time. */
    char err[512], terr[256];
    int local = !strcmp(ofi.nic.policy, "NUMA") || !strcmp(ofi.nic.policy, "AUTO");
    struct shoal_hwtopo *topo = local ? shoal_hwtopo_load(terr, sizeof terr) : NULL;
    int where[OFI_NICS_MAX];
    if (topo) {
        for (int k = 0; k < n; k++)
            where[k] = shoal_hwtopo_nic_find(topo, names[k]);
        req.nic_topo = where;
        /* A PE with a device heap is a GPU PE: its GPU is its backend's device (emu
         * stands for one of a topology file's GPUs). */
        if (shoal.seg[SHOAL_SEG_DEVICE].size && shoal_dev)
            req.gpu = shoal_hwtopo_gpu_of(topo, shoal_dev->ordinal());
    }
    int k = shoal_nic_choose(topo, &req, err, sizeof err);
    shoal_hwtopo_free(topo);
    if (k < 0 || k >= n)
        shoal_fatal("shmem_init", "%s", err);
    ofi.nic.index = k;
    SHOAL_LOG(OFI, INFO, "NIC %d of %d: %s (fabric %s), policy %s, local PE %d of %d", k, n,
              names[k], nic[k]->fabric_attr->name, ofi.nic.policy, req.local_rank,
              req.local_size);
    return nic[k];
}

/* Keeps the entry of list for this PE's NIC (choose_nic) among those that match
 * SHMEM_OFI_FABRIC and SHMEM_OFI_DOMAIN (layered providers such as ofi_rxm ignore
 * the names in hints), or ends the job naming the choices there are. Once the NIC
 * is chosen (chosen: its entry), the first entry of the same fabric and domain. */
static struct fi_info *match_names(struct fi_info *list, const struct fi_info *chosen)
{
    const char *fab = chosen ? chosen->fabric_attr->name : shoal.cfg.ofi_fabric;
    const char *dom = chosen ? chosen->domain_attr->name : shoal.cfg.ofi_domain;
    struct fi_info *named = NULL;
    for (struct fi_info *i = list; i; i = i->next)
        if (names_match(i, fab, dom)) {
            if (!named)
                named = i;
            if (refusal(i))
                continue;
            if (!chosen)
                i = choose_nic(i, fab, dom);
            struct fi_info *one = fi_dupinfo(i);
            if (!one)
                shoal_fatal("shmem_init", "out of memory starting libfabric");
            fi_freeinfo(list);
            return one;
        }
    if (named)
        first_usable(named); /* every match refused: ends the job naming why */
    char fabrics[512] = "", domains[512] = "";
    for (struct fi_info *i = list; i; i = i->next) {
        list_add(fabrics, sizeof fabrics, i->fabric_attr->name);
        list_add(domains, sizeof domains, i->domain_attr->name);
    }
    shoal_fatal("shmem_init",
                "no libfabric %s has %s%s%s%s%s%s; choose among fabrics %s and "
                "domains %s (or unset the variable)",
                list->fabric_attr->prov_name, set(fab) ? "SHMEM_OFI_FABRIC=" : "",
                set(fab) ? fab : "", set(fab) && set(dom) ? " and " : "",
                set(dom) ? "SHMEM_OFI_DOMAIN=" : "", set(dom) ? dom : "",
                set(fab) && set(dom) ? " together" : "", fabrics, domains);
}

static int ip_addressed(const struct fi_info *info)
{
    return info->addr_format == FI_SOCKADDR_IN || info->addr_format == FI_SOCKADDR_IN6 ||
            info->addr_format == FI_SOCKADDR;
}

/* fi_getinfo over the providers that fit, bound to loopback when the job allows
 * (node 127.0.0.1 as source: IP providers then listen on lo alone). Providers with
 * no IP addresses answer only the unbound query: libfabric's shm would take the node
 * string as every PE's endpoint name, and the second PE's endpoint would find it
 * in use. */
static int getinfo(struct fi_info *h, int loopback, struct fi_info **out)
{
    *out = NULL;
    if (loopback && !fi_getinfo(OFI_API_VERSION, "127.0.0.1", NULL, FI_SOURCE, h, out) &&
        *out) {
        if (ip_addressed(*out))
            return 0;
        fi_freeinfo(*out);
        *out = NULL;
    }
    return fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, out);
}

/* The provider that would carry the job lacks FI_HMEM, which the device heap needs:
 * names it, the interface and the providers here that have it. h: the hints that
 * failed (consumed). */
static _Noreturn void no_hmem(struct fi_info *h, int loopback)
{
    char with[512];
    struct fi_info *got = NULL;
    h->caps &= ~FI_HMEM;
    int rc = getinfo(h, loopback, &got);
    if (rc || !got)
        no_provider(rc ? rc : -FI_ENODATA);
    got = match_names(got, NULL);
    /* Which providers here would do: the same hints, any provider. */
    h->caps |= FI_HMEM;
    free(h->fabric_attr->prov_name);
    h->fabric_attr->prov_name = NULL;
    struct fi_info *all = NULL;
    with[0] = '\0';
    if (!getinfo(h, 0, &all) && all)
        for (struct fi_info *i = all; i; i = i->next)
            list_add(with, sizeof with, i->fabric_attr->prov_name);
    fi_freeinfo(all);
    fi_freeinfo(h);
    shoal_fatal("shmem_init",
                "libfabric provider %s does not offer FI_HMEM with RMA and atomics, which "
                "the %s device heap needs across nodes (registered as %s); use a "
                "provider that does (SHMEM_OFI_PROVIDER; here: %s), run every PE on one "
                "node, or set SHMEM_SYMMETRIC_SIZE_DEVICE=0",
                got->fabric_attr->prov_name, shoal_dev->name,
                shoal_dev_iface_name((enum shoal_dev_iface)shoal_tp.dev_nic_iface),
                with[0] ? with : "none");
}

/* The first usable provider, fabric and domain that fit decide; then they are
 * asked for the optional features, best first: Shoal's own memory keys,
 * delivery-complete counters and FI_FENCE. */
static struct fi_info *select_provider(void)
{
    /* A user's explicit fabric or domain wins over loopback. */
    int loopback =
            !set(shoal.cfg.ofi_fabric) && !set(shoal.cfg.ofi_domain) && job_on_one_host();
    struct fi_info *h = base_hints(), *first = NULL;
    h->domain_attr->mr_mode |= FI_MR_PROV_KEY;
    int rc = getinfo(h, loopback, &first);
    if ((rc || !first) && hmem_wanted())
        no_hmem(h, loopback);
    if (rc || !first)
        no_provider(rc ? rc : -FI_ENODATA);
    first = match_names(first, NULL);
    free(h->fabric_attr->prov_name);
    h->fabric_attr->prov_name = strdup(first->fabric_attr->prov_name);
    h->fabric_attr->name = strdup(first->fabric_attr->name);
    h->domain_attr->name = strdup(first->domain_attr->name);
    size_t t0 = want_delivery_complete(first) ? 0 : 2;

    static const struct {
        uint64_t op_flags, caps;
    } tries[] = {
        { FI_DELIVERY_COMPLETE, FI_FENCE },
        { FI_DELIVERY_COMPLETE, 0 },
        { 0, FI_FENCE },
        { 0, 0 },
    };
    for (int prov_key = 0; prov_key < 2; prov_key++) {
        h->domain_attr->mr_mode &= ~FI_MR_PROV_KEY;
        h->domain_attr->mr_mode |= prov_key ? FI_MR_PROV_KEY : 0;
        for (size_t t = t0; t < sizeof tries / sizeof tries[0]; t++) {
            struct fi_info *got = NULL;
            h->tx_attr->op_flags = tries[t].op_flags;
            h->caps |= tries[t].caps;
            rc = getinfo(h, loopback, &got);
            h->caps &= ~tries[t].caps;
            if (!rc && got) {
                /* Triggered operations, where offered, on the same terms. */
                struct fi_info *trig = NULL;
                h->caps |= tries[t].caps | FI_TRIGGER;
                if (!getinfo(h, loopback, &trig) && trig) {
                    fi_freeinfo(got);
                    got = trig;
                }
                h->caps &= ~(tries[t].caps | FI_TRIGGER);
                /* SHOAL_PCNTR: counting what targets this PE, where offered. */
                struct fi_info *ev = NULL;
                h->caps |= tries[t].caps | (got->caps & FI_TRIGGER) | FI_RMA_EVENT;
                if (shoal.cfg.pcntr && !getinfo(h, loopback, &ev) && ev) {
                    fi_freeinfo(got);
                    got = ev;
                }
                h->caps &= ~(tries[t].caps | FI_TRIGGER | FI_RMA_EVENT);
                fi_freeinfo(h);
                got = match_names(got, first);
                fi_freeinfo(first);
                return got;
            }
        }
    }
    fi_freeinfo(h);
    return first;
}

/* cxi (Slingshot) authorizes traffic by VNI: the launcher's job VNI keeps other
 * jobs out, the node's default service lets any local user in. The provider reads
 * the job's VNI from the launcher's SLINGSHOT_* variables itself. */
static void check_auth(const struct fi_info *info)
{
    if (strncmp(info->fabric_attr->prov_name, "cxi", 3) == 0 &&
        !set(shoal.cfg.slingshot_vnis) && shoal.my_pe == 0)
        shoal_warn("shmem_init",
                   "the cxi provider runs on the node's default service (no "
                   "SLINGSHOT_VNIS from the launcher), which other users' jobs can reach; "
                   "launch with srun (Slurm's Slingshot VNI plugin) or another launcher that "
                   "allocates a job VNI");
}

/* Whether puts go without a write counter and quiet settles them with reads
 * (ofi_order.c): where the counters would wait for delivery completion, and the
 * provider processes an RMA read after the writes before it to the same target.
 * SHMEM_OFI_QUIET=counters keeps the counters, for a provider that claims that
 * order but does not keep it. */
static int quiet_read_wanted(const struct fi_info *info)
{
    const char *v = shoal.cfg.ofi_quiet;
    int counters = v && !strcmp(v, "counters"); /* the env table refuses other words */
    return !counters && ofi.mode.delivery_complete &&
            (info->tx_attr->msg_order & (FI_ORDER_RAW | FI_ORDER_RMA_RAW));
}

/* Whether signal sets go as 8-byte writes: only where such a write lands whole, so
 * that a reader sees the old value or the new one. cxi's NIC writes an aligned word
 * in one piece (what Cray OpenSHMEMX relies on). tcp and sockets copy a write out of
 * the byte stream as it arrives, in two pieces when it straddles two socket reads;
 * shm lands a one-range write with process_vm_writev, whose kernel copy promises no
 * width. Those keep the atomic unless the user says on. */
static void signal_write_choice(const struct fi_info *info)
{
    const char *v = shoal.cfg.ofi_signal_write;
    /* auto, on or off: the env table refuses other words */
    int cxi = strncmp(info->fabric_attr->prov_name, "cxi", 3) == 0;
    if (set(v) && strcmp(v, "auto")) {
        ofi.mode.signal_write = !strcmp(v, "on");
        ofi.mode.signal_why = "SHMEM_OFI_SIGNAL_WRITE";
    } else {
        ofi.mode.signal_write = cxi;
        ofi.mode.signal_why = cxi ? "the NIC lands an aligned 8-byte write whole"
                                  : "the provider may land an 8-byte write in pieces; "
                                    "SHMEM_OFI_SIGNAL_WRITE";
    }
}

/* Reads what the provider granted into the transport's switches. */
static void adopt_info(struct fi_info *info)
{
    ofi.info = info;
    shoal_tp.net_provider = info->fabric_attr->prov_name;
    ofi.mode.mr_mode = (uint64_t)info->domain_attr->mr_mode;
    ofi.mode.mr_local = (ofi.mode.mr_mode & FI_MR_LOCAL) || shoal.cfg.ofi_mr_local;
    ofi.mode.fence_flag = !!(info->caps & FI_FENCE);
    ofi.mode.op_flags = info->tx_attr->op_flags &
            (FI_DELIVERY_COMPLETE | FI_TRANSMIT_COMPLETE | FI_INJECT_COMPLETE);
    ofi.mode.delivery_complete = !!(ofi.mode.op_flags & FI_DELIVERY_COMPLETE);
    ofi.mode.quiet_read = quiet_read_wanted(info);
    ofi.mode.put_flags = ofi.mode.quiet_read ? 0 : ofi.mode.op_flags;
    /* shm queues a non-fetching AMO for the target's progress to apply and
     * completes it at once, so quiet, and the get after it (a CMA read that
     * bypasses the queue), would not find it applied. Its fetching AMOs complete
     * when the target answers. (Asking for FI_DELIVERY_COMPLETE on the plain
     * ones instead applies some twice in libfabric 1.17.) */
    ofi.mode.plain_amo_fetches = ofi.mode.quiet_read ||
            (!ofi.mode.delivery_complete && strcmp(info->fabric_attr->prov_name, "shm") == 0);
    /* FI_ORDER_WAW covers RMA writes and atomics together; the RMA_ and ATOMIC_
     * variants order each class only among itself, so put -> AMO needs a wait. */
    ofi.mode.writes_ordered = !!(info->tx_attr->msg_order & FI_ORDER_WAW);
    ofi.mode.atomics_ordered = !!(info->tx_attr->msg_order & FI_ORDER_ATOMIC_WAW);
    /* Triggered operations: the payload and its signal fire in order by themselves,
     * from an endpoint of their own (ofi_trigger.c), which local registrations
     * bound to the context's endpoint would not serve. */
    ofi.mode.trigger_ok = (info->caps & FI_TRIGGER) && ofi.mode.writes_ordered &&
            !(ofi.mode.mr_local && (ofi.mode.mr_mode & FI_MR_ENDPOINT));
    ofi.mode.inject_size = info->tx_attr->inject_size;
    if (shoal.cfg.ofi_inject_size && shoal.cfg.ofi_inject_size < ofi.mode.inject_size)
        ofi.mode.inject_size = shoal.cfg.ofi_inject_size;
    ofi.mode.bounce_size = shoal.cfg.ofi_bounce_size;
    ofi.mode.emulate_amo = shoal.cfg.ofi_atomic_emulate;
    /* Bundles live in bounce slots. */
    ofi.mode.bundle_size = shoal.cfg.ofi_bundle_size < ofi.mode.bounce_size
            ? shoal.cfg.ofi_bundle_size
            : ofi.mode.bounce_size;
    ofi.mode.rma_iov_limit = info->tx_attr->rma_iov_limit < OFI_BUNDLE_IOV
            ? info->tx_attr->rma_iov_limit
            : OFI_BUNDLE_IOV;
    /* shm completes a write only once it has landed where its CMA fast path
     * carries it, straight into the target; that path takes one target range.
     * A write to several is queued for the target's progress to copy and completes
     * at once, so a get after quiet (a CMA read) could overtake it. Without
     * delivery completion there (want_delivery_complete), bundles join adjacent
     * puts only. */
    if (!ofi.mode.delivery_complete && strcmp(info->fabric_attr->prov_name, "shm") == 0)
        ofi.mode.rma_iov_limit = 1;
    if (!ofi.mode.rma_iov_limit)
        ofi.mode.bundle_size = 0;
    /* Single-transmit AMOs are settled by an atomic read the provider orders
     * after them, on an endpoint that can use the context's slot descriptor. */
    ofi.mode.unreliable_ok =
            (info->tx_attr->msg_order & (FI_ORDER_ATOMIC_RAW | FI_ORDER_RAW)) &&
            !(ofi.mode.mr_mode & FI_MR_ENDPOINT) && !ofi.mode.mr_local;
    ofi.mode.key_bytes = info->domain_attr->mr_key_size;
    signal_write_choice(info);
    SHOAL_LOG(OFI, INFO,
              "provider %s, fabric %s, domain %s: inject %zu bytes, bounce %zu, "
              "mr_mode 0x%llx%s%s%s%s%s",
              info->fabric_attr->prov_name, info->fabric_attr->name, info->domain_attr->name,
              ofi.mode.inject_size, ofi.mode.bounce_size,
              (unsigned long long)ofi.mode.mr_mode, ofi.mode.fence_flag ? ", FI_FENCE" : "",
              ofi.mode.delivery_complete ? ", delivery complete" : "",
              ofi.mode.quiet_read ? ", puts settled by reads" : "",
              ofi.mode.writes_ordered ? ", writes ordered" : "",
              ofi.mode.emulate_amo ? ", AMOs emulated" : "");
}

/* Sets a provider variable unless the user did. libfabric reads them once, when it
 * loads its providers, so they are process-wide and take effect only where Shoal is
 * the first to use libfabric (setenv here, in shmem_init, before the program's
 * threads usually exist). */
static void provider_default(const char *name, const char *value, const char *why)
{
    if (!getenv(name) && !setenv(name, value, 1))
        SHOAL_LOG(OFI, INFO, "%s=%s (%s)", name, value, why);
}

/* Provider settings for every job, from what libfabric 1.17's rxm does with its
 * defaults:
 * - rxm gives every endpoint pools of 1024 send and 1024 receive buffers of
 *   FI_OFI_RXM_BUFFER_SIZE bytes (16 KiB), touched as they are set up, and over tcp
 *   posts 4096 shared receives (FI_OFI_RXM_MSG_RX_SIZE), which grows the receive
 *   pool to four such chunks: 84 MB an endpoint, 5.8 GB on a node of 64 PEs. Shoal
 *   sends rxm no messages, only RMA (which tcp carries itself) and AMOs, whose
 *   requests and replies fit in a few hundred bytes. At 4 KiB buffers and 256
 *   receives a PE of an 8-PE job over 4 nodes adds 12 MiB in all. What the buffer size also bounds is the
 *   largest atomic rxm carries, 4 KiB less its header, and with it one piece of a
 *   put-with-signal payload sent as atomic writes (ofi_signal.c).
 * - rxm looks at connection requests once every FI_OFI_RXM_CM_PROGRESS_INTERVAL
 *   us (10 ms) of progress calls while it is not connecting itself, so a PE that a
 *   peer connects to answers 10 ms late at best, and later still when the call
 *   that reaches the interval comes after a sleep. At 200 us that look (one event
 *   queue poll) comes 50 times as often.
 * Programs whose private and serialized contexts get endpoints of their own
 * (SHMEM_THREAD_MULTIPLE, ofi_ctx.c) take 1 KiB buffers: about 4 MB an endpoint. */
static void rxm_defaults(void)
{
    static const char why[] = "rxm's buffers and connections";
    if (shoal.thread_level == SHMEM_THREAD_MULTIPLE)
        provider_default("FI_OFI_RXM_BUFFER_SIZE", "1024",
                         "contexts with endpoints of their own");
    provider_default("FI_OFI_RXM_BUFFER_SIZE", "4096", why);
    provider_default("FI_OFI_RXM_MSG_RX_SIZE", "256", why);
    provider_default("FI_OFI_RXM_CM_PROGRESS_INTERVAL", "200", why);
}

/* The attributes of the endpoints that contexts own (ofi_ctx.c), which receive
 * only the responses to their own operations: a short receive queue does.
 * Not on shm, whose endpoint is a /dev/shm region sized for its queues and
 * rounded up to a power of two (16 MB), of which libfabric 1.17 zero-fills the
 * rounding's tail when it writes the region's name: a shorter queue makes the
 * region no smaller but touches more of it (receive size 64: 7.9 MB a region;
 * the provider's 1024: 3.8 MB). Its transmit queue holds the operations that
 * wait for the target (fetching AMOs, large transfers): a context has few in
 * flight, and a full queue only makes a post wait (OFI_POST), so
 * OFI_CTX_SHM_TX_SIZE entries, which saves the provider's per-entry state. */
static void ctx_endpoint_info(void)
{
    /* rxm's receive queue (FI_OFI_RXM_RX_SIZE, 2048 entries) holds the program's
     * posted receives, of which Shoal has none: every peer's RMA and AMOs reach the
     * default endpoint without one. A short one saves its entries (0.5-1 MiB). */
    if (strstr(ofi.info->fabric_attr->prov_name, "ofi_rxm") &&
        ofi.info->rx_attr->size > OFI_CTX_RX_SIZE)
        ofi.info->rx_attr->size = OFI_CTX_RX_SIZE;
    ofi.info_tx = fi_dupinfo(ofi.info);
    if (!ofi.info_tx)
        shoal_fatal("shmem_init", "out of memory starting libfabric");
    if (strcmp(ofi.info->fabric_attr->prov_name, "shm") == 0) {
        if (ofi.info_tx->tx_attr->size > OFI_CTX_SHM_TX_SIZE)
            ofi.info_tx->tx_attr->size = OFI_CTX_SHM_TX_SIZE;
    } else if (ofi.info_tx->rx_attr->size > OFI_CTX_RX_SIZE) {
        ofi.info_tx->rx_attr->size = OFI_CTX_RX_SIZE;
    }
}

/* SHMEM_OFI_STARTUP_CONNECT=auto connects jobs of up to OFI_STARTUP_CONNECT_PES PEs
 * in shmem_init, for at most OFI_STARTUP_CONNECT_NS. */
#define OFI_STARTUP_CONNECT_PES 256
#define OFI_STARTUP_CONNECT_NS 30000000000ULL

/* Whether shmem_init connects every pair of PEs on different nodes. Only providers
 * that connect on first use (ofi_rxm over tcp or verbs) gain: a program whose PEs
 * each reach many others (an all-to-all) otherwise makes each PE's connections one
 * after the other on its first operations (ofi_connect_pes), where all PEs together
 * make them at once here. A PE of an N-PE job holds a connection to each PE of the
 * other nodes: fine for small jobs, not for large ones, where only the peers a PE
 * reaches cost one. */
static int startup_connect_wanted(void)
{
    int w = ofi_switch(shoal.cfg.ofi_startup_connect);
    if (w >= 0)
        return w;
    return shoal.n_pes <= OFI_STARTUP_CONNECT_PES &&
            strstr(ofi.info->fabric_attr->prov_name, "ofi_rxm") != NULL;
}

/* Each pair of PEs on different nodes connects once, from the PE that reaches the
 * other at a distance of 1 to N/2 (at exactly N/2, the lower PE): a connection
 * carries both PEs' operations, and one initiator per pair halves the handshakes.
 * Two PEs that connect to each other at once cost rxm a collision: at 64 PEs
 * over 4 nodes, with both PEs of each pair at N/2 connecting, in 3 runs of 4 the
 * PEs of one or two nodes spent 0.3-1.6 s of CPU here instead of 0.01 s and the
 * slowest took 6-19 s instead of about 1; with one initiator, 1 run of 7. Every
 * PE is here at about the same time (after the barrier of ofi_net_init), driving
 * the provider, so each answers its peers' requests while it makes its own. */
static void startup_connect(void)
{
    int *pes = malloc((size_t)shoal.n_pes * sizeof *pes), n = 0;
    if (!pes)
        shoal_fatal("shmem_init", "out of memory for the PEs to connect to");
    for (int d = 1; d <= shoal.n_pes / 2; d++) {
        int pe = (shoal.my_pe + d) % shoal.n_pes;
        if (2 * d == shoal.n_pes && pe < shoal.my_pe)
            continue;
        if (pe != shoal.my_pe && !shoal_pe_local(pe))
            pes[n++] = pe;
    }
    double t = shoal_log_now(), cpu = shoal_log_cpu();
    ofi_lock(ofi.dflt);
    int left = ofi_connect_pes(ofi.dflt, pes, n, OFI_STARTUP_CONNECT_NS);
    ofi_unlock(ofi.dflt);
    SHOAL_LOG(OFI, DEBUG, "connected to %d of %d PE(s) in %.3f s (CPU %.3f s)%s", n - left, n,
              shoal_log_now() - t, shoal_log_cpu() - cpu,
              left ? "; the rest connect on first use" : "");
    free(pes);
}

int ofi_net_init(void)
{
    ofi.mode.locked = shoal.thread_level == SHMEM_THREAD_MULTIPLE || shoal.threads_inside;
    pthread_mutex_init(&ofi.ctxs_lock, NULL);
    rxm_defaults();
    /* sockets' progress thread spins FI_SOCKETS_PE_WAITTIME ms (10) after each
     * event before it sleeps, on the core of the PE it serves, and notices a new
     * connection only then: 8 B put/get latency 4 ms, against 0.11-0.13 ms at 0
     * (2 PEs, one core each, quiet machine). */
    provider_default("FI_SOCKETS_PE_WAITTIME", "0", "sockets: no spinning progress thread");
    shoal_init_phase("opening the libfabric endpoint");
    double t = shoal_log_now(), cpu = shoal_log_cpu();
    adopt_info(select_provider());
    SHOAL_LOG(OFI, DEBUG, "provider chosen in %.3f s (CPU %.3f s)", shoal_log_now() - t,
              shoal_log_cpu() - cpu);
    if (hosts) /* only the choice of interface needed them */
        shoal_boot_table_release(&hosts_table);
    hosts = NULL;
    check_auth(ofi.info);
    /* Manual progress: peers' gets and AMOs on this PE, and its own transfers,
     * move only inside libfabric calls; a PE that computes would hold them up. */
    int wanted = ofi_progress_thread_wanted();
    ofi.prog.thread = wanted > 0 ||
            (wanted < 0 && ofi.info->domain_attr->data_progress == FI_PROGRESS_MANUAL);
    /* Automatic progress: a software provider's own thread (sockets) needs the
     * PE's core, so waits back off; hardware (cxi) loses only a wake-up. */
    shoal_wait.net_self_progress = ofi.info->domain_attr->data_progress == FI_PROGRESS_AUTO;
    ofi.mode.locked |= ofi.prog.thread;
    /* Outside sessions a bundle the PE leaves behind to compute is the progress
     * thread's to send (ofi_bundle.c): without one it would wait for the PE. */
    ofi.mode.bundle_puts = ofi.mode.bundle_size > 0 && ofi.prog.thread;
    ofi.mode.bundle_off_why = ofi.mode.bundle_puts ? NULL
            : !shoal.cfg.ofi_bundle_size           ? "SHMEM_OFI_BUNDLE_SIZE=0"
            : !ofi.mode.rma_iov_limit              ? "the provider's rma_iov_limit is 0"
            : !ofi.mode.bundle_size                ? "SHMEM_OFI_BOUNCE_SIZE=0"
                                                   : "no progress thread would send a bundle "
                                                     "the PE leaves behind (SHMEM_OFI_PROGRESS_THREAD)";
    int rc;
    if ((rc = fi_fabric(ofi.info->fabric_attr, &ofi.fabric, NULL)))
        ofi_fatal_rc("fi_fabric", rc, "check SHMEM_OFI_PROVIDER and SHMEM_OFI_FABRIC");
    if ((rc = fi_domain(ofi.fabric, ofi.info, &ofi.domain, NULL)))
        ofi_fatal_rc("fi_domain", rc, "check SHMEM_OFI_DOMAIN");
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .count = (size_t)shoal.n_pes };
    if ((rc = fi_av_open(ofi.domain, &av_attr, &ofi.av, NULL)))
        ofi_fatal_rc("fi_av_open", rc, "try another provider (SHMEM_OFI_PROVIDER)");

    SHOAL_LOG(OFI, DEBUG, "fabric, domain and address vector opened in %.3f s",
              shoal_log_now() - t);
    ctx_endpoint_info();
    ofi.dflt = ofi_ctx_open(); /* each ends the job if it fails */
    ofi_ctx_enable(ofi.dflt);
    shoal_ctx_default.net = ofi.dflt;
    SHOAL_LOG(OFI, DEBUG, "default endpoint open at %.3f s", shoal_log_now() - t);
    if (ofi_mr_segments())
        return -1;
    SHOAL_LOG(OFI, DEBUG, "segments registered at %.3f s", shoal_log_now() - t);
    shoal_init_phase("exchanging libfabric addresses with the other PEs");
    if (ofi_mr_exchange())
        return -1;
    ofi.pe_tag = calloc((size_t)shoal.n_pes, 2);
    if (!ofi.pe_tag)
        shoal_fatal("shmem_init", "out of memory starting libfabric");
    ofi_amo_table();
    if (ofi.prog.thread && ofi_progress_thread_start())
        return -1;
    shoal_init_phase("waiting for the other PEs to open their libfabric endpoints");
    if (shoal_boot_barrier(shoal.boot, "libfabric endpoints open"))
        return -1;
    if (startup_connect_wanted()) {
        shoal_init_phase("connecting to the PEs on other nodes (SHMEM_OFI_STARTUP_CONNECT)");
        startup_connect();
    }
    return 0;
}

void ofi_net_fini(void)
{
    if (!ofi.dflt)
        return;
    ofi_lock(ofi.dflt);
    ofi_session_end(ofi.dflt);
    ofi_quiet_locked(ofi.dflt);
    ofi_unlock(ofi.dflt);
    /* Peers may still be completing operations that target this PE. */
    shoal_boot_barrier(shoal.boot, "libfabric closing");
    ofi_progress_thread_stop();
    ofi_mr_segments_close();
    ofi_ctx_close_idle();
    ofi_ctx_close(ofi.dflt);
    if (ofi.target_cntr)
        fi_close(&ofi.target_cntr->fid);
    shoal_ctx_default.net = NULL;
    ofi.dflt = NULL;
    fi_close(&ofi.av->fid);
    fi_close(&ofi.domain->fid);
    fi_close(&ofi.fabric->fid);
    fi_freeinfo(ofi.info_tx);
    fi_freeinfo(ofi.info);
    ofi_mr_remote_free();
    free(ofi.pe_tag);
    pthread_mutex_destroy(&ofi.ctxs_lock);
    memset(&ofi, 0, sizeof ofi);
}

/* SHMEM_INFO: what init chose for the whole job, and why a path is off. */
void ofi_info(void)
{
    printf("libfabric (PE 0), provider %s:\n", ofi.info->fabric_attr->prov_name);
    /* As oshrun --report-bindings says where a PE runs: where its traffic goes. */
    char names[OFI_NICS_MAX * 66] = "", addr[OFI_ADDR_MAX * 2 + 16] = "", raw[OFI_ADDR_MAX];
    for (int k = 0; k < ofi.nic.count; k++)
        list_add(names, sizeof names, ofi.nic.name[k]);
    size_t rlen = sizeof raw, alen = sizeof addr;
    if (fi_getname(&ofi.dflt->ep->fid, raw, &rlen) ||
        !fi_av_straddr(ofi.av, raw, addr, &alen))
        snprintf(addr, sizeof addr, "(unknown)");
    printf("  NIC: PE 0 bound to NIC %d %s, address %s (node's NICs: %s; policy %s)\n",
           ofi.nic.index,
           ofi.nic.count ? ofi.nic.name[ofi.nic.index] : ofi.info->domain_attr->name, addr,
           names[0] ? names : ofi.info->domain_attr->name, ofi.nic.policy);
    if (ofi.mode.bundle_puts)
        printf("  small puts outside sessions: bundled (up to %zu B a message, target "
               "ranges at most %zu)\n",
               ofi.mode.bundle_size, ofi.mode.rma_iov_limit);
    else
        printf("  small puts outside sessions: one message each (%s)\n",
               ofi.mode.bundle_off_why);
    printf("  quiet: %s\n",
           ofi.mode.quiet_read ? "reads back from each PE written (SHMEM_OFI_QUIET)"
                               : "waits for the write and read counters");
    printf("  fence: %s\n",
           ofi.mode.writes_ordered
                   ? "free (the provider orders writes and atomics, FI_ORDER_WAW)"
                   : "waits, in the next put or AMO to a PE written before it");
    printf("  non-fetching AMOs: %s\n",
           !ofi.mode.plain_amo_fetches ? "as such, counted on the write counter"
                   : ofi.mode.quiet_read
                   ? "as fetching ones, result dropped (quiet's reads do not "
                     "complete atomics)"
                   : "as fetching ones, result dropped (the provider "
                     "completes them before the target applies them)");
    printf("  progress thread: %s\n",
           ofi.prog.thread ? "on (SHMEM_OFI_PROGRESS_THREAD)"
                           : "off (SHMEM_OFI_PROGRESS_THREAD; the provider progresses by "
                             "itself, or it was turned off)");
    printf("  shmemx_signal_set, SHMEM_SIGNAL_SET: %s (%s)\n",
           ofi.mode.signal_write ? "an 8-byte write ordered after the payload"
                                 : "a network atomic",
           ofi.mode.signal_why);
    printf("  single-transmit AMOs in sessions: %s\n",
           ofi.mode.unreliable_ok
                   ? "on"
                   : "off (the provider orders no atomic read after atomic writes, "
                     "or registers memory per endpoint)");
    printf("  triggered operations: %s\n",
           ofi.mode.trigger_ok ? "on the NIC (FI_TRIGGER)"
                   : !(ofi.info->caps & FI_TRIGGER)
                   ? "in the library (the provider has no FI_TRIGGER)"
                   : !ofi.mode.writes_ordered
                   ? "in the library (the provider does not order writes with "
                     "atomics, FI_ORDER_WAW)"
                   : "in the library (local buffers are registered per endpoint)");
}
