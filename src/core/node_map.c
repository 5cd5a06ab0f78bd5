/* SHOAL_NODE_MAP's syntax, apart from the rest of the node layout so that the fuzz
 * target reaches it without the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/topology.h"

static int bad_map(char *err, size_t len, const char *map, const char *why)
{
    snprintf(err, len,
             "SHOAL_NODE_MAP=\"%s\": %s; use pe, block:K (K >= 1) or a comma "
             "list of one node number per PE",
             map, why);
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
            return bad_map(err, len, map,
                           *end ? "unexpected character" : "fewer entries than PEs");
        p = end;
    }
    if (*p)
        return bad_map(err, len, map, "more entries than PEs");
    return 0;
}
