package io.github.delayqueue.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

/**
 * The Lua scripts, read once from the classpath and run with EVALSHA. A script cache flushed by a Redis
 * restart ({@code NOSCRIPT}) is reloaded transparently.
 */
final class Scripts {

    enum Name {
        ENQUEUE, CLAIM, SETTLE, EXTEND, CANCEL, RESCHEDULE, STATS, DEAD;

        String file() {
            return name().toLowerCase() + ".lua";
        }
    }

    private final RScript script;
    private final Map<Name, String> sources = new EnumMap<>(Name.class);
    private final Map<Name, String> shas = new ConcurrentHashMap<>();

    Scripts(RedissonClient redisson) {
        this.script = redisson.getScript(StringCodec.INSTANCE);
        String common = read("common.lua");
        for (Name name : Name.values()) {
            sources.put(name, common + "\n" + read(name.file()));
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
        CompletionStage<List<Object>> first = script.evalShaAsync(RScript.Mode.READ_WRITE, sha(name),
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

    private <R> R run(Name name, RScript.ReturnType type, List<Object> keys, Object[] args) {
        try {
            return script.evalSha(RScript.Mode.READ_WRITE, sha(name), type, keys, args);
        } catch (RedisNoScriptException e) {
            return script.evalSha(RScript.Mode.READ_WRITE, load(name), type, keys, args);
        }
    }

    /** Loads a script unless this instance has its SHA already. */
    void ensureLoaded(Name name) {
        sha(name);
    }

    private String sha(Name name) {
        String sha = shas.get(name);
        return sha != null ? sha : load(name);
    }

    private String load(Name name) {
        String sha = script.scriptLoad(sources.get(name));
        shas.put(name, sha);
        return sha;
    }

    private static String read(String file) {
        try (InputStream in = Scripts.class.getResourceAsStream("lua/" + file)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource lua/" + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
