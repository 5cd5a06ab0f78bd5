/* The node's topology (hwtopo.h). hwloc is loaded with dlopen, so that libshoal
 * and oshrun start on a machine without it; its header (libhwloc-dev) gives the
 * object layout, which is stable across libhwloc.so.15 (hwloc 2.x). */
#include "hwtopo.h"
#include "cpulist.h"
#include "env.h"
#include "log.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef SHOAL_HAVE_HWLOC_H
#include <hwloc.h>
#endif

static void *grow(void *p, int n, size_t size)
{
    /* Arrays grow one element at a time; the counts are a node's, small. */
    return realloc(p, (size_t)(n + 1) * size);
}

static int add_set(cpu_set_t **arr, int *n, const cpu_set_t *s)
{
    cpu_set_t *a = grow(*arr, *n, sizeof *a);
    if (!a)
        return -1;
    a[(*n)++] = *s;
    *arr = a;
    return 0;
}

static struct shoal_hwtopo_dev *add_dev(struct shoal_hwtopo_dev **arr, int *n)
{
    struct shoal_hwtopo_dev *a = grow(*arr, *n, sizeof *a);
    if (!a)
        return NULL;
    *arr = a;
    a[*n] = (struct shoal_hwtopo_dev){ .numa = -1 };
    return &a[(*n)++];
}

void shoal_hwtopo_free(struct shoal_hwtopo *t)
{
    if (!t)
        return;
    free(t->cores);
    free(t->l3);
    free(t->packages);
    free(t->numa);
    free(t->distance);
    free(t->nics);
    free(t->gpus);
    free(t);
}

int shoal_hwtopo_numa_of(const struct shoal_hwtopo *t, const cpu_set_t *cpus)
{
    cpu_set_t in;
    CPU_AND(&in, cpus, &t->all);
    if (CPU_COUNT(&in) == 0)
        return -2;
    for (int i = 0; i < t->nnuma; i++) {
        cpu_set_t out;
        CPU_AND(&out, &in, &t->numa[i].cpus);
        if (CPU_EQUAL(&out, &in))
            return i;
    }
    return -1;
}

unsigned shoal_hwtopo_distance(const struct shoal_hwtopo *t, int a, int b)
{
    if (a < 0 || b < 0 || a >= t->nnuma || b >= t->nnuma)
        return 20;
    if (t->distance)
        return t->distance[a * t->nnuma + b];
    return a == b ? 10 : 20;
}

int shoal_hwtopo_nic_find(const struct shoal_hwtopo *t, const char *name)
{
    for (int i = 0; t && name && i < t->nnic; i++)
        if (!strcmp(t->nics[i].name, name))
            return i;
    return -1;
}

int shoal_hwtopo_gpu_of(const struct shoal_hwtopo *t, int ordinal)
{
    if (!t || t->ngpu == 0 || ordinal < 0)
        return -1;
    /* hwloc numbers cudaN, rsmiN after the runtime's own device order. */
    for (int g = 0; g < t->ngpu; g++) {
        const char *n = t->gpus[g].name, *d = n + strcspn(n, "0123456789");
        if (*d && atoi(d) == ordinal % t->ngpu)
            return g;
    }
    return ordinal % t->ngpu;
}

unsigned shoal_hwtopo_dev_distance(const struct shoal_hwtopo *t,
                                   const struct shoal_hwtopo_dev *a,
                                   const struct shoal_hwtopo_dev *b)
{
    int common = 0;
    while (common < a->nbridge && common < b->nbridge &&
           a->bridge[common] == b->bridge[common])
        common++;
    if (common > 0)
        return (unsigned)(SHOAL_HWTOPO_PCI_DEPTH - common);
    if (a->numa < 0 || b->numa < 0)
        return UINT_MAX;
    return shoal_hwtopo_distance(t, a->numa, b->numa);
}

unsigned shoal_hwtopo_cpu_distance(const struct shoal_hwtopo *t,
                                   const struct shoal_hwtopo_dev *d, const cpu_set_t *cpus)
{
    if (d->numa < 0 || CPU_COUNT(cpus) == 0)
        return UINT_MAX;
    /* The mean over the PE's CPUs, in tenths: a PE spread over both sockets is as
     * far from either socket's NIC. */
    unsigned long sum = 0, n = 0;
    for (int m = 0; m < t->nnuma; m++) {
        cpu_set_t in;
        CPU_AND(&in, cpus, &t->numa[m].cpus);
        int k = CPU_COUNT(&in);
        sum += (unsigned long)k * shoal_hwtopo_distance(t, m, d->numa);
        n += (unsigned long)k;
    }
    return n ? (unsigned)((sum * 10 + n / 2) / n) : UINT_MAX;
}

