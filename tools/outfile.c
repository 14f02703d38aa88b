// SPDX-License-Identifier: MIT
/*
 * outfile.c - output files that never destroy an input or an earlier
 * result.
 *
 * Before anything is opened for writing, cli_out_check() refuses an output
 * that is one of the command's inputs (the same file: device and inode, so
 * links and other spellings count), that another output also names, or
 * that holds a trace or an interval file (the file name after --report or
 * -o forgotten, the shell's glob filling it in with a trace).
 *
 * A regular file is then written to a temporary file next to it,
 * "FILE.XXXXXX", renamed over FILE only once the command has succeeded;
 * on failure the temporary file is removed and FILE is as it was.  An
 * output that is not a regular file (standard output, "-", /dev/null, a
 * pipe, a terminal) is written directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "ivf.h"
#include "trace.h"

/* ------------------------------------------------ temporaries on a signal */

/* outputs, and the interval files of up to SWEEP_MAX_ITEMS traces */
#define MAX_TEMPS	(8 + 4096)

/* the temporaries not yet renamed or removed, for the signal handler */
static char *volatile temps[MAX_TEMPS];
static bool handlers;

void cli_out_remove_temps(void)
{
	int i;

	for (i = 0; i < MAX_TEMPS; i++)
		if (temps[i])
			unlink(temps[i]);
}

static void on_signal(int sig)
{
	cli_out_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Catch the signals that end a command (unless ignored) to remove @tmp. */
void cli_temp_register(char *tmp)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	unsigned int i;

	for (i = 0; i < MAX_TEMPS; i++) {
		if (!temps[i]) {
			temps[i] = tmp;
			break;
		}
	}
	if (handlers)
		return;
	handlers = true;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;

		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

void cli_temp_unregister(const char *tmp)
{
	int i;

	for (i = 0; i < MAX_TEMPS; i++)
		if (temps[i] == tmp)
			temps[i] = NULL;
}

void cli_temp_remove(char *tmp)
{
	cli_temp_unregister(tmp);
	unlink(tmp);
}

/* ----------------------------------------------------------------- checks */

/* Written directly: standard output, devices and kernel files. */
static bool direct_name(const char *path)
{
	return !strcmp(path, "-") || !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6) ||
	       !strncmp(path, "/sys/", 5);
}

/* stat() of an input: "-" is standard input. */
static int input_stat(const char *path, struct stat *st)
{
	return !strcmp(path, "-") ? fstat(STDIN_FILENO, st) : stat(path, st);
}

/*
 * Where @path would be created: its directory resolved, its last
 * component as given (the file need not exist).  0, or -1.
 */
static int where(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[PATH_MAX], real[PATH_MAX];

	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!realpath(dir, real))
		return -1;
	return (size_t)snprintf(buf, len, "%s/%s", real, base) < len ? 0 : -1;
}

/* Whether two outputs name the same file, existing or to be created. */
static bool same_output(const char *a, const char *b)
{
	char wa[PATH_MAX + NAME_MAX + 2], wb[PATH_MAX + NAME_MAX + 2];
	struct stat sa, sb;
	bool ea = !stat(a, &sa), eb = !stat(b, &sb);

	if (ea && eb)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (ea || eb)
		return false;
	if (!strcmp(a, b))
		return true;
	return !where(a, wa, sizeof(wa)) && !where(b, wb, sizeof(wb)) && !strcmp(wa, wb);
}

/* What an existing regular file holds that no output may replace, or NULL. */
static const char *holds_input(const char *path, bool ivf_ok)
{
	unsigned char magic[6];
	struct trace_reader *r;
	char err[256];
	size_t n = 0;
	FILE *f;

	if (ivf_is_file(path))
		return ivf_ok ? NULL : "is an interval file";
	if (!trace_open(path, &r, err, sizeof(err))) {
		trace_close(r);
		return "is a trace";
	}
	/* no output is compressed: a damaged trace, some other data */
	f = fopen(path, "rb");
	if (f) {
		n = fread(magic, 1, sizeof(magic), f);
		fclose(f);
	}
	if ((n >= 6 && !memcmp(magic, "\xfd" "7zXZ\0", 6)) || (n >= 2 && magic[0] == 0x1f &&
							       magic[1] == 0x8b))
		return "holds compressed data";
	return NULL;
}

