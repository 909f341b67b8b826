package io.kflux.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.kflux.ConsumerOptions;
import io.kflux.PropertyDescription;
import io.kflux.PropertyDescription.Support;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Keeps the configuration tables of {@code docs/guide.md} true to {@link ConsumerOptions#describeProperties()}:
 * every property kflux honours is listed with its type and default, every property it ignores or rejects is listed
 * as such, and no table names a property kflux does not know.
 *
 * <p>The tables are found between HTML comment markers, e.g. {@code <!-- config-table:honoured -->} ... {@code
 * <!-- /config-table -->}. Each row is {@code | `name` | type | `default` | meaning |} (honoured) or {@code |
 * `name` | why |} (ignored, rejected). In the default column, {@code `""`} stands for the empty string. When the
 * honoured table is out of date, the failure message prints the rows as they should read (the meaning column is
 * written by hand and is only checked to be non-empty).
 */
class ConfigDocTest {

    private static final String GUIDE = "docs/guide.md";

    @Test
    void theHonouredTableListsEveryHonouredPropertyWithItsTypeAndDefault() throws IOException {
        Map<String, PropertyDescription> expected = byName(Support.HONOURED);
        List<Row> rows = table("honoured");

        assertNoDuplicates(rows, "honoured");
        List<String> problems = new ArrayList<>();
        for (Row row : rows) {
            PropertyDescription d = expected.get(row.name());
            if (d == null) {
                problems.add(row.name() + ": not a property kflux honours"
                             + (known(row.name()) ? " (it is " + support(row.name()) + ")" : " (unknown to kflux)"));
                continue;
            }
            if (row.cells().size() != 4) {
                problems.add(row.name() + ": expected 4 columns (property, type, default, meaning), found "
                             + row.cells().size());
                continue;
            }
            if (!d.type().equals(row.cells().get(1))) {
                problems.add(row.name() + ": type is '" + d.type() + "', the guide says '" + row.cells().get(1) + "'");
            }
            String documentedDefault = defaultValue(row.cells().get(2));
            if (!d.defaultValue().equals(documentedDefault)) {
                problems.add(row.name() + ": default is '" + d.defaultValue() + "', the guide says '"
                             + documentedDefault + "'");
            }
            if (row.cells().get(3).isBlank()) {
                problems.add(row.name() + ": the meaning is empty");
            }
        }
        TreeSet<String> missing = new TreeSet<>(expected.keySet());
        rows.forEach(r -> missing.remove(r.name()));
        missing.forEach(name -> problems.add(name + ": honoured but missing from the guide"));

        if (!problems.isEmpty()) {
            fail(GUIDE + " configuration table is out of date:\n  " + String.join("\n  ", problems)
                 + "\n\nExpected rows (type and default; keep the hand-written meanings):\n" + expectedRows(expected));
        }
    }

    @Test
    void theIgnoredTableListsExactlyTheIgnoredProperties() throws IOException {
        List<Row> rows = table("ignored");
        assertNoDuplicates(rows, "ignored");
        assertThat(names(rows))
            .as("properties in the 'ignored' table of %s (must equal those describeProperties() marks IGNORED)", GUIDE)
            .isEqualTo(byName(Support.IGNORED).keySet());
    }

    @Test
    void theRejectedTableListsExactlyTheRejectedProperties() throws IOException {
        List<Row> rows = table("rejected");
        assertNoDuplicates(rows, "rejected");
        assertThat(names(rows))
            .as("properties in the 'rejected' table of %s (must equal those describeProperties() marks REJECTED)",
                GUIDE)
            .isEqualTo(byName(Support.REJECTED).keySet());
    }

    @Test
    void theRowParserUnderstandsEscapedPipesAndTheEmptyDefault() {
        List<String> cells = cells("| `a.b` | string | `\"\"` | x \\| y |");
        assertThat(cells).containsExactly("a.b", "string", "\"\"", "x | y");
        assertThat(defaultValue(cells.get(2))).isEmpty();
        assertThat(defaultValue("null")).isEqualTo("null");
    }

    // ------------------------------------------------------------------------------------------ parsing

    private record Row(String name, List<String> cells) {
    }

    /** The rows of the table between {@code <!-- config-table:<kind> -->} and the next {@code <!-- /config-table -->}. */
    private static List<Row> table(String kind) throws IOException {
        Path guide = guide();
        List<String> lines = Files.readAllLines(guide, StandardCharsets.UTF_8);
        String open = "<!-- config-table:" + kind + " -->";
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().equals(open)) {
                if (start >= 0) {
                    fail(guide + " has two '" + open + "' markers");
                }
                start = i;
            }
        }
        if (start < 0) {
            fail(guide + " has no '" + open + "' marker");
        }
        List<Row> rows = new ArrayList<>();
        boolean headerSeen = false;
        for (int i = start + 1; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.equals("<!-- /config-table -->")) {
                if (rows.isEmpty()) {
                    fail("the '" + kind + "' table of " + guide + " has no rows");
                }
                return rows;
            }
            if (!line.startsWith("|")) {
                continue;
            }
            if (!headerSeen) {
                headerSeen = true; // the header row
                continue;
            }
            if (line.matches("\\|[\\s:|-]+\\|?")) {
                continue; // the separator row
            }
            List<String> cells = cells(line);
            rows.add(new Row(cells.get(0), cells));
        }
        return fail("the '" + kind + "' table of " + guide + " is not closed with '<!-- /config-table -->'");
    }

    /** Splits a Markdown table row at unescaped pipes; trims cells, removes surrounding backticks, unescapes. */
    private static List<String> cells(String line) {
        String s = line.trim();
        if (s.startsWith("|")) {
            s = s.substring(1);
        }
        if (s.endsWith("|") && !s.endsWith("\\|")) {
            s = s.substring(0, s.length() - 1);
        }
        List<String> out = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length() && s.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                out.add(clean(cell.toString()));
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        out.add(clean(cell.toString()));
        return out;
    }

    private static String clean(String cell) {
        String t = cell.trim();
        if (t.length() >= 2 && t.startsWith("`") && t.endsWith("`") && t.indexOf('`', 1) == t.length() - 1) {
            t = t.substring(1, t.length() - 1);
        }
        return t;
    }

    /** {@code ""} in the guide is the empty string. */
    private static String defaultValue(String cell) {
        return cell.equals("\"\"") ? "" : cell;
    }

    /**
     * The guide, looked up from the working directory and its parents, so the test runs from the {@code sdk} module
     * directory (as Maven does) as well as from the repository root (as some IDEs do).
     */
    private static Path guide() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve(GUIDE);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return fail("cannot find " + GUIDE + " from " + dir + " or any parent directory");
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static Map<String, PropertyDescription> byName(Support support) {
        Map<String, PropertyDescription> out = new LinkedHashMap<>();
        for (PropertyDescription d : ConsumerOptions.describeProperties()) {
            if (d.support() == support) {
                out.put(d.name(), d);
            }
        }
        assertThat(out).as("describeProperties() lists %s properties", support).isNotEmpty();
        return out;
    }

    private static boolean known(String name) {
        return ConsumerOptions.describeProperties().stream().anyMatch(d -> d.name().equals(name));
    }

    private static Support support(String name) {
        return ConsumerOptions.describeProperties().stream().filter(d -> d.name().equals(name)).findFirst()
            .map(PropertyDescription::support).orElse(null);
    }

    private static java.util.Set<String> names(List<Row> rows) {
        return rows.stream().map(Row::name).collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    }

    private static void assertNoDuplicates(List<Row> rows, String kind) {
        List<String> names = rows.stream().map(Row::name).toList();
        assertThat(names).as("duplicate rows in the '%s' table of %s", kind, GUIDE).doesNotHaveDuplicates();
    }

    private static String expectedRows(Map<String, PropertyDescription> expected) {
        StringBuilder sb = new StringBuilder("| Property | Type | Default | Meaning |\n|---|---|---|---|\n");
        expected.values().forEach(d -> sb.append("| `").append(d.name()).append("` | ").append(d.type()).append(" | `")
            .append(d.defaultValue().isEmpty() ? "\"\"" : d.defaultValue()).append("` | ")
            .append(d.description().replace("|", "\\|")).append(" |\n"));
        return sb.toString();
    }
}
