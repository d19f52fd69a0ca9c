package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;

/** The proxy's faults do what their names say, against a one-byte echo server. */
class FaultProxyTest {

    private NioReactor reactor;
    private ServerSocket server;
    private final BlockingQueue<Long> arrivals = new ArrayBlockingQueue<>(16);
    private FaultProxy proxy;

    @BeforeEach
    void echoServerBehindAProxy() throws IOException {
        reactor = new NioReactor();
        server = new ServerSocket(0);
        Thread echo = new Thread(this::echo, "echo-server");
        echo.setDaemon(true);
        echo.start();
        proxy = FaultProxy.start(reactor, 0, server.getLocalPort());
    }

    private void echo() {
        while (!server.isClosed()) {
            try (Socket client = server.accept()) {
                InputStream in = client.getInputStream();
                OutputStream out = client.getOutputStream();
                for (int b = in.read(); b >= 0; b = in.read()) {
                    arrivals.add(System.nanoTime());
                    out.write(b);
                    out.flush();
                }
            } catch (IOException e) {
                // the client went away, or the test closed the server
            }
        }
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        server.close();
        reactor.close();
    }

    /** A connection through the proxy, proven open by one byte there and back. */
    private Socket connect() throws IOException {
        Socket socket = new Socket("localhost", proxy.port());
        socket.setSoTimeout(3_000);
        socket.getOutputStream().write(1);
        assertThat(socket.getInputStream().read()).isEqualTo(1);
        arrivals.clear();
        return socket;
    }

    @Test
    void aDelayHoldsTheReplyNotTheRequest() throws Exception {
        try (Socket socket = connect()) {
            proxy.delayReplies(Duration.ofMillis(800));
            long sent = System.nanoTime();
            socket.getOutputStream().write(7);

            long arrived = arrivals.poll(3, TimeUnit.SECONDS);
            assertThat(socket.getInputStream().read()).isEqualTo(7);
            long replied = System.nanoTime();

            assertThat(Duration.ofNanos(arrived - sent)).isLessThan(Duration.ofMillis(400));
            assertThat(Duration.ofNanos(replied - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(800));
        }
    }

    @Test
    void aFrozenNetworkPassesNothingUntilItThaws() throws Exception {
        try (Socket socket = connect()) {
            socket.setSoTimeout(1_000);
            proxy.freeze();
            socket.getOutputStream().write(9);

            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(arrivals).isEmpty();

            proxy.unfreeze();
            socket.setSoTimeout(3_000);
            assertThat(socket.getInputStream().read()).isEqualTo(9);
        }
    }

    @Test
    void aCutDropsTheConnectionAndRefusesNewOnesUntilRestored() throws Exception {
        try (Socket socket = connect()) {
            proxy.cut();

            assertThatThrownBy(() -> {
                if (socket.getInputStream().read() == -1) {
                    throw new java.io.EOFException("closed by the proxy");
                }
            }).isInstanceOf(IOException.class);
            assertThatThrownBy(this::connect).isInstanceOf(java.net.ConnectException.class);
        }
        proxy.restore();
        try (Socket again = connect()) {
            again.getOutputStream().write(3);
            assertThat(again.getInputStream().read()).isEqualTo(3);
        }
    }
}
