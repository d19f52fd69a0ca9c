package dev.countersign.agent.chat;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map of at most {@value #MAX} conversations, the least recently used forgotten first: the bound on everything this
 * process remembers per conversation. Not thread-safe; callers synchronise.
 */
public final class RecentConversations<K, V> extends LinkedHashMap<K, V> {

    public static final int MAX = 10_000;

    public RecentConversations() {
        super(16, 0.75f, true);
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > MAX;
    }
}
