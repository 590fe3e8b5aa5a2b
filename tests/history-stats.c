/*
 * The statistics of a regression (analyzer/history/stats.c): Fisher's
 * exact test, the Wilson intervals and the judgement, row by row against
 * fixtures/stats/rates.tsv, a table worked out apart from the C code
 * (fixtures/stats/make-rates.py: exact rational sums, decimal at 60
 * digits); then, without the table, what a wrong tail would break: p is 1
 * with no new deaths, falls as the new deaths rise, and a significant rise
 * read the other way round is close to 1; a few published values; counts
 * past what a 64-bit product holds; counts that make no sense.
 */
#include "../analyzer/history/stats.h"
#include "helpers.h"

#include <math.h>

#define P_RELATIVE 1e-9
#define P_ABSOLUTE 1e-15 /* near 0, where the relative error means nothing */
#define BOUND_ABSOLUTE 1e-9
#define FIELDS 10

static const char *const bound_names[4] = {
	"wilson_low_new", "wilson_high_new", "wilson_low_base", "wilson_high_base",
};

static int p_close(double got, double want)
{
	return fabs(got - want) <= P_RELATIVE * fabs(want) || fabs(got - want) <= P_ABSOLUTE;
}

static long long count_field(const char *path, int line, const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		T_FAILF("%s:%d: '%s' is not a count", path, line, s);
	return v;
}

static double real_field(const char *path, int line, const char *s)
{
	char *end;
	double v = strtod(s, &end); /* ERANGE below the smallest double: 0 is its value here */

	if (end == s || *end)
		T_FAILF("%s:%d: '%s' is not a number", path, line, s);
	return v;
}

/* Every row of the table: each value within its tolerance, each judgement
 * exact. Returns the rows; counts each judgement seen in seen[]. */
static int check_table(const char *path, int seen[4])
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	int line = 0, rows = 0;

	if (!f)
		T_FAILF("cannot open '%s': %s", path, strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		char *field[FIELDS], *save = NULL, *s;
		long long kn, nn, kb, nb;
		struct stats_comparison c;
		struct stats_interval w;
		double want[5];
		int n = 0;

		line++;
		T_ASSERT(strchr(buf, '\n'), "%s:%d: line too long", path, line);
		buf[strcspn(buf, "\n")] = 0;
		if (buf[0] == '#' || buf[0] == 0)
			continue;
		for (s = strtok_r(buf, "\t", &save); s && n < FIELDS; s = strtok_r(NULL, "\t", &save))
			field[n++] = s;
		if (n != FIELDS || s)
			T_FAILF("%s:%d: not %d tab-separated fields", path, line, FIELDS);
		kn = count_field(path, line, field[0]);
		nn = count_field(path, line, field[1]);
		kb = count_field(path, line, field[2]);
		nb = count_field(path, line, field[3]);
		for (int i = 0; i < 5; i++)
			want[i] = real_field(path, line, field[4 + i]);

		stats_compare(kn, nn, kb, nb, &c);
		if (!p_close(c.p_value, want[0]))
			T_FAILF("%s:%d: %lld of %lld vs %lld of %lld: p %.17g, want %.17g", path, line,
				kn, nn, kb, nb, c.p_value, want[0]);
		T_ASSERT(stats_fisher_greater(kn, nn, kb, nb) == c.p_value, "%s:%d: compare's p", path,
			 line);
		T_ASSERT(c.p_value >= 0 && c.p_value <= 1, "%s:%d: p %.17g", path, line, c.p_value);
		const double got[4] = { c.now.low, c.now.high, c.base.low, c.base.high };
		for (int i = 0; i < 4; i++)
			if (!(fabs(got[i] - want[1 + i]) <= BOUND_ABSOLUTE))
				T_FAILF("%s:%d: %lld of %lld vs %lld of %lld: %s %.17g, want %.17g", path,
					line, kn, nn, kb, nb, bound_names[i], got[i], want[1 + i]);
		w = stats_wilson(kn, nn);
		T_ASSERT(w.low == c.now.low && w.high == c.now.high, "%s:%d: compare's interval", path,
			 line);
		if (strcmp(stats_judgement_name(c.judgement), field[9]) != 0)
			T_FAILF("%s:%d: %lld of %lld vs %lld of %lld: %s (p %.17g), want %s", path, line,
				kn, nn, kb, nb, stats_judgement_name(c.judgement), c.p_value, field[9]);
		seen[c.judgement]++;
		rows++;
	}
	fclose(f);
	return rows;
}

