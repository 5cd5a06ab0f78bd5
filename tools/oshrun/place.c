/* Placement by the node's topology (src/env/hwtopo.h): --map-by numa, l3cache,
 * package or gpu, --bind-to numa, l3cache or package, any placement on a node
 * described by a topology file (SHOAL_TOPOLOGY_FILE, HWLOC_XMLFILE), and GPU
 * jobs on a node with GPUs. Core, hardware-thread and socket placement of this
 * machine stay with bind.c, which also keeps concurrent jobs apart with CPU
 * locks; placement here goes where it is told and takes no locks.
 *
 * PEs are dealt round robin over the objects of --map-by (PE 0 to the first NUMA
 * domain, PE 1 to the second, ...), each taking the next core of its object, and
 * bound to that core or, with --bind-to, to the object around it. With --map-by
 * gpu, PE r uses GPU r mod GPUs (the device rule of src/device) and takes the
 * cores nearest that GPU. */
#include "oshrun.h"
#include "cpulist.h"
#include "env.h"
#include "hwtopo.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool place_map_needs_topology(enum map_by m)
{
    return m == MAP_NUMA || m == MAP_L3CACHE || m == MAP_GPU;
}

static bool place_bind_needs_topology(enum bind_to b)
{
    return b == BIND_NUMA || b == BIND_L3CACHE || b == BIND_PACKAGE;
}

static bool place_topology_file(void)
{
    const char *f = shoal_env_get("SHOAL_TOPOLOGY_FILE"), *x = shoal_env_get("HWLOC_XMLFILE");
    return (f && *f) || (x && *x);
}

/* Whether the job asks for a device (docs/gpu.md): its PEs are GPU PEs on a node
 * whose topology has GPUs. emu stands only for the GPUs of a topology file, so an
 * emu job on this machine does not read its topology at all. */
static bool place_device_job(void)
{
    const char *dev = shoal_env_value("SHOAL_DEVICE");
    size_t heap = 0;
    shoal_parse_size(shoal_env_value("SHMEM_SYMMETRIC_SIZE_DEVICE"), &heap);
    if (!strcmp(dev, "none"))
        return false;
    if (!strcmp(dev, "emu"))
        return place_topology_file();
    return *dev || heap > 0;
}

/* The objects PEs are dealt over, as CPU sets (into obj, room for every NUMA
 * domain, L3 and package): their count. */
static int objects(const struct shoal_hwtopo *t, enum map_by map, cpu_set_t *obj)
{
    int n = map == MAP_NUMA      ? t->nnuma
            : map == MAP_L3CACHE ? t->nl3
            : map == MAP_SOCKET  ? t->npackage
                                 : 1;
    for (int i = 0; i < n; i++)
        obj[i] = map == MAP_NUMA     ? t->numa[i].cpus
                : map == MAP_L3CACHE ? t->l3[i]
                : map == MAP_SOCKET  ? t->packages[i]
                                     : t->all;
    return n;
}

/* The object of list (n sets) holding CPU c, -1 none. */
static int holder(const cpu_set_t *list, int n, int c)
{
    for (int i = 0; i < n; i++)
        if (CPU_ISSET(c, &list[i]))
            return i;
    return -1;
}

static int first_cpu(const cpu_set_t *s)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, s))
            return c;
    return -1;
}

/* The cores (their CPUs within allowed) that lie in region, in CPU order. */
static int cores_in(const struct shoal_hwtopo *t, const cpu_set_t *allowed,
                    const cpu_set_t *region, cpu_set_t *out)
{
    int n = 0;
    for (int i = 0; i < t->ncore; i++) {
        cpu_set_t c;
        CPU_AND(&c, &t->cores[i], allowed);
        CPU_AND(&c, &c, region);
        if (CPU_COUNT(&c))
            out[n++] = c;
    }
    return n;
}

