package io.github.delayqueue.spring.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.delayqueue.core.BatchItem;
import io.github.delayqueue.core.DeliveryErrorHandler;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.MessageHandler;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayBatchMessageHandler;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.consumer.HandlerEndpoint;
import io.github.delayqueue.spring.core.HandlerOverrides;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Async;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@link DelayHandler @DelayHandler} classes and methods on beans (looking through proxies to
 * the target class), checks their signatures, resolves placeholders in the attributes, and hands the
 * endpoints to the {@link DefaultDelayQueueConsumerRegistry} once all singletons exist. Handlers are
 * invoked on the bean as the container exposes it, so proxies (transactions, security) apply.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class DelayHandlerBeanPostProcessor
        implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware, EnvironmentAware, Ordered {

    private static final Logger log = LoggerFactory.getLogger(DelayHandlerBeanPostProcessor.class);

    private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();
    private final List<HandlerEndpoint> endpoints = new ArrayList<>(); // guards registered too
    private boolean registered;
    private @Nullable BeanFactory beanFactory;
    private @Nullable Environment environment;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof AopInfrastructureBean) {
            return bean;
        }
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
        if (this.nonAnnotatedClasses.contains(targetClass)) {
            return bean;
        }
        if (!AnnotationUtils.isCandidateClass(targetClass, DelayHandler.class)) {
            this.nonAnnotatedClasses.add(targetClass);
            return bean;
        }
        DelayHandler onClass = AnnotatedElementUtils.findMergedAnnotation(targetClass, DelayHandler.class);
        Map<Method, DelayHandler> onMethods = handlerMethods(targetClass);
        if (onClass == null && onMethods.isEmpty()) {
            this.nonAnnotatedClasses.add(targetClass);
            return bean;
        }
        if (this.beanFactory instanceof ConfigurableListableBeanFactory factory && factory.containsBeanDefinition(beanName)
                && factory.getBeanDefinition(beanName).isPrototype()) {
            throw new DelayQueueConfigurationException("@DelayHandler on prototype bean '" + beanName + "' ("
                    + targetClass.getName() + "): every instance would claim to be the queue's handler.",
                    "Make the bean a singleton (the default scope).");
        }
        List<HandlerEndpoint> found = new ArrayList<>();
        if (onClass != null) {
            found.add(classEndpoint(bean, beanName, targetClass, onClass));
        }
        onMethods.forEach((method, annotation) -> found.add(methodEndpoint(bean, beanName, targetClass, method, annotation)));
        synchronized (this.endpoints) {
            if (this.registered) {
                log.warn("@DelayHandler on bean '{}' ({}), created after startup, is ignored: handlers are bound "
                        + "when the singletons are instantiated", beanName, targetClass.getName());
            } else {
                this.endpoints.addAll(found);
            }
        }
        return bean;
    }

    /** Whether a bean of this type has {@code @DelayHandler} on its class or on a method. */
    public static boolean declaresHandlers(@Nullable Class<?> type) {
        if (type == null || !AnnotationUtils.isCandidateClass(type, DelayHandler.class)) {
            return false;
        }
        return AnnotatedElementUtils.hasAnnotation(type, DelayHandler.class) || !handlerMethods(type).isEmpty();
    }

    private static Map<Method, DelayHandler> handlerMethods(Class<?> type) {
        return MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<DelayHandler>) method ->
                AnnotatedElementUtils.findMergedAnnotation(method, DelayHandler.class));
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<HandlerEndpoint> all;
        synchronized (this.endpoints) {
            all = List.copyOf(this.endpoints);
            this.endpoints.clear();
            this.registered = true;
        }
        requireNonNull(this.beanFactory).getBean(DefaultDelayQueueConsumerRegistry.class).register(all);
    }

    private HandlerEndpoint classEndpoint(Object bean, String beanName, Class<?> targetClass, DelayHandler annotation) {
        String source = "bean '" + beanName + "' (" + targetClass.getName() + ")";
        boolean batchDeclared = batch(annotation, source);
        if (DelayBatchMessageHandler.class.isAssignableFrom(targetClass)) {
            return batchClassEndpoint(bean, targetClass, annotation, source);
        }
        if (batchDeclared) {
            throw new DelayQueueConfigurationException("@DelayHandler(batch = \"true\") on the class of " + source
                    + ", which does not implement " + DelayBatchMessageHandler.class.getName() + ".",
                    "Implement DelayBatchMessageHandler<PayloadType>, or put @DelayHandler(batch = \"true\") on a "
                            + "method taking List<BatchItem<PayloadType>>.");
        }
        boolean plain = DelayMessageHandler.class.isAssignableFrom(targetClass);
        boolean contextAware = ContextAwareDelayMessageHandler.class.isAssignableFrom(targetClass);
        if (plain && contextAware) {
            throw new DelayQueueConfigurationException("@DelayHandler on the class of " + source + ", which implements "
                    + "both DelayMessageHandler and ContextAwareDelayMessageHandler: it is unclear which to call.",
                    "Implement one of them: ContextAwareDelayMessageHandler<PayloadType> when the handler needs the "
                            + "MessageContext, else DelayMessageHandler<PayloadType>.");
        }
        if (!plain && !contextAware) {
            throw new DelayQueueConfigurationException("@DelayHandler on the class of " + source
                    + ", which does not implement " + DelayMessageHandler.class.getName() + " or "
                    + ContextAwareDelayMessageHandler.class.getName() + ".",
                    "Implement DelayMessageHandler<PayloadType> (or ContextAwareDelayMessageHandler<PayloadType>), "
                            + "or put @DelayHandler on a method of the bean.");
        }
        Class<?> handlerInterface = plain ? DelayMessageHandler.class : ContextAwareDelayMessageHandler.class;
        if (!handlerInterface.isInstance(bean)) {
            throw new DelayQueueConfigurationException("The proxy of " + source + " does not expose "
                    + handlerInterface.getSimpleName() + ".",
                    "Use class-based proxies (proxyTargetClass = true) for this bean.");
        }
        for (Method method : targetClass.getMethods()) {
            if (method.getName().equals("handle") && method.getDeclaringClass() != handlerInterface) {
                rejectAsync(targetClass, method, "@DelayHandler " + source + " (its " + method.getName() + " method)");
            }
        }
        Type payloadType = payloadType(ResolvableType.forClass(targetClass).as(handlerInterface).getGeneric(0),
                source, "Declare the payload type: implements " + handlerInterface.getSimpleName() + "<YourPayload>.");
        // called on the bean as the container exposes it, so advice on handle (a transaction, security) applies
        MessageHandler<Object> handler;
        if (plain) {
            @SuppressWarnings("unchecked")
            DelayMessageHandler<Object> target = (DelayMessageHandler<Object>) bean;
            handler = (payload, context) -> target.handle(payload);
        } else {
            @SuppressWarnings("unchecked")
            ContextAwareDelayMessageHandler<Object> target = (ContextAwareDelayMessageHandler<Object>) bean;
            handler = target::handle;
        }
        return new HandlerEndpoint(resolve(annotation.value(), "value", source), source, payloadType, handler,
                overrides(annotation, source));
    }

    private HandlerEndpoint batchClassEndpoint(Object bean, Class<?> targetClass, DelayHandler annotation,
            String source) {
        if (DelayMessageHandler.class.isAssignableFrom(targetClass)
                || ContextAwareDelayMessageHandler.class.isAssignableFrom(targetClass)) {
            throw new DelayQueueConfigurationException("@DelayHandler on the class of " + source + ", which implements "
                    + "DelayBatchMessageHandler and a handler of single messages: it is unclear which to call.",
                    "Implement one of them.");
        }
        if (!(bean instanceof DelayBatchMessageHandler<?>)) {
            throw new DelayQueueConfigurationException("The proxy of " + source
                    + " does not expose DelayBatchMessageHandler.", "Use class-based proxies (proxyTargetClass = true) "
                            + "for this bean.");
        }
        for (Method method : targetClass.getMethods()) {
            if (method.getName().equals("handle") && method.getDeclaringClass() != DelayBatchMessageHandler.class) {
                rejectAsync(targetClass, method, "@DelayHandler " + source + " (its " + method.getName() + " method)");
            }
        }
        Type payloadType = payloadType(
                ResolvableType.forClass(targetClass).as(DelayBatchMessageHandler.class).getGeneric(0), source,
                "Declare the payload type: implements DelayBatchMessageHandler<YourPayload>.");
        @SuppressWarnings("unchecked")
        DelayBatchMessageHandler<Object> target = (DelayBatchMessageHandler<Object>) bean;
        return HandlerEndpoint.batch(resolve(annotation.value(), "value", source), source, payloadType, target::handle,
                overrides(annotation, source));
    }

    /** Whether the annotation's {@code batch} attribute says {@code "true"}; anything but true, false or empty fails. */
    private boolean batch(DelayHandler annotation, String source) {
        String value = resolve(annotation.batch(), "batch", source).trim();
        if (value.isEmpty() || value.equalsIgnoreCase("false")) {
            return false;
        }
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        throw new DelayQueueConfigurationException("@DelayHandler(batch = \"" + annotation.batch() + "\") on " + source
                + ": '" + value + "' is neither true nor false.", "Write batch = \"true\" for a batch handler, or leave "
                        + "it out.");
    }

    /** A method with {@code batch = "true"}: exactly one parameter, {@code List<BatchItem<PayloadType>>}. */
    private HandlerEndpoint batchMethodEndpoint(Object bean, Class<?> targetClass, Method method,
            DelayHandler annotation, String source) {
        String usage = "A batch handler method (batch = \"true\") takes exactly one parameter, "
                + "List<BatchItem<PayloadType>> (io.github.delayqueue.core.BatchItem), and returns void.";
        ResolvableType parameter = method.getParameterCount() == 1
                ? ResolvableType.forMethodParameter(new MethodParameter(method, 0).withContainingClass(targetClass))
                : ResolvableType.NONE;
        if (parameter.resolve() != List.class || parameter.getGeneric(0).resolve() != BatchItem.class) {
            throw new DelayQueueConfigurationException("@DelayHandler(batch = \"true\") " + source
                    + " does not take List<BatchItem<PayloadType>>.", usage);
        }
        Class<?> returnType = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(returnType) || Future.class.isAssignableFrom(returnType)) {
            throw new DelayQueueConfigurationException("@DelayHandler " + source + " returns " + returnType.getName()
                    + ", but handlers run synchronously: a batch is acknowledged when the method returns.", usage);
        }
        rejectAsync(targetClass, method, "@DelayHandler " + source);
        Type payloadType = payloadType(parameter.getGeneric(0).getGeneric(0), source,
                "Declare a concrete payload type: List<BatchItem<YourPayload>>.");
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        } catch (IllegalStateException e) {
            throw new DelayQueueConfigurationException("@DelayHandler " + source + " cannot be invoked on the bean's "
                    + "proxy: " + e.getMessage(), "Declare the method on an interface of the bean or use class-based proxies.", e);
        }
        ReflectionUtils.makeAccessible(invocable);
        MessageHandler<Object> invoker = invoker(bean, invocable, 1, 0, -1);
        return HandlerEndpoint.batch(resolve(annotation.value(), "value", source), source, payloadType,
                items -> invoker.handle(items, null), overrides(annotation, source));
    }

    private HandlerEndpoint methodEndpoint(Object bean, String beanName, Class<?> targetClass, Method method,
            DelayHandler annotation) {
        String source = "method " + describe(targetClass, method) + " of bean '" + beanName + "'";
        if (batch(annotation, source)) {
            return batchMethodEndpoint(bean, targetClass, method, annotation, source);
        }
        int payloadIndex = -1;
        int contextIndex = -1;
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == MessageContext.class) {
                if (contextIndex >= 0) {
                    throw unusable(source, "has two MessageContext parameters");
                }
                contextIndex = i;
            } else {
                if (payloadIndex >= 0) {
                    throw unusable(source, "has two payload parameters (" + types[payloadIndex].getSimpleName()
                            + " and " + types[i].getSimpleName() + ")");
                }
                payloadIndex = i;
            }
        }
        Class<?> returnType = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(returnType) || Future.class.isAssignableFrom(returnType)) {
            throw new DelayQueueConfigurationException("@DelayHandler " + source + " returns " + returnType.getName()
                    + ", but handlers run synchronously: a message is acknowledged when the method returns.",
                    "Return void (or a small result, kept in the history) and finish the work before returning.");
        }
        rejectAsync(targetClass, method, "@DelayHandler " + source);
        // no payload parameter (a recurring job written as @Scheduled methods are): the payload is not decoded
        Type payloadType = payloadIndex < 0 ? Void.class : payloadType(
                ResolvableType.forMethodParameter(new MethodParameter(method, payloadIndex).withContainingClass(targetClass)),
                source, "Declare a concrete payload parameter type.");
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        } catch (IllegalStateException e) {
            throw new DelayQueueConfigurationException("@DelayHandler " + source + " cannot be invoked on the bean's "
                    + "proxy: " + e.getMessage(), "Declare the method on an interface of the bean or use class-based proxies.", e);
        }
        ReflectionUtils.makeAccessible(invocable);
        return new HandlerEndpoint(resolve(annotation.value(), "value", source), source, payloadType,
                invoker(bean, invocable, types.length, payloadIndex, contextIndex), overrides(annotation, source));
    }

    private static MessageHandler<Object> invoker(Object bean, Method method, int parameterCount, int payloadIndex,
            int contextIndex) {
        return (payload, context) -> {
            Object[] args = new Object[parameterCount];
            if (payloadIndex >= 0) {
                args[payloadIndex] = payload;
            }
            if (contextIndex >= 0) {
                args[contextIndex] = context;
            }
            try {
                Object returned = method.invoke(bean, args);
                if (returned != null && context != null) {
                    keepResult(context, returned, method);
                }
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception exception) {
                    throw exception;
                }
                if (cause instanceof Error error) {
                    throw error;
                }
                throw e;
            }
        };
    }

    /**
     * Keeps a handler method's return value as the message's result (in its history record, where the queue keeps
     * one). The work is done by then: a value that cannot be kept (not encodable, too large) is logged and dropped,
     * never a reason to run the handler again.
     */
    private static void keepResult(MessageContext context, Object returned, Method method) {
        try {
            context.result(returned);
        } catch (IllegalArgumentException e) {
            log.warn("@DelayHandler {}.{} returned a value that is not kept as the result of message '{}': {}",
                    method.getDeclaringClass().getSimpleName(), method.getName(), context.id(), e.getMessage());
        }
    }

    /**
     * A handler that runs asynchronously returns at once, so its message is acknowledged before the work ran:
     * a failure then gets no retry and no dead letter. Refused whether or not {@code @EnableAsync} is on
     * today (turning it on later would break the queue silently); meta-annotations count.
     */
    private static void rejectAsync(Class<?> targetClass, Method method, String what) {
        String on = AnnotatedElementUtils.hasAnnotation(method, Async.class) ? "the method"
                : AnnotatedElementUtils.hasAnnotation(targetClass, Async.class) ? "its class" : null;
        if (on != null) {
            throw new DelayQueueConfigurationException(what + " would run asynchronously (@Async on " + on + "): its "
                    + "message would be acknowledged as soon as it returns, and a failure would get no retry and no "
                    + "dead letter.", "Remove @Async from the handler; for more handlers at once, raise the queue's "
                    + "concurrency (delayqueue.queues.<code>.concurrency or @DelayHandler(concurrency = ...)).");
        }
    }

    private static DelayQueueConfigurationException unusable(String source, String problem) {
        return new DelayQueueConfigurationException("@DelayHandler " + source + " " + problem + ".",
                "A handler method takes at most one payload parameter and optionally one "
                        + MessageContext.class.getName() + ", in any order (none at all: the payload is not read).");
    }

    private static Type payloadType(ResolvableType type, String source, String action) {
        try {
            return PayloadTypes.toType(type);
        } catch (IllegalArgumentException e) {
            throw new DelayQueueConfigurationException("Cannot bind payloads of @DelayHandler " + source + ": "
                    + e.getMessage() + ".", action, e);
        }
    }

    private HandlerOverrides overrides(DelayHandler annotation, String source) {
        return new HandlerOverrides(
                attribute(annotation.concurrency(), "concurrency", source, Integer::valueOf),
                attribute(annotation.maxAttempts(), "maxAttempts", source, Integer::valueOf),
                attribute(annotation.visibilityTimeout(), "visibilityTimeout", source, DurationStyle::detectAndParse),
                attribute(annotation.handlerTimeout(), "handlerTimeout", source, DurationStyle::detectAndParse),
                Set.copyOf(Arrays.asList(annotation.noRetryFor())),
                errorHandler(annotation, source),
                attribute(annotation.rateLimit(), "rateLimit", source, RateLimit::parse),
                attribute(annotation.maxInFlight(), "maxInFlight", source, DelayHandlerBeanPostProcessor::maxInFlight),
                attribute(annotation.groupRateLimit(), "groupRateLimit", source, RateLimit::parse),
                attribute(annotation.groupMaxInFlight(), "groupMaxInFlight", source,
                        DelayHandlerBeanPostProcessor::groupMaxInFlight));
    }

    private static Integer maxInFlight(String value) {
        int max = Integer.parseInt(value);
        if (max < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, was " + max);
        }
        return max;
    }

    private static Integer groupMaxInFlight(String value) {
        int max = Integer.parseInt(value);
        if (max < 1) {
            throw new IllegalArgumentException("groupMaxInFlight must be at least 1, was " + max);
        }
        return max;
    }

    /** The bean the {@code errorHandler} attribute names (a name from the application, never from a message). */
    private @Nullable DeliveryErrorHandler errorHandler(DelayHandler annotation, String source) {
        String name = resolve(annotation.errorHandler(), "errorHandler", source).trim();
        if (name.isEmpty()) {
            return null;
        }
        try {
            return requireNonNull(this.beanFactory).getBean(name, DeliveryErrorHandler.class);
        } catch (BeanNotOfRequiredTypeException e) {
            throw new DelayQueueConfigurationException("@DelayHandler(errorHandler = \"" + annotation.errorHandler()
                    + "\") on " + source + ": bean '" + name + "' is a " + e.getActualType().getName() + ", not a "
                    + DeliveryErrorHandler.class.getName() + ".",
                    "Name a bean that implements DeliveryErrorHandler, or make bean '" + name + "' implement it.", e);
        } catch (NoSuchBeanDefinitionException e) {
            throw new DelayQueueConfigurationException("@DelayHandler(errorHandler = \"" + annotation.errorHandler()
                    + "\") on " + source + ": there is no bean named '" + name + "'.",
                    "Define a DeliveryErrorHandler bean named '" + name + "', or fix the name.", e);
        }
    }

    private <T> @Nullable T attribute(String raw, String name, String source, Function<String, T> parser) {
        String value = resolve(raw, name, source);
        if (value.isBlank()) {
            return null;
        }
        try {
            return parser.apply(value.trim());
        } catch (RuntimeException e) {
            if (name.endsWith("ateLimit") || (name.endsWith("axInFlight") && !(e instanceof NumberFormatException))) {
                throw new DelayQueueConfigurationException("@DelayHandler(" + name + " = \"" + raw + "\") on " + source
                        + ": " + e.getMessage() + ".", "Write rateLimit as <permits>/<period> with permits and period "
                                + "at least 1 (units ms, s, m, h, d), for example \"200/1s\" or \"10/1m\", and "
                                + "maxInFlight as an integer of at least 1 (groupRateLimit and groupMaxInFlight alike).", e);
            }
            throw new DelayQueueConfigurationException("@DelayHandler(" + name + " = \"" + raw + "\") on " + source
                    + ": '" + value + "' is not a valid " + (name.endsWith("Timeout") ? "duration" : "integer") + ".",
                    "Use an integer for concurrency and maxAttempts, and a duration such as 30s or PT30S for timeouts.", e);
        }
    }

    private String resolve(String value, String name, String source) {
        try {
            return requireNonNull(this.environment).resolveRequiredPlaceholders(value);
        } catch (IllegalArgumentException e) {
            throw new DelayQueueConfigurationException("@DelayHandler(" + name + " = \"" + value + "\") on " + source
                    + ": " + e.getMessage(), "Define the property or give the placeholder a default (${name:default}).", e);
        }
    }

    private static String describe(Class<?> targetClass, Method method) {
        return targetClass.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }

    private static <T> T requireNonNull(@Nullable T value) {
        if (value == null) {
            throw new IllegalStateException("not initialized by the container");
        }
        return value;
    }
}