/* p is 1 with no new deaths, whatever the margins. */
static void check_no_new_deaths(void)
{
	static const long long margins[][3] = {
		{ 10, 3, 10 }, { 1, 0, 1 }, { 12, 12, 12 }, { 1000000, 1000, 1000000 },
		{ 10000000, 5000000, 10000000 }, { 5, 100, 100 }, { 3, 0, 100000 },
	};

	for (size_t i = 0; i < sizeof(margins) / sizeof(margins[0]); i++) {
		double p = stats_fisher_greater(0, margins[i][0], margins[i][1], margins[i][2]);

		T_ASSERT(p == 1.0, "0 of %lld vs %lld of %lld: p %.17g", margins[i][0], margins[i][1],
			 margins[i][2], p);
	}
}

/* With the runs fixed, p falls as the new deaths rise: strictly with the
 * deaths also fixed (a death moved from the baseline's side), and never
 * rises with the baseline's deaths fixed; where it is not 0 or 1 yet, to
 * the double's precision. From
 * `from` to `to` new deaths, every step. */
static void check_falls(long long n_new, long long n_base, long long deaths, long long from,
			long long to, long long step)
{
	double last = 2;

	for (long long k = from; k <= to && k <= deaths && k <= n_new; k += step) {
		double p = stats_fisher_greater(k, n_new, deaths - k, n_base);

		if (deaths - k > n_base)
			continue;
		T_ASSERT(p < last || (p == last && (p == 0 || p == 1)), "%lld of %lld vs %lld of %lld: p %.17g after %.17g",
			 k, n_new, deaths - k, n_base, p, last);
		last = p;
	}
	last = 2;
	for (long long k = from; k <= to && k <= n_new; k += step) {
		double p = stats_fisher_greater(k, n_new, from, n_base);

		T_ASSERT(p <= last * (1 + 1e-12), "%lld of %lld vs %lld of %lld: p %.17g after %.17g", k,
			 n_new, from, n_base, p, last);
		last = p;
	}
}

/* Read the other way round, a significant rise is a fall: its p is close
 * to 1. Exactly, p + p_swapped = 1 + the probability of the table seen. */
static void check_swapped(long long k_new, long long n_new, long long k_base, long long n_base)
{
	double p = stats_fisher_greater(k_new, n_new, k_base, n_base);
	double q = stats_fisher_greater(k_base, n_base, k_new, n_new);

	T_ASSERT(p < 0.01, "%lld of %lld vs %lld of %lld: p %.17g", k_new, n_new, k_base, n_base, p);
	T_ASSERT(q > 0.99 && p + q >= 1 - 1e-12, "swapped %lld of %lld vs %lld of %lld: p %.17g, "
		 "unswapped %.17g", k_base, n_base, k_new, n_new, q, p);
}

static void check_published(void)
{
	struct stats_interval w;
	double p = stats_fisher_greater(3, 4, 1, 4);

	/* Fisher's tea tasting: 3 cups of 4 told right, one-sided p = 17/70 */
	T_ASSERT(fabs(p - 17.0 / 70) <= 1e-12 * p, "tea tasting: p %.17g", p);
	/* the Wilson interval, as tabulated to 4 digits (Newcombe 1998) */
	w = stats_wilson(0, 10);
	T_ASSERT(w.low == 0 && fabs(w.high - 0.2775) < 0.00005, "0 of 10: [%g, %g]", w.low, w.high);
	w = stats_wilson(10, 10);
	T_ASSERT(fabs(w.low - 0.7225) < 0.00005 && w.high == 1, "10 of 10: [%g, %g]", w.low, w.high);
	w = stats_wilson(0, 0);
	T_ASSERT(w.low == 0 && w.high == 1, "0 of 0: [%g, %g]", w.low, w.high);
}