/* ---- /sys ------------------------------------------------------------------ */

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int read_cpulist(const char *path, cpu_set_t *set)
{
    char line[4096];
    return read_line(path, line, sizeof line) || cpulist_parse(line, set) ? -1 : 0;
}

/* Adds s to arr unless an equal set is there. */
static int add_distinct(cpu_set_t **arr, int *n, const cpu_set_t *s)
{
    for (int i = 0; i < *n; i++)
        if (CPU_EQUAL(&(*arr)[i], s))
            return 0;
    return add_set(arr, n, s);
}

static int sys_nics(struct shoal_hwtopo *t, const char *cls)
{
    char path[512], line[4096];
    DIR *d = opendir(cls);
    struct dirent *e;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        /* Only devices on a bus: lo, bridges and veths have no device link. */
        snprintf(path, sizeof path, "%s/%s/device", cls, e->d_name);
        DIR *dev = opendir(path);
        if (!dev)
            continue;
        closedir(dev);
        struct shoal_hwtopo_dev *n = add_dev(&t->nics, &t->nnic);
        if (!n) {
            closedir(d);
            return -1;
        }
        snprintf(n->name, sizeof n->name, "%.31s", e->d_name);
        snprintf(path, sizeof path, "%s/%s/device/numa_node", cls, e->d_name);
        if (!read_line(path, line, sizeof line))
            for (int m = 0; m < t->nnuma; m++)
                if (t->numa[m].os_index == atoi(line))
                    n->numa = m;
        snprintf(path, sizeof path, "%s/%s/device/local_cpulist", cls, e->d_name);
        if (read_cpulist(path, &n->cpus))
            CPU_ZERO(&n->cpus);
    }
    closedir(d);
    return 0;
}

static int load_sys(struct shoal_hwtopo *t)
{
    char path[512], line[4096];
    if (read_cpulist("/sys/devices/system/cpu/online", &t->all) || CPU_COUNT(&t->all) == 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &t->all))
            continue;
        cpu_set_t s;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
        if (read_cpulist(path, &s)) {
            CPU_ZERO(&s);
            CPU_SET(c, &s);
        }
        if (add_distinct(&t->cores, &t->ncore, &s))
            return -1;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list", c);
        if (!read_cpulist(path, &s) && add_distinct(&t->packages, &t->npackage, &s))
            return -1;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index3/level", c);
        if (!read_line(path, line, sizeof line) && !strcmp(line, "3")) {
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", c);
            if (!read_cpulist(path, &s) && add_distinct(&t->l3, &t->nl3, &s))
                return -1;
        }
    }
    if (t->npackage == 0 && add_set(&t->packages, &t->npackage, &t->all))
        return -1;
    bool nodes[4096] = { false };
    DIR *nd = opendir("/sys/devices/system/node");
    for (struct dirent *e; nd && (e = readdir(nd));) {
        int node;
        if (sscanf(e->d_name, "node%d", &node) == 1 && node >= 0 && node < 4096)
            nodes[node] = true;
    }
    if (nd)
        closedir(nd);
    for (int node = 0; node < 4096; node++) {
        cpu_set_t s;
        if (!nodes[node])
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
        if (read_cpulist(path, &s))
            continue;
        CPU_AND(&s, &s, &t->all);
        if (CPU_COUNT(&s) == 0) /* memory only */
            continue;
        struct shoal_hwtopo_numa *a = grow(t->numa, t->nnuma, sizeof *a);
        if (!a)
            return -1;
        t->numa = a;
        a[t->nnuma++] = (struct shoal_hwtopo_numa){ .os_index = node, .cpus = s };
    }
    if (t->nnuma == 0) { /* no /sys/devices/system/node: one domain */
        if (!(t->numa = calloc(1, sizeof *t->numa)))
            return -1;
        t->numa[0].cpus = t->all;
        t->nnuma = 1;
    }
    if (!(t->distance = calloc((size_t)(t->nnuma * t->nnuma), sizeof *t->distance)))
        return -1;
    for (int a = 0; a < t->nnuma; a++) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/distance",
                 t->numa[a].os_index);
        char *p = line;
        bool ok = !read_line(path, line, sizeof line);
        /* The row lists every node, memory-only ones too. */
        for (int node = 0, b = 0; ok && b < t->nnuma; node++) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            p = end;
            if (node == t->numa[b].os_index)
                t->distance[a * t->nnuma + b++] = (unsigned)v;
        }
        for (int b = 0; b < t->nnuma; b++)
            if (!t->distance[a * t->nnuma + b])
                t->distance[a * t->nnuma + b] = a == b ? 10 : 20;
    }
    for (int m = 0; m < t->nnuma; m++)
        for (int p = 0; p < t->npackage; p++) {
            cpu_set_t in;
            CPU_AND(&in, &t->numa[m].cpus, &t->packages[p]);
            if (CPU_EQUAL(&in, &t->numa[m].cpus))
                t->numa[m].package = p;
        }
    t->npu = CPU_COUNT(&t->all);
    if (sys_nics(t, "/sys/class/net") || sys_nics(t, "/sys/class/infiniband"))
        return -1;
    t->from = SHOAL_HWTOPO_SYS;
    snprintf(t->source + strlen(t->source), sizeof t->source - strlen(t->source), "/sys");
    return 0;
}

