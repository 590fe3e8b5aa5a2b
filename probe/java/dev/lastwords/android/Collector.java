package dev.lastwords.android;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TimeZone;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import android.content.Context;

import dev.lastwords.Probe;

/**
 * Packs what the previous runs left into a bundle for release builds,
 * where {@code run-as} is refused: run it at the next start (off the main
 * thread). A bundle is a directory under the app-specific external files
 * directory, {@code getExternalFilesDir(null)/lastwords/bundles/<name>/},
 * named by its UTC time ({@code 20261130T101502.117Z}), that holds
 * {@code rings/} (the previous runs' ring files, copied), the
 * {@link ExitInfoExporter}'s {@code exit-info.json} and {@code traces/},
 * and a {@code manifest.json} with the fields that {@code lastwords pull}
 * writes (the device, its time zone and offset, the files, what is
 * missing, {@code complete}), so that {@code lastwords report BUNDLE}
 * reads it as it reads a pull, and {@code lastwords pull} fetches it from
 * the device. The app's own uploader or share intent can send it too.
 *
 * <p>Only the rings of runs that are over are taken: a ring whose writer
 * holds its lock (the live run of this or another process, {@link
 * Probe#live}) is not, nor the probe's temporaries, nor anything that is
 * not a regular file named as a run ({@code <process>.<UTC start>.<pid>.lwr}).
 * The rings are copied, never moved: the probe keeps them for its advice.
 * A ring packed once is not packed again (the names are kept in
 * {@code lastwords/collected}); a start with no new ring and no new exit
 * record makes no bundle.
 *
 * <p>Written atomically: the bundle is made as {@code .<name>.tmp} and
 * renamed when whole, so a reader (or pull) never sees half of one; a
 * temporary left by a collector that was killed is removed by the next.
 * Run it in one process of the app (the main one): calls in one process
 * wait for each other, but another process's would take its temporary
 * for a killed one's. Bounded: at most {@link #MAX_BUNDLE_BYTES} of rings per bundle (the
 * newest; the rest wait for the next bundle, and a ring larger than that
 * alone goes in a bundle of its own), and at most
 * {@link #MAX_BUNDLES} bundles and {@link #MAX_TOTAL_BYTES} in all, the
 * oldest removed first.
 */
public final class Collector {
	/** The bundles kept, at most. */
	public static final int MAX_BUNDLES = 8;
	/** The rings of one bundle, in bytes, at most. */
	public static final long MAX_BUNDLE_BYTES = 64L << 20;
	/** All bundles, in bytes, at most (the newest is always kept). */
	public static final long MAX_TOTAL_BYTES = 256L << 20;

	private static final Pattern RUN = Pattern.compile(
			"[A-Za-z0-9._:-]+\\.([0-9]{8}T[0-9]{6}\\.[0-9]{3}Z)\\.[0-9]+\\.lwr");
	private static final Pattern BUNDLE = Pattern.compile("[0-9]{8}T[0-9]{6}\\.[0-9]{3}Z");
	private static final String LEDGER = "collected";

	private Collector() {
	}

	/** The directory of the bundles: {@code getExternalFilesDir(null)/lastwords/bundles},
	 * or null when shared storage is not available. */
	public static File bundles(Context context) {
		File ext = context.getExternalFilesDir(null);
		return ext == null ? null : new File(new File(ext, "lastwords"), "bundles");
	}

	/** {@link #collect(Context, File)} of the rings in {@code context.getFilesDir()},
	 * where {@link ProcessStateSummary#open} puts them. */
	public static File collect(Context context) throws IOException {
		return collect(context, context.getFilesDir());
	}

