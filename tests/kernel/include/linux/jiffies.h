/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/jiffies.h> */
#include "../../kshim.h"
