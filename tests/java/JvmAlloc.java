import java.lang.management.ManagementFactory;

import dev.lastwords.CacheOp;
import dev.lastwords.ErrorClass;
import dev.lastwords.Mark;
import dev.lastwords.PayloadClass;
import dev.lastwords.PressureSource;
import dev.lastwords.Probe;
import dev.lastwords.Stage;

/*
 * The facade's event calls allocate nothing on the Java heap
 * (tests/jvm-allocation.py runs this with the JIT, without escape analysis,
 * and interpreted): the bytes this thread allocated
 * (com.sun.management.ThreadMXBean.getThreadAllocatedBytes) over a million
 * calls of each, on an open probe and on a closed one, less what reading
 * the counter itself costs.
 *
 * usage: JvmAlloc DIR CALLS [open|closed]
 * Measures on the open probe, then on the closed one, or on only the one
 * named. Prints one line per call, "CALL: N bytes over M calls", and exits
 * 1 when one allocated.
 */
public final class JvmAlloc {
	static final com.sun.management.ThreadMXBean MX =
			(com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
	static final long TID = Thread.currentThread().getId();

	interface Events {
		void run(Probe p, int n);
	}

	static long allocated() {
		return MX.getThreadAllocatedBytes(TID);
	}

	static int failures;

	/* Bytes that n calls allocated beyond the counter's own cost. */
	static void measure(String name, Probe p, int n, Events e) {
		e.run(p, n / 10); /* warm: classes loaded, code compiled */
		long overhead = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			long a = allocated();
			long b = allocated();
			overhead = Math.min(overhead, b - a);
		}
		long best = Long.MAX_VALUE;
		for (int i = 0; i < 3; i++) { /* the least of three: a GC's own bookkeeping aside */
			long a = allocated();
			e.run(p, n);
			long b = allocated();
			best = Math.min(best, b - a - overhead);
		}
		System.out.println(name + ": " + best + " bytes over " + n + " calls");
		if (best > 0)
			failures++;
	}

	public static void main(String[] args) throws Exception {
		if (!MX.isThreadAllocatedMemorySupported())
			throw new IllegalStateException("this JVM does not count allocated bytes");
		MX.setThreadAllocatedMemoryEnabled(true);
		final int n = Integer.parseInt(args[1]);
		final String name = "model-v7-int8";
		final String peer = "com.example.jvm:inference";
		Probe p = Probe.open(args[0], "com.example.jvm:inference", 1, 0, 20);
		p.sessionOpen(1, name);
		final String only = args.length > 2 ? args[2] : "";
		for (int round = 0; round < 2; round++) {
			String state = round == 0 ? "" : " (closed)";
			if (only.equals(round == 0 ? "closed" : "open")) {
				p.close();
				continue;
			}
			measure("begin/end" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++) {
					q.begin(Stage.INFERENCE);
					q.end(Stage.INFERENCE, ErrorClass.NONE);
				}
			});
			measure("sessionBegin/sessionEnd" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++) {
					q.sessionBegin(1, Stage.INFERENCE);
					q.sessionEnd(1, Stage.INFERENCE, ErrorClass.NONE);
				}
			});
			measure("sessionOpen/sessionClose" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++) {
					q.sessionOpen(2, name);
					q.sessionClose(2, ErrorClass.NONE);
				}
			});
			measure("payload/cache/receipt" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++) {
					q.payload(PayloadClass.IMAGE, i);
					q.cache(CacheOp.HIT, name);
					q.receipt(name, 0x5eedL);
				}
			});
			measure("mark" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++)
					q.mark(Mark.QUEUE_DEPTH, i);
			});
			measure("candidate" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++)
					q.candidate(name);
			});
			measure("peerDied" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++)
					q.peerDied(4242, peer);
			});
			measure("memoryGraphics+memoryPressure" + state, p, n, (q, k) -> {
				for (int i = 0; i < k; i++) {
					q.memoryGraphics(i);
					q.memoryPressure(PressureSource.TRIM, 40, 0, 0);
					q.memoryPressure(PressureSource.MEMORY_INFO, 1, i, 524288);
				}
			});
			measure("sampleMemory" + state, p, n / 10, (q, k) -> {
				for (int i = 0; i < k; i++)
					q.sampleMemory();
			});
			p.close();
		}
		System.exit(failures == 0 ? 0 : 1);
	}
}
