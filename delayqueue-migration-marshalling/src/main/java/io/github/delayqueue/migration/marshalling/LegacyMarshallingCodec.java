package io.github.delayqueue.migration.marshalling;

import java.io.IOException;
import java.io.InvalidClassException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import org.jboss.marshalling.ClassResolver;
import org.jboss.marshalling.Marshalling;
import org.jboss.marshalling.MarshallingConfiguration;
import org.jboss.marshalling.SimpleClassResolver;
import org.jboss.marshalling.Unmarshaller;
import org.jboss.marshalling.river.RiverMarshallerFactory;
import org.redisson.client.codec.BaseCodec;
import org.redisson.client.handler.State;
import org.redisson.client.protocol.Decoder;
import org.redisson.client.protocol.Encoder;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;

/**
 * A Redisson {@link org.redisson.client.codec.Codec} that <em>reads</em> what the {@code MarshallingCodec} of
 * Redisson before 3.19 wrote (its default codec then): JBoss Marshalling's river protocol, which Redisson 4 no
 * longer ships. For {@code RDelayedQueueImporter} and {@code DelayQueueAdmin.importFromRDelayedQueue}, to move the
 * jobs such an application left in its {@code RDelayedQueue}:
 *
 * <pre>{@code
 * admin.importFromRDelayedQueue(ORDER_PAYMENT_TIMEOUT, "orderTimeouts",
 *         LegacyMarshallingCodec.allowing("com.acme.orders"), false, value -> ...);
 * }</pre>
 *
 * <p>Decoding instantiates the classes the stored bytes name, so it resolves only classes of the packages given
 * (and their subpackages), through the class loader given, plus a few JDK packages of plain values:
 * {@value #JDK_PACKAGES_TEXT}. A value that names another class, or a dynamic proxy, fails to decode with
 * {@link InvalidClassException} naming the class; the importer then reports the entry and leaves it in Redisson.
 * Strings, boxed primitives and the common collections are written by river as predefined types and need no
 * package. Thread-safe: each decode uses an unmarshaller of its own.
 *
 * <p>It only reads: encoding throws {@link IOException}, since nothing should write this format any more.
 */
public final class LegacyMarshallingCodec extends BaseCodec {

    static final String JDK_PACKAGES_TEXT = "java.lang, java.util, java.util.concurrent, java.util.concurrent.atomic, "
            + "java.time, java.math";

    private static final Set<String> JDK_PACKAGES = Set.of(JDK_PACKAGES_TEXT.split(", "));

    private final RiverMarshallerFactory factory = new RiverMarshallerFactory();
    private final ClassLoader classLoader;
    private final List<String> allowedPackages;
    private final MarshallingConfiguration configuration;

    /**
     * A codec resolving the classes of {@code allowedPackages} (for example {@code com.acme.orders}; subpackages
     * included) through {@code classLoader}.
     *
     * @throws IllegalArgumentException if the class loader or a package is {@code null} or blank
     */
    public LegacyMarshallingCodec(ClassLoader classLoader, Collection<String> allowedPackages) {
        if (classLoader == null) {
            throw new IllegalArgumentException("classLoader must not be null");
        }
        if (allowedPackages == null) {
            throw new IllegalArgumentException("allowedPackages must not be null (it may be empty)");
        }
        List<String> packages = new ArrayList<>();
        for (String name : allowedPackages) {
            if (name == null || name.isBlank() || name.endsWith(".")) {
                throw new IllegalArgumentException("an allowed package must be a package name such as com.acme.orders, "
                        + "was '" + name + "'");
            }
            packages.add(name.trim());
        }
        this.classLoader = classLoader;
        this.allowedPackages = List.copyOf(packages);
        this.configuration = new MarshallingConfiguration();
        this.configuration.setClassResolver(new AllowListResolver(classLoader));
    }

    /** A codec resolving the classes of {@code allowedPackages} through the class loader of this class. */
    public static LegacyMarshallingCodec allowing(String... allowedPackages) {
        return new LegacyMarshallingCodec(LegacyMarshallingCodec.class.getClassLoader(), List.of(allowedPackages));
    }

    /** The packages whose classes a decoded value may contain, besides the JDK packages named above. */
    public List<String> allowedPackages() {
        return this.allowedPackages;
    }

    private final Decoder<Object> decoder = this::decode;

    private final Encoder encoder = value -> {
        throw new IOException("LegacyMarshallingCodec only reads what Redisson's MarshallingCodec wrote; it does not "
                + "write that format");
    };

    private Object decode(ByteBuf buf, State state) throws IOException {
        Unmarshaller unmarshaller = this.factory.createUnmarshaller(this.configuration);
        try {
            unmarshaller.start(Marshalling.createByteInput(new ByteBufInputStream(buf)));
            Object value = unmarshaller.readObject();
            unmarshaller.finish();
            return value;
        } catch (ClassNotFoundException e) {
            throw new IOException("a class of the stored value is not on the class path: " + e.getMessage(), e);
        } finally {
            unmarshaller.close();
        }
    }

    @Override
    public Decoder<Object> getValueDecoder() {
        return this.decoder;
    }

    @Override
    public Encoder getValueEncoder() {
        return this.encoder;
    }

    @Override
    public ClassLoader getClassLoader() {
        return this.classLoader;
    }

    boolean allowed(String className) {
        String name = className;
        while (name.startsWith("[")) {
            name = name.substring(1);
        }
        if (name.startsWith("L") && name.endsWith(";")) {
            name = name.substring(1, name.length() - 1);
        } else if (name.length() == 1 && className.startsWith("[")) {
            return true; // an array of a primitive type
        }
        int dot = name.lastIndexOf('.');
        String pkg = dot < 0 ? "" : name.substring(0, dot);
        if (JDK_PACKAGES.contains(pkg)) {
            return true;
        }
        for (String allowed : this.allowedPackages) {
            if (pkg.equals(allowed) || pkg.startsWith(allowed + ".")) {
                return true;
            }
        }
        return false;
    }

    /** Resolves a class only if {@link #allowed} and refuses dynamic proxies. */
    private final class AllowListResolver extends SimpleClassResolver implements ClassResolver {

        AllowListResolver(ClassLoader classLoader) {
            super(classLoader);
        }

        @Override
        public Class<?> resolveClass(Unmarshaller unmarshaller, String name, long serialVersionUID)
                throws IOException, ClassNotFoundException {
            if (!allowed(name)) {
                throw new InvalidClassException(name, "not in the packages this LegacyMarshallingCodec may "
                        + "instantiate (" + String.join(", ", allowedPackages) + (allowedPackages.isEmpty() ? "" : ", ")
                        + JDK_PACKAGES_TEXT + "): add its package to allowing(...) if the value is yours");
            }
            return super.resolveClass(unmarshaller, name, serialVersionUID);
        }

        @Override
        public Class<?> resolveProxyClass(Unmarshaller unmarshaller, String[] interfaces) throws InvalidClassException {
            throw new InvalidClassException(String.join(",", interfaces), "a dynamic proxy: LegacyMarshallingCodec "
                    + "does not build proxies");
        }
    }
}
