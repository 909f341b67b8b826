package io.kflux;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/** The broker's rules for topic names, checked before any request so that an illegal name fails where it is given. */
final class TopicNames {
    /** Longest legal name: 255 (a file name's limit) less room for the partition suffix and log-deletion markers. */
    static final int MAX_LENGTH = 249;

    private TopicNames() {
    }

    /**
     * Whether the broker would accept {@code name}: 1 to 249 characters, each an ASCII letter, digit, '.', '_' or
     * '-', and neither "." nor "..".
     */
    static boolean isLegal(String name) {
        if (name.isEmpty() || name.length() > MAX_LENGTH || name.equals(".") || name.equals("..")) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * Fails with every illegal name at once, so one fix-and-retry round is enough.
     *
     * @throws InvalidTopicException when a name is illegal
     */
    static void check(Collection<String> names) {
        Set<String> invalid = new LinkedHashSet<>();
        for (String name : names) {
            if (!isLegal(name)) {
                invalid.add(name);
            }
        }
        if (!invalid.isEmpty()) {
            throw new InvalidTopicException(invalid, "illegal topic names (legal: 1 to " + MAX_LENGTH
                    + " characters of ASCII letters, digits, '.', '_' and '-', not \".\" or \"..\"):");
        }
    }
}
