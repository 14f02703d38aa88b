/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/math64.h> */
#include "../../kshim.h"
