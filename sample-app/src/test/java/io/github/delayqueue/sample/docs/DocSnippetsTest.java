package io.github.delayqueue.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;

/**
 * Every {@code ```java} block of README.md and docs/** compiles, and every {@code ```yaml} (or
 * {@code ```properties}) block names only {@code delayqueue.*} properties that exist, with values they accept.
 * <p>
 * The java blocks of one page are compiled together, each as a compilation unit, against this test's classpath
 * (the starter, core, dashboard, test support, Spring Boot, Redisson); a block without a package is put in the
 * page's own package, so the blocks of a page see each other and must use distinct type names. The yaml blocks are
 * read the way Boot reads an application.yml and every key under {@code delayqueue} is bound to the
 * {@code @ConfigurationProperties} class of its prefix with a handler that fails on a key no field takes.
 * <p>
 * A block opts out only with the line {@code <!-- not compiled: reason -->} directly above its fence, for text
 * that is partial on purpose (a diff, an excerpt) or code that needs a library this build does not have; the
 * opt-outs are printed.
 */
class DocSnippetsTest {

    private static final Path ROOT = Path.of("..");

    private static final Pattern FENCE = Pattern.compile("^(\\s*)```([A-Za-z0-9_+-]*)\\s*$");

    private static final Pattern OPT_OUT = Pattern.compile("^\\s*<!--\\s*not compiled:\\s*(\\S.*?)\\s*-->\\s*$");

    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp|static)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);

    /**
     * {@code delayqueue.*} properties read from the Environment rather than bound to a properties class (so not
     * in any class the binder can check).
     */
    private static final Set<String> READ_FROM_ENVIRONMENT = Set.of("delayqueue.test.reset-configured-prefix");

    /**
     * The keys a yaml block may set under {@code management.endpoint.delayqueue} and
     * {@code management.health.delayqueue}: Boot's own for an endpoint and a health indicator.
     */
    private static final Set<String> MANAGEMENT_KEYS = Set.of("management.endpoint.delayqueue.access",
            "management.endpoint.delayqueue.cache.time-to-live", "management.health.delayqueue.enabled");

    record Block(Path page, String language, int line, String text, String optOut) {

        /** Where a line of the block is in its page, for a message a reader can follow. */
        String at(long lineInBlock) {
            return ROOT.relativize(page).toString().replace(File.separatorChar, '/') + ":" + (line + lineInBlock - 1);
        }
    }

    @TestFactory
    Stream<DynamicTest> javaBlocksCompile() {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler).as("a JDK's compiler (the tests run on a JDK, not a JRE)").isNotNull();
        return pages().stream().map(page -> DynamicTest.dynamicTest(name(page), page.toUri(), () -> compile(compiler, page)));
    }

    @TestFactory
    Stream<DynamicTest> yamlBlocksNameRealProperties() {
        List<Binding> bindings = bindings();
        return pages().stream().map(page -> DynamicTest.dynamicTest(name(page), page.toUri(), () -> checkYaml(bindings, page)));
    }

    @Test
    void blocksAreFoundAndOptOutsAreListed() {
        List<Block> all = pages().stream().flatMap(page -> blocks(page).stream()).toList();
        assertThat(all).as("java blocks of README.md")
                .anyMatch(block -> block.page().endsWith("README.md") && block.language().equals("java")
                        && block.page().getParent().equals(ROOT));
        List<Block> optedOut = all.stream().filter(block -> block.optOut() != null).toList();
        System.out.println("doc snippets: " + all.stream().filter(b -> b.language().equals("java")).count() + " java, "
                + all.stream().filter(b -> isYaml(b.language())).count() + " yaml blocks; " + optedOut.size()
                + " not compiled:");
        optedOut.forEach(block -> System.out.println("  " + block.at(0) + " (" + block.language() + "): " + block.optOut()));
    }

    // ---- java

    private static void compile(JavaCompiler compiler, Path page) throws IOException {
        List<Block> blocks = blocks(page).stream()
                .filter(block -> block.language().equals("java") && block.optOut() == null).toList();
        if (blocks.isEmpty()) {
            return;
        }
        String pagePackage = "docs.page_" + name(page).replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT);
        Map<JavaFileObject, Block> units = new LinkedHashMap<>();
        for (Block block : blocks) {
            // the package goes on the block's first line so that the compiler's line numbers stay the block's
            String source = PACKAGE.matcher(block.text()).find() ? block.text()
                    : "package " + pagePackage + "; " + block.text();
            Matcher type = PUBLIC_TYPE.matcher(block.text());
            units.put(new Source("Block" + block.line(), type.find() ? type.group(1) : null, source), block);
        }
        Path out = Files.createTempDirectory("doc-snippets");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-proc:none", "-implicit:none", "-Xlint:none", "-nowarn",
                    "-classpath", classpath(), "-d", out.toString());
            boolean ok = compiler.getTask(new StringWriter(), files, diagnostics, options, null, units.keySet()).call();
            List<String> errors = new ArrayList<>();
            Map<Block, List<Long>> outsideAType = new LinkedHashMap<>();
            for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                if (diagnostic.getKind() != Diagnostic.Kind.ERROR) {
                    continue;
                }
                Block block = units.get(diagnostic.getSource());
                if (block == null) {
                    errors.add(name(page) + ": " + diagnostic.getMessage(Locale.ROOT));
                } else if (diagnostic.getCode().equals("compiler.err.expected4")
                        || diagnostic.getCode().equals("compiler.err.expected3")) {
                    // "class, interface, enum, or record expected": statements or a method outside a type
                    outsideAType.computeIfAbsent(block, any -> new ArrayList<>()).add(diagnostic.getLineNumber());
                } else {
                    errors.add(block.at(diagnostic.getLineNumber()) + ": " + diagnostic.getMessage(Locale.ROOT));
                }
            }
            outsideAType.forEach((block, lines) -> errors.add(block.at(lines.get(0))
                    + ": code outside a class (\"class, interface, enum, or record expected\" at lines "
                    + String.join(", ", lines.stream().distinct().map(line -> String.valueOf(block.line() + line - 1)).toList())
                    + "): a block is a whole compilation unit, so put statements in a method of a class"));
            if (!ok || !errors.isEmpty()) {
                fail("java blocks of " + name(page) + ".md that do not compile (each block is a compilation unit; those "
                        + "without a package are compiled together in package " + pagePackage + "):\n"
                        + String.join("\n", errors));
            }
        } finally {
            try (Stream<Path> walk = Files.walk(out)) {
                walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /** The test's classpath: surefire's when it starts the JVM from a manifest-only jar. */
    private static String classpath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /** A block as a compilation unit; named after its public type, as javac requires, when it has one. */
    private static final class Source extends SimpleJavaFileObject {

        private final String text;

        Source(String id, String publicType, String text) {
            super(URI.create("string:///" + id + "/" + (publicType != null ? publicType : id) + ".java"), Kind.SOURCE);
            this.text = text;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }

    // ---- yaml

    /** A {@code @ConfigurationProperties} class and the prefix it binds. */
    record Binding(ConfigurationPropertyName prefix, Class<?> type) {
    }

    /** Every {@code delayqueue*} properties class on the classpath, most specific prefix first. */
    private static List<Binding> bindings() {
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
        scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
        List<Binding> bindings = new ArrayList<>();
        for (var candidate : scanner.findCandidateComponents("io.github.delayqueue")) {
            Class<?> type;
            try {
                type = Class.forName(candidate.getBeanClassName());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
            String prefix = annotation.prefix().isEmpty() ? annotation.value() : annotation.prefix();
            if (prefix.equals("delayqueue") || prefix.startsWith("delayqueue.")) {
                bindings.add(new Binding(ConfigurationPropertyName.of(prefix), type));
            }
        }
        bindings.sort(Comparator.comparingInt((Binding binding) -> binding.prefix().getNumberOfElements()).reversed());
        assertThat(bindings).as("properties classes").extracting(binding -> binding.prefix().toString())
                .contains("delayqueue", "delayqueue.producer.outbox", "delayqueue.dashboard");
        return bindings;
    }

    private static void checkYaml(List<Binding> bindings, Path page) {
        List<String> errors = new ArrayList<>();
        for (Block block : blocks(page)) {
            if (!isYaml(block.language()) || block.optOut() != null) {
                continue;
            }
            Map<String, Object> properties = new LinkedHashMap<>();
            try {
                PropertySourceLoader loader = block.language().equals("properties") ? new PropertiesPropertySourceLoader()
                        : new YamlPropertySourceLoader();
                for (PropertySource<?> document : loader.load(block.at(0),
                        new ByteArrayResource(block.text().getBytes(StandardCharsets.UTF_8)))) {
                    EnumerablePropertySource<?> source = (EnumerablePropertySource<?>) document;
                    for (String key : source.getPropertyNames()) {
                        properties.put(key, String.valueOf(source.getProperty(key)));
                    }
                }
            } catch (IOException | RuntimeException e) {
                errors.add(block.at(0) + ": not " + block.language() + ": " + e.getMessage());
                continue;
            }
            check(bindings, block, properties, errors);
        }
        if (!errors.isEmpty()) {
            fail("yaml blocks of " + name(page) + ".md with properties that do not exist or do not bind:\n"
                    + String.join("\n", errors));
        }
    }

    private static void check(List<Binding> bindings, Block block, Map<String, Object> properties, List<String> errors) {
        Map<Binding, Map<String, Object>> perBinding = new LinkedHashMap<>();
        properties.forEach((key, value) -> {
            ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
            String dashed = name.toString();
            if (dashed.startsWith("management.endpoint.delayqueue.") || dashed.startsWith("management.health.delayqueue.")) {
                if (!MANAGEMENT_KEYS.contains(dashed)) {
                    errors.add(block.at(lineOf(block, name)) + ": " + key + " is not one of " + MANAGEMENT_KEYS);
                }
                return;
            }
            if (!ConfigurationPropertyName.of("delayqueue").isAncestorOf(name) || READ_FROM_ENVIRONMENT.contains(dashed)) {
                return;
            }
            Binding owner = bindings.stream().filter(binding -> binding.prefix().isAncestorOf(name)).findFirst()
                    .orElse(null);
            if (owner == null) {
                errors.add(block.at(lineOf(block, name)) + ": " + key + " is not a property");
                return;
            }
            perBinding.computeIfAbsent(owner, any -> new LinkedHashMap<>()).put(key, value);
        });
        perBinding.forEach((binding, values) -> {
            Binder binder = new Binder(new MapConfigurationPropertySource(values));
            try {
                binder.bind(binding.prefix(), Bindable.of(binding.type()), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
            } catch (BindException e) {
                if (e.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
                    unbound.getUnboundProperties().forEach(property -> errors.add(block.at(lineOf(block, property.getName()))
                            + ": " + property.getName() + " is not a property of " + binding.type().getSimpleName()));
                } else {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    errors.add(block.at(lineOf(block, e.getName())) + ": " + e.getMessage() + ": " + cause.getMessage());
                }
            }
        });
    }

    /** The line of the block holding the last element of a property's name, as near as a text search finds it. */
    private static long lineOf(Block block, ConfigurationPropertyName name) {
        String[] lines = block.text().split("\n", -1);
        String last = name.getLastElement(ConfigurationPropertyName.Form.DASHED);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].toLowerCase(Locale.ROOT).contains(last + ":")) {
                return i + 1;
            }
        }
        return 1;
    }

    private static boolean isYaml(String language) {
        return language.equals("yaml") || language.equals("yml") || language.equals("properties");
    }

    // ---- markdown

    /** README.md and every page under docs/. */
    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> walk = Files.walk(ROOT.resolve("docs"))) {
            walk.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    private static String name(Path page) {
        String relative = ROOT.relativize(page).toString().replace(File.separatorChar, '/');
        return relative.substring(0, relative.length() - ".md".length());
    }

    /** The fenced blocks of a page, with the first line of each block's text and its opt-out reason, if any. */
    static List<Block> blocks(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String indent = open.group(1);
            String language = open.group(2).toLowerCase(Locale.ROOT);
            Matcher optOut = i > 0 ? OPT_OUT.matcher(lines.get(i - 1)) : null;
            StringBuilder text = new StringBuilder();
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).strip().equals("```")) {
                String line = lines.get(j);
                text.append(line.startsWith(indent) ? line.substring(indent.length()) : line.stripLeading()).append('\n');
                j++;
            }
            blocks.add(new Block(page, language, i + 2, text.toString(),
                    optOut != null && optOut.matches() ? optOut.group(1) : null));
            i = j;
        }
        return blocks;
    }
}
