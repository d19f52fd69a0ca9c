package dev.countersign.executor.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.devsupport.LocalPostgres;

/**
 * The database's rules (functions and their triggers) live in repeatable migrations, one file per rule, and the
 * versioned migrations hold tables, indexes, roles, grants and policies (docs/adr/0003). These tests hold that the move
 * changed nothing a database ends up with: a database migrated with today's files is compared, catalog row by catalog
 * row, with one migrated with the versioned files as they were before the move (frozen in
 * src/test/resources/db/legacy-migration, never edited), and so is a database first migrated with those old files and
 * then upgraded the documented way (repair, then migrate). Rules changed since the move ({@link #RULES_CHANGED_SINCE})
 * are applied to the reference too, so the comparison keeps meaning "the move changed nothing else".
 * <p>
 * Its own PostgreSQL server (the module's shared one holds the application's database, which these tests must not
 * touch), with the same roles as every test.
 */
class DatabaseRulesMigrationTest {

    private static final String CURRENT = "classpath:db/migration";
    private static final String LEGACY = "classpath:db/legacy-migration";
    /**
     * Functions a versioned migration needs while it runs, so they are created in it (Flyway runs repeatables after
     * every versioned migration): each row-level security policy calls current_tenant(), V8's backfill derives keys
     * with idempotency_key(uuid), V36's check of the webhook origins calls webhook_origins_valid(text[]). Such a
     * function may be restated by one repeatable, where its rule then lives (R__current_tenant.sql); no other file
     * creates it.
     */
    private static final Map<String, String> FUNCTIONS_KEPT_IN_VERSIONED = Map.of("current_tenant",
            "V7__row_level_security.sql", "idempotency_key", "V8__idempotency_keys.sql", "webhook_origins_valid",
            "V36__webhook_notifications.sql");
    /**
     * Migrations added, and repeatable migrations whose rule changed or was added, after the move: the reference
     * database gets them too, in this order.
     */
    private static final List<String> RULES_CHANGED_SINCE = List.of("V23__reader_grants.sql",
            "V24__action_target_owner.sql", "V25__text_writers_per_column.sql", "V26__provenance_incidents.sql",
            "V27__approver_token_uses.sql", "V28__policy_changes.sql", "V29__undo_approvals.sql",
            "V30__action_kinds.sql",
            "R__actions_external_calls.sql", "R__action_kinds.sql", "V31__wallet_transfers.sql",
            "R__wallet_transfers.sql", "V32__mcp_client.sql", "R__actions_decision_marks.sql",
            "R__actions_mcp_marks.sql", "R__tenant_policy_history.sql", "V33__mcp_proposals_never_clean.sql",
            "R__row_versions.sql", "R__wallets_currency_fixed.sql",
            "R__actions_auto_apply_marks.sql", "R__actions_state_machine.sql", "R__current_tenant.sql",
            "R__outbox_relay.sql",
            "R__plan_statistics.sql", "R__policy_changes.sql", "R__provenance_incident.sql", "R__reader_grants.sql",
            "R__retention.sql", "R__execute_action.sql", "R__first_delivery.sql", "R__action_history.sql",
            "R__idempotency_keys_follow_actions.sql", "R__actions_target_guard.sql", "R__actions_trace_parent.sql",
            "V34__tenant_members.sql", "V35__notifications.sql", "V36__webhook_notifications.sql",
            "V37__action_reminders.sql", "R__notifications.sql", "V38__action_edits.sql", "R__action_edits.sql",
            "V39__second_device_requests.sql", "R__second_device_requests.sql", "R__tenant_policy_history.sql");
    /** The embedded server's superuser (zonky's default), used only to create the databases compared here. */
    private static final String SUPERUSER = "postgres";
    private static final Map<String, String> PLACEHOLDERS = MigratedDatabase.PLACEHOLDERS;

    private static LocalPostgres server;
    private static String legacyDatabase;

