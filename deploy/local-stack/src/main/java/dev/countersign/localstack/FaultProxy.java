package dev.countersign.localstack;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.core.throttle.Throttler;
import org.netcrusher.core.throttle.ThrottlerFactory;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

import dev.countersign.devsupport.FreePorts;

/**
 * A real TCP proxy (netcrusher) between the services and one server (Kafka or PostgreSQL), to break the network the way
 * it breaks in production: {@link #freeze()} holds every byte in both directions and every new connection (a frozen
 * network: nothing is refused, nothing arrives), {@link #cut()} drops the connections and refuses new ones (the server
 * is gone), {@link #delayReplies(Duration)} holds what the server sends back (a slow server, or a reply lost after the
 * server acted). Test tooling of the local stack: only with {@code FAULT_PROXIES=true}.
 */
public final class FaultProxy implements AutoCloseable {

    private final TcpCrusher crusher;
    private final AtomicLong replyDelayNanos;

    private FaultProxy(TcpCrusher crusher, AtomicLong replyDelayNanos) {
        this.crusher = crusher;
        this.replyDelayNanos = replyDelayNanos;
    }

    /** A proxy on {@code listenPort} (0: any free port) to {@code serverPort} on this machine. */
    public static FaultProxy start(NioReactor reactor, int listenPort, int serverPort) {
        AtomicLong replyDelayNanos = new AtomicLong();
        TcpCrusher crusher = TcpCrusherBuilder.builder().withReactor(reactor)
                .withBindAddress("localhost", listenPort > 0 ? listenPort : FreePorts.one())
                .withConnectAddress("localhost", serverPort)
                .withIncomingThrottlerFactory(new ReplyDelay(replyDelayNanos))
                .buildAndOpen();
        return new FaultProxy(crusher, replyDelayNanos);
    }

    public int port() {
        return crusher.getBindAddress().getPort();
    }

    /** Nothing passes, in either direction, until {@link #unfreeze()}; new connections wait too. */
    public synchronized void freeze() {
        if (!crusher.isFrozen()) {
            crusher.freeze();
        }
    }

    public synchronized void unfreeze() {
        if (crusher.isFrozen()) {
            crusher.unfreeze();
        }
    }

    /** Drops every connection and refuses new ones until {@link #restore()}. */
    public synchronized void cut() {
        if (crusher.isOpen()) {
            crusher.close();
        }
    }

    public synchronized void restore() {
        if (!crusher.isOpen()) {
            crusher.open();
        }
    }

    /** Holds every chunk the server sends back this long (zero: none); requests still reach the server at once. */
    public void delayReplies(Duration delay) {
        replyDelayNanos.set(delay.toNanos());
    }

    @Override
    public void close() {
        crusher.close();
    }

    /** netcrusher's throttler, with a delay the test can change while connections are open. */
    private record ReplyDelay(AtomicLong nanos) implements ThrottlerFactory {

        @Override
        public Throttler allocate(java.net.InetSocketAddress clientAddress) {
            return buffer -> nanos.get();
        }
    }
}
