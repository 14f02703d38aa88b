/* SPDX-License-Identifier: MIT */
/*
 * ivf_format.h - the interval file's layout (cpuidle-ivf(5)): its magics
 * and sizes, little-endian numbers, the block checks, and a record's
 * encoding and decoding, shared by the writer (ivf_write.c) and the reader
 * (ivf.c), inline so that the reader's hot path stays one piece
 */
#ifndef LAB_IVF_FORMAT_H
#define LAB_IVF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "codec_libs.h"
#include "ivf.h"

#define BLOCK_MAGIC	"IVB5"
#define OLD_BLOCK_MAGIC	"IVB1"	/* versions 1 to 4 */
#define BLOCK_HEAD	12	/* magic, count, length */
#define OLD_BLOCK_HEAD	8	/* magic, count */
/*
 * Version 5, on disk in a record's flags byte (from version 8 in its wake
 * byte, the flags byte being full): a full record.  Short ones are most of
 * any trace (one kernel entry, no polling window), and at 56 bytes instead
 * of 136 a replay reads, hashes and checks far less.
 */
#define REC_FULL	0x80
#define WAKE_AT		48	/* the wake byte's offset in a record */
#define FLAGS_AT	49	/* the flags byte's offset in a record */
/* where a version's records keep REC_FULL */
#define FULL_AT(version)	((version) >= 8 ? WAKE_AT : FLAGS_AT)
#define SHORT_FIELDS	53	/* a short record's fields: up to kstates[0] */
#define TRAILER_MAGIC	"IVN1"
#define NAME_ENTRY_SIZE	(2 + LAB_IRQ_NAME_LEN)
#define NOTES_MAGIC	"IVT1"
/* the notes' fixed part, after the magic: 8 x 8 bytes, 2 x 4 */
#define NOTES_FIXED	72
#define NOTES_WORDS(cpus)	(((cpus) + 63) / 64)	/* the idle-less bitmap */
/*
 * The notes' length after the magic, by version: version 7 adds the
 * bitmap of CPUs whose starting polling window is known, and that window
 * per CPU (32 bits).
 */
#define NOTES_LEN(version, cpus)	(NOTES_FIXED + 8 * NOTES_WORDS(cpus) + \
					 ((version) >= 7 ? 8 * NOTES_WORDS(cpus) + 4 * (cpus) : 0))
#define IV_KNOWN_FLAGS	(IV_PARTIAL_START | IV_PARTIAL_END | IV_TIMER_UNKNOWN | \
			 IV_KERNEL_ABOVE | IV_KERNEL_BELOW | IV_TASK_WAKE | IV_KSTATES_REST | \
			 IV_TIMER_GUESSED)

/* ------------------------------------------------------------ bytes */

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static inline uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* zlib's CRC-32 of @n bytes at @p (@z: zlib, loaded: gz_lib()) */
static inline uint32_t crc(const struct gz_lib *z, const uint8_t *p, size_t n)
{
	return (uint32_t)z->crc32(0L, p, (uInt)n);
}

/*
 * Blocks are checked with 64-bit FNV-1a over little-endian 64-bit words
 * (h = (h ^ word) x 0x100000001b3, from 0xcbf29ce484222325), folded to 32
 * bits (h ^ h >> 32): a few instructions per word, where zlib's CRC-32 and
 * Adler-32 cost several per byte; still ample for catching a damaged or
 * truncated block.  Records are whole words.
 *
 * Up to version 2 one hash ran over all the words.  Its multiplications
 * form one chain, ~4 cycles a word, 52 a record, that out-of-order
 * execution cannot overlap.  From version 3, word i goes to lane i mod 4, the
 * four lanes run side by side, and the block's check is the same hash
 * over the four lanes' values.
 */
#define FNV_BASIS	0xcbf29ce484222325ull
#define FNV_PRIME	0x100000001b3ull
#define SUM_LANES	4

