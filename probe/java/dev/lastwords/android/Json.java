package dev.lastwords.android;

import java.io.File;
import java.io.IOException;
import java.nio.charset.Charset;

import android.os.Build;

/*
 * A JSON text written by hand (org.json is Android's, and not on a test
 * JVM): objects and arrays opened and closed in order, strings escaped as
 * RFC 8259 says; written whole (Io.writeAtomically).
 */
final class Json {
	static final Charset UTF_8 = Charset.forName("UTF-8");

	private final StringBuilder out = new StringBuilder();
	private boolean first = true;

	Json open(String key, char bracket) {
		key(key);
		out.append(bracket);
		first = true;
		return this;
	}

	Json close(char bracket) {
		out.append(bracket);
		first = false;
		return this;
	}

	Json put(String key, String value) {
		key(key);
		if (value == null)
			out.append("null");
		else
			quote(value);
		return this;
	}

	Json put(String key, long value) {
		key(key);
		out.append(value);
		return this;
	}

	Json put(String key, boolean value) {
		key(key);
		out.append(value);
		return this;
	}

	/* The elements of items (values written with a null key) into the
	 * array open here. */
	Json raw(Json items) {
		if (items.out.length() > 0) {
			if (!first)
				out.append(',');
			out.append(items.out);
			first = false;
		}
		return this;
	}

	Json putNull(String key) {
		key(key);
		out.append("null");
		return this;
	}

	/* A key (null inside an array), after a comma unless first. */
	private void key(String key) {
		if (!first)
			out.append(',');
		first = false;
		if (key != null) {
			quote(key);
			out.append(':');
		}
	}

	private void quote(String s) {
		out.append('"');
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			if (c == '"' || c == '\\')
				out.append('\\').append(c);
			else if (c == '\n')
				out.append("\\n");
			else if (c == '\t')
				out.append("\\t");
			else if (c == '\r')
				out.append("\\r");
			else if (c < 0x20 || c == 0x2028 || c == 0x2029)
				out.append(String.format("\\u%04x", (int) c));
			else
				out.append(c);
		}
		out.append('"');
	}

	/* Write the text to file: .NAME.tmp beside it, synced, then renamed. */
	void write(File file) throws IOException {
		Io.writeAtomically(file, (out.toString() + "\n").getBytes(UTF_8));
	}

	/* The device, as the exit-info schema's "device" (manifest false) or
	 * as the manifest of lastwords pull has it (manifest true). */
	Json device(boolean manifest) {
		open("device", '{').put("manufacturer", Build.MANUFACTURER).put("model", Build.MODEL);
		if (manifest)
			put("android_version", Build.VERSION.RELEASE).put("sdk",
					Integer.toString(Build.VERSION.SDK_INT));
		else
			put("sdkInt", Build.VERSION.SDK_INT);
		return put("fingerprint", Build.FINGERPRINT).close('}');
	}

	@Override
	public String toString() {
		return out.toString();
	}
}