/* ---- hwloc ------------------------------------------------------------------ */

#ifdef SHOAL_HAVE_HWLOC_H
static struct {
    unsigned (*get_api_version)(void);
    int (*topology_init)(hwloc_topology_t *);
    int (*topology_set_xml)(hwloc_topology_t, const char *);
    int (*topology_set_io_types_filter)(hwloc_topology_t, enum hwloc_type_filter_e);
    int (*topology_load)(hwloc_topology_t);
    void (*topology_destroy)(hwloc_topology_t);
    int (*get_type_depth)(hwloc_topology_t, hwloc_obj_type_t);
    unsigned (*get_nbobjs_by_depth)(hwloc_topology_t, int);
    hwloc_obj_t (*get_obj_by_depth)(hwloc_topology_t, int, unsigned);
    int (*bitmap_first)(hwloc_const_bitmap_t);
    int (*bitmap_next)(hwloc_const_bitmap_t, int);
    int (*distances_get_by_type)(hwloc_topology_t, hwloc_obj_type_t, unsigned *,
                                 struct hwloc_distances_s **, unsigned long, unsigned long);
    void (*distances_release)(hwloc_topology_t, struct hwloc_distances_s *);
    int (*topology_set_components)(hwloc_topology_t, unsigned long, const char *);
} hw;

static int hwloc_open(char *why, size_t len)
{
    static void *lib;
    if (lib)
        return 0;
    void *h = dlopen("libhwloc.so.15", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, len, "cannot load libhwloc.so.15 (install libhwloc15)");
        return -1;
    }
