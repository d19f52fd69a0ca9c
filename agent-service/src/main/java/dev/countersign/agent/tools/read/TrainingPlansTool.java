package dev.countersign.agent.tools.read;

import java.util.List;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.training.PlanReader;
import dev.countersign.agent.training.PlanReader.Plan;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;

/** The user's active training plan and drafts. */
@ApplicationScoped
public class TrainingPlansTool implements AgentTool {

    private static final List<String> STATUSES = List.of("active", "draft");

    private final PlanReader plans;

    public TrainingPlansTool(PlanReader plans) {
        this.plans = plans;
    }

    @Override
    public String name() {
        return "training_plans";
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        return Schemas.tool(name(), "The user's active training plan and draft plans, with their workouts.",
                Schemas.object()
                        .addEnumProperty("which", STATUSES, "Only the active plan or only drafts; omit for both.")
                        .build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        arguments.onlyDeclared(List.of("which"));
        List<Plan> found = plans.plans(scope.tenantId(), scope.userId(),
                arguments.oneOf("which", STATUSES).orElse(null));
        if (found.isEmpty()) {
            return "The user has no active or draft training plan.";
        }
        found.stream().filter(plan -> !plan.ownText()).findFirst()
                .ifPresent(plan -> scope.readUntrustedText("plan " + plan.id() + " not written by a clean turn"));
        return found.stream().map(p -> "- %s plan \"%s\" (id %s), from %s%s. Workouts:\n%s".formatted(p.status(),
                p.name(), p.id(), p.startsOn(), p.goal() == null ? "" : ", goal: " + p.goal(), p.schedule()))
                .collect(Collectors.joining("\n"));
    }
}
