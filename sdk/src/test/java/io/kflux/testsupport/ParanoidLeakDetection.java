package io.kflux.testsupport;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Puts Netty's leak detector on PARANOID (every buffer tracked) for a test class and restores the level it found
 * afterwards: {@code @ExtendWith(ParanoidLeakDetection.class)} on the classes that assert no buffer is left behind
 * ({@link LeftBehind#assertNoLeaks}).
 */
public final class ParanoidLeakDetection implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ParanoidLeakDetection.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put("levelBefore", ResourceLeakDetector.getLevel());
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ResourceLeakDetector.setLevel(context.getStore(NAMESPACE).get("levelBefore", ResourceLeakDetector.Level.class));
    }
}