#define HWSYM(f)                                                                             \
    if (!(*(void **)&hw.f = dlsym(h, "hwloc_" #f))) {                                        \
        snprintf(why, len, "libhwloc.so.15 lacks hwloc_" #f);                                \
        dlclose(h);                                                                          \
        return -1;                                                                           \
    }
    HWSYM(get_api_version)
    HWSYM(topology_init)
    HWSYM(topology_set_xml)
    HWSYM(topology_set_io_types_filter)
    HWSYM(topology_load)
    HWSYM(topology_destroy)
    HWSYM(get_type_depth)
    HWSYM(get_nbobjs_by_depth)
    HWSYM(get_obj_by_depth)
    HWSYM(bitmap_first)
    HWSYM(bitmap_next)
    HWSYM(distances_get_by_type)
    HWSYM(distances_release)
#undef HWSYM
    *(void **)&hw.topology_set_components = dlsym(h, "hwloc_topology_set_components");
    if (hw.get_api_version() >> 16 != HWLOC_API_VERSION >> 16) {
        snprintf(why, len, "libhwloc.so.15 is hwloc %u.x, not 2.x",
                 hw.get_api_version() >> 16);
        dlclose(h);
        return -1;
    }
    lib = h;
    return 0;
}

static void to_cpuset(hwloc_const_bitmap_t b, cpu_set_t *set)
{
    CPU_ZERO(set);
    if (!b)
        return;
    for (int c = hw.bitmap_first(b); c >= 0 && c < CPU_SETSIZE; c = hw.bitmap_next(b, c))
        CPU_SET(c, set);
}

static int sets_of_type(hwloc_topology_t h, hwloc_obj_type_t type, cpu_set_t **arr, int *n)
{
    int depth = hw.get_type_depth(h, type);
    if (depth < 0) /* none, or at several depths (then not counted) */
        return 0;
    unsigned k = hw.get_nbobjs_by_depth(h, depth);
    for (unsigned i = 0; i < k; i++) {
        cpu_set_t s;
        to_cpuset(hw.get_obj_by_depth(h, depth, i)->cpuset, &s);
        if (add_set(arr, n, &s))
            return -1;
    }
    return 0;
}

/* Which GPU name of a PCI device is shown: the runtime's own first. */
static int gpu_rank(const char *name)
{
    static const char *const pref[] = { "cuda", "rsmi", "nvml", "opencl" };
    for (int i = 0; i < 4; i++)
        if (!strncmp(name, pref[i], strlen(pref[i])))
            return i;
    return 4;
}

static int hw_devices(struct shoal_hwtopo *t, hwloc_topology_t h)
{
    unsigned k = hw.get_nbobjs_by_depth(h, HWLOC_TYPE_DEPTH_OS_DEVICE);
    for (unsigned i = 0; i < k; i++) {
        hwloc_obj_t o = hw.get_obj_by_depth(h, HWLOC_TYPE_DEPTH_OS_DEVICE, i);
        hwloc_obj_osdev_type_t ty = o->attr->osdev.type;
        bool nic = ty == HWLOC_OBJ_OSDEV_NETWORK || ty == HWLOC_OBJ_OSDEV_OPENFABRICS;
        bool gpu = ty == HWLOC_OBJ_OSDEV_GPU || ty == HWLOC_OBJ_OSDEV_COPROC;
        if ((!nic && !gpu) || !o->name)
            continue;
        char pci[16] = "";
        hwloc_obj_t up = o->parent;
        if (up && up->type == HWLOC_OBJ_PCI_DEVICE)
            snprintf(pci, sizeof pci, "%04x:%02x:%02x.%01x", up->attr->pcidev.domain,
                     up->attr->pcidev.bus, up->attr->pcidev.dev, up->attr->pcidev.func);
        if (gpu && *pci) { /* one GPU per PCI device, however many names it has */
            struct shoal_hwtopo_dev *same = NULL;
            for (int g = 0; g < t->ngpu; g++)
                if (!strcmp(t->gpus[g].pci, pci))
                    same = &t->gpus[g];
            if (same) {
                if (gpu_rank(o->name) < gpu_rank(same->name))
                    snprintf(same->name, sizeof same->name, "%.31s", o->name);
                continue;
            }
        }
        struct shoal_hwtopo_dev *d =
                nic ? add_dev(&t->nics, &t->nnic) : add_dev(&t->gpus, &t->ngpu);
        if (!d)
            return -1;
        snprintf(d->name, sizeof d->name, "%.31s", o->name);
        memcpy(d->pci, pci, sizeof pci);
        unsigned long long chain[SHOAL_HWTOPO_PCI_DEPTH];
        int nb = 0;
        for (; up && !up->cpuset; up = up->parent)
            if (up->type == HWLOC_OBJ_BRIDGE && nb < SHOAL_HWTOPO_PCI_DEPTH)
                chain[nb++] = up->gp_index;
        for (int b = 0; b < nb; b++) /* host bridge first */
            d->bridge[b] = chain[nb - 1 - b];
        d->nbridge = nb;
        if (up) {
            to_cpuset(up->cpuset, &d->cpus);
            hwloc_obj_t mem = up->memory_first_child;
            d->numa = mem && mem->type == HWLOC_OBJ_NUMANODE && !mem->next_sibling
                    ? (int)mem->logical_index
                    : shoal_hwtopo_numa_of(t, &d->cpus);
            if (d->numa < 0)
                d->numa = -1;
        }
    }
    return 0;
}

static int load_hwloc(struct shoal_hwtopo *t, const char *file, char *err, size_t len)
{
    hwloc_topology_t h;
    if (hw.topology_init(&h)) {
        snprintf(err, len, "hwloc_topology_init failed");
        return -1;
    }
    hw.topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    /* The linux backend reads the PCI tree from sysfs; hwloc's pci plugin would read it
     * again through libpciaccess, which costs start-up time and leaks (hwloc 2.1+). */
    if (!file && hw.topology_set_components)
        hw.topology_set_components(h, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    if (file && hw.topology_set_xml(h, file)) {
        snprintf(err, len, "hwloc cannot read the topology file %s", file);
        hw.topology_destroy(h);
        return -1;
    }
    if (hw.topology_load(h)) {
        snprintf(err, len, "hwloc cannot load %s", file ? file : "this machine's topology");
        hw.topology_destroy(h);
        return -1;
    }
    int rc = -1;
    to_cpuset(hw.get_obj_by_depth(h, 0, 0)->cpuset, &t->all);
    t->npu = CPU_COUNT(&t->all);
    if (sets_of_type(h, HWLOC_OBJ_CORE, &t->cores, &t->ncore) ||
        sets_of_type(h, HWLOC_OBJ_L3CACHE, &t->l3, &t->nl3) ||
        sets_of_type(h, HWLOC_OBJ_PACKAGE, &t->packages, &t->npackage))
        goto out;
    if (t->npackage == 0 && add_set(&t->packages, &t->npackage, &t->all))
        goto out;
    unsigned nn = hw.get_nbobjs_by_depth(h, HWLOC_TYPE_DEPTH_NUMANODE);
    if (!(t->numa = calloc(nn ? nn : 1, sizeof *t->numa)) ||
        !(t->distance = calloc((size_t)(nn ? nn * nn : 1), sizeof *t->distance)))
        goto out;
    for (unsigned i = 0; i < nn; i++) {
        hwloc_obj_t o = hw.get_obj_by_depth(h, HWLOC_TYPE_DEPTH_NUMANODE, i);
        struct shoal_hwtopo_numa *m = &t->numa[t->nnuma++];
        m->os_index = (int)o->os_index;
        m->package = -1;
        to_cpuset(o->cpuset, &m->cpus);
        for (int p = 0; p < t->npackage; p++) {
            cpu_set_t in;
            CPU_AND(&in, &m->cpus, &t->packages[p]);
            if (CPU_COUNT(&in) && CPU_EQUAL(&in, &m->cpus))
                m->package = p;
        }
    }
    for (int a = 0; a < t->nnuma; a++)
        for (int b = 0; b < t->nnuma; b++)
            t->distance[a * t->nnuma + b] = a == b ? 10 : 20;
    unsigned nr = 1;
    struct hwloc_distances_s *dist = NULL;
    if (!hw.distances_get_by_type(h, HWLOC_OBJ_NUMANODE, &nr, &dist,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) &&
        nr == 1 && dist) {
        for (unsigned a = 0; a < dist->nbobjs; a++)
            for (unsigned b = 0; b < dist->nbobjs; b++) {
                unsigned x = dist->objs[a]->logical_index, y = dist->objs[b]->logical_index;
                if ((int)x < t->nnuma && (int)y < t->nnuma)
                    t->distance[x * (unsigned)t->nnuma + y] =
                            (unsigned)dist->values[a * dist->nbobjs + b];
            }
        hw.distances_release(h, dist);
    }
    if (hw_devices(t, h))
        goto out;
    t->from = SHOAL_HWTOPO_HWLOC;
    snprintf(t->source, sizeof t->source, "hwloc%s%s", file ? ", file " : "",
             file ? file : "");
    rc = 0;
out:
    hw.topology_destroy(h);
    if (rc && !*err)
        snprintf(err, len, "out of memory reading the topology");
    return rc;
}
#endif

static struct shoal_hwtopo *load(const char *file, char *err, size_t len)
{
    struct shoal_hwtopo *t = calloc(1, sizeof *t);
    char why[200] = "";
    if (!t) {
        snprintf(err, len, "out of memory reading the topology");
        return NULL;
    }
    err[0] = '\0';
#ifdef SHOAL_HAVE_HWLOC_H
    if (!hwloc_open(why, sizeof why)) {
        if (!load_hwloc(t, file, err, len))
            return t;
        if (file) {
            shoal_hwtopo_free(t);
            return NULL;
        }
        /* The machine's own topology failed: /sys still serves. */
        snprintf(why, sizeof why, "%s", err);
        shoal_hwtopo_free(t);
        if (!(t = calloc(1, sizeof *t)))
            return NULL;
    }
#else
    snprintf(why, sizeof why, "this Shoal was built without hwloc's header (libhwloc-dev)");
#endif
    if (file) {
        snprintf(err, len, "cannot read the topology file %s: %s", file, why);
        shoal_hwtopo_free(t);
        return NULL;
    }
    snprintf(t->note, sizeof t->note, "%s; one NUMA domain per /sys node, no GPUs known",
             why);
    if (load_sys(t)) {
        snprintf(err, len, "cannot read the CPU topology from /sys (%s)", why);
        shoal_hwtopo_free(t);
        return NULL;
    }
    return t;
}

struct shoal_hwtopo *shoal_hwtopo_load_sys(char *err, size_t len)
{
    struct shoal_hwtopo *t = calloc(1, sizeof *t);
    if (!t || load_sys(t)) {
        snprintf(err, len, "cannot read the CPU topology from /sys");
        shoal_hwtopo_free(t);
        return NULL;
    }
    return t;
}

struct shoal_hwtopo *shoal_hwtopo_load_xml(const char *path, char *err, size_t len)
{
    return load(path, err, len);
}

struct shoal_hwtopo *shoal_hwtopo_load(char *err, size_t len)
{
    const char *file = shoal_env_get("SHOAL_TOPOLOGY_FILE");
    if (file && !*file)
        file = NULL;
    if (!file) { /* hwloc reads HWLOC_XMLFILE itself; named here for the report */
        const char *x = shoal_env_get("HWLOC_XMLFILE");
        struct shoal_hwtopo *t = load(NULL, err, len);
        if (t && x && *x && t->from == SHOAL_HWTOPO_HWLOC)
            snprintf(t->source + strlen(t->source), sizeof t->source - strlen(t->source),
                     ", file %s (HWLOC_XMLFILE)", x);
        SHOAL_LOG(BOOT, DEBUG, "topology: %s", t ? t->source : err);
        return t;
    }
    struct shoal_hwtopo *t = load(file, err, len);
    SHOAL_LOG(BOOT, DEBUG, "topology from %s: %s", file, t ? t->source : err);
    return t;
}

/* ---- the NIC policy ----------------------------------------------------------- */

static bool is_set(const char *s)
{
    return s && *s;
}

const char *shoal_nic_policy_name(const struct shoal_nic_req *req)
{
    static const char *const names[] = { "BLOCK", "ROUND-ROBIN", "NUMA", "USER", "AUTO" };
    if (req->skip_selection)
        return "SKIP";
    if (is_set(req->policy)) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcasecmp(req->policy, names[i]))
                return names[i];
        return req->policy;
    }
    if (is_set(req->num_nics))
        return "BLOCK";
    return req->nnic > 1 ? "AUTO" : "ONE";
}

/* SHMEM_OFI_NUM_NICS into the NICs in use (indices into the offered list). */
static int nics_in_use(const struct shoal_nic_req *req, int *use, char *err, size_t len)
{
    int n = req->nnic;
    if (!is_set(req->num_nics) || req->skip_selection) {
        for (int i = 0; i < n; i++)
            use[i] = i;
        return n;
    }
    char *end;
    long k = strtol(req->num_nics, &end, 10);
    if (end == req->num_nics || k < 1 || (*end && *end != ':')) {
        snprintf(err, len,
                 "PE %d: SHMEM_OFI_NUM_NICS=\"%s\" is not valid; give a count, optionally "
                 "with the NIC indices: 2 or 2:1,3",
                 req->pe, req->num_nics);
        return -1;
    }
    if (!*end) {
        for (int i = 0; i < n && i < k; i++)
            use[i] = i;
        return k < n ? (int)k : n;
    }
    int m = 0;
    for (const char *p = end + 1; *p;) {
        long idx = strtol(p, &end, 10);
        if (end == p || idx < 0 || (*end && *end != ',')) {
            snprintf(err, len,
                     "PE %d: SHMEM_OFI_NUM_NICS=\"%s\" is not valid; the indices after ':' "
                     "are a comma list: 2:1,3",
                     req->pe, req->num_nics);
            return -1;
        }
        if (idx >= n) {
            snprintf(
                    err, len,
                    "PE %d: SHMEM_OFI_NUM_NICS=\"%s\" names NIC %ld, but the provider offers "
                    "%d NIC%s (0 to %d) on this node; name those, or set SHMEM_OFI_DOMAIN",
                    req->pe, req->num_nics, idx, n, n == 1 ? "" : "s", n - 1);
            return -1;
        }
        if (m < n)
            use[m++] = (int)idx;
        p = *end ? end + 1 : end;
    }
    if (m != k) {
        snprintf(err, len,
                 "PE %d: SHMEM_OFI_NUM_NICS=\"%s\" asks for %ld NICs but lists %d; give as "
                 "many indices as the count",
                 req->pe, req->num_nics, k, m);
        return -1;
    }
    return m;
}

/* SHMEM_OFI_NIC_MAPPING ("0:0-7; 2:8-31"): the entry (NIC in use) of local PE r,
 * -1 for none, -2 malformed, -3 NIC out of range (nic set), -4 PE mapped twice. */
static int mapping_of(const char *map, int r, int nuse, long *nic)
{
    int found = -1;
    for (const char *p = map; *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, ";");
        char entry[512], *end;
        if (n >= sizeof entry)
            return -2;
        memcpy(entry, p, n);
        entry[n] = '\0';
        p += n;
        long v = strtol(entry, &end, 10);
        if (end == entry || *end != ':' || v < 0)
            return -2;
        char *list = end + 1;
        while (*list == ' ')
            list++;
        for (char *e = list + strlen(list); e > list && e[-1] == ' ';)
            *--e = '\0';
        int has = shoal_pe_list_has(list, r);
        if (has < 0)
            return -2;
        if (v >= nuse) {
            *nic = v;
            return -3;
        }
        if (has) {
            if (found >= 0)
                return -4;
            found = (int)v;
        }
    }
    return found;
}

