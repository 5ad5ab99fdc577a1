package io.github.delayqueue.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A minimal RESP2 connection for the measuring side of the benchmark (TIME, INFO, MEMORY USAGE, SCAN,
 * SLOWLOG, COMMANDSTATS): independent of the Redisson clients under test, so measuring adds nothing to
 * their connection pools. Not thread-safe beyond its synchronized {@link #call}.
 */
final class Resp implements Closeable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Resp(String url) {
        URI uri = URI.create(url);
        if (!"redis".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("only redis:// URLs are supported by the benchmark, was " + url);
        }
        try {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort()), 5_000);
            socket.setSoTimeout(60_000);
            in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to " + uri.getHost() + ":" + uri.getPort(), e);
        }
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? "" : decode(userInfo.substring(0, colon));
            String password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
            if (user.isEmpty()) {
                call("AUTH", password);
            } else {
                call("AUTH", user, password);
            }
        }
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            call("SELECT", path.substring(1));
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Sends one command and reads its reply: String, Long, List or null; an error reply throws. */
    synchronized @Nullable Object call(String... args) {
        try {
            out.write(('*' + Integer.toString(args.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                out.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.write('\r');
                out.write('\n');
            }
            out.flush();
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long number(String... args) {
        return (Long) call(args);
    }

    /** An INFO section as a map. */
    Map<String, String> info(String section) {
        Map<String, String> map = new HashMap<>();
        for (String line : ((String) call("INFO", section)).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                map.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return map;
    }

    /** Keys matching a pattern, by SCAN (never KEYS). */
    List<String> scan(String pattern) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) call("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
            cursor = (String) reply.get(0);
            for (Object key : (List<?>) reply.get(1)) {
                keys.add((String) key);
            }
        } while (!"0".equals(cursor));
        return keys;
    }

    /** Exact memory of the keys matching a pattern (MEMORY USAGE ... SAMPLES 0). */
    long memoryOfKeys(String pattern) {
        long total = 0;
        for (String key : scan(pattern)) {
            Object bytes = call("MEMORY", "USAGE", key, "SAMPLES", "0");
            if (bytes instanceof Long) {
                total += (Long) bytes;
            }
        }
        return total;
    }

    private @Nullable Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("Redis closed the connection");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("Redis error: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length) {
                    throw new EOFException("short bulk reply");
                }
                readLine();
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> list = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    list.add(read());
                }
                return list;
            }
            default:
                throw new IllegalStateException("unexpected RESP type '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("Redis closed the connection");
            }
            if (c == '\r') {
                in.read(); // '\n'
                return sb.toString();
            }
            sb.append((char) c);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
