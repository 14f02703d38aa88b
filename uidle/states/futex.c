// SPDX-License-Identifier: MIT
/*
 * futex.c - the FUTEX state: sleep in the kernel until a waker unparks
 * the thread, a kick comes, or the limit passes.  The whole protocol, and
 * why no wake-up is lost, is park.c's.
 */
#include "../uidle_internal.h"

enum uidle_stop uidle_wait_futex(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				 int64_t limit_ns)
{
	return uidle_park(env->buckets, wc, limit_ns);
}
