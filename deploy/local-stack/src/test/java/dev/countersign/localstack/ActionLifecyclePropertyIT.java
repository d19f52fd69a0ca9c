package dev.countersign.localstack;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.countersign.devsupport.testing.TopicRecords;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import net.jqwik.api.statistics.Statistics;

/**
 * Random sequences of proposals, confirms (one at a time, duplicated, 8 at once across two executor instances, by
 * another user, by a user of another tenant holding the card, or twice as the same decisions-topic event), cancels,
 * closed decision windows, redelivered proposals and batches, against the whole stack with two executor instances (the
 * shared one, {@link SharedStacks}: each try has a tenant of its own). After every step the database must show at most
 * one execution per action, at most one terminal status reached once, a complete audit trail ending in the current
 * status, one outbox event per committed state change, and what the model expects.
 */
class ActionLifecyclePropertyIT {

    private static LocalStack stack;
    private static TopicRecords kafka;
    private static ExecutorService threads;

    @BeforeContainer
    static void startStack() throws Exception {
        stack = SharedStacks.twoExecutors();
        kafka = new TopicRecords(stack.bootstrapServers());
        threads = Executors.newFixedThreadPool(8);
    }

    @AfterContainer
    static void stopStack() {
        if (threads != null) {
            threads.shutdownNow();
        }
    }

    @Property(tries = 12, shrinking = ShrinkingMode.BOUNDED)
    void everyActionRunsAtMostOnceWithACompleteTrail(@ForAll("lifecycles") ActionChain<LifecycleModel> chain)
            throws Exception {
        LifecycleModel last = chain.withInvariant("database invariants", LifecycleModel::checkInvariants).run();
        last.settle();
        // The report below the property shows which steps the tries exercised.
        chain.transformations()
                .forEach(step -> Statistics.label("steps").collect(step.replaceAll("[ #]*[0-9\\[\\], ]+$", "")
                        .replaceAll("^propose.*", "propose")));
    }

    @Provide
    Arbitrary<ActionChain<LifecycleModel>> lifecycles() {
        return ActionChain.startWith(() -> LifecycleModel.fresh(stack, kafka, threads))
                .withAction(4, new Propose())
                .withAction(3, onAnAction(Combinators.combine(Arbitraries.integers().between(0, 1),
                        Arbitraries.of(false, true)).as(
                                (instance, byBob) -> (index, model) -> model
                                        .confirm(model.actions.get(index), instance, byBob)),
                        "confirm"))
                .withAction(2, onAnAction(Arbitraries.just((index, model) -> model
                        .concurrentConfirms(model.actions.get(index), 8)), "8 concurrent confirms"))
                .withAction(2, onAnAction(Arbitraries.integers().between(0, 1)
                        .map(instance -> (index, model) -> model.cancel(model.actions.get(index), instance)),
                        "cancel"))
                .withAction(1, onAnAction(Arbitraries.integers().between(0, 1).map(instance -> (index,
                        model) -> model.confirmFromAnotherTenant(model.actions.get(index), instance)),
                        "confirm from another tenant"))
                .withAction(1, onAnAction(Arbitraries.just((index, model) -> model
                        .closeWindow(model.actions.get(index))), "close the window"))
                .withAction(1, onAnAction(Arbitraries.just((index, model) -> model
                        .redeliverProposal(model.actions.get(index))), "redeliver the proposal"))
                .withAction(1, onAnAction(Arbitraries.just((index, model) -> model
                        .confirmByEventTwice(model.actions.get(index))), "confirm twice by event"))
                .withAction(1, new Batch())
                .withMaxTransformations(14);
    }

    /** A step on one of the actions proposed so far, chosen by index (so shrinking replays it). */
    private static Action.Dependent<LifecycleModel> onAnAction(Arbitrary<Step> steps, String name) {
        return new Action.Dependent<>() {

            @Override
            public boolean precondition(LifecycleModel model) {
                return !model.actions.isEmpty();
            }

            @Override
            public Arbitrary<Transformer<LifecycleModel>> transformer(LifecycleModel model) {
                return Combinators.combine(Arbitraries.integers().between(0, model.actions.size() - 1), steps)
                        .as((index, step) -> Transformer.mutate(name + " #" + index,
                                target -> run(() -> step.apply(index, target))));
            }
        };
    }

    /** A new expense of 0.01 to 99.99 (below the HIGH threshold, so any user of the tenant may confirm it). */
    private static final class Propose implements Action.Independent<LifecycleModel> {

        @Override
        public Arbitrary<Transformer<LifecycleModel>> transformer() {
            return Arbitraries.integers().between(1, 9_999).map(cents -> Transformer.mutate(
                    "propose " + cents + " cents", model -> run(() -> model.propose(cents))));
        }
    }

    /** Two or three distinct actions confirmed in one batch. */
    private static final class Batch implements Action.Dependent<LifecycleModel> {

        @Override
        public boolean precondition(LifecycleModel model) {
            return model.actions.size() >= 2;
        }

        @Override
        public Arbitrary<Transformer<LifecycleModel>> transformer(LifecycleModel model) {
            return Arbitraries.integers().between(0, model.actions.size() - 1).set()
                    .ofMinSize(2).ofMaxSize(Math.min(3, model.actions.size()))
                    .map(indexes -> Transformer.mutate("batch " + indexes, target -> run(() -> target
                            .confirmBatch(indexes.stream().map(target.actions::get).toList()))));
        }
    }

    @FunctionalInterface
    private interface Step {

        void apply(int index, LifecycleModel model) throws Exception;
    }

    @FunctionalInterface
    private interface Checked {

        void run() throws Exception;
    }

    private static void run(Checked step) {
        try {
            step.run();
        } catch (RuntimeException | AssertionError e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

}
