/* Node layout: which PEs share this node's memory. Normally the PEs compare host
 * names; SHOAL_NODE_MAP overrides that so the network path can be tested on one
 * machine. SHMEM_TEAM_SHARED is this PE's node, when its PEs form a strided set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/error.h"
#include "core/log.h"
#include "core/state.h"
#include "core/team.h"
#include "core/topology.h"

#define HOST_LEN 256

static int bad_map(char *err, size_t len, const char *map, const char *why)
{
    snprintf(err, len, "SHOAL_NODE_MAP=\"%s\": %s; use pe, block:K (K >= 1) or a comma "
             "list of one node number per PE", map, why);
    return -1;
}

int shoal_node_map_parse(const char *map, int n_pes, int *node, char *err, size_t len)
{
    if (strcmp(map, "pe") == 0) {
        for (int pe = 0; pe < n_pes; pe++)
            node[pe] = pe;
        return 0;
    }
    if (strncmp(map, "block:", 6) == 0) {
        char *end;
        long k = strtol(map + 6, &end, 10);
        if (end == map + 6 || *end || k < 1)
            return bad_map(err, len, map, "K must be a positive integer");
        for (int pe = 0; pe < n_pes; pe++)
            node[pe] = (int)(pe / k);
        return 0;
    }
    const char *p = map;
    for (int pe = 0; pe < n_pes; pe++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > n_pes)
            return bad_map(err, len, map, "expected a node number per PE");
        node[pe] = (int)v;
        if (*end == ',')
            end++;
        else if (*end || pe != n_pes - 1)
            return bad_map(err, len, map, *end ? "unexpected character" : "fewer entries than PEs");
        p = end;
    }
    if (*p)
        return bad_map(err, len, map, "more entries than PEs");
    return 0;
}

/* Node numbers from host names: PE pe's node is the lowest PE on the same host. */
static int nodes_from_hosts(int *node)
{
    int n = shoal.n_pes;
    char mine[HOST_LEN] = { 0 };
    if (gethostname(mine, sizeof mine - 1) != 0)
        strcpy(mine, "localhost");
    char *all = malloc((size_t)n * HOST_LEN);
    if (!all || shoal.boot->allgather(mine, all, HOST_LEN)) {
        free(all);
        return -1;
    }
    for (int pe = 0; pe < n; pe++) {
        node[pe] = pe;
        for (int q = 0; q < pe; q++)
            if (strcmp(all + (size_t)q * HOST_LEN, all + (size_t)pe * HOST_LEN) == 0) {
                node[pe] = node[q];
                break;
            }
    }
    free(all);
    return 0;
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
    if (shoal.cfg.node_map && *shoal.cfg.node_map) {
        char err[256];
        if (shoal_node_map_parse(shoal.cfg.node_map, n, shoal.node, err, sizeof err))
            shoal_fatal("shmem_init", "%s", err);
    } else if (nodes_from_hosts(shoal.node)) {
        return -1;
    }
    shoal.n_nodes = 0;
    for (int pe = 0; pe < n; pe++) {
        int first = 1;
        for (int q = 0; q < pe && first; q++)
            first = shoal.node[q] != shoal.node[pe];
        shoal.n_nodes += first;
    }
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
}
