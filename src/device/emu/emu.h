/* The emulated device's streams, for tests and benchmarks on machines without a GPU:
 * what a cudaStream_t or hipStream_t is to the program, an emu stream is to a program
 * on SHOAL_DEVICE=emu, and it is what the stream operations (shmemx_*_on_stream) take
 * there. A kernel is a function run on the stream's thread, in launch order with the
 * stream's other work; it may reach device memory only through the device layer's
 * copies (device.h), as a host thread cannot touch emu memory. */
#ifndef SHOAL_DEVICE_EMU_H
#define SHOAL_DEVICE_EMU_H

struct shoal_emu_stream;

/* NULL when no thread can be started. */
struct shoal_emu_stream *shoal_emu_stream_create(void);
/* Waits for the stream's work, then ends its thread. */
void shoal_emu_stream_destroy(struct shoal_emu_stream *st);
/* Queues fn(arg) on st; 0, or -1 when out of memory. */
int shoal_emu_launch(struct shoal_emu_stream *st, void (*fn)(void *), void *arg);
/* Returns when everything launched on st has run. */
void shoal_emu_stream_synchronize(struct shoal_emu_stream *st);

#endif