    @BeforeAll
    static void migrateTheReference() throws SQLException, IOException, URISyntaxException {
        server = LocalPostgres.start(0, null);
        legacyDatabase = createDatabase("rules_legacy");
        flyway(legacyDatabase, LEGACY).migrate();
        try (Connection reference = connect(legacyDatabase); var sql = reference.createStatement()) {
            // Then every kind's own repeatable migration (db/migration/kinds/, all added since): a team adds a kind
            // without listing its file here.
            List<Path> rules = new ArrayList<>();
            for (String rule : RULES_CHANGED_SINCE) {
                rules.add(migrationFile(rule));
            }
            rules.addAll(kindMigrationFiles());
            for (Path rule : rules) {
                String text = Files.readString(rule);
                for (var placeholder : PLACEHOLDERS.entrySet()) {
                    text = text.replace("${" + placeholder.getKey() + "}", placeholder.getValue());
                }
                // Flyway's own placeholder: the role that runs the migrations (the owner, below).
                sql.execute(text.replace("${flyway:user}", LocalPostgres.OWNER_ROLE));
            }
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aNewDatabaseGetsTheSameFunctionsTriggersAndGrantsAsFromTheOriginalMigrations() throws SQLException {
        String database = createDatabase("rules_current");

        flyway(database, CURRENT).migrate();

        assertSameRules(database);
    }

    /** An existing database: migrated by the old files up to a version, then upgraded as docs/adr/0003 says. */
    @ParameterizedTest
    @ValueSource(strings = {"10", "21"})
    void aDatabaseMigratedByTheOriginalFilesUpgradesByRepairThenMigrate(String migratedUpTo) throws SQLException {
        String database = createDatabase("rules_upgraded_from_v" + migratedUpTo);
        Flyway.configure().configuration(flyway(database, LEGACY).getConfiguration()).target(migratedUpTo).load()
                .migrate();
        Flyway current = flyway(database, CURRENT);

        assertThatThrownBy(current::migrate).as("the versioned files were edited: without repair, Flyway refuses")
                .hasMessageContaining("checksum mismatch");
        current.repair();
        current.migrate();

        assertSameRules(database);
    }

    /**
     * V25's backfill, around the application on a database migrated to V24 with rows in it: of a row whose last writer
     * (V16's one text_action_id) was an amount-only edit, neither text column keeps that writer (it wrote neither: its
     * text was laundered there) but the nil writer, nobody's own; of a row whose last edit wrote the note, the note
     * keeps it and the category does not.
     */
    @Test
    void theProvenanceBackfillLeavesNoColumnToAWriterThatDidNotWriteIt(@TempDir Path upToV24)
            throws SQLException, IOException, URISyntaxException {
        String database = createDatabase("provenance_backfill");
        // The versioned files up to V24 alone: a target would still run today's repeatables, which need later tables.
        for (Path file : migrationFiles()) {
            Matcher version = Pattern.compile("V(\\d+)__.*").matcher(file.getFileName().toString());
            if (version.matches() && Integer.parseInt(version.group(1)) <= 24) {
                Files.copy(file, upToV24.resolve(file.getFileName()));
            }
        }
        flyway(database, "filesystem:" + upToV24).migrate();
        String nil = "00000000-0000-0000-0000-000000000000";
        try (Connection owner = connect(database); var sql = owner.createStatement()) {
            sql.execute("INSERT INTO wallets (id, tenant_id, owner_id, name, currency) VALUES"
                    + " ('10000000-0000-0000-0000-000000000001', 't', 'alice', 'Checking', 'EUR')");
            for (String[] edit : List.of(new String[]{"1", "{\"amount\": \"4.00\"}"},
                    new String[]{"2", "{\"description\": \"tea\"}"})) {
                sql.execute(
                        ("INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash,"
                                + " token_hash, summary, proposed_at, expires_at) VALUES ('20000000-0000-0000-0000-00000000000%s',"
                                + " 't', 'alice', 'ledger.transaction.edit', 'medium', 'proposed', '%s', repeat('a', 64),"
                                + " repeat('b', 64), 'an edit', now(), now() + interval '1 hour')")
                                .formatted(edit[0], edit[1]));
                sql.execute(("INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description,"
                        + " occurred_on, text_action_id) VALUES ('30000000-0000-0000-0000-00000000000%1$s', 't',"
                        + " '10000000-0000-0000-0000-000000000001', 4.00, 'coffee', 'planted', current_date,"
                        + " '20000000-0000-0000-0000-00000000000%1$s')").formatted(edit[0]));
            }
        }

        flyway(database, CURRENT).migrate();

        try (Connection owner = connect(database);
                var rows = owner.createStatement().executeQuery(
                        "SELECT category_action_id || ' ' || description_action_id FROM transactions ORDER BY id")) {
            List<String> writers = new ArrayList<>();
            while (rows.next()) {
                writers.add(rows.getString(1));
            }
            assertThat(writers).containsExactly(nil + " " + nil,
                    nil + " 20000000-0000-0000-0000-000000000002");
        }
    }

    /**
     * One file to read per rule: no versioned migration creates, alters or grants a function (but the two it needs
     * while it runs) or creates a trigger, no function is created in two files, and every repeatable can run again.
     */
    @Test
    void eachFunctionAndTriggerIsCreatedInOneFileOnly() throws IOException, URISyntaxException {
        Map<String, List<String>> filesCreating = new TreeMap<>();
        Pattern function = Pattern.compile("CREATE\\s+(OR\\s+REPLACE\\s+)?FUNCTION\\s+(\\w+)",
                Pattern.CASE_INSENSITIVE);
        Pattern trigger = Pattern.compile(
                "CREATE\\s+(OR\\s+REPLACE\\s+)?(CONSTRAINT\\s+)?TRIGGER\\s+(\\w+)\\s.*?\\sON\\s+(\\w+)",
                Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
        for (Path file : migrationFiles()) {
            String name = file.getFileName().toString();
            String sql = withoutComments(Files.readString(file));
            boolean repeatable = name.startsWith("R__");
            Matcher functions = function.matcher(sql);
            while (functions.find()) {
                String created = functions.group(2).toLowerCase();
                filesCreating.computeIfAbsent(created, f -> new ArrayList<>()).add(name);
                if (repeatable) {
                    assertThat(functions.group(1)).as("%s creates %s without OR REPLACE: it could not run again", name,
                            created).isNotNull();
                } else {
                    assertThat(FUNCTIONS_KEPT_IN_VERSIONED.get(created))
                            .as("%s creates function %s: rules belong in a repeatable migration", name, created)
                            .isEqualTo(name);
                }
            }
            Matcher triggers = trigger.matcher(sql);
            while (triggers.find()) {
                String created = triggers.group(3);
                String table = triggers.group(4);
                assertThat(repeatable).as("%s creates trigger %s: triggers live with their function in a repeatable",
                        name, created).isTrue();
                assertThat(sql).as("%s creates trigger %s without dropping it first: it could not run again", name,
                        created)
                        .containsPattern("(?i)DROP\\s+TRIGGER\\s+IF\\s+EXISTS\\s+" + created + "\\s+ON\\s+" + table
                                + "\\s*;");
            }
            if (!repeatable) {
                assertThat(sql).as("%s changes a function's attributes or grants: restate them in its repeatable", name)
                        .doesNotContainPattern("(?i)ALTER\\s+FUNCTION|ON\\s+FUNCTION");
            }
        }
        assertThat(filesCreating).as("files creating each function").allSatisfy((created, files) -> {
            String versioned = FUNCTIONS_KEPT_IN_VERSIONED.get(created);
            if (versioned == null) {
                assertThat(files).as("files creating %s", created).hasSize(1);
            } else {
                assertThat(files).as("files creating %s", created).contains(versioned);
                assertThat(files).as("files creating %s", created).hasSizeLessThanOrEqualTo(2)
                        .allMatch(file -> file.equals(versioned) || file.startsWith("R__"));
            }
        });
        assertThat(filesCreating).as("functions found in the migrations").hasSizeGreaterThan(25);
    }

    private static void assertSameRules(String database) throws SQLException {
        Map<String, List<String>> expected = Catalog.read(connect(legacyDatabase));
        Map<String, List<String>> actual = Catalog.read(connect(database));
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        for (String part : expected.keySet()) {
            List<String> unexpected = new ArrayList<>(actual.get(part));
            unexpected.removeAll(expected.get(part));
            List<String> missing = new ArrayList<>(expected.get(part));
            missing.removeAll(actual.get(part));
            assertThat(expected.get(part)).as("%s the original migrations leave", part).isNotEmpty();
            assertThat(unexpected).as("%s in %s that the original migrations do not leave so", part, database)
                    .isEmpty();
            assertThat(missing).as("%s the original migrations leave that %s lacks", part, database).isEmpty();
        }
    }

    /** The migration file {@code name}, in any folder under a {@code db/migration} of the classpath (kinds' too). */
    private static Path migrationFile(String name) throws IOException, URISyntaxException {
        for (Path root : migrationRoots()) {
            try (Stream<Path> files = Files.walk(root)) {
                var found = files.filter(f -> f.getFileName().toString().equals(name)).findFirst();
                if (found.isPresent()) {
                    return found.get();
                }
            }
        }
        throw new IllegalStateException("No migration file " + name);
    }

    /** The migration files under each {@code db/migration} of the classpath, the kinds' subfolders included. */
    private static List<Path> migrationFiles() throws IOException, URISyntaxException {
        List<Path> all = new ArrayList<>();
        for (Path root : migrationRoots()) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(f -> f.toString().endsWith(".sql")).forEach(all::add);
            }
        }
        return all.stream().sorted(Comparator.comparing(Path::getFileName)).toList();
    }

    /** The kinds' own migrations, under {@code db/migration/kinds/} of the classpath. */
    private static List<Path> kindMigrationFiles() throws IOException, URISyntaxException {
        return migrationFiles().stream().filter(f -> f.toString().replace('\\', '/').contains("/db/migration/kinds/"))
                .toList();
    }

    /**
     * Each {@code db/migration} folder of the classpath: the application's, and the tests' (a test kind's function).
     */
    private static List<Path> migrationRoots() throws IOException, URISyntaxException {
        List<Path> roots = new ArrayList<>();
        for (var url : Collections
                .list(DatabaseRulesMigrationTest.class.getClassLoader().getResources("db/migration"))) {
            roots.add(Path.of(url.toURI()));
        }
        return roots;
    }

    private static String withoutComments(String sql) {
        return sql.replaceAll("--[^\\n]*", "");
    }

    private static Flyway flyway(String database, String location) {
        return Flyway.configure().dataSource(url(database), LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD)
                .locations(location)
                .placeholders(PLACEHOLDERS).load();
    }

    private static String createDatabase(String name) throws SQLException {
        try (Connection admin = DriverManager.getConnection(url("postgres"), SUPERUSER, SUPERUSER);
                var sql = admin.createStatement()) {
            sql.execute("CREATE DATABASE " + name + " OWNER " + LocalPostgres.OWNER_ROLE);
        }
        return name;
    }

    private static Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url(database), LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD);
    }

    private static String url(String database) {
        return "jdbc:postgresql://localhost:%d/%s".formatted(server.port(), database);
    }
}
