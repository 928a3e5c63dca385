// SPDX-License-Identifier: GPL-2.0
/* fib_lookup(): an IPv4 route lookup in the initial network namespace, for
 * the destination in the file "dst" (a dotted quad; 127.0.0.1 by default,
 * which the local table routes once lo is up). A destination without a
 * route is timed too: the lookup then fails with -ENETUNREACH. */
#include <linux/inet.h>
#include <linux/string.h>
#include <net/ip_fib.h>
#include <net/net_namespace.h>

#include "../vernier_kbench.h"

static __be32 dst = cpu_to_be32(0x7f000001);

static void fib_lookup_call(const struct vk_call *c)
{
	struct flowi4 fl4;
	struct fib_result res;
	static volatile int sink;

	memset(&fl4, 0, sizeof(fl4));
	fl4.daddr = dst;
	sink = fib_lookup(&init_net, &fl4, &res, 0);
}

static int dst_show(char *buf, size_t len)
{
	return scnprintf(buf, len, "%pI4\n", &dst);
}

static int dst_store(const char *buf, size_t count)
{
	__be32 a;
	const char *end;
	size_t n = count;

	/* One trailing newline, as echo writes it; nothing else may follow. */
	if (n && buf[n - 1] == '\n')
		n--;
	if (!n || !in4_pton(buf, n, (u8 *)&a, -1, &end) || end != buf + n)
		return -EINVAL;
	dst = a;
	return 0;
}

static const struct vk_param fib_lookup_params[] = {
	{ .name = "dst", .show = dst_show, .store = dst_store },
	{ }
};

const struct vk_target vk_target_fib_lookup = {
	.name = "fib_lookup",
	.call = fib_lookup_call,
	.params = fib_lookup_params,
};
