/*
 * The statistics behind a regression (issue 25): whether a death rate that
 * rose from a baseline (the candidate or app version before) rose by more
 * than chance, and the interval of each rate.
 *
 * The test is Fisher's exact test on the 2x2 table (deaths and runs of the
 * newer group and of the baseline), one-sided: only a rise is a regression,
 * and a fall is never one. It holds at any count, with no large-sample
 * approximation: history compares a candidate of 12 runs as well as an app
 * version of a million. Each rate carries its Wilson score interval, which,
 * unlike the normal (Wald) interval, is neither empty at 0 deaths nor
 * outside [0, 1] near it.
 *
 * The thresholds:
 * - STATS_ALPHA 0.05, one-sided: the usual significance, for a question
 *   that has one direction (did the deaths rise?).
 * - STATS_MIN_RUNS 10 on each side: below that, a rate moves by 10% or
 *   more with one run, and the groups say more about which runs happened
 *   to be stored than about the release.
 * - STATS_MIN_DEATHS 3 in the newer group: one death in 12 runs is not a
 *   trend, and the second seed warns against escalating one ordinary
 *   failure into a systemic conclusion; with one or two deaths the test can
 *   still come out below 0.05 against a large clean baseline (1 of 1 vs 0
 *   of 100 is p 0.0099), so the deaths are counted too.
 * - Nothing is asked of the baseline's deaths: a rise from 0 of 500 to 30
 *   of 500 is real (p 6e-10), and a baseline without deaths is the
 *   common case.
 * A rise that misses a threshold is "not enough runs to tell", never a
 * regression and never silence.
 *
 * Counts are those of a group's runs and of its deaths among them, with
 * 0 <= k <= n. Counts outside that (a caller's error) say nothing: an
 * interval of {0, 1}, a p_value of 1 and no rise. Never prints, never
 * allocates, never blocks; each function is thread-safe.
 */
#ifndef LW_ANALYZER_HISTORY_STATS_H
#define LW_ANALYZER_HISTORY_STATS_H

#define STATS_Z 1.959963984540054 /* the two-sided 95% interval's z */
#define STATS_ALPHA 0.05          /* the one-sided test's significance */
#define STATS_MIN_RUNS 10         /* runs on each side before a rise can be told */
#define STATS_MIN_DEATHS 3        /* deaths in the newer group before a rise can be told */

struct stats_interval {
	double low, high; /* of a rate, in [0, 1] */
};

/* The Wilson score interval (95%, STATS_Z) of k deaths in n runs; n == 0
 * gives {0, 1}. 0 deaths give a low of exactly 0 and n deaths a high of
 * exactly 1. */
struct stats_interval stats_wilson(long long k, long long n);

/* Fisher's exact test, one-sided (greater): the probability, with both
 * groups' margins fixed, that the newer group has k_new or more of the
 * k_new + k_base deaths, when its n_new runs and the baseline's n_base are
 * alike. 1.0 when nothing can be said (no runs, no deaths). Accurate to
 * about 1e-12 relative at any count, in a time that grows with the square
 * root of the counts, not with the counts (10 million runs a side take
 * microseconds). */
double stats_fisher_greater(long long k_new, long long n_new, long long k_base, long long n_base);

enum stats_judgement {
	STATS_NO_RISE,         /* the newer rate is not above the baseline's */
	STATS_TOO_FEW,         /* above, but fewer than STATS_MIN_RUNS on a side or STATS_MIN_DEATHS new deaths */
	STATS_NOT_SIGNIFICANT, /* above, enough runs, p_value >= STATS_ALPHA */
	STATS_REGRESSION,      /* above, enough runs, p_value < STATS_ALPHA */
};

struct stats_comparison {
	enum stats_judgement judgement;
	double p_value;                  /* stats_fisher_greater(); computed for every judgement */
	struct stats_interval now, base; /* stats_wilson() of each side */
};

/* Compare k_new of n_new with k_base of n_base. The rates are compared
 * exactly, as k_new * n_base > k_base * n_new in integers: a side without
 * runs has no rate to be above, and gives STATS_NO_RISE. */
void stats_compare(long long k_new, long long n_new, long long k_base, long long n_base,
		   struct stats_comparison *out);

/* "no_rise", "not_enough_runs", "not_significant", "regression"; NULL for
 * a value that is none of these. Static storage. */
const char *stats_judgement_name(enum stats_judgement j);

#endif
