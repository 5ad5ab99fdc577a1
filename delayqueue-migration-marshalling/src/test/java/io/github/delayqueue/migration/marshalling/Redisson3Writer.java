package io.github.delayqueue.migration.marshalling;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * The real {@code org.redisson.codec.MarshallingCodec} of Redisson 3.x (the version the build names, 3.18.0, the
 * last whose default codec it was), loaded with JBoss Marshalling and Netty of that time in a class loader of its
 * own, whose parent is the platform class loader: Redisson 3.x and 4.x cannot share a class path. The jars are
 * resolved by the build ({@code maven-dependency-plugin:copy}) into the folder the system property
 * {@code redisson3.writer.dir} names. {@link #encode} returns the bytes that codec writes for a value, the bytes an
 * application on Redisson 3.x stored in its {@code RDelayedQueue}.
 */
final class Redisson3Writer implements AutoCloseable {

    private final URLClassLoader loader;
    private final Object encoder;
    private final Method encode;
    private final Method readableBytes;
    private final Method readBytes;
    private final Method release;
    private final URL codecSource;

    Redisson3Writer() throws ReflectiveOperationException, MalformedURLException {
        String dir = System.getProperty("redisson3.writer.dir");
        File[] jars = dir == null ? null : new File(dir).listFiles((d, name) -> name.endsWith(".jar"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("No Redisson 3.x jars in redisson3.writer.dir=" + dir + ": run the test "
                    + "through Maven, whose maven-dependency-plugin copies them there");
        }
        List<URL> urls = new ArrayList<>();
        for (File jar : jars) {
            urls.add(jar.toURI().toURL());
        }
        this.loader = new URLClassLoader("redisson-3", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        Class<?> codecClass = this.loader.loadClass("org.redisson.codec.MarshallingCodec");
        this.codecSource = codecClass.getProtectionDomain().getCodeSource().getLocation();
        Object codec = codecClass.getConstructor().newInstance();
        this.encoder = codecClass.getMethod("getValueEncoder").invoke(codec);
        this.encode = this.loader.loadClass("org.redisson.client.protocol.Encoder").getMethod("encode", Object.class);
        Class<?> byteBuf = this.loader.loadClass("io.netty.buffer.ByteBuf");
        this.readableBytes = byteBuf.getMethod("readableBytes");
        this.readBytes = byteBuf.getMethod("readBytes", byte[].class);
        this.release = byteBuf.getMethod("release");
    }

    /** Where the MarshallingCodec class came from: the Redisson 3.x jar. */
    URL codecSource() {
        return this.codecSource;
    }

    /** The bytes Redisson 3.x's MarshallingCodec writes for {@code value}. */
    byte[] encode(Object value) throws ReflectiveOperationException {
        Object buf;
        try {
            buf = this.encode.invoke(this.encoder, value);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("Redisson 3.x's MarshallingCodec could not encode " + value, e.getCause());
        }
        try {
            byte[] bytes = new byte[(int) this.readableBytes.invoke(buf)];
            this.readBytes.invoke(buf, (Object) bytes);
            return bytes;
        } finally {
            this.release.invoke(buf);
        }
    }

    @Override
    public void close() throws Exception {
        this.loader.close();
    }
}
