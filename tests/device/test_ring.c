/* Bad commands to the device proxy and bad local buffers to the stream operations:
 * each mode ends the job, and tests/device/CMakeLists.txt checks the status and the
 * message. Ring modes (SHOAL_DEVICE_PROXY_ALL=1, 2 PEs or more, so every PE has a
 * ring): every PE's kernel posts one crafted command for the next PE straight into
 * the ring, as a buggy kernel, or one that scribbles over the ring, would:
 *   g255:     g of width 255 (the proxy's answer is 8 bytes);
 *   p200:     p of width 200;
 *   get_host: GET whose local destination is a host global;
 *   put_host: PUT whose local source is a host global;
 *   bad_pe:   p to a PE past the last;
 *   wrap:     PUT whose length wraps the destination's end around 2^64;
 *   head:     three tickets taken and never posted (a kernel that ended mid-post, or
 *             wrote the ring's head): shmem_finalize must end the job, not wait.
 * Stream modes (any PE count), on an emu stream:
 *   stream_past: a put whose source, in the device heap, runs past the heap's end;
 *   stream_wild: a put from a wild host address;
 *   stream_ro:   a get into read-only host memory;
 *   stream_guard: a 1 MiB put from host memory arrives whole, then a 2 MiB one whose
 *                last page is PROT_NONE is refused (buffers this large are checked
 *                against the maps, smaller ones by the kernel's populate). */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "device/emu/emu.h"

static long host_global = 42;
static const char read_only[64] = "a get may not write here";

static struct {
    uint32_t op;
    int pe;
    uint64_t dst, src, len;
} cmd;

static void k_post(int t, int nt, void *arg)
{
    (void)nt;
    (void)arg;
    if (t != 0)
        return;
    const struct shmemx_dev_state *st = shmemx_device_state();
    uint64_t ticket =
            shmemx_post_(st, cmd.op, cmd.pe, cmd.dst, cmd.src, cmd.len, 0, 0, "test_ring");
    if (cmd.op & SHMEMX_DEV_WAIT)
        shmemx_answer_(st, ticket, "test_ring");
}

static int ring_mode(const char *mode, long *obj)
{
    const struct shmemx_dev_state *st = shmemx_device_state();
    int me = shmem_my_pe(), np = shmem_n_pes();
    uint64_t off = (uint64_t)(uintptr_t)obj - st->heap_base;
    uint64_t host = (uint64_t)(uintptr_t)&host_global - st->heap_base;
    cmd.pe = (me + 1) % np;
    cmd.dst = off;
    cmd.src = off;
    cmd.len = 8;
    if (strcmp(mode, "g255") == 0) {
        cmd.op = SHMEMX_DEV_OP_G | SHMEMX_DEV_WAIT | 255u << 16;
        cmd.len = 255;
    } else if (strcmp(mode, "p200") == 0) {
        cmd.op = SHMEMX_DEV_OP_P | 200u << 16;
        cmd.len = 200;
    } else if (strcmp(mode, "get_host") == 0) {
        cmd.op = SHMEMX_DEV_OP_GET | SHMEMX_DEV_WAIT;
        cmd.dst = host;
    } else if (strcmp(mode, "put_host") == 0) {
        cmd.op = SHMEMX_DEV_OP_PUT | SHMEMX_DEV_WAIT;
        cmd.src = host;
    } else if (strcmp(mode, "bad_pe") == 0) {
        cmd.op = SHMEMX_DEV_OP_P | 8u << 16;
        cmd.pe = np + me;
    } else if (strcmp(mode, "wrap") == 0) {
        cmd.op = SHMEMX_DEV_OP_PUT | SHMEMX_DEV_WAIT;
        cmd.dst = off + 32;
        cmd.len = UINT64_MAX - cmd.dst + 9; /* dst + len is 8 */
    } else if (strcmp(mode, "head") == 0) {
        CHECK(st->ring != NULL);
        __atomic_fetch_add(&st->ring->head, 3, __ATOMIC_SEQ_CST);
        shmem_finalize();
        fprintf(stderr, "PE %d: test_ring head: shmem_finalize returned\n", me);
        exit(3);
    } else {
        return 0;
    }
    CHECK(st->ring != NULL); /* SHOAL_DEVICE_PROXY_ALL=1 and 2 PEs or more */
    shmem_barrier_all();
    shmemx_device_launch(k_post, 1, NULL);
    return 1;
}

static void stream_guard(struct shoal_emu_stream *s, int pe)
{
    size_t mib = 1 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
    char *d = shmem_space_malloc(SHMEM_SPACE_DEVICE, 2 * mib);
    char *h = mmap(NULL, 2 * mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *back = malloc(mib);
    CHECK(d != NULL && h != MAP_FAILED && back != NULL);
    for (size_t i = 0; i < 2 * mib; i++)
        h[i] = (char)(i * 7 + (size_t)shmem_my_pe());
    CHECK(mprotect(h + 2 * mib - page, page, PROT_NONE) == 0);
    shmemx_putmem_on_stream(d, h, mib, pe, s);
    shoal_emu_stream_synchronize(s);
    shmem_getmem(back, d, mib, pe);
    CHECK(memcmp(back, h, mib) == 0);
    shmemx_putmem_on_stream(d, h, 2 * mib, pe, s);
}

static int stream_mode(const char *mode, long *obj)
{
    const struct shmemx_dev_state *st = shmemx_device_state();
    int pe = (shmem_my_pe() + 1) % shmem_n_pes();
    struct shoal_emu_stream *s = shoal_emu_stream_create();
    CHECK(s != NULL);
    if (strcmp(mode, "stream_past") == 0)
        shmemx_putmem_on_stream(obj, (char *)(uintptr_t)(st->heap_base + st->heap_size) - 8,
                                64, pe, s);
    else if (strcmp(mode, "stream_wild") == 0)
        shmemx_putmem_on_stream(obj, (const void *)(uintptr_t)0x1000, 64, pe, s);
    else if (strcmp(mode, "stream_ro") == 0)
        shmemx_getmem_on_stream((void *)(uintptr_t)read_only, obj, 8, pe, s);
    else if (strcmp(mode, "stream_guard") == 0)
        stream_guard(s, pe);
    else
        return 0;
    shoal_emu_stream_synchronize(s);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    long *obj = shmem_space_alloc(SHMEM_SPACE_DEVICE, 8, sizeof(long));
    CHECK(obj != NULL);
    if (!ring_mode(mode, obj) && !stream_mode(mode, obj)) {
        fprintf(stderr, "test_ring: unknown mode '%s'\n", mode);
        return 2;
    }
    /* The job should have ended at the bad command. */
    shmem_barrier_all();
    fprintf(stderr,
            "PE %d: test_ring %s: the bad command was carried out (host global %ld)\n",
            shmem_my_pe(), mode, host_global);
    shmem_finalize();
    return 3;
}
