package dev.countersign.agent.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;

/**
 * Chat history held in this process: at most {@value RecentConversations#MAX} conversations, the least recently used
 * forgotten first (each keeps the last messages the memory window allows). Lost on restart and not shared between
 * replicas: the conversation ledger (a later issue) replaces it.
 */
@ApplicationScoped
public class BoundedChatMemoryStore implements ChatMemoryStore {

    private final Map<Object, List<ChatMessage>> conversations = new RecentConversations<>();

    @Override
    public synchronized List<ChatMessage> getMessages(Object memoryId) {
        return new ArrayList<>(conversations.getOrDefault(memoryId, List.of()));
    }

    @Override
    public synchronized void updateMessages(Object memoryId, List<ChatMessage> messages) {
        conversations.put(memoryId, new ArrayList<>(messages));
    }

    @Override
    public synchronized void deleteMessages(Object memoryId) {
        conversations.remove(memoryId);
    }
}
