import java.util.Arrays;

import dev.lastwords.ErrorClass;
import dev.lastwords.Probe;
import dev.lastwords.Stage;

/*
 * bench-jni: what a stage event costs through the Java facade (Probe.begin
 * and Probe.end, JNI), against the same C calls (lw_stage_begin/end) made
 * from C in the same run, on the same probe (tests/bench-jni.py runs it).
 * The target: no more than 3x the C call.
 *
 * Method: rounds of one repetition per row (EVENTS events, begin and end
 * alternating, as bench-probe's "sampler thread" row), the rows' order
 * alternating between rounds, after a warm-up long enough for the JIT to
 * compile the Java loop; each row reports the median of its repetitions,
 * and the ratio is the median of the per-round ratios. A row of a native
 * method that only returns gives the JNI transition's own cost.
 *
 * Prints figures; never asserts on time. Exits 1 only if a call fails.
 *
 * usage: BenchJni DIR
 */
public final class BenchJni {
	static final int EVENTS = 1 << 14;
	static final int ROUNDS = 61;
	static final double TARGET = 3.0;

	static long java(Probe p, int n) {
		long t0 = System.nanoTime();
		for (int i = 0; i < n; i += 2) {
			p.begin(Stage.INFERENCE);
			p.end(Stage.INFERENCE, ErrorClass.NONE);
		}
		return System.nanoTime() - t0;
	}

	static long transition(long lw, int n) {
		long t0 = System.nanoTime();
		for (int i = 0; i < n; i++)
			TestNative.nop(lw, i & 7);
		return System.nanoTime() - t0;
	}

	static double median(double[] v) {
		double[] s = v.clone();
		Arrays.sort(s);
		return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
	}

	static void row(String name, double[] ns, double[] ratio) {
		double[] s = ns.clone();
		Arrays.sort(s);
		System.out.printf("  %-52s %8.1f %7.1f-%-7.1f %7.2fx%n", name, median(ns), s[0], s[s.length - 1],
				median(ratio));
	}

	public static void main(String[] args) throws Exception {
		Probe p = Probe.open(args[0], "bench.jni", 1, 0, 20);
		long lw = p.nativeHandle();
		System.out.println("bench-jni: " + System.getProperty("java.vm.name") + " "
				+ System.getProperty("java.vm.version") + ", C "
				+ (TestNative.optimized() ? "optimized" : "UNOPTIMIZED (figures not representative)")
				+ ", " + Runtime.getRuntime().availableProcessors() + " CPUs");
		System.out.println("method: " + ROUNDS + " rounds of one repetition per row (" + EVENTS
				+ " stage events, begin and end alternating, sampler thread 20 ms), rows' order"
				+ " alternating; medians; x C: median of the per-round ratios to the C call");

		/* Warm-up: the JIT compiles the loops (C2 after some 10k calls). */
		long until = System.nanoTime() + 2000000000L;
		while (System.nanoTime() < until) {
			java(p, EVENTS);
			TestNative.stagesC(lw, EVENTS);
			transition(lw, EVENTS);
		}

		double[] c = new double[ROUNDS], j = new double[ROUNDS], t = new double[ROUNDS];
		double[] rj = new double[ROUNDS], rt = new double[ROUNDS], one = new double[ROUNDS];
		for (int r = 0; r < ROUNDS; r++) {
			if (r % 2 == 0) {
				c[r] = TestNative.stagesC(lw, EVENTS) / (double) EVENTS;
				j[r] = java(p, EVENTS) / (double) EVENTS;
			} else {
				j[r] = java(p, EVENTS) / (double) EVENTS;
				c[r] = TestNative.stagesC(lw, EVENTS) / (double) EVENTS;
			}
			t[r] = transition(lw, EVENTS) / (double) EVENTS;
			rj[r] = j[r] / c[r];
			rt[r] = t[r] / c[r];
			one[r] = 1;
		}
		System.out.printf("  %-52s %8s %15s %8s%n", "stage event, ns per event", "median", "min-max",
				"x C");
		row("C: lw_stage_begin/end (from C, same probe)", c, one);
		row("Java: Probe.begin/end (JNI)", j, rj);
		row("  of which the JNI transition (a native that returns)", t, rt);
		double ratio = median(rj);
		System.out.printf("  target: a stage event from Java <= %.1fx the C call: %s (%.2fx: %.1f ns"
				+ " against %.1f ns)%n", TARGET, ratio <= TARGET ? "met" : "not met", ratio, median(j),
				median(c));
		p.close();
	}
}
