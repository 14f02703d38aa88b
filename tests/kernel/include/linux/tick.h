/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/tick.h> */
#include "../../kshim.h"