static int place_plan(const struct shoal_hwtopo *t, const cpu_set_t *allowed, int np,
                      enum bind_to want, enum map_by map, struct bind_plan *plan, char *err,
                      size_t len)
{
    *plan = (struct bind_plan){ .allowed = *allowed, .how = BIND_NONE };
    cpu_set_t *pe = calloc((size_t)np, sizeof *pe);
    cpu_set_t *cores = calloc((size_t)(t->ncore ? t->ncore : 1), sizeof *cores);
    int *gpu = map == MAP_GPU ? calloc((size_t)np, sizeof *gpu) : NULL;
    cpu_set_t *obj = calloc((size_t)(t->nnuma + t->nl3 + t->npackage + 1), sizeof *obj);
    int *users = calloc(CPU_SETSIZE, sizeof *users);
    /* With --map-by gpu: each GPU's CPUs (all of them when its place is unknown or
     * none may be used), and the GPU whose CPUs those are first, whose PEs take
     * their cores in turn with the PEs of every GPU that shares them. */
    cpu_set_t *near = map == MAP_GPU ? calloc((size_t)t->ngpu + 1, sizeof *near) : NULL;
    int *owner = map == MAP_GPU ? calloc((size_t)t->ngpu + 1, sizeof *owner) : NULL;
    int *next = map == MAP_GPU ? calloc((size_t)t->ngpu + 1, sizeof *next) : NULL;
    if (!pe || !cores || !obj || !users ||
        (map == MAP_GPU && (!gpu || !near || !owner || !next))) {
        snprintf(err, len, "out of memory placing %d PEs", np);
        goto fail;
    }
    if (map == MAP_GPU && t->ngpu == 0) {
        snprintf(err, len,
                 "--map-by gpu: the topology (%s) has no GPUs; map by core or numa instead",
                 t->source);
        goto fail;
    }
    int nobj = map == MAP_GPU ? t->ngpu : objects(t, map, obj);
    /* Objects none of whose CPUs oshrun may use (a cgroup, a topology file of a
     * bigger node) get no PEs. */
    if (map != MAP_GPU) {
        int kept = 0;
        for (int i = 0; i < nobj; i++)
            if (cores_in(t, allowed, &obj[i], cores) > 0)
                obj[kept++] = obj[i];
        nobj = kept;
        if (nobj == 0) { /* no L3 caches (or NUMA domains) known */
            snprintf(err, len,
                     "--map-by %s: the topology (%s) has no such objects; map by core "
                     "instead",
                     map == MAP_L3CACHE        ? "l3cache"
                             : map == MAP_NUMA ? "numa"
                                               : "socket",
                     t->source);
            goto fail;
        }
    }
    for (int g = 0; near && g < t->ngpu; g++) {
        near[g] = cores_in(t, allowed, &t->gpus[g].cpus, cores) ? t->gpus[g].cpus : t->all;
        owner[g] = g;
        for (int h = g - 1; h >= 0; h--)
            if (CPU_EQUAL(&near[h], &near[g]))
                owner[g] = owner[h];
    }
    enum bind_to how = want == BIND_AUTO ? BIND_CORE
            : want == BIND_SOCKET        ? BIND_PACKAGE
                                         : want;
    bool shared = false;
    for (int r = 0; r < np; r++) {
        int o = r % nobj, k = r / nobj;
        cpu_set_t region;
        if (map == MAP_GPU) {
            gpu[r] = shoal_hwtopo_gpu_of(t, r);
            region = near[gpu[r]];
            k = next[owner[gpu[r]]]++;
        } else {
            region = obj[o];
        }
        int n = cores_in(t, allowed, &region, cores);
        if (n == 0) {
            char list[256];
            cpulist_format(&region, list, sizeof list);
            snprintf(err, len,
                     "PE %d: none of the CPUs %s (its %s) is one oshrun may use; run with "
                     "more CPUs allowed, or map by core",
                     r, list, map == MAP_GPU ? "GPU's" : "object's");
            goto fail;
        }
        const cpu_set_t *core = &cores[k % n];
        int c = first_cpu(core);
        switch (how) {
        case BIND_HWTHREAD: {
            int th = (k / n) % CPU_COUNT(core);
            CPU_ZERO(&pe[r]);
            for (int x = 0, seen = 0; x < CPU_SETSIZE; x++)
                if (CPU_ISSET(x, core) && seen++ == th)
                    CPU_SET(x, &pe[r]);
            break;
        }
        case BIND_NUMA: {
            int m = -1;
            for (int i = 0; i < t->nnuma; i++)
                if (CPU_ISSET(c, &t->numa[i].cpus))
                    m = i;
            pe[r] = m >= 0 ? t->numa[m].cpus : *core;
            break;
        }
        case BIND_L3CACHE: {
            int l = holder(t->l3, t->nl3, c);
            pe[r] = l >= 0 ? t->l3[l] : *core;
            break;
        }
        case BIND_PACKAGE: {
            int p = holder(t->packages, t->npackage, c);
            pe[r] = p >= 0 ? t->packages[p] : *core;
            break;
        }
        default: pe[r] = *core; break;
        }
        CPU_AND(&pe[r], &pe[r], allowed);
        for (int x = 0; x < CPU_SETSIZE; x++)
            if (CPU_ISSET(x, &pe[r]))
                shared |= ++users[x] > 1;
    }
    free(cores);
    free(obj);
    free(users);
    free(near);
    free(owner);
    free(next);
    plan->how = how;
    plan->shared = shared && how != BIND_NONE;
    plan->pe_sets = pe;
    plan->pe_gpu = gpu;
    plan->ncpu = CPU_COUNT(allowed);
    return 0;
fail:
    free(pe);
    free(cores);
    free(gpu);
    free(obj);
    free(users);
    free(near);
    free(owner);
    free(next);
    return -1;
}

