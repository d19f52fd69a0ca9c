package dev.countersign.devsupport.model;

/** Decides the answer to one chat-completions request. */
@FunctionalInterface
public interface ModelBrain {

    ModelReply respond(ModelTurn turn);
}
