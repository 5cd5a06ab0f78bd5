/* Shoal's routines on device memory never wait for the program's kernels: while a
 * kernel of the program holds its stream (until the host sets a flag), every PE puts
 * into, gets from and updates its neighbour's device heap, waits on a device word,
 * runs a barrier and a quiet, and only then releases the kernel. A routine that waited
 * for the device as a whole (a context-wide synchronize) would never return; the
 * kernel gives up after its time limit, and the test fails saying so.
 *
 * On a GPU the program's current context belongs to the program: the routines run
 * here with no context current (cuCtxSetCurrent(NULL)), and it must still be so after.
 *
 * Prints how long a 1 MiB device put took while the kernel held the GPU
 * (scripts/gpu-check.sh reports it beside the kernel's time). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_stream.h"

#define BYTES (1 << 20)

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    int next = (me + 1) % np;
    unsigned char *sym = shmem_space_malloc(SHMEM_SPACE_DEVICE, BYTES);
    long *word = shmem_space_alloc(SHMEM_SPACE_DEVICE, 2, sizeof(long));
    unsigned char *h = malloc(BYTES), *back = malloc(BYTES);
    CHECK(sym && word && h && back);
    for (size_t i = 0; i < BYTES; i++)
        h[i] = (unsigned char)(me * 31 + i * 7);
    void *s = tstream_create();
    volatile uint32_t *flag = tstream_host_word(), *seen = tstream_host_word();
    shmem_barrier_all();

    tstream_hold(s, flag, seen, 20000);
    if (!tstream_is_emu())
        CHECK(tcu.CtxSetCurrent(NULL) == 0);
    double t0 = now_us();
    shmem_putmem(sym, h, BYTES, next);
    double put_us = now_us() - t0;
    shmem_long_atomic_add(word, 1, next);
    shmem_barrier_all();
    shmem_getmem(back, sym, BYTES, next);
    shmem_long_wait_until(word, SHMEM_CMP_EQ, 1);
    shmemx_putmem_on_stream(word + 1, word, sizeof(long), me, s); /* queued behind */
    shmem_quiet();
    CHECK(__atomic_load_n(seen, __ATOMIC_ACQUIRE) == 0); /* the kernel still holds */
    if (!tstream_is_emu()) {
        void *cur = (void *)1;
        CHECK(tcu.CtxGetCurrent(&cur) == 0);
        CHECK(cur == NULL); /* Shoal left the program's (lack of) context alone */
        CHECK(tcu.CtxSetCurrent(tcu.ctx) == 0);
    }
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    tstream_sync(s);
    CHECK(*seen == 1);
    for (size_t i = 0; i < BYTES; i++)
        CHECK(back[i] == (unsigned char)(me * 31 + i * 7)); /* mine, back from next */
    long w[2];
    tdev_d2h(w, word, sizeof w);
    CHECK(w[0] == 1 && w[1] == 1);
    printf("PE %d: 1 MiB device put while a kernel held the GPU: %.1f us\n", me, put_us);
    tstream_destroy(s);
    tstream_host_word_free(flag);
    tstream_host_word_free(seen);
    free(h);
    free(back);
    shmem_barrier_all();
    tdev_passed("device.overlap");
    return 0;
}
