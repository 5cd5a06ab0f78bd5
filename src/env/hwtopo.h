/* The node's hardware topology (hwtopo.c): packages, NUMA domains with their
 * distances, L3 caches, cores and hardware threads, and where the NICs and GPUs
 * sit. Read with hwloc, loaded at run time (libhwloc.so.15), from the machine or
 * from an XML file (SHOAL_TOPOLOGY_FILE, or hwloc's own HWLOC_XMLFILE); without
 * hwloc, from /sys. Shared by oshrun (placement) and the library (NIC choice).
 *
 * shoal_nic_choose is the NIC policy of SHMEM_OFI_NUM_NICS, SHMEM_OFI_NIC_POLICY,
 * SHMEM_OFI_NIC_MAPPING and SHMEM_OFI_SKIP_NIC_SELECTION: a pure function of the
 * topology and one PE's facts, so that it is tested without NICs. */
#ifndef SHOAL_HWTOPO_H
#define SHOAL_HWTOPO_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define SHOAL_HWTOPO_NAME 32
#define SHOAL_HWTOPO_PCI_DEPTH 8

enum shoal_hwtopo_from {
    SHOAL_HWTOPO_HWLOC, /* hwloc, from this machine or a file */
    SHOAL_HWTOPO_SYS,   /* /sys: one NUMA domain unless /sys lists more, no GPUs */
};

struct shoal_hwtopo_numa {
    int os_index; /* the kernel's node number */
    int package;  /* index into packages, -1 unknown */
    cpu_set_t cpus;
};

/* A NIC (hwloc OS device of type network or openfabrics) or a GPU (GPU or
 * co-processor). */
struct shoal_hwtopo_dev {
    char name[SHOAL_HWTOPO_NAME]; /* eth0, cxi0, mlx5_0; cuda0, rsmi0 */
    char pci[16];                 /* PCI bus id, "0000:c1:00.0"; "" unknown */
    int numa;                     /* index into numa[] it is attached to, -1 unknown */
    cpu_set_t cpus;               /* the CPUs it is near; empty when unknown */
    /* The PCI bridges above it, host bridge first (ids unique in the topology):
     * two devices under more common bridges are nearer (one PCI switch). */
    int nbridge;
    unsigned long long bridge[SHOAL_HWTOPO_PCI_DEPTH];
};

struct shoal_hwtopo {
    enum shoal_hwtopo_from from;
    char source[320]; /* for reports: "hwloc 2.9.0, file tests/topology/x.xml" */
    char note[256];   /* why hwloc was not used, "" when it was */
    cpu_set_t all;    /* every hardware thread */
    int npu, ncore, nl3, npackage, nnuma, nnic, ngpu;
    cpu_set_t *cores, *l3, *packages; /* each one's hardware threads, in CPU order */
    struct shoal_hwtopo_numa *numa;   /* in the kernel's order */
    unsigned *distance;               /* nnuma x nnuma, row-major (10 = local) */
    struct shoal_hwtopo_dev *nics, *gpus;
};

/* Loads the topology: from SHOAL_TOPOLOGY_FILE when set (an error if it cannot
 * be read), else hwloc's view of this machine, else /sys. NULL with err filled
 * only when nothing can be read. */
struct shoal_hwtopo *shoal_hwtopo_load(char *err, size_t len);
/* Loads an hwloc XML file (NULL and err when it cannot). */
struct shoal_hwtopo *shoal_hwtopo_load_xml(const char *path, char *err, size_t len);
/* This machine's topology from /sys alone, as without hwloc (NULL and err when
 * /sys cannot be read). */
struct shoal_hwtopo *shoal_hwtopo_load_sys(char *err, size_t len);
void shoal_hwtopo_free(struct shoal_hwtopo *t);

/* The NUMA domain (index into numa[]) holding every CPU of cpus; -1 when they
 * span several, -2 when cpus holds none of the node's CPUs. */
int shoal_hwtopo_numa_of(const struct shoal_hwtopo *t, const cpu_set_t *cpus);
/* NUMA distance between domains a and b (indices); 10 local, 20 when unknown. */
unsigned shoal_hwtopo_distance(const struct shoal_hwtopo *t, int a, int b);
/* The NIC named name (a libfabric domain or interface name), or -1. */
int shoal_hwtopo_nic_find(const struct shoal_hwtopo *t, const char *name);
/* The GPU (index into gpus[]) of device ordinal (cuda's and rocm's numbering, taken
 * modulo the GPUs): the one hwloc names cudaN or rsmiN for N = ordinal, else the
 * ordinal-th; -1 when the topology has no GPU. */
int shoal_hwtopo_gpu_of(const struct shoal_hwtopo *t, int ordinal);
/* How far device b is from device a, smaller nearer: below 10 when they share PCI
 * bridges (fewer the more they share), else the NUMA distance of their domains;
 * UINT_MAX when unknown. */
unsigned shoal_hwtopo_dev_distance(const struct shoal_hwtopo *t,
                                   const struct shoal_hwtopo_dev *a,
                                   const struct shoal_hwtopo_dev *b);
/* How far device d is from CPUs cpus: the mean NUMA distance from their domains to
 * its domain, in tenths (100: all in its domain); UINT_MAX when unknown. */
unsigned shoal_hwtopo_cpu_distance(const struct shoal_hwtopo *t,
                                   const struct shoal_hwtopo_dev *d, const cpu_set_t *cpus);

/* One PE's request for a NIC. */
struct shoal_nic_req {
    int pe;         /* for messages */
    int local_rank; /* 0 .. local_size-1 on its node */
    int local_size;
    int nnic;                    /* NICs the provider offers, in its order */
    const char *const *nic_name; /* their names (may be NULL) */
    const int *nic_topo; /* each one's index in topo->nics, -1 not found; NULL: none */
    cpu_set_t cpus;      /* the PE's CPUs; empty when unknown */
    int gpu;             /* its GPU, index in topo->gpus; -1: a CPU PE */
    /* The variables as set ("" or NULL when unset). */
    const char *num_nics, *policy, *mapping;
    bool skip_selection;
};

/* The NIC for req (an index into its list, 0 .. nnic-1), or -1 with err naming
 * the PE, the variable and the remedy. topo may be NULL (no locality known). */
int shoal_nic_choose(const struct shoal_hwtopo *topo, const struct shoal_nic_req *req,
                     char *err, size_t len);
/* The policy shoal_nic_choose applies to req: "BLOCK", "ROUND-ROBIN", "NUMA",
 * "USER", "AUTO", "SKIP" (SHMEM_OFI_SKIP_NIC_SELECTION) or "ONE" (one NIC). */
const char *shoal_nic_policy_name(const struct shoal_nic_req *req);

#endif
