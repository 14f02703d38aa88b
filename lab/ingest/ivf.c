// SPDX-License-Identifier: MIT
/*
 * ivf.c - the idle interval file (see cpuidle-ivf(5)).
 *
 * Layout, all integers little-endian:
 *
 *   header   64 bytes: magic "CPUIDLIV", version, sizes, CPUs, time span,
 *            record count, trailer offset, CRC-32 of the first 60 bytes
 *   blocks   "IVB5", count (1..4096), length in bytes, count records of
 *            56 bytes (short: at most one kernel entry, the kernel
 *            fidelity fields implied) or 136 (full: flag bit 0x80), a
 *            word hash.  Versions 1 to 4 ("IVB1", count, count x 64-,
 *            104- or 136-byte records, a word hash) are still read.
 *   trailer  "IVN1", count, count x (u16 irq, 32-byte name), CRC-32;
 *            from version 6 always there, and followed by "IVT1", the
 *            trace notes (clock offset, lost events, CPUs without idle
 *            events: what a reader of the file should be told as a reader
 *            of the trace was; from version 7 each CPU's polling window
 *            at its first interval), CRC-32, and the end of the file
 *
 * The writer streams blocks and rewrites the header at the end, so the
 * reader can tell a complete file from a truncated one (the record count
 * and the trailer offset must match what it finds).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "ivf_format.h"
/* ------------------------------------------------------------ reader */

struct ivf_reader {
	FILE *f;
	const struct gz_lib *z;	/* zlib, for the checksums */
	char path[256];
	struct ivf_info info;
	unsigned int rec_size;	/* by version */
	unsigned int full_at;	/* where a record keeps REC_FULL, by version */
	uint8_t flags_new;	/* flags this version cannot have */
	uint64_t records;	/* the header's count */
	uint64_t seen;
	uint64_t trailer;	/* offset of the trailer, 0 if none */
	uint64_t span;		/* info.last_ns - info.first_ns, for sound() */
	uint64_t offset;	/* of the next byte */
	uint8_t *block;
	unsigned int in_block, next_in_block;
	size_t pos, block_bytes;	/* the next record's offset in the block */
	uint64_t block_at;		/* the block's first record in the file */
	char names[IV_MAX_IRQ][LAB_IRQ_NAME_LEN];
	char err[512];
};

__attribute__((format(printf, 3, 4)))
static int fail(struct ivf_reader *r, uint64_t offset, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "%s: offset %llu: %s", r->path,
		 (unsigned long long)offset, msg);
	return -EINVAL;
}

static int read_exact(struct ivf_reader *r, void *p, size_t n)
{
	size_t got = fread(p, 1, n, r->f);

	r->offset += got;
	return got == n ? 0 : -1;
}