static int user_choose(const struct shoal_nic_req *req, int nuse, char *err, size_t len)
{
    const char *map = req->mapping;
    if (!is_set(map)) {
        snprintf(err, len,
                 "PE %d: SHMEM_OFI_NIC_POLICY=USER needs SHMEM_OFI_NIC_MAPPING (NIC:local "
                 "PEs, "
                 "e.g. \"0:0-7; 1:8-15\"); set it, or choose another policy",
                 req->pe);
        return -1;
    }
    /* Every local PE is checked, so that every PE of a node reports the same fault. */
    int mine = -1;
    for (int r = 0; r < req->local_size; r++) {
        long nic = 0;
        int e = mapping_of(map, r, nuse, &nic);
        if (e == -2)
            snprintf(err, len,
                     "PE %d: SHMEM_OFI_NIC_MAPPING=\"%s\" is not valid; expected NIC:local "
                     "PEs "
                     "entries separated by ';', e.g. \"0:0-7; 1:8-15\"",
                     req->pe, map);
        else if (e == -3)
            snprintf(err, len,
                     "PE %d: SHMEM_OFI_NIC_MAPPING=\"%s\" names NIC %ld, but the job uses %d "
                     "NIC%s (0 to %d); map local PEs to those, or raise SHMEM_OFI_NUM_NICS",
                     req->pe, map, nic, nuse, nuse == 1 ? "" : "s", nuse - 1);
        else if (e == -4)
            snprintf(err, len,
                     "PE %d: SHMEM_OFI_NIC_MAPPING=\"%s\" maps local PE %d to two NICs; map "
                     "each local PE once",
                     req->pe, map, r);
        else if (e == -1)
            snprintf(err, len,
                     "PE %d: SHMEM_OFI_NIC_MAPPING=\"%s\" maps no NIC for local PE %d of the "
                     "node's %d; map every local PE (0 to %d)",
                     req->pe, map, r, req->local_size, req->local_size - 1);
        if (e < 0)
            return -1;
        if (r == req->local_rank)
            mine = e;
    }
    return mine;
}

