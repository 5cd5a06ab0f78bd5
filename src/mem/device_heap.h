/* The device heap segment (device_heap.c). */
#ifndef SHOAL_DEVICE_HEAP_H
#define SHOAL_DEVICE_HEAP_H

/* After the host segments are mapped and before the network starts (which registers
 * the device heap where the NIC can reach it). local_index: this PE's index among the
 * PEs of its node, which picks its device. */
void shoal_device_init(int local_index);
/* After the network has stopped. */
void shoal_device_fini(void);

#endif