	/**
	 * Makes a bundle of the runs in ringDir that are over and not packed
	 * yet, and of the exit records; prunes the old bundles.
	 *
	 * @return the new bundle, or null when there is nothing new or no
	 *         shared storage
	 * @throws IOException if the bundle cannot be written (what was made
	 *         of it is removed)
	 */
	public static synchronized File collect(Context context, File ringDir) throws IOException {
		File dir = bundles(context);
		if (dir == null)
			return null;
		Io.mkdirs(dir);
		removeTemporaries(dir);
		File ledgerFile = new File(dir.getParentFile(), LEDGER);
		Set<String> packed = new HashSet<String>();
		long exitsBefore = readLedger(ledgerFile, packed);

		String name = freeName(dir);
		File tmp = new File(dir, "." + name + ".tmp");
		File done = new File(dir, name);
		Manifest m = new Manifest(context.getPackageName(), ringDir);
		boolean ok = false;
		try {
			Io.mkdirs(tmp);
			ExitInfoExporter.Result exits = ExitInfoExporter.export(context, tmp);
			for (String note : exits.notes) {
				int colon = note.indexOf(": ");
				m.missing(note.substring(0, colon), note.substring(colon + 2), false);
			}
			List<String> taken = rings(ringDir, new File(tmp, "rings"), packed, m);
			if (taken.isEmpty() && exits.newest <= exitsBefore) {
				return null;
			}
			m.write(tmp);
			Io.rename(tmp, done);
			/* A bundle whose rings the ledger does not say are packed would
			 * be packed again: without the ledger, no bundle. */
			try {
				writeLedger(ledgerFile, ringDir, packed, taken, Math.max(exits.newest, exitsBefore));
			} catch (IOException e) {
				Io.delete(done);
				throw e;
			}
			ok = true;
		} finally {
			if (!ok)
				Io.delete(tmp);
		}
		prune(dir, done);
		return done;
	}

	/* Copy the runs of ringDir that are over and not in packed into
	 * rings/, the newest first, up to MAX_BUNDLE_BYTES (a ring over it
	 * alone is taken when it comes first): their names. */
	private static List<String> rings(File ringDir, File out, Set<String> packed, Manifest m)
			throws IOException {
		List<String> taken = new ArrayList<String>();
		String[] names = ringDir.list();
		if (names == null) {
			m.missing("rings", ringDir + " cannot be listed", true);
			return taken;
		}
		List<String[]> runs = new ArrayList<String[]>();
		for (String n : names) {
			Matcher x = RUN.matcher(n);
			if (x.matches() && !packed.contains(n))
				runs.add(new String[] { x.group(1), n });
		}
		Collections.sort(runs, new Comparator<String[]>() {
			@Override
			public int compare(String[] a, String[] b) {
				int c = b[0].compareTo(a[0]);
				return c != 0 ? c : b[1].compareTo(a[1]);
			}
		});
		long bytes = 0;
		for (String[] run : runs) {
			File f = new File(ringDir, run[1]);
			try {
				if (Probe.live(f.getPath()))
					continue;
			} catch (IOException e) {
				continue; /* gone (rotated away), or not a regular file */
			}
			String rel = "rings/" + run[1];
			/* A ring larger than the cap on its own (a million slots are
			 * 64 MiB and a page) goes alone, first: else it would wait
			 * for a bundle that never comes. */
			if (!taken.isEmpty() && bytes + f.length() > MAX_BUNDLE_BYTES) {
				m.missing(rel, "over the bundle's cap of " + MAX_BUNDLE_BYTES
						+ " bytes of rings: left for the next bundle", false);
				continue;
			}
			Io.mkdirs(out);
			long n;
			try {
				n = Io.copy(new FileInputStream(f), new File(out, run[1]), Long.MAX_VALUE);
			} catch (IOException e) {
				if (f.exists())
					throw e;
				continue; /* rotated away meanwhile */
			}
			bytes += n;
			m.file(rel, n);
			taken.add(run[1]);
		}
		return taken;
	}

	/* The bundle's name: its UTC time, a millisecond on while one of that
	 * name exists. */
	private static String freeName(File dir) {
		SimpleDateFormat f = new SimpleDateFormat("yyyyMMdd'T'HHmmss.SSS'Z'", Locale.ROOT);
		f.setTimeZone(TimeZone.getTimeZone("UTC"));
		long t = System.currentTimeMillis();
		String name;
		while (new File(dir, name = f.format(new Date(t))).exists()
				|| new File(dir, "." + name + ".tmp").exists())
			t++;
		return name;
	}

	private static void removeTemporaries(File dir) {
		String[] names = dir.list();
		if (names != null)
			for (String n : names)
				if (n.startsWith(".") && n.endsWith(".tmp"))
					Io.delete(new File(dir, n));
	}

	/* The oldest bundles removed until MAX_BUNDLES and MAX_TOTAL_BYTES
	 * hold; keep is never removed. */
	private static void prune(File dir, File keep) {
		String[] names = dir.list();
		if (names == null)
			return;
		Arrays.sort(names);
		List<File> bundles = new ArrayList<File>();
		long total = 0;
		for (String n : names) {
			File b = new File(dir, n);
			if (BUNDLE.matcher(n).matches() && b.isDirectory()) {
				bundles.add(b);
				total += Io.size(b);
			}
		}
		for (int i = 0; i < bundles.size() && (bundles.size() - i > MAX_BUNDLES
				|| total > MAX_TOTAL_BYTES); i++) {
			File b = bundles.get(i);
			if (b.equals(keep))
				continue;
			total -= Io.size(b);
			Io.delete(b);
		}
	}

