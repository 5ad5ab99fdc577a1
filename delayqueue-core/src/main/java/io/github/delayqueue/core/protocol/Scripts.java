package io.github.delayqueue.core.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.UnsupportedRedisException;

/**
 * The Lua scripts, read once from the classpath ({@code lua/}, each with the includes it declares expanded, from
 * {@code lua/includes/}) and run with EVALSHA. A script cache flushed by a Redis restart ({@code NOSCRIPT}) is
 * reloaded transparently.
 */
public final class Scripts {

    enum Name {
        ENQUEUE, CLAIM, SETTLE, EXTEND, CANCEL, RESCHEDULE, STATS, DEAD, PEEK, PAUSE, IMPORT, PARTITIONS, VERSIONED, SCHEDULE, HOLD, WATCH, RUNNING, RECENT, ACTIVITY, SET;

        String file() {
            return name().toLowerCase() + ".lua";
        }

    }

    /**
     * Run once per client before its first script: every script may use commands of Redis 6.2 (settle.lua's
     * ZMSCORE), and on an older server a script fails only when it reaches one, after its writes (a settle
     * that failed that way was retried for ever while every message was redelivered). A server that does
     * not know ZMSCORE is refused up front; one whose ACL denies it (NOPERM) is not a version problem and
     * fails where the command runs.
     */
    private static final String PROBE = """
            local ok, err = pcall(redis.call, 'ZMSCORE', KEYS[1], '-')
            if ok then return '' end
            local message = type(err) == 'table' and err.err or tostring(err)
            if not string.find(string.lower(message), 'unknown', 1, true) then return '' end
            local version = 'unknown'
            local read, info = pcall(redis.call, 'INFO', 'server')
            if read and type(info) == 'string' then version = string.match(info, 'redis_version:([^\\r\\n]+)') or version end
            return version
            """;

    private final RedissonClient redisson;
    private final RScript script;
    private volatile boolean serverChecked;
    private final Map<Name, String> sources = new EnumMap<>(Name.class);
    private final Map<Name, String> shas = new ConcurrentHashMap<>();

    public Scripts(RedissonClient redisson) {
        this.redisson = redisson;
        this.script = redisson.getScript(StringCodec.INSTANCE);
        for (Name name : Name.values()) {
            sources.put(name, expand(name.file(), Scripts::read));
        }
    }

    /**
     * The text a script is loaded as: {@code lua/<file>} with its includes expanded (see {@link #expand}). For tests
     * that look a script up in Redis's script cache by its SHA.
     */
    public static String source(String file) {
        return expand(file, Scripts::read);
    }

    /**
     * An include directive, BullMQ-style: a Lua comment line {@code --- @include "name"} stands for
     * {@code lua/includes/name.lua}. A script declares its includes at its top (an include may declare its own).
     */
    private static final Pattern INCLUDE = Pattern.compile("--- @include \"([a-z_]+)\"");

    /**
     * Expands {@code file}'s includes, depth first, each once per script however many files declare it (an include
     * comes before the first file that declares it, so its helpers are defined before they are used). Fails on a
     * missing file, a malformed directive or a cycle, naming the files involved. {@code read} gives a file's text
     * by its path under {@code lua/}, or {@code null} when there is none.
     */
    static String expand(String file, Function<String, @Nullable String> read) {
        String text = read.apply(file);
        if (text == null) {
            throw new IllegalStateException("missing script resource lua/" + file);
        }
        StringBuilder out = new StringBuilder(text.length() * 3);
        expandInto(file, text, read, new HashSet<>(), new ArrayDeque<>(List.of(file)), out);
        return out.toString();
    }

    private static void expandInto(String file, String text, Function<String, @Nullable String> read, Set<String> done,
            Deque<String> path, StringBuilder out) {
        for (String line : text.split("\n", -1)) {
            if (!line.startsWith("--- @include")) {
                out.append(line).append('\n');
                continue;
            }
            Matcher m = INCLUDE.matcher(line.strip());
            if (!m.matches()) {
                throw new IllegalStateException("lua/" + file + ": malformed include '" + line
                        + "' (the form is --- @include \"name\", for lua/includes/name.lua)");
            }
            String include = "includes/" + m.group(1) + ".lua";
            if (path.contains(include)) {
                throw new IllegalStateException("include cycle in lua/" + path.getFirst() + ": "
                        + String.join(" -> ", path) + " -> " + include);
            }
            if (!done.add(include)) {
                continue;
            }
            String included = read.apply(include);
            if (included == null) {
                throw new IllegalStateException("lua/" + file + " includes \"" + m.group(1) + "\", but there is no lua/"
                        + include);
            }
            path.addLast(include);
            expandInto(include, included, read, done, path, out);
            path.removeLast();
        }
    }

    /** Runs a script returning a list (of Strings and Longs). */
    List<Object> list(Name name, List<Object> keys, Object... args) {
        return run(name, RScript.ReturnType.LIST, keys, args);
    }

    /** Runs a script returning a string ("" for a Lua empty string). */
    String text(Name name, List<Object> keys, Object... args) {
        Object result = run(name, RScript.ReturnType.VALUE, keys, args);
        return result == null ? "" : result.toString();
    }

