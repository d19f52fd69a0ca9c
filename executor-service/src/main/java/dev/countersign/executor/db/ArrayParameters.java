package dev.countersign.executor.db;

import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * Array parameters for statements that take one array per column and {@code unnest} them (a batch in one statement).
 */
public final class ArrayParameters {

    private ArrayParameters() {
    }

    /** One column: {@code value} of each of {@code rows}, in order, nulls kept. */
    public static <T, C> C[] column(List<T> rows, Function<T, C> value, IntFunction<C[]> array) {
        return rows.stream().map(value).toArray(array);
    }
}
