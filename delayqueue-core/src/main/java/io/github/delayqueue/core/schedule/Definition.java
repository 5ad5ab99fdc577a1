package io.github.delayqueue.core.schedule;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A schedule's definition as stored in Redis ({@code schedules} hash, JSON written and read by Java only):
 * {@code f} the format (1), the spec's fields, its {@code origin} ({@code api} or {@code declared}), the {@code hash}
 * of the spec's fields, and the hashes of the specs it replaced ({@code superseded}, the latest
 * {@value #SUPERSEDED_KEPT}), which a declaration may not bring back (docs/guides/recurring-jobs.md, "Rolling deploys").
 */
record Definition(int f, String kind, String expr, String zone, String payload, String misfire, int limit,
        String overlap, String origin, String hash, List<String> superseded) {

    static final int SUPERSEDED_KEPT = 16;
    static final String API = "api";
    static final String DECLARED = "declared";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static Definition of(ScheduleSpec spec, String payloadJson, String origin) {
        String zone = spec.zone().getId();
        String hash = hash(spec.kind(), spec.expression(), zone, payloadJson, spec.misfire().name(),
                Integer.toString(spec.catchUpLimit()), spec.overlap().name());
        return new Definition(1, spec.kind(), spec.expression(), zone, payloadJson, spec.misfire().name(),
                spec.catchUpLimit(), spec.overlap().name(), origin, hash, List.of());
    }

    /** This definition replacing {@code old}: it carries old's hash among the superseded ones. */
    Definition replacing(Definition old) {
        List<String> list = new ArrayList<>(old.superseded);
        list.remove(old.hash);
        list.add(old.hash);
        list.remove(hash);
        while (list.size() > SUPERSEDED_KEPT) {
            list.remove(0);
        }
        return new Definition(f, kind, expr, zone, payload, misfire, limit, overlap, origin, hash, List.copyOf(list));
    }

    String json() {
        return JSON.writeValueAsString(this);
    }

    static Definition parse(String json) {
        try {
            return JSON.readValue(json, Definition.class);
        } catch (JacksonException e) {
            throw new IllegalStateException("unreadable schedule definition in Redis: " + e.getOriginalMessage(), e);
        }
    }

    ScheduleSpec spec(String queue, String id) {
        return ScheduleSpec.of(queue, id, kind, expr).zone(ZoneId.of(zone)).payloadJson(payload)
                .misfire(Misfire.valueOf(misfire)).catchUpLimit(limit).overlap(Overlap.valueOf(overlap)).build();
    }

    private static String hash(String... parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                digest.update(part.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            return HexFormat.of().formatHex(digest.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
