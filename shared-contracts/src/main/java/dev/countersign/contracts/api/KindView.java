package dev.countersign.contracts.api;

/**
 * One action kind as a person's page shows it, from its declaration: what it is called, and whether an executed action
 * of it can be undone here (false where the page cannot undo anything).
 */
public record KindView(String kind, String label, boolean undoable) {
}
