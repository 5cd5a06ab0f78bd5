/* Node layout (topology.c). */
#ifndef SHOAL_TOPOLOGY_H
#define SHOAL_TOPOLOGY_H

#include <stddef.h>

struct shoal_team;

/* Fills shoal.node, n_nodes, multi_node and the shape of SHMEM_TEAM_SHARED;
 * collective over the job. 0, or -1 when the exchange failed. */
int shoal_topology_init(struct shoal_team *shared);
void shoal_topology_fini(void);
/* SHOAL_NODE_MAP syntax -> node[pe] for n_pes PEs; -1 with a message in err. */
int shoal_node_map_parse(const char *map, int n_pes, int *node, char *err, size_t len);

#endif
