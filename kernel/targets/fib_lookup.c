// SPDX-License-Identifier: GPL-2.0
/* fib_lookup(): an IPv4 route lookup in the initial network namespace.
 * Each call looks up a destination drawn from dst_range addresses from
 * "dst" on (a dotted quad; 127.0.0.1 and 1 by default, which the local
 * table routes once lo is up), by the run's seeded generator: with a range,
 * the lookups walk different paths of the routing trie, as real traffic
 * does, instead of one path that stays in the cache. The draws depend only
 * on the seed knob, so two runs with the same seed look up the same
 * addresses in the same order. A destination without a route is timed too:
 * the lookup then fails with -ENETUNREACH. */
#include <linux/inet.h>
#include <linux/string.h>
#include <net/ip_fib.h>
#include <net/net_namespace.h>

#include "../vernier_kbench.h"

/* Host order; at most 2^24 addresses, a /8. */
#define RANGE_MAX (1u << 24)

static u32 dst = 0x7f000001;
static u32 range = 1;

static void fib_lookup_call(struct vk_call *c)
{
	struct flowi4 fl4;
	struct fib_result res;
	u32 a = range > 1 ? dst + vk_rand(c) % range : dst;

	memset(&fl4, 0, sizeof(fl4));
	fl4.daddr = cpu_to_be32(a);
	WRITE_ONCE(c->sink, fib_lookup(&init_net, &fl4, &res, 0));
}

static int dst_show(char *buf, size_t len)
{
	__be32 a = cpu_to_be32(dst);

	return scnprintf(buf, len, "%pI4\n", &a);
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
	if ((u64)be32_to_cpu(a) + range - 1 > U32_MAX)
		return -EINVAL;
	dst = be32_to_cpu(a);
	return 0;
}

static int range_show(char *buf, size_t len)
{
	return scnprintf(buf, len, "%u\n", range);
}

static int range_store(const char *buf, size_t count)
{
	unsigned int r;

	if (kstrtouint(buf, 0, &r) || r < 1 || r > RANGE_MAX || (u64)dst + r - 1 > U32_MAX)
		return -EINVAL;
	range = r;
	return 0;
}

static const struct vk_param fib_lookup_params[] = {
	{ .name = "dst", .def = "127.0.0.1", .show = dst_show, .store = dst_store },
	{ .name = "dst_range", .def = "1", .show = range_show, .store = range_store },
	{ }
};

const struct vk_target vk_target_fib_lookup = {
	.name = "fib_lookup",
	.calls = "fib_lookup() of addresses drawn from dst on",
	.call = fib_lookup_call,
	.params = fib_lookup_params,
};
