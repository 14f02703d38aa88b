/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/ktime.h> */
#include "../../kshim.h"
