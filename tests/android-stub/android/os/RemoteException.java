package android.os;

/* Stand-in (tests only): android.os.RemoteException (an AndroidException,
 * so a checked Exception). */
public class RemoteException extends Exception {
	private static final long serialVersionUID = 1L;

	public RemoteException() {
	}

	public RemoteException(String message) {
		super(message);
	}
}
