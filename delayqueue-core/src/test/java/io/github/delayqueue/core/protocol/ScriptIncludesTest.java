package io.github.delayqueue.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The scripts' includes (BullMQ-style {@code --- @include "name"}): expanded once each, dependencies first, with a
 * clear failure on a missing include, a malformed directive or a cycle; and every script opens with the same header.
 */
class ScriptIncludesTest {

    private static final Pattern LOCAL_FUNCTION = Pattern.compile("(?m)^local function (\\w+)\\(");

    @Test
    void anIncludeIsExpandedOnceBeforeTheFirstFileThatDeclaresIt() {
        Map<String, String> files = Map.of(
                "s.lua", "-- s\n--- @include \"b\"\n--- @include \"a\"\nbody()",
                "includes/a.lua", "local function a() end",
                "includes/b.lua", "--- @include \"a\"\nlocal function b() a() end");

        String expanded = Scripts.expand("s.lua", files::get);

        assertThat(expanded.strip()).isEqualTo("-- s\nlocal function a() end\nlocal function b() a() end\nbody()");
    }

    @Test
    void aMissingIncludeFailsNamingTheFileThatDeclaresIt() {
        Map<String, String> files = Map.of(
                "s.lua", "--- @include \"a\"",
                "includes/a.lua", "--- @include \"clok\"");

        assertThatIllegalStateException().isThrownBy(() -> Scripts.expand("s.lua", files::get))
                .withMessage("lua/includes/a.lua includes \"clok\", but there is no lua/includes/clok.lua");
    }

    @Test
    void aCycleFailsNamingItsPath() {
        Map<String, String> files = Map.of(
                "s.lua", "--- @include \"a\"",
                "includes/a.lua", "--- @include \"b\"",
                "includes/b.lua", "--- @include \"a\"");

        assertThatIllegalStateException().isThrownBy(() -> Scripts.expand("s.lua", files::get))
                .withMessage("include cycle in lua/s.lua: s.lua -> includes/a.lua -> includes/b.lua -> includes/a.lua");
    }

    @Test
    void aMalformedDirectiveFailsRatherThanStayingAComment() {
        Map<String, String> files = Map.of("s.lua", "--- @include includes/a.lua");

        assertThatIllegalStateException().isThrownBy(() -> Scripts.expand("s.lua", files::get))
                .withMessageStartingWith("lua/s.lua: malformed include '--- @include includes/a.lua'");
    }

    @Test
    void aMissingScriptFails() {
        assertThatIllegalStateException().isThrownBy(() -> Scripts.expand("s.lua", Map.<String, String>of()::get))
                .withMessage("missing script resource lua/s.lua");
    }

    /**
     * Every script and include declares what it uses: each helper it calls is defined by its own expansion, so before
     * its body (an include left undeclared would be a nil call at run time, found only when that branch runs); no
     * helper is defined twice in a script; no directive is left.
     */
    @Test
    void everyFileDeclaresTheIncludesItUses() throws Exception {
        List<String> files = scriptsAndIncludes();
        Set<String> helpers = new HashSet<>();
        for (String file : files) {
            helpers.addAll(definedIn(read(file)));
        }
        assertThat(helpers).contains("queue_keys", "clock", "encode8", "head_score", "forget", "bury");
        for (String file : files) {
            String expanded = Scripts.expand(file, ScriptIncludesTest::read);
            List<String> defined = definedIn(expanded);
            assertThat(expanded).as(file).doesNotContain("--- @include");
            assertThat(defined).as(file).doesNotHaveDuplicates();
            String own = read(file).replaceAll("(?m)^\\s*--.*$", "").replaceAll("(?m)^local function \\w+", "");
            for (String helper : helpers) {
                if (Pattern.compile("(?<![\\w.])" + helper + "\\(").matcher(own).find()) {
                    assertThat(defined).as(file + " calls " + helper + "() without including it").contains(helper);
                }
            }
        }
    }

    /**
     * One owner of the stored format (docs/internals/redis-layout.md, "Stored format"): no script or include but
     * includes/format.lua tests a member's or an envelope's first byte ('|' 124, '~' 126, '2' 50) or names a reserved
     * header; in Java, no class of core's main tree but {@link Envelope} names the reserved headers' JSON keys or the
     * grouped member's separator.
     */
    @Test
    void onlyTheFormatsOwnersReadTheStoredFormat() throws Exception {
        List<String> files = scriptsAndIncludes();
        Pattern formatByte = Pattern.compile("string\\.byte\\([^)]*\\)\\s*[~=]=\\s*(124|126|50)\\b|\"dq-(group|expires|dedup-window)\"");
        for (String file : files) {
            if (file.equals("includes/format.lua")) {
                continue;
            }
            String code = read(file).replaceAll("(?m)--.*$", "");
            assertThat(formatByte.matcher(code).find()).as(file + " reads the stored format itself").isFalse();
        }
        Path main = Path.of("src/main/java/io/github/delayqueue/core");
        Pattern javaFormat = Pattern.compile("\"\\\\u001f\"|'\\\\u001f'|\"dq-(group|expires|dedup-window)\"");
        try (var sources = Files.walk(main)) {
            for (Path source : sources.filter(f -> f.toString().endsWith(".java")).toList()) {
                String name = source.getFileName().toString();
                if (name.equals("Envelope.java") || name.equals("DeadLetterKeys.java") || name.equals("SendOptions.java")
                        || name.equals("SetScript.java")) {
                    continue; // the owners: members and envelopes; dead keys; the header names' public constants; marks
                }
                assertThat(javaFormat.matcher(Files.readString(source)).find()).as(source + " reads the stored format itself")
                        .isFalse();
            }
        }
    }

    /** Every script's file and every include's, as {@link Scripts#expand} names them. */
    private static List<String> scriptsAndIncludes() throws Exception {
        List<String> files = new ArrayList<>();
        for (Scripts.Name name : Scripts.Name.values()) {
            files.add(name.file());
        }
        try (var includes = Files.list(Path.of(Scripts.class.getResource("lua/includes").toURI()))) {
            includes.map(f -> "includes/" + f.getFileName()).sorted().forEach(files::add);
        }
        return files;
    }

    private static List<String> definedIn(String text) {
        List<String> defined = new ArrayList<>();
        Matcher m = LOCAL_FUNCTION.matcher(text);
        while (m.find()) {
            defined.add(m.group(1));
        }
        return defined;
    }

    /** The same header in every script: one summary line, KEYS, ARGV, Returns, in that order, before any code. */
    @Test
    void everyScriptOpensWithTheSameHeader() {
        for (Scripts.Name name : Scripts.Name.values()) {
            List<String> header = read(name.file()).lines().takeWhile(l -> l.startsWith("--")).toList();

            assertThat(header.get(0)).as(name.file()).matches("-- [A-Z].*\\.");
            int keys = indexOfPrefix(header, "-- KEYS");
            int argv = indexOfPrefix(header, "-- ARGV: ");
            int returns = indexOfPrefix(header, "-- Returns: ");
            assertThat(List.of(keys, argv, returns)).as(name.file() + " header " + header).doesNotContain(-1);
            assertThat(keys).as(name.file()).isEqualTo(1);
            assertThat(argv).as(name.file()).isGreaterThan(keys);
            assertThat(returns).as(name.file()).isGreaterThan(argv);
        }
    }

    private static int indexOfPrefix(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }

    private static String read(String file) {
        try (var in = Scripts.class.getResourceAsStream("lua/" + file)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
