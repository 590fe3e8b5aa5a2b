package android.app;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

/* Stand-in (tests only): the getters of android.app.ApplicationExitInfo
 * (API 30) that ExitInfoExporter reads, and its REASON_ codes. The system
 * makes these; here a test does, with the constructor below, which the
 * real class does not have, whose trace is a file read when asked for. getProcessStateSummary() is what the process
 * set with setProcessStateSummary(), or null; getTraceInputStream() is the
 * ANR trace (or, from API 31, the tombstone protobuf of a native crash),
 * or null when there is none. */
public final class ApplicationExitInfo {
	public static final int REASON_UNKNOWN = 0;
	public static final int REASON_EXIT_SELF = 1;
	public static final int REASON_SIGNALED = 2;
	public static final int REASON_LOW_MEMORY = 3;
	public static final int REASON_CRASH = 4;
	public static final int REASON_CRASH_NATIVE = 5;
	public static final int REASON_ANR = 6;

	private final int pid;
	private final String processName;
	private final int reason;
	private final int status;
	private final int importance;
	private final long pss;
	private final long rss;
	private final long timestamp;
	private final String description;
	private final int uid;
	private final byte[] summary;
	private final File trace;

	public ApplicationExitInfo(int pid, String processName, int reason, int status, int importance,
			long pss, long rss, long timestamp, String description, int uid, byte[] summary,
			File trace) {
		this.pid = pid;
		this.processName = processName;
		this.reason = reason;
		this.status = status;
		this.importance = importance;
		this.pss = pss;
		this.rss = rss;
		this.timestamp = timestamp;
		this.description = description;
		this.uid = uid;
		this.summary = summary;
		this.trace = trace;
	}

	public int getPid() {
		return pid;
	}

	public String getProcessName() {
		return processName;
	}

	public int getReason() {
		return reason;
	}

	public int getStatus() {
		return status;
	}

	public int getImportance() {
		return importance;
	}

	public long getPss() {
		return pss;
	}

	public long getRss() {
		return rss;
	}

	public long getTimestamp() {
		return timestamp;
	}

	public String getDescription() {
		return description;
	}

	public int getRealUid() {
		return uid;
	}

	public int getPackageUid() {
		return uid;
	}

	public int getDefiningUid() {
		return uid;
	}

	public byte[] getProcessStateSummary() {
		return summary == null ? null : summary.clone();
	}

	public InputStream getTraceInputStream() throws IOException {
		return trace == null ? null : new FileInputStream(trace);
	}
}
