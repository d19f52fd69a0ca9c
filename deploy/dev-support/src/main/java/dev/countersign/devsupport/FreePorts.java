package dev.countersign.devsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Free TCP ports for servers started in this JVM. Ports asked for together are distinct: their sockets are all bound at
 * once before any is closed (asking one at a time, the system may hand back a port it just gave, which once gave the
 * embedded Kafka broker and its controller one port). Limit: another process may still take a port between this answer
 * and the server's bind.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /** A port free at the moment of asking. */
    public static int one() {
        return distinct(1)[0];
    }

    /**
     * A port free at the moment of asking and other than {@code taken} (a port already chosen for another listener of
     * the same server, which is not bound yet and so may be handed out again).
     */
    public static int besides(int taken) {
        int[] two = distinct(2);
        return two[0] != taken ? two[0] : two[1];
    }

    /** {@code count} distinct ports free at the moment of asking. */
    public static int[] distinct(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0));
            }
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // Closing a listening socket that accepted nothing: nothing to do if it fails.
                }
            }
        }
    }
}
