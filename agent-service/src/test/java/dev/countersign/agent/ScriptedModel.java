package dev.countersign.agent;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.devsupport.model.ModelBrain;
import dev.countersign.devsupport.model.ModelServer;
import dev.countersign.devsupport.testing.TestProperties;

/** The OpenAI-compatible scripted model the agent under test talks to over real HTTP. One per test JVM. */
final class ScriptedModel {

    private static ModelServer server;

    private ScriptedModel() {
    }

    static synchronized ModelServer use(ModelBrain brain) {
        if (server == null) {
            server = ModelServer.start(Integer.parseInt(TestProperties.require(TestProperties.MODEL_PORT)), brain);
        }
        server.useBrain(brain);
        server.clearRequests();
        return server;
    }

    /** Every message of every request the model received, as JSON text. */
    static String everythingTheModelSaw() {
        return server.requests().stream().map(JsonNode::toString).reduce("", String::concat);
    }

    static List<JsonNode> requests() {
        return server.requests();
    }
}