static inline uint32_t fold(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

static inline uint32_t block_sum_serial(const uint8_t *p, size_t n)
{
	uint64_t h = FNV_BASIS;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		h = (h ^ get64(p + i)) * FNV_PRIME;
	return fold(h);
}

static inline uint32_t block_sum(const uint8_t *p, size_t n)
{
	uint64_t lane[SUM_LANES] = { FNV_BASIS, FNV_BASIS, FNV_BASIS, FNV_BASIS };
	uint64_t h = FNV_BASIS;
	size_t i;
	int k;

	for (i = 0; i + 8 * SUM_LANES <= n; i += 8 * SUM_LANES)
		for (k = 0; k < SUM_LANES; k++)
			lane[k] = (lane[k] ^ get64(p + i + 8 * k)) * FNV_PRIME;
	for (k = 0; i + 8 <= n; i += 8, k++)
		lane[k] = (lane[k] ^ get64(p + i)) * FNV_PRIME;
	for (k = 0; k < SUM_LANES; k++)
		h = (h ^ lane[k]) * FNV_PRIME;
	return fold(h);
}

static inline void encode(uint8_t *p, const struct idle_interval *iv)
{
	int i;

	put64(p + 0, (uint64_t)iv->start_ns);
	put64(p + 8, (uint64_t)iv->idle_ns);
	put64(p + 16, (uint64_t)iv->timer_ns);
	put64(p + 24, (uint64_t)iv->busy_ns);
	put64(p + 32, (uint64_t)iv->kernel_idle_ns);
	put32(p + 40, (uint32_t)iv->qos_us);
	put16(p + 44, iv->cpu);
	put16(p + 46, (uint16_t)iv->irq);
	p[48] = iv->wake;
	p[49] = iv->flags;
	put16(p + 50, iv->nr_entries);
	memcpy(p + 52, iv->kstates, IV_MAX_KSTATES);
	p[60] = iv->kwindow_mask;
	p[61] = iv->ktick_mask;
	put16(p + 62, iv->nr_kwindows);
	for (i = 0; i < IV_MAX_KSTATES; i++)
		put32(p + 64 + 4 * i, iv->kwindow[i]);
	put64(p + 96, (uint64_t)iv->kernel_loop_ns);
	for (i = 0; i < IV_MAX_KSTATES; i++)
		put32(p + 104 + 4 * i, iv->kresidency[i]);
}

/*
 * On a little-endian host a current record is the structure itself
 * (intervals.h keeps the fields in record order, naturally aligned), so
 * decoding it is one copy.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RECORD_IS_STRUCT	1
#define AT(field, offset)	(offsetof(struct idle_interval, field) == (offset))
_Static_assert(sizeof(struct idle_interval) == IVF_RECORD_SIZE &&
	       AT(start_ns, 0) && AT(idle_ns, 8) && AT(timer_ns, 16) && AT(busy_ns, 24) &&
	       AT(kernel_idle_ns, 32) && AT(qos_us, 40) && AT(cpu, 44) && AT(irq, 46) &&
	       AT(wake, 48) && AT(flags, 49) && AT(nr_entries, 50) && AT(kstates, 52) &&
	       AT(kwindow_mask, 60) && AT(ktick_mask, 61) && AT(nr_kwindows, 62) &&
	       AT(kwindow, 64) && AT(kernel_loop_ns, 96) && AT(kresidency, 104),
	       "record layout");
#else
#define RECORD_IS_STRUCT	0
#endif

/* A record's fields up to the kernel's entries, by byte. */
static inline void decode_head(const uint8_t *p, struct idle_interval *iv)
{
	iv->start_ns = (int64_t)get64(p + 0);
	iv->idle_ns = (int64_t)get64(p + 8);
	iv->timer_ns = (int64_t)get64(p + 16);
	iv->busy_ns = (int64_t)get64(p + 24);
	iv->kernel_idle_ns = (int64_t)get64(p + 32);
	iv->qos_us = (int32_t)get32(p + 40);
	iv->cpu = get16(p + 44);
	iv->irq = (int16_t)get16(p + 46);
	iv->wake = p[48];
	iv->flags = p[FLAGS_AT];
	iv->nr_entries = get16(p + 50);
}

static inline void decode(const uint8_t *p, unsigned int size, struct idle_interval *iv)
{
	int i;

	if (RECORD_IS_STRUCT && size == IVF_RECORD_SIZE) {
		memcpy(iv, p, IVF_RECORD_SIZE);
		return;
	}
	decode_head(p, iv);
	memcpy(iv->kstates, p + 52, IV_MAX_KSTATES);
	memset(iv->kresidency, 0, sizeof(iv->kresidency));
	if (size < IVF_V2_RECORD_SIZE) {	/* version 1: no windows */
		iv->kwindow_mask = 0;
		iv->ktick_mask = 0;
		iv->nr_kwindows = 0;
		iv->kernel_loop_ns = 0;
		memset(iv->kwindow, 0, sizeof(iv->kwindow));
		return;
	}
	iv->kwindow_mask = p[60];
	iv->ktick_mask = p[61];
	iv->nr_kwindows = get16(p + 62);
	iv->kernel_loop_ns = (int64_t)get64(p + 96);
	for (i = 0; i < IV_MAX_KSTATES; i++)
		iv->kwindow[i] = get32(p + 64 + 4 * i);
	if (size < IVF_RECORD_SIZE)	/* versions 2 and 3: no residencies */
		return;
	for (i = 0; i < IV_MAX_KSTATES; i++)
		iv->kresidency[i] = get32(p + 104 + 4 * i);
}

/*
 * A short record's implied fields: no kernel entry after the first, no
 * polling window, no tick wake-up, no time between entries, and the one
 * entry's residency is the time the kernel accounted (saturated as
 * reconstruction saturates it).
 */
static inline void imply_short(struct idle_interval *iv)
{
	uint64_t k = (uint64_t)iv->kernel_idle_ns;

	memset(iv->kstates + 1, -1, IV_MAX_KSTATES - 1);
	memset(&iv->kwindow_mask, 0,
	       sizeof(*iv) - offsetof(struct idle_interval, kwindow_mask));
	iv->kresidency[0] = iv->nr_entries ? (k > UINT32_MAX ? UINT32_MAX : (uint32_t)k) : 0;
}

/* Whether @iv is exactly what its short record would read back as. */
static inline bool fits_short(const struct idle_interval *iv)
{
	struct idle_interval s;

	if (iv->nr_entries > 1)
		return false;
	s = *iv;
	imply_short(&s);
	return !memcmp(&s, iv, sizeof(s));
}

/* A version 5 short record, its implied fields filled in. */
static inline void decode_short(const uint8_t *p, struct idle_interval *iv)
{
	if (RECORD_IS_STRUCT) {
		memcpy(iv, p, IVF_SHORT_RECORD_SIZE);
	} else {
		decode_head(p, iv);
		iv->kstates[0] = (int8_t)p[52];
	}
	imply_short(iv);
}

#endif /* LAB_IVF_FORMAT_H */
