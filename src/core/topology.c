/* Node layout: which PEs share this node's memory. Normally the PEs compare host
 * names; SHOAL_NODE_MAP overrides that so the network path can be tested on one
 * machine. SHMEM_TEAM_SHARED is this PE's node, when its PEs form a strided set. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "base/backoff.h"
#include "base/error.h"
#include "env/log.h"
#include "base/state.h"
#include "env/cpulist.h"
#include "core/team.h"
#include "core/topology.h"

#define HOST_LEN 256

/* What each PE tells the others at start-up: its host and the CPUs it may run on. */
struct whereabouts {
    char host[HOST_LEN];
    cpu_set_t cpus;
};

/* CPUs the cgroup lets this process use (cpu.max quota / period), or INT32_MAX. */
static int cgroup_cpus(void)
{
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (!f)
        return INT32_MAX;
    long quota = 0, period = 0;
    int n = fscanf(f, "%ld %ld", &quota, &period);
    fclose(f);
    if (n != 2 || quota <= 0 || period <= 0)
        return INT32_MAX; /* "max": no quota */
    return (int)((quota + period - 1) / period);
}

/* Tasks running or ready to run on the host (/proc/loadavg), this job's PEs
 * included; 0 when unknown. One reading is a snapshot that a passing task (the
 * launcher, a kernel worker, a PE of the last job still exiting) tips over the
 * CPU count: on an idle 2-CPU host, 1 start-up in 6 of a 2-PE job counted it busy.
 * So the fewest of up to HOST_SAMPLES readings HOST_SAMPLE_US apart, stopping
 * once one is within `cpus`: only work that stays runnable counts. */
enum { HOST_SAMPLES = 8, HOST_SAMPLE_US = 250 };
static int host_runnable(int cpus)
{
    int fewest = INT32_MAX;
    for (int i = 0; i < HOST_SAMPLES && fewest > cpus; i++) {
        if (i) {
            struct timespec t = { 0, HOST_SAMPLE_US * 1000L };
            nanosleep(&t, NULL);
        }
        FILE *f = fopen("/proc/loadavg", "r");
        if (!f)
            return 0;
        double l1, l5, l15;
        int running, total;
        int got = fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total);
        fclose(f);
        if (got != 5)
            return 0;
        if (running < fewest)
            fewest = running;
    }
    return fewest;
}

/* Whether this PE has a core to itself: the PEs of its host whose CPU sets
 * overlap its own are no more than the CPUs of those sets (and the cgroup's
 * quota). Unbound PEs share one set, so this is "PEs <= CPUs"; PEs bound one
 * per core each see only themselves; PEs packed onto fewer cores see the crowd.
 * A host already busier than its CPUs at start-up (other jobs, parallel tests)
 * counts as crowded too: there a spinning PE holds up the PE it waits for. */
static int owns_core(const struct whereabouts *all)
{
    const struct whereabouts *me = &all[shoal.my_pe];
    cpu_set_t reach = me->cpus, job = me->cpus;
    int crowd = 0;
    for (int pe = 0; pe < shoal.n_pes; pe++) {
        const struct whereabouts *w = &all[pe];
        cpu_set_t both;
        CPU_AND(&both, &w->cpus, &me->cpus);
        if (strcmp(w->host, me->host) != 0)
            continue;
        CPU_OR(&job, &job, &w->cpus);
        if (CPU_COUNT(&both) == 0)
            continue;
        CPU_OR(&reach, &reach, &w->cpus);
        crowd++;
    }
    /* Spread by oshrun's automatic placement among more PEs than CPUs
     * (SHOAL_BINDING core:spread): free to leave for any of the job's CPUs
     * (backoff.c). An explicit --bind-to stays as asked. */
    if (shoal.boot == &shoal_boot_oshrun && shoal.cfg.binding &&
        strstr(shoal.cfg.binding, ":spread") && CPU_COUNT(&job) > CPU_COUNT(&me->cpus))
        shoal_backoff_unpin_to(&job);
    int cpus = CPU_COUNT(&reach), quota = cgroup_cpus();
    if (quota < cpus)
        cpus = quota;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (crowd > cpus)
        return 0;
    if (online < 1)
        online = 1;
    shoal_wait.host_busy = host_runnable((int)online) > online;
    return !shoal_wait.host_busy;
}

/* FNV-1a of a host name, for the table below. */
static uint64_t host_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Node numbers from host names: PE pe's node is the lowest PE on the same host. One
 * pass over the PEs with a hash table of the hosts seen (open addressing, at most half
 * full), so that the cost grows with the job, not with its square. -1 without memory. */
