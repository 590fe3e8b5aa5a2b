package android.content;

import android.os.IBinder;

/* Stand-in (tests only): android.content.ServiceConnection, called on the
 * main thread. onServiceDisconnected() comes when the service's process
 * died (crashed or killed), never on the client's own unbindService(). */
public interface ServiceConnection {
	void onServiceConnected(ComponentName name, IBinder service);

	void onServiceDisconnected(ComponentName name);
}
