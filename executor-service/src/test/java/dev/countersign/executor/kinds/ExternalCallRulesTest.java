package dev.countersign.executor.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.kind.CallRefused;
import dev.countersign.executor.kinds.mail.send.MailConfig;
import dev.countersign.executor.kinds.mail.send.SendMailKind;
import dev.countersign.executor.kinds.ticket.create.CreateTicketKind;
import dev.countersign.executor.kinds.ticket.create.TicketConfig;

/** How the external executors read their vendors' answers and the addresses they send to. */
class ExternalCallRulesTest {

    @Test
    void aTicketAnswerWithAnIdIsTheTicket() {
        assertThat(CreateTicketKind.ticketOf(201, "{\"id\":\"T-7\"}").get("ticketId").asText()).isEqualTo("T-7");
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 403, 404, 422})
    void aTicketRefusalFailsTheAction(int status) {
        assertThatThrownBy(() -> CreateTicketKind.ticketOf(status, "{}"))
                .isInstanceOfSatisfying(CallRefused.class, refused -> assertThat(refused.code())
                        .isEqualTo(ErrorCode.VENDOR_REFUSED));
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 409, 425, 429, 500, 503})
    void busyInFlightOrBrokenLeavesTheOutcomeUnknown(int status) {
        assertThatThrownBy(() -> CreateTicketKind.ticketOf(status, "{}"))
                .isNotInstanceOf(CallRefused.class).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aSuccessWithoutATicketIdIsNoProofOfATicket() {
        assertThatThrownBy(() -> CreateTicketKind.ticketOf(200, "{\"id\":\"\"}"))
                .isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"requestor@example.org", "first.last+tag@mail.example.co.uk"})
    void plainAddressesAreSent(String address) {
        assertThat(SendMailKind.isSingleAddress(address)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"a@example.org, b@example.org", "Boss <boss@example.org>", "a@example.org\r\nBcc: x@y.z",
            "\"x\"@example.org", "a@localhost", "a(comment)@example.org", "a@@example.org"})
    void anythingThatCouldCarryAnotherRecipientOrHeaderIsNot(String address) {
        assertThat(SendMailKind.isSingleAddress(address)).isFalse();
    }

    private record Tickets(Optional<String> url, Duration timeout, Optional<String> apiToken, int attempts)
            implements
                TicketConfig {
    }

    private record Mail(boolean enabled, String from, Duration timeout) implements MailConfig {
    }

    /** What the recovery's stale time is held against: each attempt at its timeout (the gate adds the back-off). */
    @Test
    void aKindsLongestCallIsEveryAttemptAtItsTimeout() {
        var ticket = new CreateTicketKind(
                new Tickets(Optional.of("http://127.0.0.1:9/tickets"), Duration.ofSeconds(10), Optional.empty(), 3));
        var mail = new SendMailKind(new Mail(true, "countersign@localhost", Duration.ofSeconds(7)));

        assertThat(ticket.longestCall()).isEqualTo(Duration.ofSeconds(30));
        assertThat(ticket.httpOrigin()).contains(URI.create("http://127.0.0.1:9/tickets"));
        assertThat(ticket.sendsMail()).isFalse();
        assertThat(mail.longestCall()).isEqualTo(Duration.ofSeconds(7));
        assertThat(mail.sendsMail()).isTrue();
        assertThat(mail.httpOrigin()).isEmpty();
    }
}