/* version 6: the trace notes after the IRQ names, and then the file's end */
static int read_notes(struct ivf_reader *r)
{
	uint8_t b[NOTES_LEN(7, LAB_MAX_CPUS) + 4 + LAB_RECORDING_MAX + 4];
	uint8_t magic[4];
	struct iv_notes *n = &r->info.notes;
	unsigned int cpus = r->info.nr_cpus, words = NOTES_WORDS(cpus), bits = 0, i;
	uint64_t at = r->offset;
	size_t len = NOTES_LEN(r->info.version, cpus), text = 0;

	if (read_exact(r, magic, 4))
		return fail(r, at, "the file ends before its trace notes (truncated)");
	if (memcmp(magic, NOTES_MAGIC, 4))
		return fail(r, at, "no trace notes after the IRQ names");
	if (r->info.version >= 7) {	/* then the description's length and text */
		if (read_exact(r, b, len + 4))
			return fail(r, at, "trace notes truncated");
		text = get32(b + len);
		if (text > LAB_RECORDING_MAX)
			return fail(r, at + 4 + len, "trace notes: a recording's description of "
				    "%zu bytes (at most %d)", text, LAB_RECORDING_MAX);
		len += 4 + text;
		if (read_exact(r, b + len - text, text + 4))
			return fail(r, at, "trace notes truncated");
	} else if (read_exact(r, b, len + 4)) {
		return fail(r, at, "trace notes truncated");
	}
	if (get32(b + len) != crc(r->z, b, len))
		return fail(r, at + 4 + len, "trace notes checksum mismatch");
	if (text) {
		n->recording_len = (uint32_t)text;
		memcpy(n->recording, b + len - text, text);
		if (memchr(n->recording, 0, text) || n->recording[text - 1] != '\n')
			return fail(r, at + 4 + len - text, "trace notes: a recording's "
				    "description that is not lines of text");
	}
	if (fgetc(r->f) != EOF)
		return fail(r, r->offset, "bytes after the trace notes, where the file should end");
	n->clock_offset_ns = (int64_t)get64(b);
	n->clock_line = get64(b + 8);
	n->clock_unknown = get64(b + 16);
	n->lost_gaps = get64(b + 24);
	n->lost_events = get64(b + 32);
	n->lost_line = get64(b + 40);
	n->lost_n = (int64_t)get64(b + 48);
	n->lost_cpu = get32(b + 64);
	n->nr_idle_less = get32(b + 68);
	for (i = 0; i < words; i++) {
		n->idle_less[i] = get64(b + NOTES_FIXED + 8 * i);
		bits += (unsigned int)__builtin_popcountll(n->idle_less[i]);
	}
	if (r->info.version >= 7) {
		const uint8_t *w = b + NOTES_FIXED + 8 * words;

		for (i = 0; i < words; i++)
			n->window_known[i] = get64(w + 8 * i);
		for (i = 0; i < cpus; i++) {
			n->window_start[i] = get32(w + 8 * words + 4 * i);
			if (!(n->window_known[i / 64] >> (i % 64) & 1) && n->window_start[i])
				return fail(r, at + 4 + NOTES_FIXED + 16 * words + 4 * i,
					    "trace notes: a starting polling window for CPU %u, "
					    "not marked known", i);
		}
		if (cpus % 64 && n->window_known[words - 1] >> (cpus % 64))
			return fail(r, at + 4 + NOTES_FIXED + 8 * words, "trace notes: a "
				    "starting polling window beyond the file's %u CPUs", cpus);
	}
	if (r->info.version >= 7) {
		n->residency_skew_ns = (int64_t)get64(b + 56);
		if (n->residency_skew_ns < 0 || n->residency_skew_ns > UINT32_MAX)
			return fail(r, at + 4 + 56, "trace notes: a residency skew of %lld ns",
				    (long long)n->residency_skew_ns);
	} else if (get64(b + 56)) {
		return fail(r, at + 4 + 56, "trace notes: reserved bytes are not 0");
	}
	if (cpus % 64 && n->idle_less[words - 1] >> (cpus % 64))
		return fail(r, at + 4 + NOTES_FIXED, "trace notes: a CPU without idle events "
			    "beyond the file's %u CPUs", cpus);
	if (bits != n->nr_idle_less)
		return fail(r, at + 4 + 68, "trace notes: %u CPUs without idle events, "
			    "but %u bits set", n->nr_idle_less, bits);
	if (n->lost_gaps ? n->lost_cpu >= cpus :
	    n->lost_events || n->lost_line || n->lost_n || n->lost_cpu)
		return fail(r, at + 4 + 24, "trace notes: inconsistent lost events");
	if (!n->clock_offset_ns && n->clock_line)
		return fail(r, at + 4, "trace notes: inconsistent clock offset");
	r->info.notes_known = true;
	return 0;
}

