/* SPDX-License-Identifier: BSD-3-Clause */
/* dpv_device_counters(): a device's engine counters by name. */
#include <errno.h>
#include <stddef.h>

#include "dpv_engine.h"
#include "dpv_verbs.h"
#include "verbs_int.h"

_Static_assert(sizeof(struct dpv_device_counter) ==
			       sizeof(struct dpv_engine_counter) &&
		       offsetof(struct dpv_device_counter, value) ==
			       offsetof(struct dpv_engine_counter, value),
	       "the public counter is the engine's");

int
dpv_device_counters(struct ibv_context *ctx, struct dpv_device_counter *out,
		    unsigned n)
{
	struct dpv_engine_stats st;
	struct dpv_device *dev;

	if (ctx == NULL || (out == NULL && n > 0))
		return -EINVAL;
	dev = dctx_dev(ctx);
	if (dev->engine == NULL || dpv_dev_engine_stats(dev, &st) != 0)
		return -ENODEV;
	return (int)dpv_engine_stats_list(&st, (struct dpv_engine_counter *)out,
					  n);
}
