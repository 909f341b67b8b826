package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public package hands no internal type to users: no public or protected constructor, method or field of a
 * public type in {@code io.kflux} names a type of kflux's other packages (layers 0-6 and {@code internal}) in its
 * signature, generics included (the implementation reads the parsed configuration through
 * {@code internal.config.OptionsAccess}, not through a public method).
 */
class PublicApiTest {

    @Test
    void noPublicSignatureNamesAnInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : publicTypes()) {
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                check(type, c, leaks);
            }
            for (Method m : type.getDeclaredMethods()) {
                if (!m.isSynthetic()) {
                    check(type, m, leaks);
                }
            }
            for (java.lang.reflect.Field f : type.getDeclaredFields()) {
                if (exposed(f.getModifiers()) && internal(f.getGenericType())) {
                    leaks.add(type.getSimpleName() + "." + f.getName());
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void theCheckSeesTheRecordsOfThisPackage() throws Exception {
        assertThat(publicTypes()).contains(ConsumerRecord.class, KafkaFluxConsumer.class, ConsumerOptions.class);
    }

    private static void check(Class<?> type, Executable e, List<String> leaks) {
        if (!exposed(e.getModifiers())) {
            return;
        }
        List<Type> named = new ArrayList<>(List.of(e.getGenericParameterTypes()));
        named.addAll(List.of(e.getGenericExceptionTypes()));
        if (e instanceof Method m) {
            named.add(m.getGenericReturnType());
        }
        for (Type t : named) {
            if (internal(t)) {
                leaks.add(type.getSimpleName() + "." + e.getName() + " names " + t.getTypeName());
            }
        }
    }

    private static boolean exposed(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** A type name inside kflux but outside the public package (generic arguments included). */
    private static boolean internal(Type t) {
        String name = t.getTypeName();
        for (String part : name.split("[<>,\\s\\[\\]?]+")) {
            if (part.startsWith("io.kflux.") && !part.matches("io\\.kflux\\.[A-Z][A-Za-z0-9_$.]*")) {
                return true;
            }
        }
        return false;
    }

    /** The public top-level and nested types of io.kflux, from the compiled classes. */
    private static List<Class<?>> publicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(ConsumerRecord.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("io/kflux");
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String simple = p.getFileName().toString().replace(".class", "");
                Class<?> c = Class.forName("io.kflux." + simple.replace('/', '.'), false,
                        PublicApiTest.class.getClassLoader());
                if (Modifier.isPublic(c.getModifiers()) && !c.isAnonymousClass() && !c.isSynthetic()) {
                    out.add(c);
                }
            }
        }
        return out;
    }
}
