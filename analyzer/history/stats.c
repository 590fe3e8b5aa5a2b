/*
 * Fisher's exact test and the Wilson score interval (stats.h).
 *
 * The hypergeometric terms are found as Loader does ("Fast and accurate
 * computation of binomial probabilities", 2000; R's dbinom_raw() and
 * dhyper()): each binomial coefficient as Stirling's formula times its
 * error term, with the large parts, the deviances, computed so that they do
 * not cancel. The log of a term from lgamma() would not do: at 10 million
 * runs a side lgamma() is about 1.5e8, and its last bit alone is an error of
 * 1e-8 in the probability.
 */
#include "stats.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define LN_SQRT_2PI 0.918938533204672741780329736406 /* log(sqrt(2 pi)) */
#define LN_2PI 1.837877066409345483560659472811      /* log(2 pi) */

/* log(n!) - log(sqrt(2 pi n) (n/e)^n), the error of Stirling's formula,
 * for an integral n >= 1: the first terms of its series above 15, where
 * they give it to the double's precision; below, from log(n!) itself. */
static double stirlerr(double n)
{
	const double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680,
		     s4 = 1.0 / 1188;
	double nn = n * n, lf = 0;

	if (n <= 15) {
		for (double i = 2; i <= n; i++)
			lf += log(i);
		return lf - (n + 0.5) * log(n) + n - LN_SQRT_2PI;
	}
	if (n > 500)
		return (s0 - s1 / nn) / n;
	if (n > 80)
		return (s0 - (s1 - s2 / nn) / nn) / n;
	if (n > 35)
		return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
	return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

/* x log(x / np) + np - x, the deviance of x from np, for x > 0 and np > 0;
 * near np by its series, where the plain form would cancel to nothing. */
static double bd0(double x, double np)
{
	if (fabs(x - np) < 0.1 * (x + np)) {
		double v = (x - np) / (x + np), s = (x - np) * v, ej = 2 * x * v;

		v *= v;
		for (int j = 1; j < 1000; j++) {
			double s1;

			ej *= v;
			s1 = s + ej / (2 * j + 1);
			if (s1 == s)
				return s1;
			s = s1;
		}
	}
	return x * log(x / np) + np - x;
}

/* The log of the binomial probability of x in n at p (q = 1 - p, given
 * apart so that it keeps its precision), 0 <= x <= n, 0 < p < 1. */
static double log_binom(double x, double n, double p, double q)
{
	if (x == 0)
		return p < 0.1 ? -bd0(n, n * q) - n * p : n * log(q);
	if (x == n)
		return q < 0.1 ? -bd0(n, n * p) - n * q : n * log(p);
	return stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q)
	       - 0.5 * (LN_2PI + log(x) + log1p(-x / n));
}

/* The probability of x white among n drawn from white and black:
 * C(white, x) C(black, n - x) / C(white + black, n), for 0 < n <
 * white + black and x in the support. The three binomials at p = n / (white
 * + black) make it, whatever p; this p puts the last at its mode. */
static double hypergeometric(double x, double white, double black, double n)
{
	double all = white + black, p = n / all, q = (all - n) / all;

	return exp(log_binom(x, white, p, q) + log_binom(n - x, black, p, q)
		   - log_binom(n, all, p, q));
}

static int counts_valid(long long k, long long n)
{
	return n >= 0 && k >= 0 && k <= n;
}

struct stats_interval stats_wilson(long long k, long long n)
{
	const double z2 = STATS_Z * STATS_Z;
	struct stats_interval out = { 0, 1 };
	double dk = (double)k, dn = (double)n, a, b;

	if (!counts_valid(k, n) || n == 0)
		return out;
	/* The bounds are (a -+ b) / (2 (n + z^2)); the low one as
	 * 2 k^2 / (n (a + b)), the same by (a - b)(a + b) = 4 k^2 (n + z^2) / n,
	 * so that it does not cancel at few deaths. */
	a = 2 * dk + z2;
	b = STATS_Z * sqrt(z2 + 4 * dk * ((dn - dk) / dn));
	out.low = 2 * dk * dk / (dn * (a + b));
	out.high = k == n ? 1 : fmin(1, (a + b) / (2 * (dn + z2)));
	return out;
}

