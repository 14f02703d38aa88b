// SPDX-License-Identifier: MIT
/*
 * test_menu_pattern.c - menu's pattern guess (sorted windows, the
 * no-pattern shortcut) against the plain form of the kernel's algorithm:
 * rescan the ring each round between two moving bounds.  Millions of
 * random rings, with duplicates, zeros, "no information" samples and values
 * large enough to wrap the sums.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "../src/governors/menu.c"

static unsigned int menu_typical_interval(const struct menu_device *data)
{
	struct menu_scan sc;

	menu_scan_ring(data, &sc);
	return menu_typical_from_scan(data, &sc);
}

/* The kernel's rescanning loop, written as plainly as possible. */
static unsigned int reference_typical(const unsigned int *ring)
{
	int64_t lo = -1, hi = UINT_MAX;

	for (;;) {
		unsigned int n = 0, min = UINT_MAX, max = 0;
		uint64_t sum = 0, sum_sq = 0, avg, variance;
		int i;

		for (i = 0; i < INTERVALS; i++) {
			unsigned int v = ring[i];

			if ((int64_t)v <= lo || (int64_t)v >= hi)
				continue;
			n++;
			sum += v;
			sum_sq += (uint64_t)v * v;
			max = v > max ? v : max;
			min = v < min ? v : min;
		}
		if (!max)
			return UINT_MAX;
		avg = sum / n;
		variance = sum_sq / n - avg * avg;
		if (variance <= UINT64_MAX / 36 &&
		    ((avg * avg > variance * 36 && n >= 6) || variance <= 400))
			return (unsigned int)avg;
		if (n <= 6)
			return UINT_MAX;
		if (avg - min > max - avg)
			lo = min;
		else
			hi = max;
	}
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static unsigned int sample(uint64_t *x, int mode)
{
	uint64_t r = rnd(x);

	switch (mode) {
	case 0:		/* tight cluster: patterns found */
		return 100 + (unsigned int)(r >> 8) % 30;
	case 1:		/* cluster plus outliers and no-information samples */
		return r % 5 == 0 ? UINT_MAX : (r % 7 == 0 ? (unsigned int)(r >> 8) % 5000 :
						       400 + (unsigned int)(r >> 8) % 60);
	case 2:		/* tiny values, many duplicates and zeros */
		return (unsigned int)(r % 6);
	case 3:		/* anything, sums wrap */
		return (unsigned int)(r >> 5);
	case 4:		/* two values */
		return (r & 1) ? 40 : ((r & 2) ? 4000 : 45);
	default:	/* decades, as in real idle */
		return 2 + (unsigned int)(r >> 8) % (r % 3 == 0 ? 20 : (r % 3 == 1 ? 200 : 3000));
	}
}

static void test_pattern_guess_matches_kernel_form(void **state)
{
	struct menu_device data;
	uint64_t x = 0x243f6a8885a308d3ull;
	long it;
	int i;

	(void)state;
	memset(&data, 0, sizeof(data));
	for (it = 0; it < 3000000; it++) {
		int mode = (int)(it % 6);

		for (i = 0; i < INTERVALS; i++)	/* a whole new ring */
			menu_push_interval(&data, sample(&x, mode));
		assert_int_equal(menu_typical_interval(&data), reference_typical(data.intervals));
		/* the shortcut in select relies on this bound */
		if (menu_typical_interval(&data) != NO_PREDICTION) {
			struct menu_scan sc;

			menu_scan_ring(&data, &sc);
			assert_true(menu_typical_interval(&data) >= sc.min);
		}
	}
}

/*
 * select() takes the ring's sums as push keeps them and its extremes from
 * the branch-free tree: both must be what a fresh pass over the ring finds,
 * after any stream of pushes from a new device, "no information" samples
 * coming and going and sums wrapping.
 */
static void test_kept_sums_equal_fresh_scan(void **state)
{
	struct menu_device data;
	uint64_t x = 0x13198a2e03707344ull;
	long it;

	(void)state;
	memset(&data, 0, sizeof(data));
	for (it = 0; it < 3000000; it++) {
		struct menu_scan kept, fresh;
		int mode = (int)((it / 4096) % 6);

		menu_push_interval(&data, rnd(&x) % 16 == 0 ? NO_PREDICTION : sample(&x, mode));
		menu_scan_ring(&data, &kept);
		menu_scan_ring_slow(&data, &fresh);
		/* the count that picks the branch-free scan */
		assert_int_equal(data.ring_no_info, INTERVALS - fresh.n);
		assert_int_equal(kept.n, fresh.n);
		assert_int_equal(kept.sum, fresh.sum);
		assert_int_equal(kept.sum_sq, fresh.sum_sq);
		assert_int_equal(kept.min, fresh.min);
		assert_int_equal(kept.max, fresh.max);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_guess_matches_kernel_form),
		cmocka_unit_test(test_kept_sums_equal_fresh_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
