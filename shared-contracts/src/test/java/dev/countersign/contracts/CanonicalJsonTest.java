package dev.countersign.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.json.CanonicalJson;
import dev.countersign.contracts.json.ConfirmTokens;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.ParamsHash;

class CanonicalJsonTest {

    @Test
    void sortsKeysAtEveryDepthAndDropsWhitespace() throws Exception {
        var node = Json.mapper()
                .readTree("{ \"b\" : 1, \"a\" : { \"z\" : [ 2, { \"y\": true, \"x\": null } ], \"c\": \"é\" } }");

        assertThat(CanonicalJson.toString(node))
                .isEqualTo("{\"a\":{\"c\":\"é\",\"z\":[2,{\"x\":null,\"y\":true}]},\"b\":1}");
    }

    @Test
    void keyOrderOfTheInputDoesNotChangeTheHash() throws Exception {
        var one = Json.mapper().readTree("{\"amount\":\"12.50\",\"category\":\"coffee\"}");
        var two = Json.mapper().readTree("{\"category\":\"coffee\",\"amount\":\"12.50\"}");

        assertThat(ParamsHash.of(one)).isEqualTo(ParamsHash.of(two));
    }

    @Test
    void hashMatchesAnIndependentImplementation() throws Exception {
        // The fixture's paramsHash was computed outside Java (sorted keys, "," and ":" separators, UTF-8, SHA-256).
        var fixture = ContractFixtures.tree(ContractFixtures.ACTION_PROPOSED);

        assertThat(ParamsHash.of(fixture.get("params"))).isEqualTo(fixture.get("paramsHash").asText());
    }

    @Test
    void tokenHashIsSha256HexOfTheUtf8Token() {
        assertThat(ConfirmTokens.hash("1"))
                .isEqualTo("6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b");
    }
}
