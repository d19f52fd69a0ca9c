package dev.countersign.devsupport.external;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;

import com.icegreen.greenmail.mail.MovingMessage;
import com.icegreen.greenmail.user.GreenMailUser;
import com.icegreen.greenmail.user.UserManager;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;

/**
 * A real SMTP server in this JVM (GreenMail), for the local stack and the tests: executor-service sends to it over SMTP
 * like to any mail server, and it keeps what it received.
 */
public final class LocalSmtp implements AutoCloseable {

    private final GreenMail server;
    private final List<MimeMessage> accepted = new CopyOnWriteArrayList<>();
    private final Set<MovingMessage> seen = Collections.newSetFromMap(Collections.synchronizedMap(
            new WeakHashMap<>()));
    private volatile Duration replyDelay = Duration.ZERO;
    private volatile Consumer<MimeMessage> listener = message -> {
    };

    private LocalSmtp(GreenMail server) {
        this.server = server;
        UserManager users = server.getUserManager();
        users.setMessageDeliveryHandler((message, address) -> {
            if (seen.add(message)) {
                accepted.add(message.getMessage());
                listener.accept(message.getMessage());
            }
            sleep(replyDelay);
            GreenMailUser user = users.getUserByEmail(address.getEmail());
            return user != null ? user : users.createUser(address.getEmail(), address.getEmail(), address.getEmail());
        });
    }

    /** Called with each message as it is accepted (the local stack prints it). */
    public void onAccepted(Consumer<MimeMessage> listener) {
        this.listener = listener;
    }

    /**
     * Holds the reply to each message's DATA for {@code delay} after the message was accepted (it already counts in
     * {@link #received()}): a mail server whose answer is slow, so a sender can die between its call and recording it.
     */
    public void replyAfter(Duration delay) {
        this.replyDelay = delay;
    }

    private static void sleep(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts on {@code port} (0: any free port) on the loopback interface. */
    public static LocalSmtp start(int port) {
        ServerSetup setup = new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort();
        if (port != 0) {
            setup = new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP);
        }
        GreenMail server = new GreenMail(setup);
        server.start();
        return new LocalSmtp(server);
    }

    public int port() {
        return server.getSmtp().getPort();
    }

    /** Every message accepted so far (also those whose reply is still held), oldest first. */
    public List<MimeMessage> received() {
        return List.copyOf(accepted);
    }

    /** The messages received with this {@code Message-ID} header. */
    public List<MimeMessage> withMessageId(String messageId) {
        return received().stream().filter(message -> messageId.equals(header(message, "Message-ID"))).toList();
    }

    private static String header(MimeMessage message, String name) {
        try {
            String[] values = message.getHeader(name);
            return values == null || values.length == 0 ? null : values[0];
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
