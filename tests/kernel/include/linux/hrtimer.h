/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/hrtimer.h> */
#include "../../kshim.h"