static int read_trailer(struct ivf_reader *r)
{
	uint8_t buf[8], entry[NAME_ENTRY_SIZE];
	uLong c = r->z->crc32(0L, Z_NULL, 0);
	uint32_t count, i;

	if (fseek(r->f, (long)r->trailer, SEEK_SET))
		return fail(r, r->trailer, "trailer offset beyond the file");
	r->offset = r->trailer;
	if (read_exact(r, buf, 8))
		return fail(r, r->trailer, "the file ends before its IRQ name trailer (truncated)");
	if (memcmp(buf, TRAILER_MAGIC, 4))
		return fail(r, r->trailer, "no IRQ name trailer where the header says");
	count = get32(buf + 4);
	if (count > IV_MAX_IRQ)
		return fail(r, r->trailer + 4, "%u IRQ names, at most %d", count, IV_MAX_IRQ);
	for (i = 0; i < count; i++) {
		uint16_t irq;

		if (read_exact(r, entry, NAME_ENTRY_SIZE))
			return fail(r, r->offset, "trailer truncated");
		c = r->z->crc32(c, entry, NAME_ENTRY_SIZE);
		irq = get16(entry);
		if (irq >= IV_MAX_IRQ || memchr(entry + 2, 0, LAB_IRQ_NAME_LEN) == NULL)
			return fail(r, r->offset - NAME_ENTRY_SIZE, "bad IRQ name entry");
		memcpy(r->names[irq], entry + 2, LAB_IRQ_NAME_LEN);
	}
	if (read_exact(r, buf, 4) || get32(buf) != (uint32_t)c)
		return fail(r, r->offset, "trailer checksum mismatch");
	if (r->info.version >= 6) {
		int ret = read_notes(r);

		if (ret)
			return ret;
	}
	if (fseek(r->f, IVF_HEADER_SIZE, SEEK_SET))
		return -EIO;
	r->offset = IVF_HEADER_SIZE;
	return 0;
}

int ivf_open(const char *path, struct ivf_reader **out, char *err, size_t errlen)
{
	uint8_t h[IVF_HEADER_SIZE];
	struct ivf_reader *r;
	int ret;

	if (!path || !out)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->z = gz_lib(err, errlen);
	if (!r->z) {
		free(r);
		return -ELIBACC;
	}
	r->f = fopen(path, "rb");
	if (!r->f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		free(r);
		return ret;
	}
	if (read_exact(r, h, sizeof(h)) || memcmp(h, IVF_MAGIC, 8)) {
		ret = fail(r, 0, "not an idle interval file");
		goto err;
	}
	if (get32(h + 60) != crc(r->z, h, 60)) {
		ret = fail(r, 60, "header checksum mismatch (an incomplete or damaged file)");
		goto err;
	}
	r->info.version = get16(h + 8);
	if (r->info.version < 1 || r->info.version > IVF_VERSION) {
		ret = fail(r, 8, "version %u, this build reads versions 1 to %d",
			   r->info.version, IVF_VERSION);
		goto err;
	}
	/* version 5: the full record's size; short ones are shorter */
	r->full_at = FULL_AT(r->info.version);
	r->flags_new = r->info.version < 8 ? IV_TIMER_GUESSED : 0;
	r->rec_size = r->info.version == 1 ? IVF_V1_RECORD_SIZE :
		      r->info.version < 4 ? IVF_V2_RECORD_SIZE : IVF_RECORD_SIZE;
	if (get16(h + 10) != IVF_HEADER_SIZE || get16(h + 12) != r->rec_size) {
		ret = fail(r, 10, "unexpected header or record size");
		goto err;
	}
	r->info.nr_cpus = get32(h + 16);
	r->info.source_format = get32(h + 20);
	r->info.first_ns = (int64_t)get64(h + 24);
	r->info.last_ns = (int64_t)get64(h + 32);
	r->records = get64(h + 40);
	r->trailer = get64(h + 48);
	if (!r->info.nr_cpus || r->info.nr_cpus > LAB_MAX_CPUS || r->info.first_ns < 0 ||
	    r->info.last_ns < r->info.first_ns) {
		ret = fail(r, 16, "implausible CPU count or time span");
		goto err;
	}
	r->span = (uint64_t)r->info.last_ns - (uint64_t)r->info.first_ns;
	if ((r->trailer && r->trailer < IVF_HEADER_SIZE) ||
	    (!r->trailer && r->info.version >= 6)) {
		ret = fail(r, 48, "bad trailer offset");
		goto err;
	}
	if (r->trailer && (ret = read_trailer(r)))
		goto err;
	r->block = malloc((size_t)IVF_BLOCK_RECORDS * r->rec_size);
	if (!r->block) {
		ret = -ENOMEM;
		goto err;
	}
	*out = r;
	return 0;
err:
	snprintf(err, errlen, "%s", r->err);
	fclose(r->f);
	free(r);
	return ret;
}