int cli_out_check(const char *cmd, const struct cli_out_arg *outs, unsigned int nout,
		  const char *const *ins, unsigned int nin)
{
	unsigned int i, j;

	for (i = 0; i < nout; i++) {
		const char *path = outs[i].path, *what;
		struct stat so, si;
		bool exists;

		if (!path || !strcmp(path, "-"))
			continue;
		exists = !stat(path, &so);
		if (exists && !S_ISREG(so.st_mode))
			continue;	/* a device, a pipe: written directly, never replaced */
		for (j = 0; exists && j < nin; j++)
			if (ins[j] && !input_stat(ins[j], &si) && si.st_dev == so.st_dev &&
			    si.st_ino == so.st_ino)
				return cli_error(cmd, "%s: the output would overwrite the input '%s'",
						 path, ins[j]);
		for (j = 0; j < i; j++)
			if (outs[j].path && strcmp(outs[j].path, "-") &&
			    same_output(outs[j].path, path))
				return cli_error(cmd, "%s: both %s and %s would write it: give each "
						 "its own file", path, outs[j].opt, outs[i].opt);
		if (exists && so.st_size && (what = holds_input(path, outs[i].ivf)))
			return cli_error(cmd, "%s %s: that file %s; not overwriting it (was the "
					 "output's name left out?)", outs[i].opt, path, what);
	}
	return 0;
}

const char *cli_out_holds_input(const char *path)
{
	struct stat st;

	if (!path || !strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    !st.st_size)
		return NULL;
	return holds_input(path, false);
}

const char *cli_platform_file(const char *spec)
{
	size_t len;

	if (!spec || (!strchr(spec, '/') && cpuidle_platform_builtin_text(spec, &len)))
		return NULL;
	return spec;
}

/* ---------------------------------------------------------------- writing */

/* A message: "OPT PATH: error" or "PATH: error" ("-": stdout). */
static int out_error(const char *cmd, const struct cli_out *o, int err)
{
	const char *name = strcmp(o->path, "-") ? o->path : "stdout";

	if (o->opt)
		return cli_error(cmd, "%s %s: %s", o->opt, name, strerror(err));
	return cli_error(cmd, "%s: %s", name, strerror(err));
}

/*
 * The temporary file for @o->path, created; its descriptor, or -1 with
 * errno set.  *@direct: the file is to be written directly instead.
 */
static int temp_create(struct cli_out *o, bool *direct)
{
	char real[PATH_MAX];
	const char *target = o->path;
	struct stat st;
	mode_t mode;
	int fd;

	*direct = false;
	if (direct_name(o->path)) {
		*direct = true;
		return -1;
	}
	if (!stat(o->path, &st)) {
		if (!S_ISREG(st.st_mode)) {
			*direct = true;
			return -1;
		}
		if (access(o->path, W_OK))
			return -1;	/* not ours to replace */
		/* through a symbolic link: its target is replaced, the link kept */
		if (realpath(o->path, real))
			target = real;
		mode = st.st_mode & 0777;
	} else if (errno != ENOENT) {
		return -1;
	} else {
		if (!lstat(o->path, &st)) {	/* a dangling symbolic link */
			*direct = true;
			return -1;
		}
		mode = umask(0);
		umask(mode);
		mode = 0666 & ~mode;
	}
	o->target = strdup(target);
	if (!o->target || asprintf(&o->tmp, "%s.XXXXXX", target) < 0) {
		o->tmp = NULL;
		errno = ENOMEM;
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		/* a writable file in a directory that is not: written in place */
		if ((e == EACCES || e == EPERM) && !access(o->path, W_OK))
			*direct = true;
		errno = e;
		return -1;
	}
	fchmod(fd, mode);
	cli_temp_register(o->tmp);
	return fd;
}

