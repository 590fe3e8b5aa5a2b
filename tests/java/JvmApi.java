import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.lastwords.Advice;
import dev.lastwords.AdviceKind;
import dev.lastwords.CacheOp;
import dev.lastwords.ErrorClass;
import dev.lastwords.Mark;
import dev.lastwords.PayloadClass;
import dev.lastwords.PressureSource;
import dev.lastwords.Probe;
import dev.lastwords.Stage;

/*
 * The facade's contract on a JVM (tests/jvm-api.py): what each call
 * returns, the exceptions of bad use and the argument each names, a closed
 * probe that ignores events (and which calls throw after close), close
 * twice, close while other threads record, anonymous memory, candidate
 * names in UTF-8 as String.getBytes() encodes them, and readAdvice().
 *
 * usage: JvmApi DIR
 * Prints "FAIL: ..." per failure, "digest HEX" for each candidate it
 * records in the first run, in order (the driver finds them in the ring),
 * "ring PATH" for that run, "peer PID HEX" for the peer_died mark it
 * records there (a pid and the digest of the peer's name), and "ok N
 * checks" at the end; exits 1 on a failure.
 */
public final class JvmApi {
	static int checks, failures;

	interface Call {
		void run() throws Exception;
	}

	static void check(boolean ok, String what) {
		checks++;
		if (!ok) {
			failures++;
			System.out.println("FAIL: " + what);
		}
	}

	/* call throws a t whose message holds fragment. */
	static void expect(Class<? extends Throwable> t, String fragment, String what, Call call) {
		try {
			call.run();
			check(false, what + ": no exception, expected " + t.getSimpleName());
		} catch (Throwable e) {
			check(t.isInstance(e) && e.getMessage() != null && e.getMessage().contains(fragment),
					what + ": " + e + ", expected " + t.getSimpleName() + " naming '" + fragment + "'");
		}
	}

	static void quiet(String what, Call call) {
		try {
			call.run();
			check(true, what);
		} catch (Throwable e) {
			check(false, what + ": " + e);
		}
	}

