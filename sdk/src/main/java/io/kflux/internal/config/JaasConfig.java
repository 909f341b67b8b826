package io.kflux.internal.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one login module entry of {@code sasl.jaas.config}, in the JAAS configuration syntax the official client
 * accepts: {@code <login module class> <flag> [name=value ...];} where values may be double-quoted (with
 * backslash escapes). Used to take {@code username} and {@code password} for PLAIN and SCRAM.
 *
 * @param loginModule login module class name (not loaded; kflux implements the mechanisms itself)
 * @param flag        control flag: {@code required}, {@code requisite}, {@code sufficient} or {@code optional}
 * @param options     module options, in order; unmodifiable
 */
public record JaasConfig(String loginModule, String flag, Map<String, String> options) {

    /**
     * Parses the property value.
     *
     * @param text the value of {@code sasl.jaas.config}
     * @return the entry
     * @throws IllegalArgumentException when the text is not exactly one well-formed entry; the message says what
     *                                  was expected at which character position and quotes no part of the text: a
     *                                  malformed entry may have a secret wherever a name was expected
     */
    public static JaasConfig parse(String text) {
        Lexer lx = new Lexer(text);
        String module = lx.word("login module class name");
        int flagAt = lx.nextWordAt();
        String flag = lx.word("control flag");
        if (!flag.equals("required") && !flag.equals("requisite") && !flag.equals("sufficient")
            && !flag.equals("optional")) {
            throw new IllegalArgumentException("the control flag at position " + flagAt
                                               + " must be required, requisite, sufficient or optional");
        }
        Map<String, String> options = new LinkedHashMap<>();
        while (true) {
            lx.skipBlanks();
            if (lx.peek() == ';') {
                lx.pos++;
                break;
            }
            if (lx.atEnd()) {
                throw new IllegalArgumentException("the login module entry must end with ';'");
            }
            int nameAt = lx.pos;
            String name = lx.word("option name");
            lx.skipBlanks();
            if (lx.peek() != '=') {
                throw new IllegalArgumentException("expected '=' after the option name at position " + nameAt);
            }
            lx.pos++;
            options.put(name, lx.value(nameAt));
        }
        lx.skipBlanks();
        if (!lx.atEnd()) {
            throw new IllegalArgumentException("exactly one login module entry is allowed for a client");
        }
        return new JaasConfig(module, flag, Collections.unmodifiableMap(options));
    }

    /**
     * An option value.
     *
     * @param name option name, e.g. {@code username}
     * @return the value or {@code null}
     */
    public String option(String name) {
        return options.get(name);
    }

    /**
     * Leaves option values out: they hold credentials.
     *
     * @return module, flag and option names
     */
    @Override
    public String toString() {
        return "JaasConfig[" + loginModule + " " + flag + " options=" + options.keySet() + "]";
    }

    private static final class Lexer {
        private final String s;
        private int pos;

        Lexer(String s) {
            this.s = s;
        }

        int nextWordAt() {
            skipBlanks();
            return pos;
        }

        boolean atEnd() {
            return pos >= s.length();
        }

        char peek() {
            return atEnd() ? '\0' : s.charAt(pos);
        }

        void skipBlanks() {
            while (!atEnd() && Character.isWhitespace(s.charAt(pos))) {
                pos++;
            }
        }

        String word(String what) {
            skipBlanks();
            int start = pos;
            while (!atEnd()) {
                char c = s.charAt(pos);
                if (Character.isWhitespace(c) || c == '=' || c == ';' || c == '"') {
                    break;
                }
                pos++;
            }
            if (start == pos) {
                throw new IllegalArgumentException("expected " + what + " at position " + start);
            }
            return s.substring(start, pos);
        }

        String value(int nameAt) {
            skipBlanks();
            if (peek() != '"') {
                return word("the value of the option at position " + nameAt);
            }
            pos++;
            StringBuilder out = new StringBuilder();
            while (true) {
                if (atEnd()) {
                    throw new IllegalArgumentException("unterminated quoted value of the option at position " + nameAt);
                }
                char c = s.charAt(pos++);
                if (c == '"') {
                    return out.toString();
                }
                if (c == '\\') {
                    if (atEnd()) {
                        throw new IllegalArgumentException("unterminated quoted value of the option at position " + nameAt);
                    }
                    c = s.charAt(pos++);
                }
                out.append(c);
            }
        }
    }
}
