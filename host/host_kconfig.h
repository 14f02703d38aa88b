/* SPDX-License-Identifier: MIT */
/*
 * host_kconfig.h - the running kernel's build configuration
 * (/proc/config.gz, else /boot/config-RELEASE), read line by line.
 */
#ifndef HOST_KCONFIG_H
#define HOST_KCONFIG_H

#include <stdbool.h>

/**
 * host_kconfig_find() - the first line of the kernel's configuration that
 * @match takes
 * @match: called with each line, its newline kept (a line over 4 KiB comes
 *	in pieces); true ends the read
 * @ctx: given to @match
 *
 * The configuration is /proc/config.gz (CONFIG_IKCONFIG_PROC), else
 * /boot/config-RELEASE (Debian's, plain text) of the running release; it
 * is read through zlib (gzip or plain alike), loaded on first use.
 *
 * Return: 1 if @match took a line, 0 if none; -ENOENT if neither file can
 * be opened; -ELIBACC if zlib cannot be loaded.
 */
int host_kconfig_find(bool (*match)(const char *line, void *ctx), void *ctx);

#endif /* HOST_KCONFIG_H */