	/* The ledger: "ring NAME" lines of the rings packed, and "exits MS",
	 * the newest exit record's time packed. Returns that time, or -1. */
	private static long readLedger(File f, Set<String> packed) throws IOException {
		long exits = -1;
		if (!f.isFile())
			return exits;
		BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(f), Json.UTF_8));
		try {
			String line;
			while ((line = r.readLine()) != null) {
				if (line.startsWith("ring "))
					packed.add(line.substring(5));
				else if (line.startsWith("exits ")) {
					try {
						exits = Long.parseLong(line.substring(6));
					} catch (NumberFormatException e) {
						exits = -1;
					}
				}
			}
		} finally {
			r.close();
		}
		return exits;
	}

	/* The rings packed, now and before, that ringDir still holds (the
	 * others are rotated away and never come back), and the exits' time. */
	private static void writeLedger(File f, File ringDir, Set<String> packed, List<String> taken,
			long exits) throws IOException {
		StringBuilder s = new StringBuilder();
		Set<String> all = new HashSet<String>(packed);
		all.addAll(taken);
		List<String> names = new ArrayList<String>(all);
		Collections.sort(names);
		for (String n : names)
			if (new File(ringDir, n).exists())
				s.append("ring ").append(n).append('\n');
		s.append("exits ").append(exits).append('\n');
		Io.writeAtomically(f, s.toString().getBytes(Json.UTF_8));
	}

	/* The manifest.json of lastwords pull (analyzer/cmd-pull.c). */
	private static final class Manifest {
		private final String pkg;
		private final File ringDir;
		private final Json files = new Json();
		private final Json missing = new Json();
		private boolean complete = true;

		Manifest(String pkg, File ringDir) {
			this.pkg = pkg;
			this.ringDir = ringDir;
			missing(missing, "lmkd properties", "an app cannot read the ro.lmk.* properties", false);
		}

		void file(String path, long bytes) {
			files.open(null, '{').put("path", path).put("bytes", bytes).close('}');
		}

		void missing(String what, String reason, boolean required) {
			missing(missing, what, reason, required);
			complete &= !required;
		}

		private static void missing(Json j, String what, String reason, boolean required) {
			j.open(null, '{').put("what", what).put("reason", reason).put("required", required)
					.close('}');
		}

		void write(File dir) throws IOException {
			addFiles(dir, "");
			SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss'Z'", Locale.ROOT);
			f.setTimeZone(TimeZone.getTimeZone("UTC"));
			long now = System.currentTimeMillis();
			TimeZone zone = TimeZone.getDefault();
			Json j = new Json().open(null, '{').put("kind", "lastwords-pull").put("version", 1)
					.put("package", pkg).putNull("process").put("pulled_at", f.format(new Date(now)))
					.put("collected_by", Collector.class.getName());
			j.open("files", '[').raw(files).close(']');
			j.open("empty", '[').close(']');
			j.open("missing", '[').raw(missing).close(']');
			j.device(true);
			j.open("lmk", '{').open("properties", '{').close('}').putNull("reportkills").close('}');
			j.put("timezone", zone.getID()).put("tz_offset", offset(zone, now))
					.put("rings_from", ringDir.getPath()).put("complete", complete).close('}');
			j.write(new File(dir, "manifest.json"));
		}

		/* The exporter's files (the rings are listed as they are copied). */
		private void addFiles(File dir, String rel) {
			String[] names = dir.list();
			if (names == null)
				return;
			Arrays.sort(names);
			for (String n : names) {
				File f = new File(dir, n);
				if (f.isDirectory()) {
					if (!n.equals("rings"))
						addFiles(f, rel + n + "/");
				} else {
					file(rel + n, f.length());
				}
			}
		}
	}

	/* The zone's UTC offset now, as date +%z prints it: "+0100". */
	static String offset(TimeZone zone, long now) {
		int min = zone.getOffset(now) / 60000;
		char sign = min < 0 ? '-' : '+';
		min = Math.abs(min);
		return String.format(Locale.ROOT, "%c%02d%02d", sign, min / 60, min % 60);
	}
}
