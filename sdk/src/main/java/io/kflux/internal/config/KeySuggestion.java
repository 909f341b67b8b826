package io.kflux.internal.config;

import java.util.Collection;
import java.util.Locale;

/**
 * "Did you mean": the known property name closest to a misspelled one, by edit distance (Levenshtein: insertions,
 * deletions, substitutions of one character each), case-insensitive. Close means at most 3 edits and at most a third
 * of the name's length, so that a property of another client ({@code acks}) gets no far-fetched suggestion.
 */
final class KeySuggestion {
    private static final int MAX_EDITS = 3;

    private KeySuggestion() {
    }

    /** The closest of {@code known} to {@code name}, or null when none is close; the first of equally close ones. */
    static String closest(String name, Collection<String> known) {
        String n = name.toLowerCase(Locale.ROOT);
        int limit = Math.min(MAX_EDITS, n.length() / 3);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(n, k.toLowerCase(Locale.ROOT), limit);
            if (d <= limit && d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance of {@code a} and {@code b}; any value above {@code limit} once it must exceed it. */
    static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) > limit) {
            return limit + 1;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            int rowMin = current[0];
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
                rowMin = Math.min(rowMin, current[j]);
            }
            if (rowMin > limit) {
                return limit + 1;
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
