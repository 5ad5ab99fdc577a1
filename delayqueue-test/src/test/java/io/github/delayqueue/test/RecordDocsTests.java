package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 32: the records a handler and a test read are listed in the docs, accessor by accessor. Each table lists
 * every record component and every other public no-argument method of the record, and nothing else.
 */
class RecordDocsTests {

    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)\\(\\)` \\|");

    @ParameterizedTest
    @CsvSource({
            "guides/testing.md, ### `ScheduledMessage<T>`, io.github.delayqueue.test.ScheduledMessage",
            "guides/testing.md, ### `DeadMessage`, io.github.delayqueue.test.DeadMessage",
            "guides/testing.md, ### `MessageContext`, io.github.delayqueue.core.MessageContext",
            "guides/migrating-from-rdelayedqueue.md, ## What the import report holds, io.github.delayqueue.core.ImportReport" })
    void theDocsListEveryAccessorOfTheRecord(String doc, String heading, String recordName) throws Exception {
        Class<?> record = Class.forName(recordName);
        List<String> documented = accessorsAfter(Path.of("..", "docs", doc), heading);
        List<String> actual = new ArrayList<>(Arrays.stream(record.getRecordComponents()).map(RecordComponent::getName)
                .toList());
        for (Method method : record.getDeclaredMethods()) {
            if (Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
                    && method.getParameterCount() == 0 && !actual.contains(method.getName())
                    && !List.of("toString", "hashCode").contains(method.getName())) {
                actual.add(method.getName());
            }
        }
        assertThat(documented).as("accessors of %s in docs/%s", record.getSimpleName(), doc)
                .containsExactlyInAnyOrderElementsOf(actual);
    }

    /** The accessor names of the first table after the heading. */
    private static List<String> accessorsAfter(Path doc, String heading) throws IOException {
        List<String> lines = Files.readAllLines(doc);
        int at = 0;
        while (at < lines.size() && !lines.get(at).startsWith(heading)) {
            at++;
        }
        assertThat(at).as("heading %s in %s", heading, doc).isLessThan(lines.size());
        List<String> names = new ArrayList<>();
        boolean inTable = false;
        for (int i = at + 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("|")) {
                inTable = true;
                Matcher row = ROW.matcher(line);
                if (row.find()) {
                    names.add(row.group(1));
                }
            } else if (inTable) {
                break;
            }
        }
        return names;
    }
}