/*
 * A version 5 block's records must fill its length exactly, each short or
 * full by its flag: walked once here, so ivf_next() needs no bounds check.
 */
static int walk_block(struct ivf_reader *r, unsigned int count, size_t n)
{
	size_t pos = 0;
	unsigned int i;

	for (i = 0; i < count && pos < n; i++)
		pos += r->block[pos + r->full_at] & REC_FULL ? IVF_RECORD_SIZE :
							     IVF_SHORT_RECORD_SIZE;
	if (i < count || pos != n)
		return fail(r, r->block_at - BLOCK_HEAD, "a block of %u intervals whose records "
			    "do not fill its %zu bytes", count, n);
	return 0;
}

static int read_block(struct ivf_reader *r)
{
	bool v5 = r->info.version >= 5;
	unsigned int head_len = v5 ? BLOCK_HEAD : OLD_BLOCK_HEAD;
	uint8_t head[BLOCK_HEAD], tail[4];
	uint64_t at = r->offset;
	uint32_t count;
	size_t n;

	if (r->trailer && r->offset == r->trailer)
		return 0;
	if (read_exact(r, head, head_len)) {
		if (r->offset == at && !r->trailer)
			return 0;	/* clean end without trailer */
		return fail(r, at, "truncated block header");
	}
	if (memcmp(head, v5 ? BLOCK_MAGIC : OLD_BLOCK_MAGIC, 4))
		return fail(r, at, "expected a block of intervals");
	count = get32(head + 4);
	if (!count || count > IVF_BLOCK_RECORDS)
		return fail(r, at + 4, "block of %u intervals (1 to %d)", count, IVF_BLOCK_RECORDS);
	if (v5) {
		n = get32(head + 8);
		if (n < (size_t)count * IVF_SHORT_RECORD_SIZE ||
		    n > (size_t)count * IVF_RECORD_SIZE || n % 8)
			return fail(r, at + 8, "a block of %u intervals in %zu bytes", count, n);
	} else {
		n = (size_t)count * r->rec_size;
	}
	r->block_at = r->offset;
	if (read_exact(r, r->block, n))
		return fail(r, r->offset, "block truncated");
	if (read_exact(r, tail, 4) ||
	    get32(tail) != (r->info.version >= 3 ? block_sum : block_sum_serial)(r->block, n))
		return fail(r, at, "block checksum mismatch");
	if (v5 && walk_block(r, count, n))
		return -EINVAL;
	r->in_block = count;
	r->next_in_block = 0;
	r->pos = 0;
	r->block_bytes = n;
	return 1;
}

/* The per-entry mask bits of the first @n entries. */
static unsigned int entry_bits(unsigned int n)
{
	return n >= IV_MAX_KSTATES ? (1u << IV_MAX_KSTATES) - 1 : (1u << n) - 1;
}

/*
 * Every kernel state index in -1 .. LAB_MAX_STATES - 1, the eight bytes
 * at once: add 1 to each byte without carries between them, then a byte
 * is bad if its top bit is set or adding 127 - LAB_MAX_STATES to its
 * low seven bits sets it.
 */
