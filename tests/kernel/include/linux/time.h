/* SPDX-License-Identifier: MIT */
/* the shim stands for <linux/time.h> */
#include "../../kshim.h"
