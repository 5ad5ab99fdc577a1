package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.SecureClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * Issue 43 part 4: the engine before a change (the {@code before} side, {@code --before-jar}) measured in the same run
 * as the engine after it (ours), so that a change in cost is read from rounds that alternate in one JVM on one Redis,
 * not from two runs on a machine whose speed moves between them.
 *
 * <p>The before engine is an older {@code delayqueue-core} jar. {@link Loader}, a child-first class loader over that
 * jar and this program's own classes (benchmarks.jar, or target/classes), defines every {@code io.github.delayqueue}
 * class it runs: the engine's from the before jar (its Lua scripts too: resources under {@code io/github/delayqueue/}
 * are looked up there first), and this package's again ({@link OursSide}, {@link Side}, {@link Bench}, ...), so that
 * {@link OursSide} runs its scenarios, unchanged, on the before engine. Everything else (Redisson, Netty, Jackson,
 * SLF4J, the JDK) comes from the parent, once for both sides: the before side uses the run's two Redisson clients
 * and Redis clock. The two sides' classes never meet: this class talks to {@link BeforeEngine}, in the child loader,
 * by reflection, passing JDK types (a scenario's method name and its numbers; back, its value and detail) and the
 * Redisson clients. It starts no thread; {@link #close} closes the loader.
 *
 * <p>The figures of a run with a before side compare its sides with each other; they are not the figures of a run
 * without it: two copies of the engine make more call sites in the shared Redisson and Netty code see two receiver
 * types (both sides pay that), and the warm-up and each scenario take longer.
 *
 * <h2>Building the before jar</h2>
 *
 * The before engine of issue 43 part 4 is delayqueue-core at ddcb2d3, the last commit before the refactor into stages
 * (2591d91). In a separate worktree, never committed:
 *
 * <pre>
 * git worktree add ../delayqueue-before ddcb2d3
 * (cd ../delayqueue-before &amp;&amp; ./mvnw -B -ntp -q -o -pl delayqueue-core package -DskipTests)
 * # the jar: ../delayqueue-before/delayqueue-core/target/delayqueue-core-0.1.0-SNAPSHOT.jar (not the -tests jar)
 * ./mvnw -B -ntp -q -o -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar \
 *     --before-jar=../delayqueue-before/delayqueue-core/target/delayqueue-core-0.1.0-SNAPSHOT.jar
 * git worktree remove ../delayqueue-before   # when done
 * </pre>
 *
 * ({@code -o} works where {@code ~/.m2} already holds the build's plugins and dependencies; drop it otherwise.) The
 * header's {@code # before:} line names where each side's engine classes and {@code claim.lua} came from, with the
 * script's digest: the two digests differ unless the jar is the current engine (an A/A run, which measures the
 * harness's own noise).
 */
final class BeforeSide extends Side implements AutoCloseable {

    static final String NAME = "before";

    private final Loader loader;
    private final AutoCloseable engine;
    private final Method run;
    private final String origin;

    private BeforeSide(Bench bench, Loader loader, AutoCloseable engine, Method run, String origin) {
        super(bench);
        this.loader = loader;
        this.engine = engine;
        this.run = run;
        this.origin = origin;
    }

    /**
     * The before side of {@code --before-jar}, or null without it or when none of the run's scenarios has a before
     * side ({@link Settings#BEFORE_SCENARIOS}).
     */
    static @Nullable BeforeSide openIfAsked(Bench bench, Settings settings) throws Exception {
        List<String> scenarios = new ArrayList<>(settings.scenarios);
        scenarios.retainAll(Settings.BEFORE_SCENARIOS);
        if (settings.beforeJar == null || scenarios.isEmpty()) {
            return null;
        }
        // the before side's own flags: the run's, with only the scenarios it runs (its warm-up reads them)
        List<String> args = settings.asArgs();
        args.add("--scenarios=" + String.join(",", scenarios));
        return open(bench, settings.beforeJar, args);
    }

    /** The before side with the engine of {@code jar} (a jar or a classes directory) and the flags {@code args}. */
    static BeforeSide open(Bench bench, Path jar, List<String> args) throws Exception {
        Loader loader = new Loader(jar);
        try {
            Class<?> engineClass = Class.forName(BeforeEngine.class.getName(), true, loader);
            Method open = engineClass.getMethod("open", List.class, String.class, boolean.class, RedissonClient.class,
                    RedissonClient.class, long.class, double.class, double.class, double.class);
            RedisClock clock = bench.clock;
            AutoCloseable engine = (AutoCloseable) invoke(open, null, List.copyOf(args), bench.url, bench.embedded,
                    bench.producer, bench.consumer, clock.anchorNanos(), clock.anchorServerMs(), clock.offsetMs(),
                    clock.rttMs());
            String origin = (String) invoke(engineClass.getMethod("origin"), engine);
            Method run = engineClass.getMethod("run", String.class, long[].class);
            return new BeforeSide(bench, loader, engine, run, origin);
        } catch (Exception | Error e) {
            loader.close();
            throw e;
        }
    }

    /**
     * For the header: where the before engine's classes and claim.lua came from, and ours' claim.lua (the digests
     * differ unless the before jar is the current engine).
     */
    String origin() {
        return origin + "; ours: claim.lua " + BeforeEngine.claimScript(BeforeSide.class.getClassLoader());
    }

    @Override
    String name() {
        return NAME;
    }

    /** Runs {@link OursSide}'s {@code op} on the before engine; its figure and detail as a {@link Side.Measure}. */
    private Measure call(String op, long... args) throws Exception {
        @SuppressWarnings("unchecked")
        Map.Entry<Double, Map<String, String>> result = (Map.Entry<Double, Map<String, String>>) invoke(run, engine, op,
                args);
        return new Measure(result.getKey(), new LinkedHashMap<>(result.getValue()));
    }

    /** {@code method.invoke}, rethrowing what the method threw as itself (so a round's error names it). */
    private static Object invoke(Method method, @Nullable Object target, Object... args) throws Exception {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    @Override
    Measure burstDrain(int count, long timeoutSeconds) throws Exception {
        return call("burstDrain", count, timeoutSeconds);
    }

    Measure burstDrain10m(int count, long timeoutSeconds) throws Exception {
        return call("burstDrain10m", count, timeoutSeconds);
    }

    @Override
    Measure replaceById(int pending, int threads, int seconds) throws Exception {
        return call("replaceById", pending, threads, seconds);
    }

    @Override
    Measure lateness(int rate, int seconds, int delayMs) throws Exception {
        return call("lateness", rate, seconds, delayMs);
    }

    @Override
    Measure enqueueRate(int count, int threads) throws Exception {
        return call("enqueueRate", count, threads);
    }

    Measure enqueueBatchRate(int count, int threads, int batch) throws Exception {
        return call("enqueueBatchRate", count, threads, batch);
    }

    @Override
    Measure endToEnd(int seconds, int producers, int batch, int backlog) throws Exception {
        return call("endToEnd", seconds, producers, batch, backlog);
    }

    @Override
    Measure bytesPerMessage(int count) throws Exception {
        return call("bytesPerMessage", count);
    }

    @Override
    void warmUp() throws Exception {
        call("warmUp");
    }

    /** Closes the before engine's measuring connection, then the loader (the jar files it holds open). */
    @Override
    public void close() throws Exception {
        try {
            engine.close();
        } finally {
            loader.close();
        }
    }

    /**
     * Child-first for {@code io.github.delayqueue}: it defines the engine's classes ({@code io.github.delayqueue.core})
     * from the before jar alone and this package's from this program's classes, and finds resources under
     * {@code io/github/delayqueue/core/} (the Lua scripts) in the before jar alone; any other {@code io.github.delayqueue}
     * class (the starter's, say) is missing here rather than mixed in from the parent, which holds the current engine.
     * Everything else comes from the parent.
     *
     * <p>Not a URLClassLoader over benchmarks.jar: that would follow the jar's manifest {@code Class-Path} to
     * lib/delayqueue-core-*.jar, and a class of the current engine missing from the before jar would come from there.
     */
    static final class Loader extends SecureClassLoader implements AutoCloseable {

        static {
            ClassLoader.registerAsParallelCapable();
        }

        private static final String OWN = "io.github.delayqueue.";
        private static final String OWN_PATH = "io/github/delayqueue/";
        private static final String ENGINE_PATH = "io/github/delayqueue/core/";
        private static final String BENCHMARKS_PATH = BeforeSide.class.getPackageName().replace('.', '/') + "/";

        /** The before jar alone (no parent): where the engine's classes and scripts are read from. */
        private final URLClassLoader jar;
        private final CodeSource jarSource;
        private final CodeSource ownSource;

        Loader(Path beforeJar) throws MalformedURLException {
            super("delayqueue-before", BeforeSide.class.getClassLoader());
            URL jarUrl = beforeJar.toUri().toURL();
            jar = new URLClassLoader(new URL[] {jarUrl}, null);
            jarSource = new CodeSource(jarUrl, (CodeSigner[]) null);
            ownSource = BeforeSide.class.getProtectionDomain().getCodeSource();
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(OWN)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            String path = name.replace('.', '/') + ".class";
            URL url = own(path);
            if (url == null) {
                throw new ClassNotFoundException(name + ": the before side takes io.github.delayqueue classes only from "
                        + "the before jar (io.github.delayqueue.core) and this program (" + BENCHMARKS_PATH + ")");
            }
            byte[] bytes;
            try (InputStream in = url.openStream()) {
                bytes = in.readAllBytes();
            } catch (IOException e) {
                throw new ClassNotFoundException(name + ": cannot read " + url, e);
            }
            CodeSource source = path.startsWith(ENGINE_PATH) ? jarSource : ownSource;
            return defineClass(name, bytes, 0, bytes.length, new ProtectionDomain(source, null, this, null));
        }

        /** An {@code io/github/delayqueue/} resource: the engine's from the before jar, this package's from ours. */
        private @Nullable URL own(String path) {
            if (path.startsWith(ENGINE_PATH)) {
                return jar.findResource(path);
            }
            if (path.startsWith(BENCHMARKS_PATH)) {
                return getParent().getResource(path);
            }
            return null;
        }

        @Override
        public @Nullable URL getResource(String name) {
            return name.startsWith(OWN_PATH) ? own(name) : super.getResource(name);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            if (!name.startsWith(OWN_PATH)) {
                return super.getResources(name);
            }
            URL url = own(name);
            return Collections.enumeration(url == null ? List.of() : List.of(url));
        }

        /** Closes the before jar. */
        @Override
        public void close() throws IOException {
            jar.close();
        }
    }
}
