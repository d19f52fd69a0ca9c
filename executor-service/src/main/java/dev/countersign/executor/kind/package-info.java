/**
 * The interface between the gate and the action kinds: what a kind's executor part implements ({@link DatabaseKind},
 * {@link ExternalKind}, optionally {@link Undoable}) and the little it may use ({@link KindAction}, {@link Egress},
 * {@link TextWriters}, the refusals). It depends on the shared contracts and libraries only; the gate depends on it,
 * and a kind (under {@code dev.countersign.executor.kinds}) depends on it and on nothing else of the gate, which an
 * architecture test holds. The gate finds the kinds as CDI beans and never names one.
 * <p>
 * Stable on purpose: a change here changes every kind. What a kind cannot do through it (read the approval, the person
 * who decided, the tenant's policy; open a transaction; reach a vendor outside its {@link Egress}) it cannot do at all.
 */
package dev.countersign.executor.kind;
