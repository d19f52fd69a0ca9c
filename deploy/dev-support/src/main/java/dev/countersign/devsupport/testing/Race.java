package dev.countersign.devsupport.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Calls released at the same moment, each on its own thread, for tests of what concurrent requests come to. */
public final class Race {

    private Race() {
    }

    /** Runs every call at once on a pool as large as the race; the results in the order of the calls. */
    public static <T> List<T> together(List<Callable<T>> calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            return together(calls, pool);
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code n} copies of {@code call} at once. */
    public static <T> List<T> times(int n, Callable<T> call) throws Exception {
        return together(Collections.nCopies(n, call));
    }

    /** Runs every call at once on {@code pool}, which needs at least as many threads as there are calls. */
    public static <T> List<T> together(List<Callable<T>> calls, ExecutorService pool) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (Callable<T> call : calls) {
            futures.add(pool.submit(() -> {
                start.await();
                return call.call();
            }));
        }
        start.countDown();
        List<T> results = new ArrayList<>();
        for (Future<T> future : futures) {
            results.add(future.get());
        }
        return results;
    }
}
