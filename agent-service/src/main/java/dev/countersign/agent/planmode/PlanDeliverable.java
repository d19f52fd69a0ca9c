package dev.countersign.agent.planmode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.PlanFellShort;
import dev.countersign.contracts.events.PlanRefused;
import dev.countersign.contracts.events.PlanStatementDrafted;
import dev.countersign.contracts.events.PlanStatementDrafted.Guard;
import dev.countersign.contracts.events.PlanStatementDrafted.Validation;

/**
 * The one reader of what a plan turn delivered, used by the verdict, the ledger event and the API: exactly one fenced
 * statement tagged {@code postgresql} (aliases {@code postgres}, {@code pgsql}) that PostgreSQL reads as one statement
 * of this database, with its rationale after it, or a line starting {@code NO STATEMENT:} followed by what is missing.
 * Anything else is a shortfall: a fence is not a statement until PostgreSQL has read it as one.
 * <ul>
 * <li>A bare marker (nothing, or fewer than three words, after it) is not a refusal.</li>
 * <li>A real refusal wins over a fence written beside it; a marker inside a fence is not a refusal.</li>
 * <li>A fence tagged for another engine ({@code mysql}, {@code tsql}, ...) is not a deliverable, and does not hide a
 * {@code postgresql} fence next to it. {@code sql} and untagged fences name no engine: they are not the deliverable
 * either (the contract asks for the tag), and say so in the shortfall.</li>
 * </ul>
 */
public final class PlanDeliverable {

    public static final String DIALECT = "postgresql";
    static final Set<String> POSTGRESQL_TAGS = Set.of("postgresql", "postgres", "pgsql");
    /** Tags that name another engine: a fence so tagged is a statement for that engine, not for this database. */
    static final Set<String> OTHER_ENGINES = Set.of("mysql", "mariadb", "sqlite", "sqlite3", "tsql", "t-sql", "mssql",
            "sqlserver", "oracle", "plsql", "bigquery", "snowflake", "redshift", "duckdb", "clickhouse", "hive",
            "sparksql", "spark", "presto", "trino", "db2", "cql", "mongodb", "mongo", "hql", "teradata", "vertica");
    private static final Pattern WORD = Pattern.compile("\\p{L}{2,}");
    private static final Pattern QUESTION = Pattern.compile("[^.?!]*\\?");

    public sealed interface Reading permits Statement, Refusal, Shortfall {

        /** {@code statement}, {@code refusal} or {@code shortfall}. */
        String verdict();
    }

    public record Statement(String sql, String rationale, Guard guard, Validation validation) implements Reading {

        /**
         * One statement PostgreSQL parsed and analysed in this database; a fence it cannot read as one statement, or a
         * statement over relations the inventory does not list (an invented schema), is a shortfall.
         */
        @Override
        public String verdict() {
            return validation.notParsed() == null && validation.unknownTables().isEmpty() ? "statement" : "shortfall";
        }
    }

    public record Refusal(String missing, String question) implements Reading {

        @Override
        public String verdict() {
            return "refusal";
        }
    }

    public record Shortfall(String reason) implements Reading {

        @Override
        public String verdict() {
            return "shortfall";
        }
    }

    private record Fence(String tag, String content, int endLine) {
    }

    private PlanDeliverable() {
    }

    /**
     * @param analysis
     *            PostgreSQL's reading of the one fenced statement ({@link StatementAnalysis}); called at most once
     */
    public static Reading read(String reply, Function<String, StatementAnalysis.Result> analysis) {
        String[] lines = (reply == null ? "" : reply).split("\\R", -1);
        List<Fence> fences = new ArrayList<>();
        List<Integer> prose = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            String trimmed = lines[i].stripLeading();
            String opener = fenceOpener(trimmed);
            if (opener == null) {
                prose.add(i);
                continue;
            }
            String info = trimmed.substring(opener.length()).trim();
            String tag = info.isEmpty() ? "" : info.split("\\s+")[0].toLowerCase(Locale.ROOT);
            StringBuilder content = new StringBuilder();
            int j = i + 1;
            while (j < lines.length && !closes(lines[j], opener)) {
                content.append(lines[j]).append('\n');
                j++;
            }
            fences.add(new Fence(tag, content.toString(), j));
            i = j;
        }