#define BYTES(b)	(0x0101010101010101ull * (b))
_Static_assert(IV_MAX_KSTATES == 8 && LAB_MAX_STATES < 0x7f, "one word of states");
static bool kstates_valid(const int8_t *kstates)
{
	uint64_t x, y;

	memcpy(&x, kstates, sizeof(x));
	y = ((x & BYTES(0x7f)) + BYTES(1)) ^ (x & BYTES(0x80));
	return !((((y & BYTES(0x7f)) + BYTES(0x7f - LAB_MAX_STATES)) | y) & BYTES(0x80));
}

/* Bits set in an 8-bit mask (no libgcc call per record without -mpopcnt). */
static unsigned int bits8(unsigned int m)
{
	m = m - ((m >> 1) & 0x55);
	m = (m & 0x33) + ((m >> 2) & 0x33);
	return (m + (m >> 4)) & 0x0f;
}

/*
 * The kernel's residencies, two to a 64-bit word: the bits of each word
 * that belong to entries past the first n (n = 0 .. IV_MAX_KSTATES), which
 * must be 0.  Entry 2k is word k's first 32 bits in memory.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define EVEN	0xffffffff00000000ull
#define ODD	0x00000000ffffffffull
#else
#define EVEN	0x00000000ffffffffull
#define ODD	0xffffffff00000000ull
#endif
#define ALL	(EVEN | ODD)
static const uint64_t past_entries[IV_MAX_KSTATES + 1][IV_MAX_KSTATES / 2] = {
	{ ALL, ALL, ALL, ALL }, { ODD, ALL, ALL, ALL }, { 0, ALL, ALL, ALL },
	{ 0, ODD, ALL, ALL }, { 0, 0, ALL, ALL }, { 0, 0, ODD, ALL },
	{ 0, 0, 0, ALL }, { 0, 0, 0, ODD }, { 0, 0, 0, 0 },
};

/*
 * Residencies only of entries the interval has, adding up to no more than
 * the time the kernel accounted in idle states: two at a time, without a
 * branch.
 */
static bool residencies_sound(const struct idle_interval *iv)
{
	const uint64_t *past = past_entries[iv->nr_entries < IV_MAX_KSTATES ? iv->nr_entries :
					   IV_MAX_KSTATES];
	uint64_t w[IV_MAX_KSTATES / 2], beyond = 0, sum = 0;
	int k;

	memcpy(w, iv->kresidency, sizeof(w));
	for (k = 0; k < IV_MAX_KSTATES / 2; k++) {
		beyond |= w[k] & past[k];
		sum += (w[k] & 0xffffffffu) + (w[k] >> 32);
	}
	return !beyond & (sum <= (uint64_t)iv->kernel_idle_ns);
}

/*
 * Why a record is refused: the first rule it breaks, with its offset.
 * @short_rec: the record if it is a version 5 short one, else NULL.
 */
