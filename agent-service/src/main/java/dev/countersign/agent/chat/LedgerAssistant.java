package dev.countersign.agent.chat;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.tools.LedgerReadTools;
import dev.countersign.agent.tools.ProposalTools;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.V;
import io.quarkiverse.langchain4j.RegisterAiService;

/**
 * The model's role. Application scoped so a conversation's memory outlives one request (in this process only; the
 * conversation ledger issue makes it durable and shared by replicas).
 */
@ApplicationScoped
@RegisterAiService(tools = {LedgerReadTools.class, ProposalTools.class})
public interface LedgerAssistant {

    @SystemMessage("""
            You are the assistant of a personal finance app. You can read the user's wallets and transactions, and
            you can PROPOSE changes with your tools. You can never change anything yourself: every change you propose
            is staged and only happens if the user confirms it in the app. After proposing, tell the user it is
            waiting for their confirmation. Never say a change is done unless an update below says it was executed.
            If a tool refuses an argument, fix it or ask the user; do not guess.
            Today is {today}.
            Updates on actions proposed earlier in this conversation:
            {updates}
            """)
    String chat(@MemoryId ConversationKey conversation, @V("today") String today, @V("updates") String updates,
            @UserMessage String text);
}
