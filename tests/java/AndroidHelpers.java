import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.Charset;

import android.app.ApplicationExitInfo;
import android.os.Build;

import dev.lastwords.ErrorClass;
import dev.lastwords.Mark;
import dev.lastwords.Probe;
import dev.lastwords.Stage;
import dev.lastwords.android.Collector;
import dev.lastwords.android.ExitInfoExporter;
import dev.lastwords.android.ProcessStateSummary;

/*
 * The Android helpers run on a JVM against the stand-in android.* classes
 * (tests/android-stub/), for tests/android-*.py. The API level is the
 * JVM's -Dandroid.sdk (the stand-in's Build.VERSION.SDK_INT).
 *
 *   AndroidHelpers probe FILES PROCESS
 *     the :inference process: ProcessStateSummary.open() in FILES, the
 *     stages of a model, then "ready PID PATH RUNID SUMMARY CALLS" (the
 *     summary the system got, "-" for none, as text) and inference until
 *     it is killed
 *   AndroidHelpers export OUT RECORDS
 *     the next start: the system holds the exit records of the file
 *     RECORDS; ExitInfoExporter.export() into OUT; prints its result
 *   AndroidHelpers collect FILES EXTERNAL RECORDS
 *     the same with Collector.collect() of the rings in FILES; prints the
 *     bundle ("bundle -" for none)
 *
 * RECORDS: one exit record a line, tab-separated: pid, process name,
 * reason, status, importance, pss, rss, timestamp, the summary as text
 * ("-": none), a file whose bytes are its trace, opened when the exporter
 * asks for it ("-": none), the
 * description ("-": null).
 */
public final class AndroidHelpers {
	static final String PKG = "com.example.app";

	public static void main(String[] args) throws Exception {
		if (args[0].equals("probe"))
			probe(new File(args[1]), args[2]);
		else if (args[0].equals("export"))
			export(new File(args[1]), args[2]);
		else if (args[0].equals("collect"))
			collect(new File(args[1]), new File(args[2]), args[3]);
		else
			throw new IllegalArgumentException("no mode " + args[0]);
	}

	static void probe(File files, String process) throws Exception {
		TestContext ctx = new TestContext(PKG, files, null);
		Probe p = ProcessStateSummary.open(ctx, process, 42, 64 * 1024, 0);
		p.candidate("model-v7-int8");
		p.begin(Stage.LOAD);
		p.end(Stage.LOAD, ErrorClass.NONE);
		p.begin(Stage.INFERENCE);
		String vm = ManagementFactory.getRuntimeMXBean().getName();
		byte[] s = ctx.am.summary;
		System.out.println("ready " + vm.substring(0, vm.indexOf('@')) + " " + p.path() + " "
				+ p.runId() + " " + (s == null ? "-" : new String(s, "US-ASCII")) + " "
				+ ctx.am.summaryCalls);
		System.out.flush();
		for (long i = 0;; i++) {
			p.mark(Mark.QUEUE_DEPTH, i % 8);
			Thread.sleep(5);
		}
	}

	static TestContext system(File files, File external, String records) throws Exception {
		TestContext ctx = new TestContext(PKG, files, external);
		BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(records),
				Charset.forName("UTF-8")));
		String line;
		while ((line = r.readLine()) != null) {
			String[] f = line.split("\t", -1);
			File trace = f[9].equals("-") ? null : new File(f[9]);
			ctx.am.exits.add(new ApplicationExitInfo(Integer.parseInt(f[0]), f[1],
					Integer.parseInt(f[2]), Integer.parseInt(f[3]), Integer.parseInt(f[4]),
					Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), f[10].equals("-")
							? null : f[10], 10231, f[8].equals("-") ? null : f[8].getBytes("UTF-8"),
					trace));
		}
		r.close();
		return ctx;
	}

	static void export(File out, String records) throws Exception {
		ExitInfoExporter.Result res = ExitInfoExporter.export(system(null, null, records), out);
		System.out.println("sdk " + Build.VERSION.SDK_INT + " exported " + res.exported + " records "
				+ res.records + " traces " + res.traces + " newest " + res.newest);
		for (String n : res.notes)
			System.out.println("note " + n);
	}

	static void collect(File files, File external, String records) throws Exception {
		File b = Collector.collect(system(files, external, records));
		System.out.println("bundle " + (b == null ? "-" : b.getPath()));
	}
}
