package dev.countersign.agent.turn;

import java.util.ArrayList;
import java.util.List;

import dev.countersign.contracts.events.TurnRecorded;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;

/** A recorded turn replayed as the messages the model saw and said, tool calls and results included. */
public final class TurnMessages {

    private TurnMessages() {
    }

    public static List<ChatMessage> replay(TurnRecorded turn) {
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(UserMessage.from(turn.userText()));
        for (TurnRecorded.ToolRound round : turn.rounds()) {
            List<ToolExecutionRequest> calls = round.calls().stream().map(call -> ToolExecutionRequest.builder()
                    .id(call.callId()).name(call.tool()).arguments(call.arguments()).build()).toList();
            if (calls.isEmpty()) {
                continue;
            }
            messages.add(AiMessage.from(calls));
            for (TurnRecorded.ToolCall call : round.calls()) {
                messages.add(ToolExecutionResultMessage.from(call.callId(), call.tool(), call.result()));
            }
        }
        if (!turn.reply().isBlank()) {
            messages.add(AiMessage.from(turn.reply()));
        }
        return messages;
    }

    /** PostgreSQL stores no NUL in jsonb; what the model sent is recorded with it replaced. */
    public static String storable(String text) {
        return text == null ? null : text.replace('\u0000', '\uFFFD');
    }
}
