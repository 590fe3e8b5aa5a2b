package dev.lastwords.android;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import android.app.ActivityManager;
import android.app.ApplicationExitInfo;
import android.content.Context;
import android.os.Build;

/**
 * Writes the app's exit records ({@code ActivityManager.getHistoricalProcessExitReasons()},
 * API 30) to {@code exit-info.json}, in the format of
 * {@code schemas/exit-info.schema.json} that {@code lastwords report}
 * reads, with each record's trace beside it in {@code traces/}:
 * {@code anr.<pid>.<timestamp>.txt}, the ANR trace, or
 * {@code tombstone.<pid>.<timestamp>.pb}, the tombstone protobuf of a
 * native crash (API 31), named by the record's pid and
 * {@code getTimestamp()}.
 *
 * <p>Bounded: the newest {@link #MAX_RECORDS} records, and a trace of at
 * most {@link #MAX_TRACE_BYTES} (a longer one is left out, and said so in
 * {@link Result#notes}). The file holds only the schema's fields: numbers,
 * the process name, the system's description and the process state
 * summary (the run id that {@link ProcessStateSummary} set). It holds no
 * {@code appVersion}: a record does not say which version died, and a
 * default taken from the version running now would refuse the records of
 * the runs before an update. Below API 30 it writes nothing.
 *
 * <p>Does file I/O and binder calls: call it off the main thread.
 */
public final class ExitInfoExporter {
	/** At most this many records, the newest. */
	public static final int MAX_RECORDS = 64;
	/** A trace of more bytes than this is left out. */
	public static final long MAX_TRACE_BYTES = 8L << 20;
	/** The file the records go to. */
	public static final String FILE = "exit-info.json";
	/** The directory beside it that the traces go to. */
	public static final String TRACES = "traces";

	private ExitInfoExporter() {
	}

	/** What an export wrote. */
	public static final class Result {
		/** Whether it ran: false below API 30, where nothing is written. */
		public final boolean exported;
		/** The records written. */
		public final int records;
		/** The traces saved. */
		public final int traces;
		/** The newest record's {@code getTimestamp()}, or -1 for none. */
		public final long newest;
		/** What was left out, and why, one line each:
		 * {@code "WHAT: WHY"} ({@code "trace of pid 4312: over 8388608 bytes, left out"}). */
		public final List<String> notes;

		Result(boolean exported, int records, int traces, long newest, List<String> notes) {
			this.exported = exported;
			this.records = records;
			this.traces = traces;
			this.newest = newest;
			this.notes = Collections.unmodifiableList(notes);
		}
	}

	/**
	 * Exports the records of the app's processes into dir (made if needed):
	 * {@code dir/exit-info.json}, written whole under a temporary name and
	 * renamed, and {@code dir/traces/}.
	 *
	 * @throws IOException if dir or a file in it cannot be written
	 */
	public static Result export(Context context, File dir) throws IOException {
		List<String> notes = new ArrayList<String>();
		if (Build.VERSION.SDK_INT < Build.VERSION_CODES.R) {
			notes.add("exit records: API " + Build.VERSION.SDK_INT
					+ " has no getHistoricalProcessExitReasons() (API 30)");
			return new Result(false, 0, 0, -1, notes);
		}
		ActivityManager am = (ActivityManager) context.getSystemService(Context.ACTIVITY_SERVICE);
		String pkg = context.getPackageName();
		List<ApplicationExitInfo> all = am.getHistoricalProcessExitReasons(pkg, 0, 0);
		File traces = new File(dir, TRACES);
		Io.mkdirs(dir);
		Json j = new Json().open(null, '{').put("packageName", pkg).device(false);
		j.open("records", '[');
		int records = 0, saved = 0;
		long newest = -1;
		for (ApplicationExitInfo e : all) {
			if (records == MAX_RECORDS) {
				notes.add("exit records: " + (all.size() - records) + " older than the newest "
						+ MAX_RECORDS + " left out");
				break;
			}
			String process = e.getProcessName();
			if (process == null || process.isEmpty() || e.getPid() < 0 || e.getTimestamp() < 0) {
				notes.add("exit record of pid " + e.getPid() + ": no process name or time, left out");
				continue;
			}
			record(j, e);
			records++;
			newest = Math.max(newest, e.getTimestamp());
			if (trace(e, traces, notes))
				saved++;
		}
		j.close(']').close('}').write(new File(dir, FILE));
		return new Result(true, records, saved, newest, notes);
	}

	/* One record, with the schema's fields in its order. */
	private static void record(Json j, ApplicationExitInfo e) {
		byte[] summary = e.getProcessStateSummary();
		j.open(null, '{').put("pid", e.getPid()).put("processName", e.getProcessName())
				.put("reason", e.getReason()).put("status", e.getStatus())
				.put("importance", e.getImportance()).put("pss", e.getPss()).put("rss", e.getRss())
				.put("timestamp", e.getTimestamp()).put("description", e.getDescription())
				.put("realUid", e.getRealUid()).put("packageUid", e.getPackageUid())
				.put("definingUid", e.getDefiningUid())
				.put("processStateSummary", summaryText(summary))
				.put("processStateSummaryLength", summary == null ? 0 : summary.length).close('}');
	}

	/**
	 * The process state summary as the schema's text: its bytes as ASCII
	 * when they are all printable (the run id that
	 * {@link ProcessStateSummary} sets), else their lowercase hex; null for
	 * none.
	 */
	public static String summaryText(byte[] summary) {
		if (summary == null || summary.length == 0)
			return null;
		boolean printable = true;
		for (byte b : summary)
			printable &= b >= 0x20 && b < 0x7f;
		if (printable)
			return new String(summary, Json.UTF_8);
		StringBuilder s = new StringBuilder();
		for (byte b : summary)
			s.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
		return s.toString();
	}

	/** The name of a record's trace in {@code traces/}. */
	public static String traceName(int reason, int pid, long timestamp) {
		return reason == ApplicationExitInfo.REASON_CRASH_NATIVE
				? "tombstone." + pid + "." + timestamp + ".pb"
				: "anr." + pid + "." + timestamp + ".txt";
	}

	/* Save the record's trace, if it has one: whether it was saved. */
	private static boolean trace(ApplicationExitInfo e, File traces, List<String> notes)
			throws IOException {
		InputStream in;
		try {
			in = e.getTraceInputStream();
		} catch (IOException x) {
			notes.add("trace of pid " + e.getPid() + ": cannot be read: " + x.getMessage());
			return false;
		}
		if (in == null)
			return false;
		Io.mkdirs(traces);
		String name = traceName(e.getReason(), e.getPid(), e.getTimestamp());
		File tmp = new File(traces, "." + name + ".tmp");
		long n;
		try {
			n = Io.copy(in, tmp, MAX_TRACE_BYTES);
		} catch (IOException x) {
			notes.add("trace of pid " + e.getPid() + ": cannot be copied: " + x.getMessage());
			return false;
		}
		if (n < 0) {
			notes.add("trace of pid " + e.getPid() + ": over " + MAX_TRACE_BYTES
					+ " bytes, left out");
			return false;
		}
		Io.rename(tmp, new File(traces, name));
		return true;
	}

}
