/* The CPU latency QoS request behind --dma-latency.
 *
 * An idle CPU goes to sleep in an idle state; the deeper the state, the
 * longer it takes to wake. A command that sleeps (sleep 0.05, a server
 * waiting on a socket) and the tool that waits for it both pay that exit
 * latency once per wake-up, and how much depends on how long the CPU idled
 * before: noise, and on a VM much more than on bare metal (a halted vCPU is
 * woken by the host). Measured here, a 50 ms nanosleep overshot by a median
 * of 198 us with idle states allowed and 74 us with the request held at 0.
 *
 * The kernel's PM QoS interface takes the request through
 * /dev/cpu_dma_latency: a 32-bit number of microseconds written to it holds
 * for as long as the file stays open, and the cpuidle governor then uses
 * only states that wake faster. Closing the file, or the process ending in
 * any way, drops the request, so nothing is left behind. cyclictest holds it
 * at 0 by default, and rtla's --dma-latency takes a value, for the same
 * reason: so that exits from idle states do not count in the measurement.
 *
 * By default it is held only under a hypervisor. There the idle state is a
 * halt that hands the vCPU back to the host, slow to return from whatever
 * latency the driver declares, and the host's turbo budget is the host's
 * business. On bare metal every idle core kept polling counts as active, and
 * the core being measured may then run at a lower turbo clock: a worse
 * distortion for CPU-bound code than the wake-ups it saves. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "idle_internal.h"
#include "vernier/base.h"
#include "vernier/bench.h"

int vn__idle_hold(const char *path, int us, char *why, size_t whylen)
{
    if (!path)
        path = "/dev/cpu_dma_latency";
    if (us < 0) {
        snprintf(why, whylen, "no latency was asked for");
        return VN_EINVAL;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(why, whylen, "cannot open %s: %s%s", path, strerror(e),
                 e == EACCES || e == EPERM ? " (it takes root)" : "");
        return -e;
    }
    /* The binary form: exactly four bytes, the value in host order. */
    int32_t v = us;
    ssize_t w = write(fd, &v, sizeof v);
    if (w != (ssize_t)sizeof v) {
        int e = w < 0 ? errno : EIO;
        snprintf(why, whylen, "cannot write to %s: %s", path, strerror(e));
        close(fd);
        return -e;
    }
    return fd;
}

int vn__idle_hold_for(int setting, int hypervisor, int *held, char *why, size_t whylen)
{
    int us = setting == VN_DMA_LATENCY_AUTO ? (hypervisor == 1 ? 0 : -1) : setting;
    int fd = vn__idle_hold(NULL, us, why, whylen);
    *held = fd >= 0 ? us : -1;
    return fd;
}

void vn__idle_release(int fd)
{
    if (fd >= 0)
        close(fd);
}