/* The entry of use[] nearest by key; equally near ones share the PEs by local rank. */
static int nearest(const unsigned *key, int nuse, int local_rank)
{
    unsigned best = UINT_MAX;
    int ties = 0;
    for (int i = 0; i < nuse; i++)
        if (key[i] < best) {
            best = key[i];
            ties = 1;
        } else if (key[i] == best) {
            ties++;
        }
    for (int i = 0, k = local_rank % ties; i < nuse; i++)
        if (key[i] == best && k-- == 0)
            return i;
    return 0;
}

static const struct shoal_hwtopo_dev *topo_nic(const struct shoal_hwtopo *topo,
                                               const struct shoal_nic_req *req, int i)
{
    int t = topo && req->nic_topo ? req->nic_topo[i] : -1;
    return t >= 0 && t < topo->nnic ? &topo->nics[t] : NULL;
}

int shoal_nic_choose(const struct shoal_hwtopo *topo, const struct shoal_nic_req *req,
                     char *err, size_t len)
{
    if (req->nnic < 1) {
        snprintf(err, len, "PE %d: the provider offers no NIC", req->pe);
        return -1;
    }
    if (req->skip_selection)
        return 0;
    int *use = calloc((size_t)req->nnic, sizeof *use);
    unsigned *key = calloc((size_t)req->nnic, sizeof *key);
    int nuse, pick = -1;
    const char *policy = shoal_nic_policy_name(req);
    if (!use || !key) {
        snprintf(err, len, "PE %d: out of memory choosing a NIC", req->pe);
        goto out;
    }
    if ((nuse = nics_in_use(req, use, err, len)) < 0)
        goto out;
    if (is_set(req->mapping) && strcmp(policy, "USER")) {
        snprintf(err, len,
                 "PE %d: SHMEM_OFI_NIC_MAPPING is set, but applies only with "
                 "SHMEM_OFI_NIC_POLICY=USER; set that, or unset the mapping",
                 req->pe);
        goto out;
    }
    if (!strcmp(policy, "ONE")) {
        pick = 0;
    } else if (!strcmp(policy, "BLOCK")) {
        int per = (req->local_size + nuse - 1) / nuse;
        pick = per > 0 ? req->local_rank / per : 0;
        if (pick >= nuse)
            pick = nuse - 1;
    } else if (!strcmp(policy, "ROUND-ROBIN")) {
        pick = req->local_rank % nuse;
    } else if (!strcmp(policy, "USER")) {
        pick = user_choose(req, nuse, err, len);
    } else if (!strcmp(policy, "NUMA")) {
        int m = topo ? shoal_hwtopo_numa_of(topo, &req->cpus) : -2;
        if (m < 0) {
            char cpus[256];
            cpulist_format(&req->cpus, cpus, sizeof cpus);
            snprintf(
                    err, len,
                    m == -1 ? "PE %d: SHMEM_OFI_NIC_POLICY=NUMA, but the PE's CPUs (%s) span "
                              "several NUMA domains; bind each PE inside one (oshrun "
                              "--bind-to numa or core), or choose another policy"
                            : "PE %d: SHMEM_OFI_NIC_POLICY=NUMA, but the PE's CPUs (%s) lie "
                              "in "
                              "no known NUMA domain; bind each PE (oshrun --bind-to numa or "
                              "core), or choose another policy",
                    req->pe, *cpus ? cpus : "unknown");
            goto out;
        }
        bool known = false;
        for (int i = 0; i < nuse; i++) {
            const struct shoal_hwtopo_dev *d = topo_nic(topo, req, use[i]);
            key[i] = d && d->numa >= 0 ? shoal_hwtopo_distance(topo, m, d->numa) : UINT_MAX;
            known |= key[i] != UINT_MAX;
        }
        if (!known) {
            snprintf(err, len,
                     "PE %d: SHMEM_OFI_NIC_POLICY=NUMA, but the topology places none of the "
                     "provider's NICs in a NUMA domain; give a topology that does "
                     "(SHOAL_TOPOLOGY_FILE), or choose BLOCK",
                     req->pe);
            goto out;
        }
        pick = nearest(key, nuse, req->local_rank);
    } else if (!strcmp(policy, "AUTO")) {
        const struct shoal_hwtopo_dev *gpu =
                topo && req->gpu >= 0 && req->gpu < topo->ngpu ? &topo->gpus[req->gpu] : NULL;
        for (int i = 0; i < nuse; i++) {
            const struct shoal_hwtopo_dev *d = topo_nic(topo, req, use[i]);
            key[i] = !d   ? UINT_MAX
                    : gpu ? shoal_hwtopo_dev_distance(topo, gpu, d)
                          : shoal_hwtopo_cpu_distance(topo, d, &req->cpus);
        }
        pick = nearest(key, nuse, req->local_rank);
    } else {
        snprintf(err, len,
                 "PE %d: SHMEM_OFI_NIC_POLICY=%s is not a policy; use BLOCK, ROUND-ROBIN, "
                 "NUMA, USER or AUTO",
                 req->pe, req->policy);
    }
out:
    if (pick >= 0)
        pick = use[pick];
    free(use);
    free(key);
    return pick;
}
