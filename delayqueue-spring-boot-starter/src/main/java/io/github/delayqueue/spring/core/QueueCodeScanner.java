package io.github.delayqueue.spring.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConfigurationException;

import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.filter.AssignableTypeFilter;
import org.springframework.util.ClassUtils;

/**
 * Finds the enums implementing {@link DelayQueueCode} under the given packages and checks that their
 * codes are valid queue names and unique.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class QueueCodeScanner {

    /** The engine's queue name rule ({@code QueueKeys}); repeated because the engine keeps it internal. */
    static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,100}");

    private final Environment environment;
    private final ResourceLoader resourceLoader;

    public QueueCodeScanner(Environment environment, ResourceLoader resourceLoader) {
        this.environment = environment;
        this.resourceLoader = resourceLoader;
    }

    /** The declared codes, sorted by code. */
    public List<DelayQueueCode> scan(Collection<String> packages) {
        Set<Class<?>> enums = new LinkedHashSet<>();
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false,
                this.environment) {
            @Override
            protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
                return definition.getMetadata().isIndependent();
            }
        };
        scanner.setResourceLoader(this.resourceLoader);
        scanner.addIncludeFilter(new AssignableTypeFilter(DelayQueueCode.class));
        for (String pkg : packages) {
            for (BeanDefinition candidate : scanner.findCandidateComponents(pkg)) {
                Class<?> type = ClassUtils.resolveClassName(candidate.getBeanClassName(),
                        this.resourceLoader.getClassLoader());
                if (type.isEnum()) {
                    enums.add(type);
                }
            }
        }
        return codesOf(enums);
    }

    static List<DelayQueueCode> codesOf(Collection<Class<?>> enums) {
        Map<String, DelayQueueCode> byCode = new LinkedHashMap<>();
        for (Class<?> type : enums) {
            for (Object constant : type.getEnumConstants()) {
                DelayQueueCode code = (DelayQueueCode) constant;
                String name = code.code();
                if (name == null || !QUEUE_NAME.matcher(name).matches()) {
                    throw new DelayQueueConfigurationException("Queue code '" + name + "' of " + describe(code)
                            + " is not a valid queue name: it must be 1 to 100 characters of A-Z a-z 0-9 _ . -",
                            "Rename the constant or override code() in " + type.getName() + ".");
                }
                DelayQueueCode previous = byCode.putIfAbsent(name, code);
                if (previous != null) {
                    throw new DelayQueueConfigurationException("Queue code '" + name + "' is declared twice: by "
                            + describe(previous) + " and by " + describe(code) + ".",
                            "Give each queue a unique code, or keep one of the enums out of the scanned packages.");
                }
            }
        }
        List<DelayQueueCode> codes = new ArrayList<>(byCode.values());
        codes.sort(Comparator.comparing(DelayQueueCode::code));
        return codes;
    }

    static String describe(DelayQueueCode code) {
        return ((Enum<?>) code).getDeclaringClass().getName() + "." + code.name();
    }
}
