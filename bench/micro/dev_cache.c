/* The memory-type cache's cost (src/device/device.c): nanoseconds per lookup of a host
 * and of a device buffer once cached (the hit that every RMA with device awareness
 * pays), against asking the backend each time (the miss). One PE; needs a device
 * backend (SHOAL_DEVICE). Shoal-internal, so it links libshoal statically. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "device/device.h"

static double per_call(const void *p, long n, int cached)
{
    volatile int sink = 0;
    uintptr_t base;
    size_t len;
    double t0 = bench_now();
    for (long i = 0; i < n; i++)
        sink += cached ? shoal_dev_is_device(p) : shoal_dev->query(p, &base, &len);
    (void)sink;
    return (bench_now() - t0) / (double)n * 1e9;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 1, 1000000, 0 };
    bench_init(argc, argv, &o, NULL, "dev_cache", 1, 0);
    if (!shoal_dev) {
        fprintf(stderr, "dev_cache: no device backend; set SHOAL_DEVICE\n");
        shmem_global_exit(1);
    }
    char *host = malloc(4096);
    void *dev = shoal_dev_alloc(4096);
    if (!host || !dev || shoal_dev_is_device(host) != 0 || shoal_dev_is_device(dev) != 1) {
        fprintf(stderr, "dev_cache: the %s backend misclassifies buffers\n", shoal_dev->name);
        shmem_global_exit(1);
    }
    long n = o.iters;
    double hh = per_call(host, n, 1), dh = per_call(dev, n, 1);
    double hm = per_call(host, n / 100 + 1, 0), dm = per_call(dev, n / 100 + 1, 0);
    if (shmem_my_pe() == 0) {
        printf("# memory-type lookup on %s (ns per call)\n", shoal_dev->name);
        printf("host hit %.1f  device hit %.1f  host backend query %.1f  device backend "
               "query %.1f\n",
               hh, dh, hm, dm);
        bench_result("dev_cache_hit_host", 0, "ns", hh);
        bench_result("dev_cache_hit_device", 0, "ns", dh);
        bench_result("dev_cache_query_host", 0, "ns", hm);
        bench_result("dev_cache_query_device", 0, "ns", dm);
    }
    shoal_dev_free(dev);
    free(host);
    shmem_finalize();
    return 0;
}
