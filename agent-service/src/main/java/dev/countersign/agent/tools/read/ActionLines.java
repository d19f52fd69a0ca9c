package dev.countersign.agent.tools.read;

import java.util.List;

import dev.countersign.agent.actions.ActionReader.ActionLine;
import dev.countersign.agent.turn.TurnScope;

/** What reading actions does to a turn: a summary proposed in a tainted turn is text its user did not write. */
final class ActionLines {

    private ActionLines() {
    }

    static void read(List<ActionLine> lines, TurnScope scope) {
        lines.stream().filter(line -> !line.proposedClean()).findFirst()
                .ifPresent(line -> scope
                        .readUntrustedText("the summary of " + line.id() + ", proposed in a tainted turn"));
    }
}
