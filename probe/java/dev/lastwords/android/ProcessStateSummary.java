package dev.lastwords.android;

import android.app.ActivityManager;
import android.content.Context;
import android.os.Build;

import dev.lastwords.Probe;

/**
 * The run id in the process's exit record: the probe's run id handed to
 * {@code ActivityManager.setProcessStateSummary()} (API 30) in the process
 * that the ring belongs to. When that process dies, the system keeps the
 * bytes in its {@code ApplicationExitInfo}; {@link ExitInfoExporter}
 * writes them as {@code processStateSummary}, and {@code lastwords report}
 * joins that record to the ring with the same run id exactly, whatever its
 * pid and time say ({@code dumpsys} shows only their length,
 * {@code state=32 bytes}). Below API 30 it does nothing.
 */
public final class ProcessStateSummary {
	private ProcessStateSummary() {
	}

	/**
	 * Opens the probe with its ring in {@code context.getFilesDir()} (where
	 * {@code lastwords pull} looks, through {@code run-as}) and sets the
	 * process state summary to its run id. Call it once, in
	 * {@code Service.onCreate()} of the process that runs the model. The
	 * arguments are {@link Probe#open}'s.
	 */
	public static Probe open(Context context, String processName, long appVersion,
			int memoryBudgetKb, int samplerPeriodMs) {
		Probe probe = Probe.open(context.getFilesDir().getPath(), processName, appVersion,
				memoryBudgetKb, samplerPeriodMs);
		set(context, probe);
		return probe;
	}

	/**
	 * Sets this process's state summary to the probe's run id: the 32
	 * lowercase hex digits of {@link Probe#runId()} in ASCII, 32 of the 128
	 * bytes the system keeps. A later call (of the app or of this) replaces
	 * it, so call it once, in the process that opened the probe.
	 *
	 * @return whether it was set: false below API 30
	 */
	public static boolean set(Context context, Probe probe) {
		if (Build.VERSION.SDK_INT < Build.VERSION_CODES.R)
			return false;
		ActivityManager am = (ActivityManager) context.getSystemService(Context.ACTIVITY_SERVICE);
		am.setProcessStateSummary(bytes(probe.runId()));
		return true;
	}

	/** The summary's bytes for a run id: its ASCII, as the analyzer reads
	 * {@code processStateSummary} (32 hex digits, any case). */
	public static byte[] bytes(String runId) {
		return runId.getBytes(Json.UTF_8);
	}
}