/* Each interval holds its rate, and k of n mirrors n - k of n. */
static void check_intervals(void)
{
	static const long long ns[] = { 1, 2, 7, 10, 12, 100, 999, 1000000, 10000000 };

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		long long n = ns[i];

		for (long long k = 0; k <= n; k += n > 100 ? n / 37 + 1 : 1) {
			struct stats_interval w = stats_wilson(k, n), m = stats_wilson(n - k, n);
			double rate = (double)k / (double)n;

			T_ASSERT(w.low >= 0 && w.low <= rate && rate <= w.high && w.high <= 1,
				 "%lld of %lld: [%.17g, %.17g]", k, n, w.low, w.high);
			T_ASSERT(fabs(w.low - (1 - m.high)) < 1e-12 && fabs(w.high - (1 - m.low)) < 1e-12,
				 "%lld of %lld: [%.17g, %.17g], mirrored [%.17g, %.17g]", k, n, w.low, w.high,
				 m.low, m.high);
		}
	}
}

/* Counts whose cross products are past a long long: the rates are still
 * compared exactly. And counts that make no sense say nothing. */
static void check_extremes(void)
{
	struct stats_comparison c;

	/* 3 * 4e18 overflows 64 bits */
	stats_compare(3, 4000000000000000000LL, 0, 4000000000000000000LL, &c);
	T_ASSERT(c.judgement == STATS_NOT_SIGNIFICANT && fabs(c.p_value - 0.125) < 1e-9,
		 "3 of 4e18 vs 0 of 4e18: %s, p %.17g", stats_judgement_name(c.judgement), c.p_value);
	/* 3e9 * 6e9 = 1.8e19 on both sides: equal, then one more */
	stats_compare(3000000000LL, 6000000000LL, 3000000000LL, 6000000000LL, &c);
	T_ASSERT(c.judgement == STATS_NO_RISE && fabs(c.p_value - 0.5) < 0.01,
		 "equal rates at 6e9: %s, p %.17g", stats_judgement_name(c.judgement), c.p_value);
	stats_compare(3000000001LL, 6000000000LL, 3000000000LL, 6000000000LL, &c);
	T_ASSERT(c.judgement == STATS_NOT_SIGNIFICANT, "one more at 6e9: %s",
		 stats_judgement_name(c.judgement));

	static const long long bad[][4] = {
		{ 5, 4, 0, 10 }, { 0, 10, 11, 10 }, { -1, 10, 0, 10 }, { 0, -10, 0, 10 },
		{ 3, 10, 0, -1 }, { 3, 10, -2, 10 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		stats_compare(bad[i][0], bad[i][1], bad[i][2], bad[i][3], &c);
		T_ASSERT(c.judgement == STATS_NO_RISE && c.p_value == 1.0 &&
				 stats_fisher_greater(bad[i][0], bad[i][1], bad[i][2], bad[i][3]) == 1.0,
			 "%lld of %lld vs %lld of %lld: %s, p %.17g", bad[i][0], bad[i][1], bad[i][2],
			 bad[i][3], stats_judgement_name(c.judgement), c.p_value);
	}
	struct stats_interval w = stats_wilson(11, 10);
	T_ASSERT(w.low == 0 && w.high == 1, "11 of 10: [%g, %g]", w.low, w.high);
	T_ASSERT(stats_judgement_name((enum stats_judgement)4) == NULL, "a fifth judgement named");
}

int main(void)
{
	const char *root = getenv("LASTWORDS_SOURCE_ROOT");
	char path[4096];
	int seen[4] = { 0 }, rows;

	snprintf(path, sizeof(path), "%s/fixtures/stats/rates.tsv", root ? root : ".");
	rows = check_table(path, seen);
	/* a table cut short, or one judgement never reached, would pass row by row */
	T_ASSERT(rows >= 90, "%s: %d rows", path, rows);
	for (int j = 0; j < 4; j++)
		T_ASSERT(seen[j] > 0, "%s: no row judged %s", path,
			 stats_judgement_name((enum stats_judgement)j));

	check_no_new_deaths();
	check_falls(20, 20, 15, 0, 15, 1);
	check_falls(100, 100, 10, 0, 10, 1);
	check_falls(1000000, 1000000, 2200, 1000, 1400, 1);
	check_falls(10000000, 10000000, 10000000, 4990000, 5010000, 100);
	check_swapped(30, 500, 0, 500);
	check_swapped(1200, 1000000, 1000, 1000000);
	check_swapped(5010000, 10000000, 4990000, 10000000);
	check_swapped(27, 60, 31, 3000);
	check_published();
	check_intervals();
	check_extremes();
	printf("%d rows of %s agree; the properties hold\n", rows, path);
	return T_PASS;
}