/* "NUMA 3", or "NUMA 0-3" for CPUs over several domains (kernel numbers). */
static void numa_label(const struct shoal_hwtopo *t, const cpu_set_t *cpus, char *buf,
                       size_t len)
{
    cpu_set_t nodes;
    CPU_ZERO(&nodes);
    for (int m = 0; m < t->nnuma; m++) {
        cpu_set_t in;
        CPU_AND(&in, cpus, &t->numa[m].cpus);
        if (CPU_COUNT(&in) && t->numa[m].os_index < CPU_SETSIZE)
            CPU_SET(t->numa[m].os_index, &nodes);
    }
    char list[256];
    cpulist_format(&nodes, list, sizeof list);
    snprintf(buf, len, ", NUMA %s", *list ? list : "unknown");
}

/* The NIC the library's policy would give PE r (name and policy into name): 0, 1
 * when the topology has no NIC, -1 with err when the policy refuses the PE. */
static int place_nic(const struct shoal_hwtopo *t, int r, int np, const cpu_set_t *cpus,
                     int gpu, char *name, size_t namelen, char *err, size_t len)
{
    /* The NICs as the provider would offer them: one per PCI device. */
    const char *names[64];
    int idx[64], n = 0;
    for (int i = 0; i < t->nnic && n < 64; i++) {
        bool dup = false;
        for (int k = 0; k < n && *t->nics[i].pci; k++)
            dup |= !strcmp(t->nics[idx[k]].pci, t->nics[i].pci);
        if (!dup) {
            names[n] = t->nics[i].name;
            idx[n++] = i;
        }
    }
    if (n == 0)
        return 1;
    /* Numbered in name order, digits by value, as the library numbers them (ofi_init.c). */
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && strverscmp(names[b - 1], names[b]) > 0; b--) {
            const char *tn = names[b];
            int ti = idx[b];
            names[b] = names[b - 1], idx[b] = idx[b - 1];
            names[b - 1] = tn, idx[b - 1] = ti;
        }
    struct shoal_nic_req req = {
        .pe = r,
        .local_rank = r,
        .local_size = np,
        .nnic = n,
        .nic_name = names,
        .nic_topo = idx,
        .cpus = *cpus,
        .gpu = gpu,
        .num_nics = shoal_env_get("SHMEM_OFI_NUM_NICS"),
        .policy = shoal_env_get("SHMEM_OFI_NIC_POLICY"),
        .mapping = shoal_env_get("SHMEM_OFI_NIC_MAPPING"),
        .skip_selection = shoal_parse_bool(shoal_env_value("SHMEM_OFI_SKIP_NIC_SELECTION")),
    };
    int k = shoal_nic_choose(t, &req, err, len);
    if (k < 0)
        return -1;
    snprintf(name, namelen, "%s (%s)", names[k], shoal_nic_policy_name(&req));
    return 0;
}

/* --report-bindings (and --dry-run), as Open MPI users read it: one line per PE on
 * stderr, with its NUMA domain, and its GPU and NIC when the topology knows them.
 * Returns 1 when the NIC policy refuses a PE (the message printed), else 0. */
