package dev.countersign.agent;

/** Test-only: what the boundary scan must find. Never loaded by the application. */
final class PlantedWriter {

    static final String INSERT = "INSERT INTO wallets (id) VALUES ($1)";
    static final String UPDATE = "UPDATE wallets SET name = $1";
    static final String DELETE = "DELETE FROM actions";
    static final String GRANT = "GRANT ALL ON actions TO PUBLIC";
    static final String REDIRECT = "withTopic";

    private PlantedWriter() {
    }

    static java.net.http.HttpClient client() {
        return java.net.http.HttpClient.newHttpClient();
    }
}
