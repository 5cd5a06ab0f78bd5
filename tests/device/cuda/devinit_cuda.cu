/* Device-initiated communication on a CUDA GPU (shmemx_device.h): kernels that talk
 * to each other across PEs, each check asserting on data.
 *   ping-pong: PE 2k and 2k+1 bounce an 8-byte payload with a signal, kernel to
 *              kernel, ROUNDS times (round-trip time printed);
 *   all-to-all: one block per target PE puts its block with putmem_block, then
 *              quiet; every PE checks every block it received;
 *   bandwidth: a 16 MiB put to the next PE by one block per SM, with putmem_block
 *              and with putmem_warp (each warp its slice), timed on the stream over
 *              REPS kernels, against cudaMemcpyAsync between the same buffers through
 *              shmem_ptr (same node: the copy engines' rate) and against the host
 *              path's shmem_putmem of the same bytes to the same PE (checked);
 *   in flight: one thread posts 1024 putmem_nbi of 16 KiB, then quiet (through the
 *              proxy: the commands the proxy merged are printed); checked.
 * Same-node peers are reached by stores through the IPC mappings; with
 * SHOAL_DEVICE_PROXY_ALL=1 every peer goes through the proxy thread instead.
 * Run: SHOAL_DEVICE=cuda SHMEM_SYMMETRIC_SIZE_DEVICE=256M oshrun -n 2 ./devinit_cuda */
#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 1000
#define A2A 4096 /* bytes per PE pair */
#define BIG ((size_t)16 << 20)
#define REPS 20
#define PIECES 1024

#define CK(x)                                                                                \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "FAIL PE %d: %s: %s\n", shmem_my_pe(), #x,                       \
                    cudaGetErrorString(e_));                                                 \
            shmem_global_exit(1);                                                            \
        }                                                                                    \
    } while (0)

#define REQUIRE(c)                                                                           \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "FAIL PE %d line %d: %s\n", shmem_my_pe(), __LINE__, #c);        \
            shmem_global_exit(1);                                                            \
        }                                                                                    \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__global__ void pingpong(long *buf, long *src, uint64_t *sig, int partner, int first,
                         int *errors)
{
    int me = shmemx_dev_my_pe();
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        if (!first) {
            shmemx_dev_signal_wait_until(sig, SHMEM_CMP_GE, r);
            if (*(volatile long *)buf != (long)(r * 100 + partner))
                atomicAdd(errors, 1);
        }
        *(volatile long *)src = (long)(r * 100 + me);
        shmemx_dev_long_put_signal(buf, src, 1, sig, r, SHMEM_SIGNAL_SET, partner);
        if (first) {
            shmemx_dev_signal_wait_until(sig, SHMEM_CMP_GE, r);
            if (*(volatile long *)buf != (long)(r * 100 + partner))
                atomicAdd(errors, 1);
        }
    }
}

/* Block b sends this PE's block for PE b; src is laid out per target. */
__global__ void alltoall(char *dst, const char *src, int *errors)
{
    int me = shmemx_dev_my_pe(), pe = blockIdx.x;
    char *mine = (char *)src + (size_t)pe * A2A;
    for (int i = threadIdx.x; i < A2A; i += blockDim.x)
        mine[i] = (char)(me * 7 + pe * 3 + i);
    __syncthreads();
    shmemx_dev_putmem_block(dst + (size_t)me * A2A, mine, A2A, pe);
    if (threadIdx.x == 0)
        shmemx_dev_quiet();
    (void)errors;
}

__global__ void check_a2a(const char *dst, int npes, int *errors)
{
    int me = shmemx_dev_my_pe();
    for (int from = 0; from < npes; from++)
        for (int i = threadIdx.x; i < A2A; i += blockDim.x)
            if (dst[(size_t)from * A2A + i] != (char)(from * 7 + me * 3 + i))
                atomicAdd(errors, 1);
}

/* Each block puts its slice of BIG bytes to pe; the last one also the remainder. */
__global__ void bigput(char *dst, const char *src, int pe)
{
    size_t slice = BIG / gridDim.x, off = slice * blockIdx.x;
    size_t n = blockIdx.x == gridDim.x - 1 ? BIG - off : slice;
    shmemx_dev_putmem_block(dst + off, src + off, n, pe);
    if (threadIdx.x == 0)
        shmemx_dev_quiet();
}

