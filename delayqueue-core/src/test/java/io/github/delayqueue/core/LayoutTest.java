package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Keeps the package layout true (docs/internals/architecture.md, "Package map"), reading the source tree: every reference
 * from one package to another, by import or by a fully qualified name in code, must run the declared way.
 * <ul>
 * <li>delayqueue-core: {@code internal} uses nothing of core (but {@code ClientAccess}, the client's lender of its
 * routes and scripts to the feature packages, which names the client and those protocol types); {@code protocol}
 * only the API's values and {@code internal}; {@code engine} also {@code protocol}; {@code migration} also
 * {@code engine}; none of them the entry points ({@code DelayQueueClient}, {@code RDelayedQueueImporter}). In the API
 * package only the entry points and the facade's parts reach {@code engine} or {@code migration}. {@code schedule} is a
 * feature package with an API of its own (recurring schedules): it uses the API, the client included, {@code protocol}
 * and {@code internal}, and nothing below uses it. {@code history}, {@code activity} and {@code sets} hold values of the
 * API and count as the API package.</li>
 * <li>Outside delayqueue-core nothing names a core internal package ({@link #INTERNAL}), but for the exceptions
 * listed here.</li>
 * <li>The starter: no runtime package imports {@code autoconfigure}, and each imports only packages below it.</li>
 * <li>Outside the starter (the test support, the dashboard, the sample), main code names only the starter's public
 * API ({@link #STARTER_PUBLIC}, the root package, the auto-configuration classes).</li>
 * <li>The BOM has the parent's version and manages every library module.</li>
 * </ul>
 */
class LayoutTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String CORE = "io.github.delayqueue.core";
    private static final String SPRING = "io.github.delayqueue.spring";
    private static final Set<String> ENTRY_POINTS = Set.of("DelayQueueClient", "RDelayedQueueImporter");
    /** The client's facade parts: package-private classes of the API package that do the entry point's work. */
    private static final Set<String> FACADE = Set.of("Sends", "Reads", "DeadLetterAdmin", "ClientQueues", "JobSets");
    /** The internal packages of core; the others below it ({@code schedule}) are feature packages with an API. */
    private static final Set<String> INTERNAL = Set.of("engine", "protocol", "migration", "internal");
    /** Outside core, the only uses of a core internal package: each measures or tests the engine itself. */
    private static final Set<String> OUTSIDE_EXCEPTIONS = Set.of(
            "ObservedPathCost -> io.github.delayqueue.core.protocol.Envelope",
            "GroupedClaimCost -> io.github.delayqueue.core.protocol.ClaimLimits",
            "GroupedClaimCost -> io.github.delayqueue.core.protocol.GroupLimits",
            "GroupedClaimCost -> io.github.delayqueue.core.protocol.QueueKeys",
            "GroupedClaimCost -> io.github.delayqueue.core.protocol.QueueOps",
            "GroupedClaimCost -> io.github.delayqueue.core.protocol.Scripts",
            "ReadinessWarmUpIntegrationTests -> io.github.delayqueue.core.protocol.Scripts",
            "RedisWarmUpIntegrationTests -> io.github.delayqueue.core.protocol.Scripts");
    /**
     * The starter's public API, as its package-info files say: the root package, {@code schedule}'s
     * {@code DelayQueueSchedules} and {@code CronTicks}, its properties and Redisson customizer, and every
     * {@code *AutoConfiguration} class (named to order or exclude it). Every other type of its packages is internal.
     */
    private static final Set<String> STARTER_PUBLIC = Set.of(SPRING + ".schedule.DelayQueueSchedules",
            SPRING + ".schedule.CronTicks", SPRING + ".autoconfigure.DelayQueueProperties",
            SPRING + ".autoconfigure.DelayQueueRedissonConfigCustomizer");
    /** The starter's packages by rank: a package may use only packages of a lower rank. */
    private static final Map<String, Integer> STARTER_RANK = Map.ofEntries(Map.entry(SPRING, 0),
            Map.entry(SPRING + ".core", 1), Map.entry(SPRING + ".consumer", 2), Map.entry(SPRING + ".outbox", 2),
            Map.entry(SPRING + ".observation", 2), Map.entry(SPRING + ".metrics", 2), Map.entry(SPRING + ".redis", 2),
            Map.entry(SPRING + ".schedule", 2),
            Map.entry(SPRING + ".annotation", 3), Map.entry(SPRING + ".health", 3), Map.entry(SPRING + ".actuate", 3),
            Map.entry(SPRING + ".autoconfigure", 4));

    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern REFERENCE = Pattern.compile("\\b(io\\.github\\.delayqueue(?:\\.[a-z]\\w*)+)\\.([A-Z]\\w*)");

    /** One reference from a source file to a type of this project. */
    record Ref(String fromPackage, String fromClass, String toPackage, String toClass) {

        @Override
        public String toString() {
            return fromPackage + "." + fromClass + " -> " + toPackage + "." + toClass;
        }
    }

    @Test
    void coreArrowsRunOneWay() {
        List<String> wrong = new ArrayList<>();
        for (Ref ref : refs(ROOT.resolve("delayqueue-core/src/main/java"))) {
            if (!ref.toPackage().startsWith(CORE) || ref.toPackage().equals(ref.fromPackage())) {
                continue;
            }
            String from = layer(ref.fromPackage());
            String to = layer(ref.toPackage());
            if (from.equals("api") && to.equals("api")) {
                continue; // the API package and its value package (history) name each other freely
            }
            boolean allowed = switch (from) {
                case "internal" -> ref.fromClass().equals("ClientAccess")
                        && (to.equals("protocol") || ref.toClass().equals("DelayQueueClient"));
                case "schedule" -> to.equals("api") || to.equals("protocol") || to.equals("internal");
                case "protocol" -> to.equals("api") || to.equals("internal");
                case "engine" -> to.equals("api") || to.equals("protocol") || to.equals("internal");
                case "migration" -> !to.equals("migration");
                case "api" -> to.equals("internal") || to.equals("protocol")
                        || ENTRY_POINTS.contains(ref.fromClass()) || FACADE.contains(ref.fromClass());
                default -> false;
            };
            if (to.equals("api") && !from.equals("api") && !from.equals("schedule") && !ref.fromClass().equals("ClientAccess")
                    && ENTRY_POINTS.contains(ref.toClass())) {
                allowed = false; // below the API, nothing reaches back up to an entry point
            }
            if (!allowed) {
                wrong.add(ref.toString());
            }
        }
        assertThat(wrong).as("references against the direction of docs/internals/architecture.md's package map").isEmpty();
    }

    @Test
    void nothingOutsideCoreNamesACoreInternalPackage() {
        List<String> wrong = new ArrayList<>();
        for (Path module : modules()) {
            if (module.getFileName().toString().equals("delayqueue-core")) {
                continue;
            }
            for (String tree : List.of("src/main/java", "src/test/java")) {
                for (Ref ref : refs(module.resolve(tree))) {
                    if (ref.toPackage().startsWith(CORE + ".") && INTERNAL.contains(layer(ref.toPackage()))
                            && !OUTSIDE_EXCEPTIONS.contains(ref.fromClass() + " -> " + ref.toPackage() + "." + ref.toClass())) {
                        wrong.add(module.getFileName() + ": " + ref);
                    }
                }
            }
        }
        assertThat(wrong).as("uses of delayqueue-core's internal packages from other modules").isEmpty();
    }

    /**
     * The test support and the dashboard use the starter as a user would: its public API only (the sample app and the
     * benchmarks too). The starter's own tests may reach its internals.
     */
    @Test
    void outsideTheStarterOnlyItsPublicApiIsNamed() {
        List<String> wrong = new ArrayList<>();
        for (Path module : modules()) {
            String name = module.getFileName().toString();
            if (name.equals("delayqueue-spring-boot-starter") || name.equals("delayqueue-core")
                    || name.equals("benchmarks")) {
                continue; // the benchmarks measure the starter's internals themselves (the observed paths' cost)
            }
            for (Ref ref : refs(module.resolve("src/main/java"))) {
                String type = ref.toPackage() + "." + ref.toClass();
                boolean autoConfiguration = ref.toPackage().equals(SPRING + ".autoconfigure")
                        && ref.toClass().endsWith("AutoConfiguration");
                if (ref.toPackage().startsWith(SPRING + ".") && STARTER_RANK.containsKey(ref.toPackage())
                        && !STARTER_PUBLIC.contains(type) && !autoConfiguration) {
                    wrong.add(name + ": " + ref);
                }
            }
        }
        assertThat(wrong).as("uses of the starter's internal types from other modules' main code").isEmpty();
    }

    @Test
    void theStartersRuntimeNeverImportsTheAutoConfigurationAndArrowsRunDown() {
        List<String> wrong = new ArrayList<>();
        for (Ref ref : refs(ROOT.resolve("delayqueue-spring-boot-starter/src/main/java"))) {
            if (!ref.toPackage().startsWith(SPRING) || ref.toPackage().equals(ref.fromPackage())) {
                continue;
            }
            Integer from = STARTER_RANK.get(ref.fromPackage());
            Integer to = STARTER_RANK.get(ref.toPackage());
            assertThat(from).as("rank of " + ref.fromPackage() + " (a new package: give it one in STARTER_RANK)").isNotNull();
            assertThat(to).as("rank of " + ref.toPackage() + " (a new package: give it one in STARTER_RANK)").isNotNull();
            if (to >= from) {
                wrong.add(ref.toString());
            }
        }
        assertThat(wrong).as("starter references that run sideways or back up").isEmpty();
    }

    @Test
    void theBomManagesEveryLibraryModuleAtTheParentsVersion() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        String bom = Files.readString(ROOT.resolve("delayqueue-bom/pom.xml"));
        assertThat(version(bom)).isEqualTo(version(parent));
        for (Path module : modules()) {
            String name = module.getFileName().toString();
            if (name.startsWith("delayqueue-") && !name.equals("delayqueue-bom")) {
                assertThat(bom).as("delayqueue-bom manages " + name).contains("<artifactId>" + name + "</artifactId>");
            }
        }
    }

    /** The project version: the first {@code <version>} after the project's own artifactId. */
    private static String version(String pom) {
        Matcher m = Pattern.compile("<artifactId>delayqueue-(?:parent|bom)</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(pom);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    private static String layer(String pkg) {
        if (pkg.equals(CORE) || pkg.equals(CORE + ".history") || pkg.equals(CORE + ".activity")
                || pkg.equals(CORE + ".sets")) {
            // history, activity, sets: values of the API (a message's status and records; a queue's minutes; job sets
            // and their status), in packages of their own
            return "api";
        }
        return pkg.substring(CORE.length() + 1).split("\\.")[0];
    }

    private static List<Path> modules() {
        String parent = read(ROOT.resolve("pom.xml"));
        List<Path> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
        while (m.find()) {
            modules.add(ROOT.resolve(m.group(1)));
        }
        assertThat(modules).as("modules of " + ROOT.resolve("pom.xml")).isNotEmpty();
        return modules;
    }

    private static List<Ref> refs(Path tree) {
        List<Ref> refs = new ArrayList<>();
        if (!Files.isDirectory(tree)) {
            return refs;
        }
        try (Stream<Path> walk = Files.walk(tree)) {
            List<Path> files = walk.filter(f -> f.toString().endsWith(".java")).toList();
            assertThat(files).as("Java files under " + tree).isNotEmpty();
            for (Path file : files) {
                String source = read(file);
                Matcher pkg = PACKAGE.matcher(source);
                if (!pkg.find()) {
                    continue;
                }
                String fromClass = file.getFileName().toString().replace(".java", "");
                Matcher m = REFERENCE.matcher(code(source));
                while (m.find()) {
                    refs.add(new Ref(pkg.group(1), fromClass, m.group(1), m.group(2)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return refs;
    }

    /** The source without its comments and string literals (text blocks included), and without its package line. */
    private static String code(String source) {
        return source.replaceAll("(?s)\"\"\".*?\"\"\"", "\"\"").replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("//[^\\n]*", "").replaceAll("\"(?:\\\\.|[^\"\\\\\\n])*\"", "\"\"")
                .replaceAll("(?m)^package .*$", "");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
