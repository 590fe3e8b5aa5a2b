package android.os;

/* Stand-in (tests only): the members of android.os.IBinder that PeerWatcher
 * uses. linkToDeath() throws RemoteException when the process that hosts
 * the binder is dead already; a recipient is called once, on a binder
 * thread, when it dies; unlinkToDeath() returns false when the binder is
 * dead (the recipient was called or is about to be). */
public interface IBinder {
	interface DeathRecipient {
		void binderDied();
	}

	void linkToDeath(DeathRecipient recipient, int flags) throws RemoteException;

	boolean unlinkToDeath(DeathRecipient recipient, int flags);
}
