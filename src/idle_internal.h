/* Holding the CPUs out of deep idle states while measuring. */
#ifndef VN_IDLE_INTERNAL_H
#define VN_IDLE_INTERNAL_H

#include <stddef.h>

/* Asks the kernel's CPU latency QoS (/dev/cpu_dma_latency, or the file
 * named by path for tests) to keep every CPU's wake-up latency under us
 * microseconds: a file descriptor that holds the request until it is
 * closed, also when the process dies. us < 0: nothing is asked and the
 * result is VN_EINVAL. A negative code when the file cannot be opened or
 * written, with why saying so. */
int vn__idle_hold(const char *path, int us, char *why, size_t whylen);

/* The latency to hold for a setting (vn_config.dma_latency_us): the
 * setting itself, or for VN_DMA_LATENCY_AUTO 0 under a hypervisor and -1
 * (none) otherwise. */
int vn__idle_resolve(int setting, int hypervisor);

/* Ends the request (fd from vn__idle_hold; a negative fd is ignored). */
void vn__idle_release(int fd);

#endif
