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

/* Holds what a setting (vn_config.dma_latency_us) asks for: the setting
 * itself, or for VN_DMA_LATENCY_AUTO 0 under a hypervisor and nothing
 * otherwise. *held is the latency held, or -1; the result is the file
 * descriptor, or a negative code (VN_EINVAL when nothing was asked for,
 * else why says what failed). */
int vn__idle_hold_for(int setting, int hypervisor, int *held, char *why, size_t whylen);

/* Ends the request (fd from vn__idle_hold; a negative fd is ignored). */
void vn__idle_release(int fd);

#endif
