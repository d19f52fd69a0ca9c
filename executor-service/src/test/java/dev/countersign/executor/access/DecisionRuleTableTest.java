package dev.countersign.executor.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Tier;

/**
 * The decision rule against the table docs/security/authorization.md prints: the table is parsed (not the rule's own
 * data), expanded to every cell, and each cell's expected verdict is compared with {@link DecisionRule}. A mutation
 * check shows the comparison catches any one flipped cell.
 */
class DecisionRuleTableTest {

    private static final Path TABLE = Path.of("..", "docs", "security", "authorization.md");
    private static final List<Tier> TIERS = List.of(Tier.LOW, Tier.MEDIUM, Tier.HIGH);

    /** One cell of the table. */
    record Cell(Operation operation, Tier tier, Channel channel, Relation relation, boolean approver, boolean admin,
            boolean service) {
    }

    /** A rule as a function of a cell (the real one, or a mutated one). */
    interface CellRule extends Function<Cell, Verdict> {
    }

    private record Row(Set<String> operations, Set<String> tiers, Set<String> channels, Set<String> relations,
            Set<String> approver, Set<String> admin, Set<String> service, Verdict verdict) {

        boolean matches(Cell cell) {
            return has(operations, cell.operation().tableName())
                    && has(tiers, cell.tier().wireName()) && has(channels, cell.channel().tableName())
                    && has(relations, cell.relation().tableName()) && has(approver, yesNo(cell.approver()))
                    && has(admin, yesNo(cell.admin())) && has(service, yesNo(cell.service()));
        }

        private static boolean has(Set<String> values, String value) {
            return values.contains("any") || values.contains(value);
        }

        private static String yesNo(boolean value) {
            return value ? "yes" : "no";
        }
    }

    private static List<Row> rows;
    private static Map<Cell, Verdict> expected;

    @BeforeAll
    static void readTheTable() throws IOException {
        String text = Files.readString(TABLE);
        String table = text.substring(text.indexOf("<!-- decision-table -->"),
                text.indexOf("<!-- /decision-table -->"));
        rows = new ArrayList<>();
        for (String line : table.lines().filter(l -> l.startsWith("|")).skip(2).toList()) {
            List<Set<String>> columns = Arrays.stream(line.substring(1, line.lastIndexOf('|')).split("\\|"))
                    .map(column -> Arrays.stream(column.split(",")).map(String::trim).collect(Collectors.toSet()))
                    .toList();
            assertThat(columns).as(line).hasSize(8);
            rows.add(new Row(columns.get(0), columns.get(1), columns.get(2), columns.get(3), columns.get(4),
                    columns.get(5), columns.get(6), Verdict.valueOf(columns.get(7).iterator().next().toUpperCase())));
        }
        expected = new LinkedHashMap<>();
        for (Cell cell : cells()) {
            Row first = rows.stream().filter(row -> row.matches(cell)).findFirst().orElse(null);
            assertThat(first).as("a row of the table for " + cell).isNotNull();
            expected.put(cell, first.verdict());
        }
    }

    static List<Cell> cells() {
        List<Cell> cells = new ArrayList<>();
        for (Operation operation : Operation.values()) {
            for (Tier tier : TIERS) {
                for (Channel channel : Channel.values()) {
                    for (Relation relation : Relation.values()) {
                        for (boolean approver : new boolean[]{false, true}) {
                            for (boolean admin : new boolean[]{false, true}) {
                                for (boolean service : new boolean[]{false, true}) {
                                    cells.add(new Cell(operation, tier, channel, relation, approver, admin, service));
                                }
                            }
                        }
                    }
                }
            }
        }
        return cells;
    }

    private static final CellRule RULE = cell -> DecisionRule.decide(cell.operation(), cell.tier(), cell.channel(),
            cell.relation(), cell.approver(), cell.admin(), cell.service());

    private static List<Cell> mismatches(CellRule rule) {
        return expected.entrySet().stream().filter(e -> rule.apply(e.getKey()) != e.getValue()).map(Map.Entry::getKey)
                .toList();
    }

    @Test
    void theTableNamesEveryValueItUsesAndCoversEveryCell() {
        assertThat(expected.size()).isEqualTo(Operation.values().length * 3 * Channel.values().length * 4 * 2 * 2 * 2);
        Set<String> known = new java.util.HashSet<>(Set.of("any", "yes", "no", "allow", "deny"));
        Arrays.stream(Operation.values()).forEach(o -> known.add(o.tableName()));
        TIERS.forEach(t -> known.add(t.wireName()));
        Arrays.stream(Channel.values()).forEach(c -> known.add(c.tableName()));
        Arrays.stream(Relation.values()).forEach(r -> known.add(r.tableName()));
        for (Row row : rows) {
            for (Set<String> column : List.of(row.operations(), row.tiers(), row.channels(), row.relations(),
                    row.approver(), row.admin(), row.service())) {
                assertThat(known).as("a value of the table (a typo would match nothing)").containsAll(column);
            }
        }
        // Both verdicts occur for every operation: no operation is allowed or refused to everyone.
        for (Operation operation : Operation.values()) {
            assertThat(expected.entrySet().stream().filter(e -> e.getKey().operation() == operation)
                    .map(Map.Entry::getValue).distinct()).as(operation.tableName()).hasSize(2);
        }
    }

    @Test
    void theRuleAnswersEveryCellAsTheTableSays() {
        assertThat(mismatches(RULE)).isEmpty();
    }

    @Test
    void flippingAnyOneCellOfTheRuleIsCaught() {
        for (Cell flipped : expected.keySet()) {
            CellRule mutant = cell -> {
                Verdict verdict = RULE.apply(cell);
                return cell.equals(flipped) ? (verdict == Verdict.ALLOW ? Verdict.DENY : Verdict.ALLOW) : verdict;
            };
            assertThat(mismatches(mutant)).as("the mutant flipping " + flipped).containsExactly(flipped);
        }
    }

    @Test
    void theCasesTheIssueNamesComeOutAsItAsks() {
        // dave (user only) confirms a HIGH expense he proposed in alice's wallet: refused.
        assertThat(DecisionRule.decide(Principal.person("dave", false, false), Operation.CONFIRM, Tier.HIGH, "dave",
                "alice", Channel.HTTP)).isEqualTo(Verdict.DENY);
        // ... as an approver too: it needs alice or another approver.
        assertThat(DecisionRule.decide(Principal.person("dave", true, false), Operation.CONFIRM, Tier.HIGH, "dave",
                "alice", Channel.TOPIC)).isEqualTo(Verdict.DENY);
        assertThat(DecisionRule.decide(Principal.person("alice", false, false), Operation.CONFIRM, Tier.HIGH, "dave",
                "alice", Channel.PAGE)).isEqualTo(Verdict.ALLOW);
        // A plain user of the tenant confirms someone else's imported rows: refused (was allowed).
        assertThat(DecisionRule.decide(Principal.person("bob", false, false), Operation.IMPORT_CONFIRM, Tier.LOW,
                "alice", "alice", Channel.HTTP)).isEqualTo(Verdict.DENY);
        // A service principal is never a person, whatever groups its token carries.
        assertThat(DecisionRule.decide(new Principal("service:bridge", true, true, true), Operation.CONFIRM, Tier.LOW,
                "alice", "alice", Channel.TOPIC)).isEqualTo(Verdict.DENY);
    }
}
