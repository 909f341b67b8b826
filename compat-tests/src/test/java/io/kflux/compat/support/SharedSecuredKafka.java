package io.kflux.compat.support;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives every security test class the same running {@link SecuredKafka} (a {@code SecuredKafka} parameter of its
 * {@code @BeforeAll} method): started by the first class that asks, stopped when the test run ends (JUnit closes the
 * root store's {@link AutoCloseable} values). Starting and stopping the secured broker cost 30-50 s per class in the
 * clean-clone CI (session 19), and its listeners, users and ACLs are the same for every class; the classes use
 * their own {@code sec-*} topics and groups, and none stops, pauses or reconfigures the broker (one that does must
 * call {@link SecuredKafka#start()} for its own).
 */
public final class SharedSecuredKafka implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedSecuredKafka.class);

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == SecuredKafka.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return extensionContext.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(SecuredKafka.class, k -> SecuredKafka.start(), SecuredKafka.class);
    }
}