static int refuse(struct ivf_reader *r, const struct idle_interval *iv,
		  const uint8_t *short_rec, uint64_t at)
{
	unsigned int bad = 0;
	uint64_t sum = 0;
	int i;

	if (iv->cpu >= r->info.nr_cpus)
		return fail(r, at + 44, "CPU %u, the header says %u CPUs", iv->cpu,
			    r->info.nr_cpus);
	if (iv->idle_ns < 0 || iv->busy_ns < 0 || iv->timer_ns < 0 || iv->kernel_idle_ns < 0 ||
	    iv->kernel_loop_ns < 0 || iv->qos_us < 0)
		return fail(r, at, "negative time or QoS");
	if (iv->start_ns < r->info.first_ns || iv->start_ns > r->info.last_ns)
		return fail(r, at, "interval outside the trace's time span");
	if (iv->idle_ns > r->info.last_ns - iv->start_ns ||
	    iv->busy_ns > r->info.last_ns - iv->start_ns - iv->idle_ns)
		return fail(r, at, "idle and busy time past the trace's last event");
	if (iv->wake >= IV_WAKE_NR || (iv->flags & ~IV_KNOWN_FLAGS))
		return fail(r, at + 48, "unknown wake cause or flags");
	if ((iv->flags & IV_TIMER_GUESSED) &&
	    ((iv->flags & IV_TIMER_UNKNOWN) || (iv->flags & r->flags_new)))
		return fail(r, at + 49, "a reconstructed next timer that is unknown, or "
			    "before version 8");
	if ((iv->flags & IV_TASK_WAKE) && iv->wake != IV_WAKE_UNKNOWN)
		return fail(r, at + 49, "a task wake-up where an interrupt woke the CPU");
	if (iv->irq < -1 || (iv->irq >= 0 && iv->wake != IV_WAKE_IRQ))
		return fail(r, at + 46, "bad IRQ number");
	if (!kstates_valid(iv->kstates))
		return fail(r, at + 52, "bad kernel state index");
	if ((iv->flags & IV_KSTATES_REST) &&
	    (iv->nr_entries <= IV_MAX_KSTATES || iv->kstates[IV_MAX_KSTATES - 1] < 0))
		return fail(r, at + 49, "the later entries' state said of %u kernel entries",
			    iv->nr_entries);
	if (short_rec) {
		if (iv->nr_entries > 1)
			return fail(r, at + 50, "a short record of %u kernel entries (at most 1)",
				    iv->nr_entries);
		return fail(r, at + SHORT_FIELDS, "a short record's reserved bytes are not 0");
	}
	/*
	 * Windows only after entries the interval has, all of them counted;
	 * tick wake-ups only of entries another one followed.
	 */
	if (iv->ktick_mask & ~entry_bits(iv->nr_entries > 0 ? iv->nr_entries - 1u : 0))
		return fail(r, at + 61, "kernel tick wake-ups beyond the interval's entries");
	if ((iv->kwindow_mask & ~entry_bits(iv->nr_entries)) ||
	    bits8(iv->kwindow_mask) > iv->nr_kwindows)
		return fail(r, at + 60, "kernel polling windows beyond the interval's entries");
	for (i = 0; i < IV_MAX_KSTATES; i++)
		bad |= !(iv->kwindow_mask & (1u << i)) && iv->kwindow[i];
	if (bad)
		return fail(r, at + 64, "a kernel polling window without its entry");
	/* residencies only of entries the interval has, within its idle time */
	for (i = 0; i < IV_MAX_KSTATES; i++) {
		if (iv->kresidency[i] && i >= iv->nr_entries)
			return fail(r, at + 104 + 4 * (uint64_t)i,
				    "a kernel residency beyond the interval's entries");
		sum += iv->kresidency[i];
	}
	if (sum > (uint64_t)iv->kernel_idle_ns)
		return fail(r, at + 104, "kernel residencies above the kernel's idle time");
	return fail(r, at, "malformed interval record");	/* sound() said so */
}

/*
 * What each wake cause byte allows, looked up rather than tested rule by
 * rule: @ok has WAKE_VALID for a known cause and the flags it may carry
 * (the task wake-up flag only without an interrupt), @irq_max the highest
 * IRQ number + 1 it may name (only a device interrupt names one; -1 + 1 =
 * 0 always passes).
 */
#define WAKE_VALID	0x100
#define TIMER_BOTH	(IV_TIMER_GUESSED | IV_TIMER_UNKNOWN)	/* never together */
#define FLAGS_NOT_TASK	(IV_KNOWN_FLAGS & ~IV_TASK_WAKE)
static const struct wake_rule {
	uint16_t ok;
	uint16_t irq_max;
} wake_rules[256] = {
	[IV_WAKE_UNKNOWN]	= { WAKE_VALID | IV_KNOWN_FLAGS, 0 },
	[IV_WAKE_TIMER]		= { WAKE_VALID | FLAGS_NOT_TASK, 0 },
	[IV_WAKE_TICK]		= { WAKE_VALID | FLAGS_NOT_TASK, 0 },
	[IV_WAKE_RESCHED]	= { WAKE_VALID | FLAGS_NOT_TASK, 0 },
	[IV_WAKE_CALL_FUNC]	= { WAKE_VALID | FLAGS_NOT_TASK, 0 },
	[IV_WAKE_IRQ]		= { WAKE_VALID | FLAGS_NOT_TASK, INT16_MAX + 1 },
};
_Static_assert(IV_WAKE_NR == 6, "a rule per wake cause");

