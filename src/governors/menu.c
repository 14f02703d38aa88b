// SPDX-License-Identifier: MIT
/* Placeholder replaced by the menu implementation (work in progress). */
#include "gov.h"
static int menu_select(struct cpuidle_device *dev, bool *stop_tick) { (void)stop_tick; (void)dev; return 0; }
const struct cpuidle_governor menu_governor = { .name = "menu", .rating = 20, .select = menu_select };