/* Each warp puts its slice of BIG bytes to pe; the last one also the remainder. */
__global__ void bigput_warp(char *dst, const char *src, int pe)
{
    unsigned warps = gridDim.x * (blockDim.x / warpSize);
    unsigned w = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
    size_t slice = BIG / warps, off = slice * w;
    size_t n = w == warps - 1 ? BIG - off : slice;
    shmemx_dev_putmem_warp(dst + off, src + off, n, pe);
    if (threadIdx.x == 0)
        shmemx_dev_quiet();
}

/* One thread keeps PIECES puts in flight, then waits for all. */
__global__ void inflight(char *dst, const char *src, int pe)
{
    size_t piece = BIG / PIECES;
    for (int k = 0; k < PIECES; k++)
        shmemx_dev_putmem_nbi(dst + k * piece, src + k * piece, piece, pe);
    shmemx_dev_quiet();
}

/* Seconds per kernel of REPS launched back to back, timed on the stream. */
template <typename F> static double per_kernel(F launch)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    launch(); /* warm-up */
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    for (int rep = 0; rep < REPS; rep++)
        launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return ms / 1e3 / REPS;
}

__global__ void fill(char *p, size_t n, int seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = (char)(i * 13 + seed);
}

__global__ void check_big(const char *p, size_t n, int seed, int *errors)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (p[i] != (char)(i * 13 + seed))
            atomicAdd(errors, 1);
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe(), np = shmem_n_pes();
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    REQUIRE(ndev > 0);
    /* The device Shoal's cuda backend uses: local index modulo the devices. */
    CK(cudaSetDevice(shmem_team_my_pe(SHMEM_TEAM_SHARED) % ndev));
    REQUIRE(shmemx_cuda_bind() == 0);
    int *errors;
    CK(cudaMallocManaged(&errors, sizeof *errors));
    *errors = 0;

    long *buf = (long *)shmem_space_alloc(SHMEM_SPACE_DEVICE, 2, sizeof(long));
    long *src = buf + 1;
    uint64_t *sig = (uint64_t *)shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(uint64_t));
    char *a2a_dst = (char *)shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * A2A);
    char *a2a_src = (char *)shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * A2A);
    char *big_dst = (char *)shmem_space_malloc(SHMEM_SPACE_DEVICE, BIG);
    char *big_src = (char *)shmem_space_malloc(SHMEM_SPACE_DEVICE, BIG);
    REQUIRE(buf && sig && a2a_dst && a2a_src && big_dst && big_src);
    const char *path = getenv("SHOAL_DEVICE_PROXY_ALL") ? "proxy" : "direct";

    /* Ping-pong between kernels. */
    int partner = (me ^ 1) < np ? me ^ 1 : -1;
    shmem_barrier_all();
    if (partner >= 0) {
        double t = now();
        pingpong<<<1, 1>>>(buf, src, sig, partner, me % 2 == 0, errors);
        CK(cudaDeviceSynchronize());
        t = now() - t;
        REQUIRE(*errors == 0);
        if (me == 0)
            printf("devinit_cuda: %s: ping-pong 8 B put + signal round trip %.2f us "
                   "(%d rounds, kernel to kernel)\n",
                   path, t / ROUNDS * 1e6, ROUNDS);
    }
    shmem_barrier_all();

    /* All-to-all issued by kernels. */
    alltoall<<<np, 256>>>(a2a_dst, a2a_src, errors);
    CK(cudaDeviceSynchronize());
    shmem_barrier_all();
    check_a2a<<<1, 256>>>(a2a_dst, np, errors);
    CK(cudaDeviceSynchronize());
    REQUIRE(*errors == 0);
    if (me == 0)
        printf("devinit_cuda: %s: kernel all-to-all of %d B blocks at %d PEs checked\n", path,
               A2A, np);

    /* 16 MiB put from a kernel to the next PE, against cudaMemcpy through shmem_ptr. */
    int right = (me + 1) % np, sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                              shmem_team_my_pe(SHMEM_TEAM_SHARED) % ndev));
    fill<<<sms, 256>>>(big_src, BIG, me);
    CK(cudaDeviceSynchronize());
    shmem_barrier_all();
    double t_block = per_kernel([&] { bigput<<<sms, 1024>>>(big_dst, big_src, right); });
    shmem_barrier_all();
    int left = (me + np - 1) % np;
    check_big<<<sms, 256>>>(big_dst, BIG, left, errors);
    CK(cudaDeviceSynchronize());
    REQUIRE(*errors == 0);
    shmem_barrier_all();
    double t_warp =
            per_kernel([&] { bigput_warp<<<sms, 1024>>>(big_dst, big_src, right); });
    shmem_barrier_all();
    check_big<<<sms, 256>>>(big_dst, BIG, left, errors);
    CK(cudaDeviceSynchronize());
    REQUIRE(*errors == 0);
    void *peer = shmem_ptr(big_dst, right);
    double t_copy = 0;
    if (peer)
        t_copy = per_kernel(
                [&] { CK(cudaMemcpyAsync(peer, big_src, BIG, cudaMemcpyDeviceToDevice)); });
    /* The host path to the same PE, same buffers. */
    shmem_barrier_all();
    double t_host = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t = now();
        shmem_putmem(big_dst, big_src, BIG, right);
        shmem_quiet();
        t = now() - t;
        t_host = t < t_host ? t : t_host;
    }
    shmem_barrier_all();
    check_big<<<sms, 256>>>(big_dst, BIG, left, errors);
    CK(cudaDeviceSynchronize());
    REQUIRE(*errors == 0);
    shmem_barrier_all();
    if (me == 0) {
        double gb = (double)BIG / 1e9;
        printf("devinit_cuda: %s: kernel putmem_block 16 MiB to PE %d: %.1f GB/s "
               "(%d blocks of 1024 threads; %.0f%% of cudaMemcpyAsync through shmem_ptr, "
               "%.1f GB/s)\n",
               path, right, gb / t_block, sms, peer ? 100 * t_copy / t_block : 0.0,
               peer ? gb / t_copy : 0.0);
        printf("devinit_cuda: %s: kernel putmem_warp 16 MiB to PE %d: %.1f GB/s\n", path,
               right, gb / t_warp);
        printf("devinit_cuda: %s: host shmem_putmem 16 MiB to PE %d: %.1f GB/s (the block "
               "put: %.0f%% of it)\n",
               path, right, gb / t_host, 100 * t_host / t_block);
    }

    /* Many commands in flight from one thread, then quiet. */
    struct shmemx_dev_state ds;
    struct shmemx_dev_ring ring0 = {}, ring1 = {};
    CK(cudaMemcpy(&ds, shmemx_device_state(), sizeof ds, cudaMemcpyDefault));
    if (ds.ring)
        CK(cudaMemcpy(&ring0, ds.ring, sizeof ring0, cudaMemcpyDefault));
    shmem_barrier_all();
    double t_fly = per_kernel([&] { inflight<<<1, 1>>>(big_dst, big_src, right); });
    if (ds.ring)
        CK(cudaMemcpy(&ring1, ds.ring, sizeof ring1, cudaMemcpyDefault));
    shmem_barrier_all();
    check_big<<<sms, 256>>>(big_dst, BIG, left, errors);
    CK(cudaDeviceSynchronize());
    REQUIRE(*errors == 0);
    if (me == 0)
        printf("devinit_cuda: %s: one thread, %d putmem_nbi of %zu KiB then quiet: %.1f "
               "GB/s (the proxy merged %llu of %d commands in %llu batches)\n",
               path, PIECES, BIG / PIECES >> 10, (double)BIG / 1e9 / t_fly,
               ds.ring ? (unsigned long long)(ring1.merged - ring0.merged) : 0ULL,
               (REPS + 1) * PIECES,
               ds.ring ? (unsigned long long)(ring1.batches - ring0.batches) : 0ULL);
    shmem_barrier_all();
    if (me == 0)
        printf("devinit_cuda: passed at %d PEs\n", np);
    shmem_finalize();
    return 0;
}
