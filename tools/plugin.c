// SPDX-License-Identifier: MIT
/*
 * plugin.c - the governors a -g list may name: the built-in ones, and those
 * of plugins (include/cpuidle/plugin.h), loaded once per process
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "libcpuidle.h"
#include "cpuidle/lab.h"

/*
 * Plugins loaded at most: a -g list holds SWEEP_MAX_ITEMS governors, and
 * one plugin may give several.
 */
#define CLI_MAX_PLUGINS		32

struct loaded_plugin {
	char path[PATH_MAX];		/* as dlopen() took it */
	void *handle;
	const void *base;		/* where it is loaded (dladdr()'s dli_fbase) */
	const struct cpuidle_plugin *plugin;
};

/* A CLI process's plugins: loaded on first use, never unloaded. */
static struct loaded_plugin plugins[CLI_MAX_PLUGINS];
static unsigned int nr_plugins;
/* every loaded plugin's governors, NULL-terminated (a system holds 16) */
#define CLI_MAX_PLUGIN_GOVERNORS	8
static const struct cpuidle_governor *all_governors[CLI_MAX_PLUGIN_GOVERNORS + 1];
static unsigned int nr_all;

/* ----------------------------------------------------- a plugin that crashes */

/* frames looked at for a plugin's code, from the signal handler out */
#define CRASH_FRAMES	64

static const char *const crash_names[] = {
	[SIGSEGV] = "a segmentation fault", [SIGBUS] = "a bus error",
	[SIGILL] = "an illegal instruction", [SIGFPE] = "an arithmetic exception",
	[SIGABRT] = "an abort",
};
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

static void say(const char *s)
{
	ssize_t r = write(STDERR_FILENO, s, strlen(s));

	(void)r;
}

/*
 * A fatal signal once a plugin is loaded: if a plugin's code is on the
 * stack, say which plugin (and function) crashed; remove the outputs'
 * temporary files; die of the signal.  dladdr() and backtrace() are not on
 * POSIX's async-signal-safe list but are what glibc's own crash reporting
 * uses; backtrace() was called once at load, so it allocates nothing now.
 */
/* set by the first thread to crash: the others wait for it to end the process */
static volatile sig_atomic_t crashing;

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	void *frames[CRASH_FRAMES];
	const char *path = NULL, *fn = NULL;
	int n, i;
	unsigned int k;

	(void)si;
	(void)uc;
	if (__sync_lock_test_and_set(&crashing, 1))
		for (;;)
			pause();	/* a worker crashing beside the first: its report ends us */
	n = backtrace(frames, CRASH_FRAMES);
	for (i = 0; i < n && !path; i++) {
		Dl_info di;

		if (!dladdr(frames[i], &di))
			continue;
		for (k = 0; k < nr_plugins; k++)
			if (di.dli_fbase == plugins[k].base) {
				path = plugins[k].path;
				fn = di.dli_sname;
			}
	}
	say(CLI_NAME ": ");
	if (path) {
		say("governor plugin ");
		say(path);
		say(" crashed (");
	} else {
		say("crashed, with a governor plugin loaded (");
	}
	say(sig < (int)(sizeof(crash_names) / sizeof(crash_names[0])) && crash_names[sig] ?
	    crash_names[sig] : "a fatal signal");
	if (fn) {
		say(" in ");
		say(fn);
		say("()");
	}
	say("): the command stops, nothing written\n");
	cli_out_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_crashes(void)
{
	static bool caught;
	void *warm[1];
	unsigned int i;

	if (caught)
		return;
	caught = true;
	backtrace(warm, 1);	/* loads the unwinder now, not in the handler */
	for (i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_crash;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(crash_signals[i], &sa, NULL);
	}
}

/* "./x.so", "/a/x.so", "x.so": a plugin's file, not a governor's name */
static bool names_file(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n > 3 && !strcmp(name + n - 3, ".so"));
}

