/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/sched/stat.h> */
#include "../../../kshim.h"
