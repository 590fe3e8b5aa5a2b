package dev.lastwords.android;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;

/* Files written whole or not at all, and copies with a cap. */
final class Io {
	private Io() {
	}

	/* Write bytes to file: .NAME.tmp beside it, synced, then renamed, so a
	 * reader never sees half of it. */
	static void writeAtomically(File file, byte[] bytes) throws IOException {
		File tmp = new File(file.getParentFile(), "." + file.getName() + ".tmp");
		FileOutputStream f = new FileOutputStream(tmp);
		try {
			f.write(bytes);
			f.getFD().sync();
		} finally {
			f.close();
		}
		rename(tmp, file);
	}

	static void mkdirs(File dir) throws IOException {
		if (!dir.isDirectory() && !dir.mkdirs())
			throw new IOException(dir + ": cannot be made");
	}

	static void rename(File from, File to) throws IOException {
		if (!from.renameTo(to)) {
			delete(from);
			throw new IOException(to + ": cannot be renamed into place from " + from);
		}
	}

	/* Copy in to file, synced: its length, or -1 when in holds more than
	 * cap bytes (file is then removed). Closes in. */
	static long copy(InputStream in, File file, long cap) throws IOException {
		byte[] buf = new byte[64 << 10];
		long n = 0;
		boolean done = false;
		FileOutputStream out = null;
		try {
			out = new FileOutputStream(file);
			int k;
			while ((k = in.read(buf)) > 0) {
				n += k;
				if (n > cap)
					return -1;
				out.write(buf, 0, k);
			}
			out.getFD().sync();
			done = true;
			return n;
		} finally {
			in.close();
			if (out != null)
				out.close();
			if (!done)
				file.delete();
		}
	}

	/* Remove a file, or a directory and what it holds (no link is
	 * followed: a directory's entries are removed, not their targets). */
	static void delete(File f) {
		File[] in = isLink(f) ? null : f.listFiles();
		if (in != null)
			for (File x : in)
				delete(x);
		f.delete();
	}

	/* The total length of the files under f. */
	static long size(File f) {
		File[] in = isLink(f) ? null : f.listFiles();
		if (in == null)
			return f.length();
		long n = 0;
		for (File x : in)
			n += size(x);
		return n;
	}

	private static boolean isLink(File f) {
		try {
			File parent = f.getParentFile();
			File c = parent == null ? f : new File(parent.getCanonicalFile(), f.getName());
			return !c.getCanonicalFile().equals(c.getAbsoluteFile());
		} catch (IOException e) {
			return true;
		}
	}
}