static int load(const char *cmd, const char *path, const struct cpuidle_plugin **out)
{
	const struct cpuidle_plugin *(*entry)(void);
	const struct cpuidle_governor *const *g, *const *h;
	struct loaded_plugin *lp;
	unsigned int i;
	void *handle;

	for (i = 0; i < nr_plugins; i++)
		if (!strcmp(plugins[i].path, path)) {
			*out = plugins[i].plugin;
			return 0;
		}
	if (nr_plugins == CLI_MAX_PLUGINS)
		return cli_error(cmd, "%s: more than %d plugins", path, CLI_MAX_PLUGINS);
	if (strlen(path) >= sizeof(plugins[0].path))
		return cli_error(cmd, "%s: path too long", path);
	/* a name without '/' would be looked up in the library path: make it a file */
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return cli_error(cmd, "governor plugin %s: %s", path, dlerror());
	*(void **)&entry = dlsym(handle, CPUIDLE_PLUGIN_ENTRY);
	if (!entry) {
		dlclose(handle);
		return cli_error(cmd, "governor plugin %s: no %s(): not a governor plugin "
				 "(include/cpuidle/plugin.h)", path, CPUIDLE_PLUGIN_ENTRY);
	}
	*out = entry();
	if (!*out || (*out)->abi_version != CPUIDLE_PLUGIN_ABI_VERSION) {
		unsigned int v = *out ? (*out)->abi_version : 0;

		dlclose(handle);
		return cli_error(cmd, "governor plugin %s: built for plugin ABI version %u, "
				 "this cpuidle has version %u: rebuild it against these "
				 "headers", path, v, CPUIDLE_PLUGIN_ABI_VERSION);
	}
	if (!(*out)->governors || !(*out)->governors[0]) {
		dlclose(handle);
		return cli_error(cmd, "governor plugin %s: no governor", path);
	}
	for (g = (*out)->governors; *g; g++) {
		const char *why = NULL;

		if (!(*g)->name[0] || !(*g)->select)
			why = "a governor without a name or a select()";
		else if (cli_builtin_governor((*g)->name) || !strcmp((*g)->name, CPUIDLE_LAB_ORACLE))
			why = "a governor with the name of a built-in one";
		for (h = (*out)->governors; !why && h < g; h++)
			if (!strcmp((*h)->name, (*g)->name))
				why = "two governors of one name";
		if (why) {
			cli_error(cmd, "governor plugin %s: %s ('%s')", path, why, (*g)->name);
			dlclose(handle);
			return 1;
		}
	}
	for (g = (*out)->governors; *g; g++) {
		for (i = 0; i < nr_all && strcmp(all_governors[i]->name, (*g)->name); i++)
			;
		if (i < nr_all) {
			cli_error(cmd, "governor plugin %s: governor '%s' is another plugin's too",
				  path, (*g)->name);
			dlclose(handle);
			return 1;
		}
	}
	for (g = (*out)->governors; *g; g++) {
		if (nr_all == CLI_MAX_PLUGIN_GOVERNORS) {
			cli_error(cmd, "governor plugin %s: more than %d plugin governors in all",
				  path, CLI_MAX_PLUGIN_GOVERNORS);
			dlclose(handle);
			return 1;
		}
		all_governors[nr_all++] = *g;
	}
	lp = &plugins[nr_plugins];
	strcpy(lp->path, path);
	lp->handle = handle;
	lp->plugin = *out;
	{
		Dl_info di;

		lp->base = dladdr(*(void **)&entry, &di) ? di.dli_fbase : NULL;
	}
	nr_plugins++;
	catch_crashes();
	return 0;
}

/*
 * @name a plugin's file (PATH, or PATH:GOVERNOR for one of several), or
 * NAME found as NAME.so in a directory of CPUIDLE_GOVERNOR_PATH.
 */
int cli_governor(const char *cmd, const char *name, const struct cpuidle_governor **out)
{
	const struct cpuidle_plugin *plugin = NULL;
	const struct cpuidle_governor *const *g;
	char path[PATH_MAX], *colon;
	const char *want = NULL;

	*out = cli_builtin_governor(name);
	if (*out)
		return 0;
	if (strchr(name, '@') && !strchr(name, '/')) {
		char known[256];

		/* NAME@RELEASE of a built-in governor, at a release not ported */
		if (cpuidle_governor_releases(name, known, sizeof(known)))
			return cli_error(cmd, "unknown governor '%s': the releases of %.*s "
					 "known here are %s", name, (int)strcspn(name, "@"),
					 name, known);
	}
	if (snprintf(path, sizeof(path), "%s", name) >= (int)sizeof(path))
		return cli_error(cmd, "governor '%s': too long", name);
	/* PATH:GOVERNOR, one governor of a plugin that has several */
	colon = strrchr(path, ':');
	if (colon && colon[1] && !strchr(colon + 1, '/')) {
		*colon = '\0';
		if (names_file(path))
			want = colon + 1;
		else
			*colon = ':';
	}
	if (!names_file(path)) {
		const char *dirs = getenv("CPUIDLE_GOVERNOR_PATH");
		char found[PATH_MAX];
		bool ok = false;

		while (dirs && *dirs && !ok) {
			size_t len = strcspn(dirs, ":");

			if (len && (size_t)snprintf(found, sizeof(found), "%.*s/%s.so", (int)len,
						    dirs, name) < sizeof(found))
				ok = !access(found, R_OK);
			dirs += len + (dirs[len] == ':');
		}
		if (!ok)
			return cli_error(cmd, "unknown governor '%s' (see '" CLI_NAME " governors'; "
					 "a plugin is given by its file, ./NAME.so, or found as "
					 "NAME.so on CPUIDLE_GOVERNOR_PATH)", name);
		strcpy(path, found);
	} else if (!strchr(path, '/')) {
		/* dlopen() would search the library path for a bare file name */
		char rel[PATH_MAX];

		if ((size_t)snprintf(rel, sizeof(rel), "./%s", path) >= sizeof(rel))
			return cli_error(cmd, "governor '%s': too long", name);
		strcpy(path, rel);
	}
	if (load(cmd, path, &plugin))
		return 1;
	for (g = plugin->governors; *g; g++)
		if (!want || !strcmp((*g)->name, want))
			break;
	if (!*g)
		return cli_error(cmd, "governor plugin %s has no governor '%s'", path, want);
	if (!want && g[1])
		return cli_error(cmd, "governor plugin %s has several governors (%s, %s...): "
				 "name one, %s:NAME", path, g[0]->name, g[1]->name, path);
	*out = *g;
	return 0;
}

const struct cpuidle_governor *const *cli_plugin_governors(void)
{
	return all_governors;
}

const char *cli_plugin_path(const char *name)
{
	const struct cpuidle_governor *const *g;
	unsigned int i;

	for (i = 0; i < nr_plugins; i++)
		for (g = plugins[i].plugin->governors; *g; g++)
			if (!strcmp((*g)->name, name))
				return plugins[i].path;
	return NULL;
}
