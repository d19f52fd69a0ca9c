package dev.countersign.executor;

/**
 * The SQL baseline of the confirm benchmark ({@code deploy/bench/confirm-baseline.sql}): the executor's statements for
 * a person's HTTP confirm of a LOW {@code ledger.transaction.create} as they were when issue 41 started, one by one,
 * and one PL/pgSQL function {@code bench_confirm} doing the same work in one round trip. Until then this class wrote
 * the file from the executor's constants; issue 41 froze it (its target is measured against the confirm as it was), so
 * this class only reads the function out of it.
 */
final class ConfirmBaseline {

    private static final String FUNCTION = "-- function: one round trip for the same work\n";

    private ConfirmBaseline() {
    }

    /** The {@code CREATE FUNCTION bench_confirm} statement of the file's text. */
    static String function(String file) {
        int at = file.indexOf(FUNCTION);
        if (at < 0) {
            throw new IllegalStateException("confirm-baseline.sql has no one-round-trip function");
        }
        return file.substring(at + FUNCTION.length()).strip();
    }
}