	/* 64-bit FNV-1a over the UTF-8 of s, as getBytes() gives it. */
	static long fnv(String s) {
		long h = 0xcbf29ce484222325L;
		for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
			h ^= b & 0xff;
			h *= 0x100000001b3L;
		}
		return h;
	}

	static String repeat(String s, int n) {
		StringBuilder b = new StringBuilder();
		for (int i = 0; i < n; i++)
			b.append(s);
		return b.toString();
	}

	public static void main(String[] args) throws Exception {
		final String dir = args[0];
		final String proc = "com.example.jvm:inference";

		expect(NullPointerException.class, "dir", "open(null dir)", () -> Probe.open(null, proc, 1, 0, 0));
		expect(NullPointerException.class, "processName", "open(null processName)",
				() -> Probe.open(dir, null, 1, 0, 0));
		expect(IllegalArgumentException.class, "processName", "open(empty processName)",
				() -> Probe.open(dir, "", 1, 0, 0));
		expect(IllegalArgumentException.class, "processName", "open(64-byte processName)",
				() -> Probe.open(dir, repeat("p", 64), 1, 0, 0));
		expect(IllegalArgumentException.class, "processName", "open(processName with U+0000)",
				() -> Probe.open(dir, "a\0b", 1, 0, 0));
		expect(IllegalArgumentException.class, "dir", "open(dir with U+0000)",
				() -> Probe.open(dir + "\0x", proc, 1, 0, 0));
		expect(IllegalArgumentException.class, "memoryBudgetKb", "open(negative budget)",
				() -> Probe.open(dir, proc, 1, -1, 0));
		expect(IllegalArgumentException.class, "samplerPeriodMs", "open(negative period)",
				() -> Probe.open(dir, proc, 1, 0, -5));

		/* Probe.Config: each argument checked at the call that gives it. */
		final File dirFile = new File(dir);
		expect(NullPointerException.class, "dir", "Config.builder(null dir)",
				() -> Probe.Config.builder(null, proc));
		expect(NullPointerException.class, "processName", "Config.builder(null processName)",
				() -> Probe.Config.builder(dirFile, null));
		expect(IllegalArgumentException.class, "processName", "Config.builder(empty processName)",
				() -> Probe.Config.builder(dirFile, ""));
		expect(IllegalArgumentException.class, "processName", "Config.builder(64-byte processName)",
				() -> Probe.Config.builder(dirFile, repeat("p", 64)));
		expect(IllegalArgumentException.class, "dir", "Config.builder(dir with U+0000)",
				() -> Probe.Config.builder(new File(dir + "\0x"), proc));
		expect(IllegalArgumentException.class, "memoryBudgetKb", "Config memoryBudgetKb(-1)",
				() -> Probe.Config.builder(dirFile, proc).memoryBudgetKb(-1));
		expect(IllegalArgumentException.class, "samplerPeriodMs", "Config samplerPeriodMs(-5)",
				() -> Probe.Config.builder(dirFile, proc).samplerPeriodMs(-5));
		expect(NullPointerException.class, "config", "open(null config)",
				() -> Probe.open((Probe.Config) null));
		Probe.Config.Builder builder = Probe.Config.builder(dirFile, proc).appVersion(7)
				.memoryBudgetKb(256 * 1024).samplerPeriodMs(20);
		final Probe.Config config = builder.build();
		Probe.Config other = builder.memoryBudgetKb(1).build();
		check(config.dir().equals(dirFile) && config.processName().equals(proc)
				&& config.appVersion() == 7 && config.memoryBudgetKb() == 256 * 1024
				&& config.samplerPeriodMs() == 20, "Config keeps what was set: " + config);
		check(other.memoryBudgetKb() == 1 && config.memoryBudgetKb() == 256 * 1024,
				"a built Config does not change with its builder: " + config + ", " + other);
		Probe.Config unset = Probe.Config.builder(dirFile, proc).build();
		check(unset.appVersion() == 0 && unset.memoryBudgetKb() == 0 && unset.samplerPeriodMs() == 0,
				"unset numbers are 0: " + unset);

		/* readAdvice(): no run yet, bad arguments, a missing directory. */
		check(Probe.readAdvice(dir, proc) == null, "readAdvice() before any run is null");
		expect(NullPointerException.class, "dir", "readAdvice(null dir)", () -> Probe.readAdvice(null, proc));
		expect(NullPointerException.class, "processName", "readAdvice(null processName)",
				() -> Probe.readAdvice(dir, null));
		expect(IllegalArgumentException.class, "processName", "readAdvice(empty processName)",
				() -> Probe.readAdvice(dir, ""));
		expect(IllegalArgumentException.class, "dir", "readAdvice(dir with U+0000)",
				() -> Probe.readAdvice(dir + "\0x", proc));
		expect(java.io.IOException.class, "errno 2", "readAdvice(missing dir)",
				() -> Probe.readAdvice(dir + "/missing", proc));

		/* The first probe through its Config (the ring's header is checked
		 * by jvm-api.py: version 7, budget 256 MiB, a sampler thread); the
		 * others through the shorthand. */
		final Probe p = Probe.open(config);
		System.out.println("ring " + p.path());
		Advice live = Probe.readAdvice(dir, proc);
		check(live != null && live.kind() == AdviceKind.NONE,
				"readAdvice() beside this live run is none: " + live);
		check(p.runId().matches("[0-9a-f]{32}"), "runId() is 32 hex digits: " + p.runId());
		check(!p.anonymous(), "anonymous() is false with a file");
		check(p.nativeHandle() != 0, "nativeHandle() is the C probe");
		check(p.path().startsWith(dir + "/" + proc + ".") && p.path().endsWith(".lwr"),
				"path() is the ring in dir: " + p.path());
		check(p.toString().contains(p.runId()), "toString() names the run: " + p);
		expect(IllegalStateException.class, "one per process", "a second open while one is open",
				() -> Probe.open(dir, proc, 7, 0, 0));

		Advice a = p.advice();
		check(a.kind() == AdviceKind.NONE && a.stage() == Stage.NONE && a.count() == 0
				&& a.candidate() == 0, "a first run's advice is none: " + a);

		expect(NullPointerException.class, "stage", "begin(null)", () -> p.begin(null));
		expect(IllegalArgumentException.class, "stage", "begin(NONE)", () -> p.begin(Stage.NONE));
		expect(NullPointerException.class, "stage", "end(null, NONE)", () -> p.end(null, ErrorClass.NONE));
		expect(IllegalArgumentException.class, "stage", "end(NONE, NONE)",
				() -> p.end(Stage.NONE, ErrorClass.NONE));
		expect(NullPointerException.class, "error", "end(LOAD, null)", () -> p.end(Stage.LOAD, null));
		expect(NullPointerException.class, "mark", "mark(null, 1)", () -> p.mark(null, 1));
		expect(NullPointerException.class, "name", "candidate(null)", () -> p.candidate(null));
		expect(IllegalArgumentException.class, "empty", "candidate(\"\")", () -> p.candidate(""));
		expect(IllegalArgumentException.class, "U+0000", "candidate(with U+0000)",
				() -> p.candidate("model\0v7"));
		expect(IllegalArgumentException.class, "1023", "candidate(1024 bytes)",
				() -> p.candidate(repeat("x", 1024)));
		expect(IllegalArgumentException.class, "1023", "candidate(342 three-byte chars)",
				() -> p.candidate(repeat("\u20ac", 342)));
		expect(NullPointerException.class, "processName", "peerDied(1, null)", () -> p.peerDied(1, null));
		expect(IllegalArgumentException.class, "processName", "peerDied(1, \"\")", () -> p.peerDied(1, ""));
		expect(IllegalArgumentException.class, "pid", "peerDied(0, name)", () -> p.peerDied(0, proc));
		expect(IllegalArgumentException.class, "pid", "peerDied(-5, name)", () -> p.peerDied(-5, proc));
		expect(IllegalArgumentException.class, "processName holds U+0000", "peerDied(with U+0000)",
				() -> p.peerDied(1, "a\0b"));
		expect(IllegalArgumentException.class, "processName is longer than 1023", "peerDied(1024 bytes)",
				() -> p.peerDied(1, repeat("x", 1024)));
		expect(IllegalArgumentException.class, "peerDied", "mark(PEER_DIED, 1)",
				() -> p.mark(Mark.PEER_DIED, 1));
		expect(IllegalArgumentException.class, "own call", "mark(PAYLOAD, 1)", () -> p.mark(Mark.PAYLOAD, 1));
		expect(IllegalArgumentException.class, "own call", "mark(CACHE, 1)", () -> p.mark(Mark.CACHE, 1));
		expect(IllegalArgumentException.class, "own call", "mark(RECEIPT, 1)", () -> p.mark(Mark.RECEIPT, 1));
		expect(IllegalArgumentException.class, "kb", "memoryGraphics(-1)", () -> p.memoryGraphics(-1));
		expect(NullPointerException.class, "source", "memoryPressure(null, ...)",
				() -> p.memoryPressure(null, 0, 0, 0));
		expect(IllegalArgumentException.class, "level", "memoryPressure(TRIM, -1, 0, 0)",
				() -> p.memoryPressure(PressureSource.TRIM, -1, 0, 0));
		expect(IllegalArgumentException.class, "availKb", "memoryPressure(MEMORY_INFO, 0, -1, 0)",
				() -> p.memoryPressure(PressureSource.MEMORY_INFO, 0, -1, 0));
		expect(IllegalArgumentException.class, "thresholdKb", "memoryPressure(MEMORY_INFO, 0, 0, -1)",
				() -> p.memoryPressure(PressureSource.MEMORY_INFO, 0, 0, -1));
		/* Sessions: ids, names and states. */
		expect(IllegalArgumentException.class, "session 0", "sessionOpen(0, name)",
				() -> p.sessionOpen(0, "m"));
		expect(IllegalArgumentException.class, "session 16", "sessionOpen(16, name)",
				() -> p.sessionOpen(Probe.SESSIONS_MAX, "m"));
		expect(IllegalArgumentException.class, "session -1", "sessionBegin(-1, LOAD)",
				() -> p.sessionBegin(-1, Stage.LOAD));
		expect(IllegalArgumentException.class, "session 16", "sessionEnd(16, LOAD, NONE)",
				() -> p.sessionEnd(16, Stage.LOAD, ErrorClass.NONE));
		expect(IllegalArgumentException.class, "session 0", "sessionClose(0, NONE)",
				() -> p.sessionClose(0, ErrorClass.NONE));
		expect(NullPointerException.class, "candidate", "sessionOpen(1, null)", () -> p.sessionOpen(1, null));
		expect(IllegalArgumentException.class, "empty", "sessionOpen(1, \"\")", () -> p.sessionOpen(1, ""));
		expect(IllegalArgumentException.class, "U+0000", "sessionOpen(with U+0000)",
				() -> p.sessionOpen(1, "a\0"));
		expect(NullPointerException.class, "result", "sessionClose(1, null)", () -> p.sessionClose(1, null));
		expect(IllegalArgumentException.class, "stage", "sessionBegin(1, NONE)",
				() -> p.sessionBegin(1, Stage.NONE));
		expect(IllegalStateException.class, "not open", "sessionBegin(3, LOAD) never opened",
				() -> p.sessionBegin(3, Stage.LOAD));
		expect(IllegalStateException.class, "not open", "sessionClose(3, NONE) never opened",
				() -> p.sessionClose(3, ErrorClass.NONE));
		quiet("sessionOpen(3, name)", () -> p.sessionOpen(3, "model-a"));
		expect(IllegalStateException.class, "is open", "sessionOpen(3, name) twice",
				() -> p.sessionOpen(3, "model-b"));
		quiet("a session's stages, then its close", () -> {
			p.sessionBegin(3, Stage.LOAD);
			p.sessionEnd(3, Stage.LOAD, ErrorClass.NONE);
			p.sessionBegin(0, Stage.LOAD);
			p.sessionEnd(0, Stage.LOAD, ErrorClass.NONE);
			p.sessionClose(3, ErrorClass.NONE);
			p.sessionOpen(3, "model-b");
		});
		expect(NullPointerException.class, "payloadClass", "payload(null, 1)", () -> p.payload(null, 1));
		expect(IllegalArgumentException.class, "negative", "payload(TEXT, -1)",
				() -> p.payload(PayloadClass.TEXT, -1));
		expect(NullPointerException.class, "op", "cache(null, key)", () -> p.cache(null, "k"));
		expect(NullPointerException.class, "key", "cache(HIT, null)", () -> p.cache(CacheOp.HIT, null));
		expect(IllegalArgumentException.class, "empty", "cache(HIT, \"\")", () -> p.cache(CacheOp.HIT, ""));
		expect(IllegalArgumentException.class, "key holds U+0000", "cache(with U+0000)",
				() -> p.cache(CacheOp.HIT, "a\0"));
		expect(NullPointerException.class, "candidate", "receipt(null, 1)", () -> p.receipt(null, 1));
		expect(IllegalArgumentException.class, "filesDigest is 0", "receipt(name, 0)",
				() -> p.receipt("m", 0));
		quiet("payload, cache, receipt", () -> {
			p.payload(PayloadClass.AUDIO, 1000);
			p.cache(CacheOp.REBUILD, "model-b/gpu-graph");
			p.receipt("model-b", 0x5eedL);
			p.mark(Mark.IN_FLIGHT, 2);
		});
		expect(NullPointerException.class, "name", "digest(null)", () -> Probe.digest(null));
		expect(IllegalArgumentException.class, "U+0000", "digest(with U+0000)", () -> Probe.digest("a\0"));

		/* Names as getBytes(UTF_8) encodes them: pairs, lone halves as '?'. */
		List<String> names = new ArrayList<>();
		names.add("model-v7-int8");
		names.add("mod\u00e8le-\u00e9t\u00e9");
		names.add("\u6a21\u578b-v2");
		names.add("emoji-\ud83d\ude00-pair");
		names.add("lone-\ud800-high");
		names.add("lone-\udc00-low");
		names.add("ends-high-\ud800");
		names.add("\ud800\ud800\ude00");
		names.add(repeat("x", 1023));
		names.add(repeat("\u20ac", 341));
		names.add(repeat("y", 127) + "\ud83d\ude00" + repeat("z", 300)); /* a pair across jni.c's chunks */
		names.add(repeat("y", 127) + "\ud83d" + repeat("z", 300)); /* a lone half at a chunk's end */
		for (String n : names) {
			check(Probe.digest(n) == fnv(n), "digest() is FNV-1a of getBytes(UTF_8) for "
					+ n.substring(0, Math.min(n.length(), 20)));
			p.candidate(n);
			System.out.println("digest " + Long.toHexString(fnv(n)));
		}
		check(Probe.digest("model-v7-int8") == 0xfe8ac61551f2ed92L, "digest(model-v7-int8)");

		quiet("stages, marks and memory on an open probe", () -> {
			p.begin(Stage.LOAD);
			p.end(Stage.LOAD, ErrorClass.NONE);
			p.begin(Stage.INFERENCE);
			p.mark(Mark.QUEUE_DEPTH, 3);
			p.mark(Mark.BUDGET, -1L); /* stored unsigned */
			p.peerDied(4242, "com.example.jvm:inf\u00e9rence");
			p.sampleMemory();
			p.end(Stage.INFERENCE, ErrorClass.TIMEOUT);
		});
		System.out.println("peer 4242 " + Long.toHexString(fnv("com.example.jvm:inf\u00e9rence")));
		check(p.sync(), "sync() of a file ring is true");
		quiet("resetAdvice()", p::resetAdvice);
		String runId = p.runId(), path = p.path();

		p.close();
		quiet("events after close are ignored", () -> {
			p.begin(Stage.LOAD);
			p.end(Stage.LOAD, ErrorClass.NONE);
			p.mark(Mark.SESSIONS, 1);
			p.peerDied(4243, "after-close");
			p.candidate("after-close");
			p.sampleMemory();
			p.memoryGraphics(1);
			p.memoryPressure(PressureSource.TRIM, 40, 0, 0);
			p.sessionOpen(5, "after-close");
			p.sessionBegin(5, Stage.LOAD);
			p.sessionEnd(5, Stage.LOAD, ErrorClass.NONE);
			p.sessionClose(5, ErrorClass.NONE);
			p.payload(PayloadClass.TEXT, 1);
			p.cache(CacheOp.MISS, "k");
			p.receipt("m", 1);
			p.resetAdvice();
		});
		check(!p.sync(), "sync() after close is false");
		expect(IllegalStateException.class, "closed", "advice() after close", p::advice);
		expect(IllegalStateException.class, "closed", "installCrashHandler() after close",
				p::installCrashHandler);
		check(runId.equals(p.runId()) && path.equals(p.path()), "runId() and path() after close");
		check(p.toString().contains("closed"), "toString() says closed: " + p);
		quiet("close() twice", p::close);
		expect(NullPointerException.class, "stage", "begin(null) after close", () -> p.begin(null));
		expect(IllegalArgumentException.class, "U+0000", "candidate(with U+0000) after close",
				() -> p.candidate("a\0"));
		expect(IllegalArgumentException.class, "U+0000", "peerDied(with U+0000) after close",
				() -> p.peerDied(1, "a\0"));
		expect(IllegalArgumentException.class, "pid", "peerDied(0, name) after close",
				() -> p.peerDied(0, proc));

		/* Close while four threads record: none throws, nothing crashes. */
		final Probe q = Probe.open(dir, proc, 7, 0, 20);
		check(!q.runId().equals(runId), "a probe opened again has a new run id");
		final Throwable[] thrown = new Throwable[1];
		Thread[] threads = new Thread[4];
		for (int t = 0; t < threads.length; t++) {
			threads[t] = new Thread(() -> {
				try {
					for (int i = 0; i < 200000; i++) {
						q.begin(Stage.INFERENCE);
						q.mark(Mark.QUEUE_DEPTH, i);
						q.end(Stage.INFERENCE, ErrorClass.NONE);
						if (i % 1000 == 0)
							q.candidate("model-" + (i % 3));
					}
				} catch (Throwable e) {
					thrown[0] = e;
				}
			});
			threads[t].start();
		}
		Thread.sleep(50);
		q.close();
		for (Thread t : threads)
			t.join();
		check(thrown[0] == null, "events racing close(): " + thrown[0]);
		Advice read = Probe.readAdvice(dir, proc);
		check(read != null && read.kind() == AdviceKind.NONE && read.count() == 0,
				"readAdvice() after clean runs is none: " + read);

		/* No file where the dir cannot be made: anonymous memory. */
		Probe anon = Probe.open(dir + "/missing/and/deeper", proc, 7, 0, 0);
		check(anon.anonymous() && anon.path().isEmpty(), "anonymous() and path() \"\" without a file: "
				+ anon);
		check(!anon.sync(), "sync() of an anonymous ring is false");
		anon.begin(Stage.LOAD);
		anon.close();

		System.out.println("ok " + checks + " checks");
		System.exit(failures == 0 ? 0 : 1);
	}
}
