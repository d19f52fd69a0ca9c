package dev.countersign.agent.tools.propose;

import jakarta.inject.Singleton;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import io.quarkus.arc.lookup.LookupIfProperty;

/**
 * Proposes {@link ActionCatalogue#SEND_MAIL}: an e-mail to a case's requestor.
 * <p>
 * Offered only where {@code countersign.tools.external-writes=true}: executor-service carries this kind out only where
 * mail ({@code MAIL_ENABLED}) is configured and otherwise rejects it at staging ({@code kind_not_supported}), so by
 * default the model is not offered a tool whose card could never be confirmed; set it where the executor's vendor is.
 */
@Singleton
@LookupIfProperty(name = "countersign.tools.external-writes", stringValue = "true")
public class ProposeRequestorEmailTool extends ProposeTool {

    public ProposeRequestorEmailTool(ProposalPublisher publisher) {
        super(publisher, "propose_requestor_email", ActionCatalogue.SEND_MAIL);
    }
}
