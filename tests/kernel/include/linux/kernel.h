/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/kernel.h> */
#include "../../kshim.h"
