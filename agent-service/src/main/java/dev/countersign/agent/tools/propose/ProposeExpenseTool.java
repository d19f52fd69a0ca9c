package dev.countersign.agent.tools.propose;

import java.time.LocalDate;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ParamSpec;

/** Proposes {@link ActionCatalogue#CREATE_TRANSACTION}: an expense; the day defaults to today. */
@Singleton
public class ProposeExpenseTool extends ProposeTool {

    public ProposeExpenseTool(ProposalPublisher publisher) {
        super(publisher, "propose_expense", ActionCatalogue.CREATE_TRANSACTION);
    }

    private static final String OCCURRED_ON = "occurredOn";

    @Override
    protected boolean hasDefault(ParamSpec spec) {
        return OCCURRED_ON.equals(spec.name());
    }

    @Override
    protected void addDefaults(ObjectNode params) {
        if (!params.has(OCCURRED_ON)) {
            params.put(OCCURRED_ON, LocalDate.now().toString());
        }
    }
}