/*
 * Whether a record is sound: the rules of refuse(), evaluated together
 * without a branch each, since almost every record passes (the replay
 * reads tens of millions a second).  These rules hold for every record
 * but the kernel's states, which full_sound() and short_sound() check.
 */
static inline __attribute__((always_inline))
bool sound(const struct ivf_reader *r, const struct idle_interval *iv)
{
	/* unsigned: a record's numbers may be anything (0 <= first <= last) */
	uint64_t span = r->span;
	uint64_t left = (uint64_t)r->info.last_ns - (uint64_t)iv->start_ns;
	const struct wake_rule *rule = &wake_rules[iv->wake];
	bool bad;

	bad = (iv->cpu >= r->info.nr_cpus) |
	      /* no negative time or QoS: no sign bit among them */
	      ((uint64_t)(iv->idle_ns | iv->busy_ns | iv->timer_ns | iv->kernel_idle_ns |
			  iv->kernel_loop_ns | iv->qos_us) >> 63) |
	      ((uint64_t)iv->start_ns - (uint64_t)r->info.first_ns > span) |
	      /* the interval and the busy time after it end by the last event */
	      ((uint64_t)iv->idle_ns > left) |
	      ((uint64_t)iv->busy_ns > left - (uint64_t)iv->idle_ns) |
	      (((iv->flags | WAKE_VALID) & ~rule->ok) != 0) |
	      ((iv->flags & r->flags_new) != 0) |
	      ((iv->flags & TIMER_BOTH) == TIMER_BOTH) |
	      ((uint16_t)(iv->irq + 1) > rule->irq_max);
	return !bad;
}

/* A full record's kernel states, windows, tick wake-ups and residencies agree. */
static bool full_sound(const struct idle_interval *iv)
{
	unsigned int states_bad = !kstates_valid(iv->kstates);
	unsigned int residencies_bad = !residencies_sound(iv);
	unsigned int windows = 0, bad;
	int i;

	bad = states_bad | residencies_bad |
	      ((iv->flags & IV_KSTATES_REST) &&
	       (iv->nr_entries <= IV_MAX_KSTATES || iv->kstates[IV_MAX_KSTATES - 1] < 0)) |
	      ((iv->ktick_mask & ~entry_bits(iv->nr_entries > 0 ? iv->nr_entries - 1u : 0)) != 0) |
	      ((iv->kwindow_mask & ~entry_bits(iv->nr_entries)) != 0) |
	      (bits8(iv->kwindow_mask) > iv->nr_kwindows);
	if (__builtin_expect(iv->kwindow_mask != 0, 0)) {
		for (i = 0; i < IV_MAX_KSTATES; i++)
			windows |= iv->kwindow[i] ? 1u << i : 0;
		bad |= (windows & ~iv->kwindow_mask) != 0;
	} else {	/* most traces have no polling windows */
		uint64_t w[IV_MAX_KSTATES / 2];

		memcpy(w, iv->kwindow, sizeof(w));
		bad |= (w[0] | w[1] | w[2] | w[3]) != 0;
	}
	return !bad;
}

/*
 * A short record: one kernel entry at most, its state -1 .. the highest,
 * its reserved bytes 0 (its other states are -1 by construction).
 */
static bool short_sound(const uint8_t *p, const struct idle_interval *iv)
{
	return (iv->nr_entries <= 1) & ((uint8_t)(iv->kstates[0] + 1) <= LAB_MAX_STATES) &
	       !(iv->flags & IV_KSTATES_REST) &
	       !(p[SHORT_FIELDS] | p[SHORT_FIELDS + 1] | p[SHORT_FIELDS + 2]);
}

static int ivf_next_slow(struct ivf_reader *r, struct idle_interval *iv);

