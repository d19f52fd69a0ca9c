package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The prod profile (what the packaged jar runs) has no committed default for any secret: read from this module's
 * application.properties alone, with no environment, every property whose name says it holds a secret either fails to
 * resolve, naming the variable to set, or (where the feature is optional) resolves to nothing.
 */
class ProdSecretsTest {

    private static final Pattern SECRET = Pattern.compile("(password|api-key|api-token|secret|private-key)$");

    /** Each secret property: "required: <message>", "unset", or the committed value (a failure). */
    private static Map<String, String> secretsInProdWithoutEnvironment() throws Exception {
        PropertiesConfigSource file = new PropertiesConfigSource(
                ProdSecretsTest.class.getClassLoader().getResource("application.properties"));
        SmallRyeConfig prod = new SmallRyeConfigBuilder().withProfile("prod").addDefaultInterceptors()
                .withSources(file).build();
        Map<String, String> outcomes = new TreeMap<>();
        for (String name : file.getPropertyNames()) {
            String bare = name.startsWith("%") ? name.substring(name.indexOf('.') + 1) : name;
            if (!SECRET.matcher(bare).find()) {
                continue;
            }
            try {
                prod.getValue(bare, String.class);
                outcomes.put(bare, "committed default");
            } catch (NoSuchElementException missing) {
                // An expression without a default whose variable is unset fails to expand, naming the variable;
                // an empty value is simply absent.
                outcomes.put(bare, missing.getMessage() != null && missing.getMessage().contains("expand")
                        ? "required: " + missing.getMessage()
                        : "unset");
            }
        }
        return outcomes;
    }

    @Test
    void everySecretIsRequiredOrUnsetInProduction() throws Exception {
        Map<String, String> secrets = secretsInProdWithoutEnvironment();

        assertThat(secrets).isNotEmpty().doesNotContainValue("committed default");
        assertThat(secrets.get("quarkus.datasource.password")).startsWith("required:").contains("AGENT_DB_PASSWORD");
        assertThat(secrets.get("quarkus.datasource.\"plan\".password")).startsWith("required:")
                .contains("AGENT_PLAN_DB_PASSWORD");
        assertThat(secrets.get("quarkus.langchain4j.openai.api-key")).startsWith("required:")
                .contains("OPENAI_API_KEY");
        assertThat(secrets.get("quarkus.oidc.web.credentials.secret")).startsWith("required:")
                .contains("AGENT_OIDC_CLIENT_SECRET");
        assertThat(secrets.get("quarkus.oidc.web.authentication.state-secret")).startsWith("required:")
                .contains("AGENT_SESSION_SECRET");
        assertThat(secrets.get("quarkus.oidc.web.token-state-manager.encryption-secret")).startsWith("required:")
                .contains("AGENT_SESSION_SECRET");
        assertThat(secrets.get("countersign.session.csrf-secret")).startsWith("required:")
                .contains("AGENT_CSRF_SECRET");
    }
}