        boolean bareMarker = false;
        for (int k = 0; k < prose.size(); k++) {
            String line = stripEmphasis(lines[prose.get(k)]);
            if (!line.startsWith(PlanRefused.MARKER)) {
                continue;
            }
            StringBuilder missing = new StringBuilder(stripEmphasis(line.substring(PlanRefused.MARKER.length())));
            for (int m = k + 1; m < prose.size(); m++) {
                missing.append('\n').append(lines[prose.get(m)]);
            }
            String text = missing.toString().trim();
            if (substantive(text)) {
                Matcher question = QUESTION.matcher(text);
                return new Refusal(text, question.find() ? question.group().trim().replaceAll("\\s+", " ") : null);
            }
            bareMarker = true;
        }

        List<Fence> statements = fences.stream()
                .filter(f -> POSTGRESQL_TAGS.contains(f.tag()) && !f.content().isBlank()).toList();
        if (statements.size() == 1) {
            Fence fence = statements.get(0);
            StringBuilder rationale = new StringBuilder();
            prose.stream().filter(i -> i > fence.endLine()).forEach(i -> rationale.append(lines[i]).append('\n'));
            String sql = fence.content().strip();
            StatementAnalysis.Result analysed = analysis.apply(sql);
            return new Statement(sql, rationale.toString().strip(), analysed.guard(), analysed.validation());
        }
        if (statements.size() > 1) {
            return new Shortfall(statements.size() + " fences are tagged postgresql; a plan delivers exactly one"
                    + " statement.");
        }
        if (bareMarker) {
            return new Shortfall("A bare NO STATEMENT: marker, with no account of what is missing after it, is not a"
                    + " refusal.");
        }
        List<String> otherEngines = fences.stream().map(Fence::tag).filter(OTHER_ENGINES::contains).distinct()
                .toList();
        if (!otherEngines.isEmpty()) {
            return new Shortfall("A fence tagged " + String.join(", ", otherEngines) + " is a statement for another"
                    + " engine, not a deliverable for this PostgreSQL database.");
        }
        if (fences.stream().anyMatch(f -> (f.tag().isEmpty() || f.tag().equals("sql")) && !f.content().isBlank())) {
            return new Shortfall("A fence without the postgresql tag (untagged or sql) is not the deliverable: the"
                    + " statement must be in a ```postgresql fence.");
        }
        return new Shortfall("Neither a statement in a ```postgresql fence nor a line starting NO STATEMENT: with"
                + " what is missing.");
    }

    /** The ledger event for a reading of the turn {@code turnId}. */
    public static PlanEvent event(Reading reading, ConversationKey conversation, UUID turnId) {
        UUID eventId = UUID.randomUUID();
        Instant now = Instant.now();
        if (reading instanceof Statement s) {
            return new PlanStatementDrafted(eventId, PlanEvent.SCHEMA_VERSION, now, conversation.tenantId(),
                    conversation.userId(), conversation.conversationId(), turnId, DIALECT, s.sql(), s.rationale(),
                    s.guard(), s.validation());
        }
        if (reading instanceof Refusal r) {
            return new PlanRefused(eventId, PlanEvent.SCHEMA_VERSION, now, conversation.tenantId(),
                    conversation.userId(), conversation.conversationId(), turnId, r.missing(), r.question());
        }
        return new PlanFellShort(eventId, PlanEvent.SCHEMA_VERSION, now, conversation.tenantId(),
                conversation.userId(), conversation.conversationId(), turnId, ((Shortfall) reading).reason());
    }

    /** The opening run of backticks or tildes (three or more), or null. */
    private static String fenceOpener(String trimmed) {
        char c = trimmed.isEmpty() ? ' ' : trimmed.charAt(0);
        if (c != '`' && c != '~') {
            return null;
        }
        int n = 0;
        while (n < trimmed.length() && trimmed.charAt(n) == c) {
            n++;
        }
        return n >= 3 ? trimmed.substring(0, n) : null;
    }

    private static boolean closes(String line, String opener) {
        String trimmed = line.strip();
        return trimmed.length() >= opener.length() && trimmed.chars().allMatch(ch -> ch == opener.charAt(0));
    }

    /** Leading whitespace and Markdown emphasis ({@code **NO STATEMENT:**}) are not part of the marker. */
    private static String stripEmphasis(String line) {
        String s = line.strip();
        while (!s.isEmpty() && (s.charAt(0) == '*' || s.charAt(0) == '_' || s.charAt(0) == '>')) {
            s = s.substring(1).stripLeading();
        }
        while (!s.isEmpty() && (s.charAt(s.length() - 1) == '*' || s.charAt(s.length() - 1) == '_')) {
            s = s.substring(0, s.length() - 1).stripTrailing();
        }
        return s;
    }

    /** What follows the marker says something: at least three words. */
    private static boolean substantive(String text) {
        Matcher words = WORD.matcher(text);
        int count = 0;
        while (words.find()) {
            count++;
        }
        return count >= 3;
    }
}