double stats_fisher_greater(long long k_new, long long n_new, long long k_base, long long n_base)
{
	double deaths, runs, draws, alive, x, lo, hi, t, sum;

	if (!counts_valid(k_new, n_new) || !counts_valid(k_base, n_base))
		return 1.0;
	deaths = (double)k_new + (double)k_base;
	runs = (double)n_new + (double)n_base;
	draws = (double)n_new;
	alive = runs - deaths;
	x = (double)k_new;
	lo = fmax(0, draws - alive);
	hi = fmin(deaths, draws);
	/* No runs on a side, no deaths, or no one alive: every table with these
	 * margins is the one seen. At the bottom of the support, the tail is
	 * all of it. */
	if (n_new == 0 || n_base == 0 || deaths == 0 || alive == 0 || x <= lo)
		return 1.0;

	/* The terms fall away from the mode on either side (the distribution
	 * is log-concave). From the mode up, sum the tail itself, from its
	 * largest term; below it, the tail is more than about half, and is 1
	 * less the terms below x, also summed from their largest. Either walk
	 * stops when its terms no longer change the sum: a few times the
	 * standard deviation, about sqrt(n) terms. */
	t = hypergeometric(x, deaths, alive, draws);
	if ((deaths - x) * (draws - x) <= (x + 1) * (alive - draws + x + 1)) {
		/* pmf(x + 1) <= pmf(x): at the mode or above it */
		sum = t;
		for (double i = x; i < hi; i++) {
			t *= (deaths - i) * (draws - i) / ((i + 1) * (alive - draws + i + 1));
			if (sum + t == sum)
				break;
			sum += t;
		}
	} else {
		double below = 0;

		for (double i = x; i > lo; i--) {
			/* pmf(i - 1) from pmf(i) */
			t *= i * (alive - draws + i) / ((deaths - i + 1) * (draws - i + 1));
			if (below + t == below)
				break;
			below += t;
		}
		sum = 1 - below;
	}
	return fmin(1, fmax(0, sum));
}

/* a * b as 128 bits, in two 64-bit halves: C11 has no wider integer. */
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);

	*lo = (mid << 32) | (ll & 0xffffffffu);
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* a * b > c * d, exactly, for a, b, c, d >= 0, whatever the counts: their
 * products may be past a long long. */
static int product_greater(long long a, long long b, long long c, long long d)
{
	uint64_t h1, l1, h2, l2;

	mul128((uint64_t)a, (uint64_t)b, &h1, &l1);
	mul128((uint64_t)c, (uint64_t)d, &h2, &l2);
	return h1 > h2 || (h1 == h2 && l1 > l2);
}

void stats_compare(long long k_new, long long n_new, long long k_base, long long n_base,
		   struct stats_comparison *out)
{
	int valid = counts_valid(k_new, n_new) && counts_valid(k_base, n_base);

	out->p_value = stats_fisher_greater(k_new, n_new, k_base, n_base);
	out->now = stats_wilson(k_new, n_new);
	out->base = stats_wilson(k_base, n_base);
	if (!valid || !product_greater(k_new, n_base, k_base, n_new))
		out->judgement = STATS_NO_RISE;
	else if (n_new < STATS_MIN_RUNS || n_base < STATS_MIN_RUNS || k_new < STATS_MIN_DEATHS)
		out->judgement = STATS_TOO_FEW;
	else if (out->p_value >= STATS_ALPHA)
		out->judgement = STATS_NOT_SIGNIFICANT;
	else
		out->judgement = STATS_REGRESSION;
}

const char *stats_judgement_name(enum stats_judgement j)
{
	static const char *const names[] = {
		[STATS_NO_RISE] = "no_rise",
		[STATS_TOO_FEW] = "not_enough_runs",
		[STATS_NOT_SIGNIFICANT] = "not_significant",
		[STATS_REGRESSION] = "regression",
	};

	if ((unsigned)j >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[j];
}