static int nodes_from_hosts(const struct whereabouts *all, int *node)
{
    size_t slots = 2;
    while (slots < 2 * (size_t)shoal.n_pes)
        slots *= 2;
    int *first = malloc(slots * sizeof *first); /* lowest PE of the host in each slot */
    if (!first)
        return -1;
    for (size_t i = 0; i < slots; i++)
        first[i] = -1;
    for (int pe = 0; pe < shoal.n_pes; pe++) {
        size_t i = (size_t)host_hash(all[pe].host) & (slots - 1);
        while (first[i] >= 0 && strcmp(all[first[i]].host, all[pe].host) != 0)
            i = (i + 1) & (slots - 1);
        if (first[i] < 0)
            first[i] = pe;
        node[pe] = first[i];
    }
    free(first);
    return 0;
}

/* Every PE's whereabouts, gathered into t; NULL when the exchange failed. */
static const struct whereabouts *gather_whereabouts(struct shoal_boot_table *t)
{
    struct whereabouts mine;
    memset(&mine, 0, sizeof mine);
    if (gethostname(mine.host, sizeof mine.host - 1) != 0)
        strcpy(mine.host, "localhost");
    if (sched_getaffinity(0, sizeof mine.cpus, &mine.cpus) != 0) {
        CPU_ZERO(&mine.cpus);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &mine.cpus);
    }
    if (shoal_boot_gather(shoal.boot, "host names", &mine, sizeof mine, t))
        return NULL;
    return t->data;
}

/* The PEs of this node as a strided team; just this PE when they are not strided. */
static void shared_team_shape(int *start, int *stride, int *size)
{
    int me = shoal.my_pe, mine = shoal.node[me];
    int first = -1, second = -1, count = 0;
    for (int pe = 0; pe < shoal.n_pes; pe++) {
        if (shoal.node[pe] != mine)
            continue;
        if (first < 0)
            first = pe;
        else if (second < 0)
            second = pe;
        count++;
    }
    int st = second < 0 ? 1 : second - first;
    for (int i = 0; i < count; i++) {
        int pe = first + i * st;
        if (pe >= shoal.n_pes || shoal.node[pe] != mine) {
            *start = me, *stride = 1, *size = 1;
            return;
        }
    }
    *start = first, *stride = st, *size = count;
}

int shoal_topology_init(struct shoal_team *shared)
{
    int n = shoal.n_pes;
    shoal.node = calloc((size_t)n, sizeof *shoal.node);
    if (!shoal.node)
        return -1;
    struct shoal_boot_table t;
    const struct whereabouts *all = gather_whereabouts(&t);
    if (!all)
        return -1;
    /* Cores are shared by the PEs of a real host, whatever SHOAL_NODE_MAP says. */
    shoal_wait.own_core = owns_core(all);
    if (SHOAL_LOG_ON(BOOT, INFO)) {
        char cpus[256];
        cpulist_format(&all[shoal.my_pe].cpus, cpus, sizeof cpus);
        SHOAL_LOG(BOOT, INFO, "binding: CPUs %s (SHOAL_BINDING=%s)%s%s", cpus,
                  shoal.cfg.binding && *shoal.cfg.binding ? shoal.cfg.binding : "unset",
                  shoal_wait.own_core ? "; a core of its own: waits spin" : "; cores shared",
                  shoal_wait.host_busy ? "; the host was busy at start-up" : "");
    }
    /* mpi-all reaches every other PE through MPI: each PE is its own node. */
    if (strcmp(shoal.cfg.transport, "mpi-all") == 0) {
        shoal_node_map_parse("pe", n, shoal.node, NULL, 0);
    } else if (shoal.cfg.node_map && *shoal.cfg.node_map) {
        char err[256];
        if (shoal_node_map_parse(shoal.cfg.node_map, n, shoal.node, err, sizeof err))
            shoal_fatal("shmem_init", "%s", err);
    } else if (nodes_from_hosts(all, shoal.node)) {
        shoal_boot_table_release(&t);
        return -1;
    }
    shoal_boot_table_release(&t);
    /* Node numbers lie in 0..n (node_map_parse, nodes_from_hosts): count the distinct. */
    char *seen = calloc((size_t)n + 1, 1);
    if (!seen)
        return -1;
    shoal.n_nodes = 0;
    for (int pe = 0; pe < n; pe++)
        if (!seen[shoal.node[pe]]) {
            seen[shoal.node[pe]] = 1;
            shoal.n_nodes++;
        }
    free(seen);
    shoal.multi_node = shoal.n_nodes > 1;
    SHOAL_LOG(BOOT, INFO, "%d node(s)%s; this PE is on node %d", shoal.n_nodes,
              shoal.cfg.node_map && *shoal.cfg.node_map ? " (SHOAL_NODE_MAP)" : "",
              shoal.node[shoal.my_pe]);
    shared_team_shape(&shared->start, &shared->stride, &shared->size);
    shared->my_pe = (shoal.my_pe - shared->start) / shared->stride;
    return 0;
}

void shoal_topology_fini(void)
{
    free(shoal.node);
    shoal.node = NULL;
    shoal.n_nodes = 0;
    shoal.multi_node = 0;
    shoal_boot_node_fini();
}
