package dev.countersign.devsupport.testing.fuzz;

import java.util.Random;

/**
 * The seed and size of one fuzz run, from {@code -Dcountersign.fuzz.seed} (default: a fresh seed) and
 * {@code -Dcountersign.fuzz.inputs} (default 1000 per endpoint or topic). The seed is printed at the start and named in
 * every failure, so {@code ./mvnw ... -Dcountersign.fuzz.seed=N} replays the same inputs.
 */
public record FuzzRun(long seed, int inputs) {

    public static final String SEED_PROPERTY = "countersign.fuzz.seed";
    public static final String INPUTS_PROPERTY = "countersign.fuzz.inputs";

    public static FuzzRun fromSystemProperties(String testName) {
        String seedText = System.getProperty(SEED_PROPERTY);
        long seed = seedText == null || seedText.isBlank() ? new Random().nextLong() : Long.parseLong(seedText.trim());
        int inputs = Integer.getInteger(INPUTS_PROPERTY, 1000);
        FuzzRun run = new FuzzRun(seed, inputs);
        System.out.printf("%s: %d inputs per target, %s%n", testName, inputs, run.replay());
        return run;
    }

    /**
     * A generator for one target (an endpoint or a topic), seeded from the run's seed and the target's name: adding an
     * endpoint does not change the inputs of the others.
     */
    public Random randomFor(String target) {
        return new Random(seed ^ ((long) target.hashCode() << 32 | (target.length() & 0xffffffffL)));
    }

    /** What every failure message carries. */
    public String replay() {
        return "seed " + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed + ")";
    }
}
