package dev.countersign.devsupport.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jboss.logmanager.ExtLogRecord;

/**
 * Every record logged in this JVM while installed on the root logger, with its MDC as it was when logged: for tests of
 * what a log line carries (ids, trace) and what it must never carry (tokens).
 */
public final class CapturedLogs extends Handler {

    private final List<ExtLogRecord> records = new ArrayList<>();

    public void install() {
        Logger.getLogger("").addHandler(this);
    }

    public void uninstall() {
        Logger.getLogger("").removeHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        ExtLogRecord ext = ExtLogRecord.wrap(record);
        ext.copyAll();
        synchronized (records) {
            records.add(ext);
        }
    }

    /** The first captured record matching {@code filter}, or null. */
    public ExtLogRecord first(Predicate<ExtLogRecord> filter) {
        synchronized (records) {
            return records.stream().filter(filter).findFirst().orElse(null);
        }
    }

    public List<ExtLogRecord> all() {
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    /** The message with its parameters, the MDC and any exception text: all a log line could show. */
    public static String rendered(ExtLogRecord record) {
        return record.getFormattedMessage() + " " + record.getMdcCopy() + " "
                + (record.getThrown() == null ? "" : record.getThrown().toString());
    }

    @Override
    public void flush() {
        // nothing buffered
    }

    @Override
    public void close() {
        uninstall();
    }
}