static int out_setup(const char *cmd, const char *opt, struct cli_out *o, const char *path,
		     bool stream)
{
	bool direct;
	int fd, e;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->opt = opt;
	o->open = true;
	if (stream && !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	fd = temp_create(o, &direct);
	if (fd < 0 && !direct) {
		e = errno;
		cli_out_abort(o);
		return out_error(cmd, o, e);
	}
	if (!stream) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	o->f = fd >= 0 ? fdopen(fd, "w") : fopen(path, "w");
	if (!o->f) {
		e = errno;
		if (fd >= 0)
			close(fd);
		cli_out_abort(o);
		return out_error(cmd, o, e);
	}
	return 0;
}

int cli_out_open(const char *cmd, const char *opt, struct cli_out *o, const char *path)
{
	return out_setup(cmd, opt, o, path, true);
}

int cli_out_reserve(const char *cmd, const char *opt, struct cli_out *o, const char *path)
{
	return out_setup(cmd, opt, o, path, false);
}

const char *cli_out_target(const struct cli_out *o)
{
	return o->tmp ? o->tmp : o->path;
}

int cli_out_flush(const char *cmd, struct cli_out *o)
{
	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		return out_error(cmd, o, errno ? errno : EIO);
	return 0;
}

/*
 * Forget @o's temporary file (removed first if @remove: the output
 * failed) and its target: @o is closed.
 */
static void out_release(struct cli_out *o, bool remove)
{
	if (o->tmp) {
		if (remove)
			unlink(o->tmp);
		cli_temp_unregister(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->target);
	o->target = NULL;
	o->open = false;
}

int cli_out_commit(const char *cmd, struct cli_out *o)
{
	int e = 0;

	if (!o->open)
		return 0;
	if (o->f) {
		errno = 0;
		if (fflush(o->f) || ferror(o->f))
			e = errno ? errno : EIO;
		if (o->f != stdout && fclose(o->f) && !e)
			e = errno ? errno : EIO;
		o->f = NULL;
	}
	if (!e && o->tmp && rename(o->tmp, o->target))
		e = errno;
	if (e) {
		cli_out_abort(o);
		return out_error(cmd, o, e);
	}
	out_release(o, false);	/* renamed: nothing to remove */
	return 0;
}

void cli_out_abort(struct cli_out *o)
{
	if (!o->open)
		return;
	if (o->f && o->f != stdout)
		fclose(o->f);
	else if (o->f)
		fflush(o->f);
	o->f = NULL;
	out_release(o, true);
}

void cli_out_rename_in(const struct cli_out *o, char *msg, size_t len)
{
	size_t tl, pl = strlen(o->path);
	char *p;

	if (!o->tmp)
		return;
	tl = strlen(o->tmp);
	for (p = strstr(msg, o->tmp); p; p = strstr(p + pl, o->tmp)) {
		size_t rest = strlen(p + tl) + 1;

		if ((size_t)(p - msg) + pl + rest > len)
			return;
		memmove(p + pl, p + tl, rest);
		memcpy(p, o->path, pl);
	}
}

/* -------------------------------------------------------------------- CSV */

int cli_csv_field(FILE *f, const char *s)
{
	/* control characters (\r, \n among them) are \xNN: cli_put_text() */
	if (!s[strcspn(s, ",\"")] && s[0] != ' ' && (!s[0] || s[strlen(s) - 1] != ' '))
		return cli_put_text(f, s, CLI_TEXT);
	if (fputc('"', f) == EOF || cli_put_text(f, s, CLI_TEXT_CSV))
		return -1;
	return fputc('"', f) == EOF ? -1 : 0;
}
