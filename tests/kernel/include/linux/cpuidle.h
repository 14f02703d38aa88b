/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/cpuidle.h> */
#include "../../kshim.h"