    /** Runs a script returning an integer. */
    long number(Name name, List<Object> keys, Object... args) {
        Long result = run(name, RScript.ReturnType.LONG, keys, args);
        return result == null ? 0 : result;
    }

    /**
     * Runs a script returning a list without waiting for it; the stage completes on a Redisson thread.
     * The script is loaded first if this instance never ran it (a blocking call, once); a NOSCRIPT
     * reply (Redis restarted or flushed its scripts) reloads it without blocking.
     */
    CompletionStage<List<Object>> listAsync(Name name, List<Object> keys, Object... args) {
        CompletionStage<List<Object>> first = script.evalShaAsync(RScript.Mode.READ_WRITE, sha(name, keys),
                RScript.ReturnType.LIST, keys, args);
        return first.handle((result, error) -> {
            if (error == null) {
                return (CompletionStage<List<Object>>) CompletableFuture.completedFuture(result);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (!(cause instanceof RedisNoScriptException)) {
                return CompletableFuture.<List<Object>>failedFuture(cause);
            }
            return script.scriptLoadAsync(sources.get(name)).thenCompose(loaded -> {
                shas.put(name, loaded);
                return script.<List<Object>>evalShaAsync(RScript.Mode.READ_WRITE, loaded, RScript.ReturnType.LIST, keys,
                        args);
            });
        }).thenCompose(stage -> stage);
    }

    /** A script's result and how many replicas acknowledged its write ({@link #listSyncedAsync}). */
    record Synced(List<Object> result, int replicas) {
    }

    /**
     * As {@link #listAsync}, followed by {@code WAIT replicas timeout} on the same connection (a Redisson batch with
     * {@link BatchOptions#sync}: the script and the WAIT go to the key's master in one pipeline, so the WAIT waits for
     * this write). A NOSCRIPT reply reloads the script and runs the batch again.
     */
    CompletionStage<Synced> listSyncedAsync(Name name, List<Object> keys, int replicas, java.time.Duration timeout,
            Object... args) {
        return synced(sha(name, keys), keys, replicas, timeout, args).handle((result, error) -> {
            if (error == null) {
                return (CompletionStage<Synced>) CompletableFuture.completedFuture(result);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (!(cause instanceof RedisNoScriptException) && !String.valueOf(cause.getMessage()).contains("NOSCRIPT")) {
                return CompletableFuture.<Synced>failedFuture(cause);
            }
            return script.scriptLoadAsync(sources.get(name)).thenCompose(loaded -> {
                shas.put(name, loaded);
                return synced(loaded, keys, replicas, timeout, args);
            });
        }).thenCompose(stage -> stage);
    }

    private CompletionStage<Synced> synced(String sha, List<Object> keys, int replicas, java.time.Duration timeout,
            Object[] args) {
        RBatch batch = redisson.createBatch(BatchOptions.defaults().sync(replicas, timeout));
        CompletionStage<List<Object>> result = batch.getScript(StringCodec.INSTANCE).evalShaAsync(RScript.Mode.READ_WRITE,
                sha, RScript.ReturnType.LIST, keys, args);
        return batch.executeAsync().thenCombine(result, (executed, list) -> new Synced(list, executed.getSyncedSlaves()));
    }

    private <R> @Nullable R run(Name name, RScript.ReturnType type, List<Object> keys, Object[] args) {
        try {
            return script.evalSha(RScript.Mode.READ_WRITE, sha(name, keys), type, keys, args);
        } catch (RedisNoScriptException e) {
            return script.evalSha(RScript.Mode.READ_WRITE, load(name), type, keys, args);
        }
    }

    /** Checks the server and loads every script this instance has not loaded yet. */
    public void loadAll(List<Object> keys) {
        for (Name name : Name.values()) {
            sha(name, keys);
        }
    }

    /** Loads a script unless this instance has its SHA already; {@code keys} are the keys it will run on. */
    void ensureLoaded(Name name, List<Object> keys) {
        sha(name, keys);
    }

    private String sha(Name name, List<Object> keys) {
        String sha = shas.get(name);
        if (sha != null) {
            return sha;
        }
        checkServer(keys);
        return load(name);
    }

    /** Throws {@link UnsupportedRedisException} on a server older than 6.2; see {@link #PROBE}. */
    private void checkServer(List<Object> keys) {
        if (serverChecked) {
            return;
        }
        String sha = script.scriptLoad(PROBE); // SCRIPT LOAD and EVALSHA, as every script: no EVAL in the ACL
        // READ_WRITE although it writes nothing: on Redis 7, Redisson sends a READ_ONLY script as EVALSHA_RO, which
        // the documented smallest ACL rule set (docs/internals/redis-layout.md) does not allow
        String version = script.evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.VALUE, List.of(keys.get(1)));
        if (version != null && !version.isEmpty()) {
            throw new UnsupportedRedisException("delayqueue needs Redis 6.2 or newer (its scripts use ZMSCORE), but the "
                    + "server is Redis " + version + " and does not know ZMSCORE; upgrade Redis");
        }
        serverChecked = true;
    }

    private String load(Name name) {
        String sha = script.scriptLoad(sources.get(name));
        shas.put(name, sha);
        return sha;
    }

    private static @Nullable String read(String file) {
        try (InputStream in = Scripts.class.getResourceAsStream("lua/" + file)) {
            if (in == null) {
                return null;
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