/*
 * The common case inline: a version 5 short record that passes, inside a
 * block already read.  Everything else (a new block, a full record, an old
 * version, a record to refuse, an error) goes to ivf_next_slow(), which
 * starts over; nothing here changes the reader before the record passes.
 */
static inline __attribute__((always_inline))
int ivf_next_inline(struct ivf_reader *r, struct idle_interval *iv)
{
	const uint8_t *p;
	bool ok;

	if (__builtin_expect(!r || !iv, 0))
		return -EINVAL;
	p = r->block + r->pos;
	if (__builtin_expect(r->next_in_block == r->in_block || r->info.version < 5 ||
			     (p[r->full_at] & REC_FULL) || r->err[0], 0))
		return ivf_next_slow(r, iv);
	decode_short(p, iv);
	ok = sound(r, iv);
	ok &= short_sound(p, iv);	/* both, without a branch between */
	if (__builtin_expect(!ok || r->seen >= r->records, 0))
		return ivf_next_slow(r, iv);
	r->next_in_block++;
	r->pos += IVF_SHORT_RECORD_SIZE;
	r->seen++;
	return 1;
}

int ivf_next(struct ivf_reader *r, struct idle_interval *iv)
{
	return ivf_next_inline(r, iv);
}

__attribute__((noinline))
static int ivf_next_slow(struct ivf_reader *r, struct idle_interval *iv)
{
	const uint8_t *p;
	size_t pos;
	bool ok, common;
	int ret;

	if (r->err[0])
		return -EINVAL;
	if (r->next_in_block == r->in_block) {
		ret = read_block(r);
		if (ret < 0)
			return ret;
		if (!ret) {
			if (r->seen != r->records)
				return fail(r, r->offset, "%llu intervals, the header promised %llu",
					    (unsigned long long)r->seen,
					    (unsigned long long)r->records);
			return 0;
		}
	}
	pos = r->pos;
	p = r->block + pos;
	r->next_in_block++;
	if (r->info.version >= 5 && !(p[r->full_at] & REC_FULL)) {
		decode_short(p, iv);
		r->pos += IVF_SHORT_RECORD_SIZE;
		common = sound(r, iv);
		ok = common & short_sound(p, iv);
	} else {
		decode(p, r->rec_size, iv);
		if (r->info.version >= 8)
			iv->wake &= (uint8_t)~REC_FULL;
		else if (r->info.version >= 5)
			iv->flags &= (uint8_t)~REC_FULL;
		r->pos += r->rec_size;
		common = sound(r, iv);
		ok = common & full_sound(iv);
	}
	if (__builtin_expect(++r->seen > r->records || !ok, 0)) {
		if (r->seen > r->records)
			return fail(r, r->block_at + pos, "more intervals than the header promised");
		return refuse(r, iv, r->info.version >= 5 && !(p[r->full_at] & REC_FULL) ? p : NULL,
			      r->block_at + pos);
	}
	return 1;
}

const struct ivf_info *ivf_reader_info(const struct ivf_reader *r)
{
	return &r->info;
}

const char *ivf_error(const struct ivf_reader *r)
{
	return r->err;
}

const char *ivf_irq_name(const struct ivf_reader *r, int irq)
{
	return irq >= 0 && irq < IV_MAX_IRQ ? r->names[irq] : "";
}

void ivf_close(struct ivf_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r->block);
	free(r);
}

bool ivf_path_rereadable(const char *path)
{
	struct stat st;

	return path && strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode);
}

int ivf_is_file(const char *path)
{
	char magic[8];
	int fd, yes;

	/* a pipe, FIFO or socket: whatever it holds is read once, by the reader */
	if (!ivf_path_rereadable(path))
		return 0;
	/* (eight bytes: no stdio stream, its buffer and its fstat) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	yes = pread(fd, magic, 8, 0) == 8 && !memcmp(magic, IVF_MAGIC, 8);
	close(fd);
	return yes;
}
