/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/sched/clock.h> */
#include "../../../kshim.h"
