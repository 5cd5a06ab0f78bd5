/* The proxy's check of device-ring commands (devcmd.c). A kernel writes the ring's
 * slots, and on a GPU the ring is pinned host memory that any kernel may write, so the
 * proxy trusts nothing in a command: it acts on one only after this check. It needs no
 * running job, so a fuzz target calls it directly. */
#ifndef SHOAL_API_DEVCMD_H
#define SHOAL_API_DEVCMD_H

#include <shmemx_device.h>
#include <stddef.h>
#include <stdint.h>

/* 0 when c is a command that shmemx_device.h's routines post for valid arguments:
 * a known kind and AMO operation, flags that kind takes, a width in the kind's set, a
 * PE from 0 to n_pes - 1, and every range it names (local and remote alike are offsets
 * in the device heap, whose size, heap_size, every PE shares) inside the heap, AMO and
 * signal words aligned. -1 otherwise, with what is wrong in why. */
int shoal_devcmd_check(const struct shmemx_dev_cmd *c, uint64_t heap_size, int n_pes,
                       char *why, size_t len);

/* c as messages name it: its kind, width, PE and offsets, whatever they hold. */
void shoal_devcmd_describe(const struct shmemx_dev_cmd *c, char *buf, size_t len);

#endif