static int report(const struct job *j, const struct shoal_hwtopo *t)
{
    char list[1024], numa[300] = "", gpu[64] = "", nic[96] = "", err[512];
    int bad = 0;
    if (j->bind.how == BIND_NONE && !j->bind.pe_sets && !j->opt.dry_run) {
        cpulist_format(&j->bind.allowed, list, sizeof list);
        fprintf(stderr, "oshrun: PEs 0-%d not bound (%s): each may run on CPUs %s\n",
                j->size - 1,
                j->opt.bind == BIND_NONE ? "--bind-to none"
                        : j->bind.others ? "other oshrun jobs hold the CPUs they would get"
                                         : "more PEs than CPUs",
                list);
        return 0;
    }
    for (int r = 0; r < j->size; r++) {
        cpu_set_t set = j->bind.allowed;
        if (j->bind.how != BIND_NONE)
            bind_cpus(&j->bind, r, &set);
        cpulist_format(&set, list, sizeof list);
        int g = -1;
        if (t) {
            numa_label(t, &set, numa, sizeof numa);
            g = j->bind.pe_gpu   ? j->bind.pe_gpu[r]
                    : j->gpu_pes ? shoal_hwtopo_gpu_of(t, r)
                                 : -1;
            if (g >= 0)
                snprintf(gpu, sizeof gpu, ", GPU %s", t->gpus[g].name);
            int e = place_nic(t, r, j->size, &set, g, nic + 6, sizeof nic - 6, err,
                              sizeof err);
            if (e < 0) {
                fprintf(stderr, "oshrun: %s\n", err);
                bad = 1;
                continue;
            }
            if (e == 0)
                memcpy(nic, ", NIC ", 6);
        }
        if (j->bind.how == BIND_NONE)
            fprintf(stderr, "oshrun: PE %d not bound: may run on CPUs %s%s%s%s\n", r, list,
                    numa, gpu, nic);
        else
            fprintf(stderr, "oshrun: PE %d bound to CPUs %s (%s%s%s)%s%s%s\n", r, list,
                    bind_name(j->bind.how), j->bind.shared ? ", shared with other PEs" : "",
                    j->bind.foreign ? ", free ones first, then ones another oshrun job holds"
                                    : "",
                    numa, gpu, nic);
    }
    return bad;
}

void place_job(struct job *j)
{
    const struct options *o = &j->opt;
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask))
        CPU_ZERO(&mask);
    bool file = place_topology_file(), dev = place_device_job(),
         kinds = place_map_needs_topology(o->map) || place_bind_needs_topology(o->bind);
    char err[512];
    struct shoal_hwtopo *t = NULL;
    if ((o->report_bindings || o->dry_run || file || dev || kinds) &&
        !(t = shoal_hwtopo_load(err, sizeof err))) {
        fprintf(stderr, "oshrun: %s\n", err);
        exit(2);
    }
    if (t && *t->note && kinds)
        fprintf(stderr,
                "oshrun: warning: %s; --map-by %s / --bind-to %s place by the CPUs /sys "
                "shows\n",
                t->note, o->map_arg ? o->map_arg : "core",
                o->bind_arg ? o->bind_arg : "auto");
    j->gpu_pes = t && t->ngpu > 0 && (o->map == MAP_GPU || dev);
    enum map_by map = j->gpu_pes && !o->map_arg && !o->bind_given ? MAP_GPU : o->map;
    if (t && (kinds || file || map == MAP_GPU)) {
        cpu_set_t allowed = t->all;
        if (!o->dry_run)
            CPU_AND(&allowed, &t->all, &mask);
        if (CPU_COUNT(&allowed) == 0) {
            char list[256];
            cpulist_format(&mask, list, sizeof list);
            fprintf(stderr,
                    "oshrun: the topology (%s) has none of the CPUs oshrun may use (%s); "
                    "give a topology of this machine, or plan with --dry-run\n",
                    t->source, list);
            exit(2);
        }
        if (place_plan(t, &allowed, j->size, o->bind, map, &j->bind, err, sizeof err)) {
            fprintf(stderr, "oshrun: %s\n", err);
            exit(2);
        }
    } else {
        /* A dry run takes no CPU locks: it starts nothing. */
        bind_plan("/sys", o->dry_run ? NULL : shoal_env_value("SHOAL_BIND_LOCKDIR"), &mask,
                  j->size, o->bind, map, &j->bind);
    }
    int bad = o->report_bindings || o->dry_run ? report(j, t) : 0;
    shoal_hwtopo_free(t);
    if (o->dry_run) {
        bind_plan_free(&j->bind);
        exit(bad);
    }
}
