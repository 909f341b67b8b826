package io.kflux.util;

import java.util.Set;

/**
 * The one rule every kflux state machine keeps: a state names the states it may be entered from, and a move from
 * anywhere else is a bug, raised at once instead of leaving the machine somewhere its code does not expect.
 * Implemented by the state enums ({@code MemberState}, {@code CoordinatorState}, ...).
 *
 * @param <S> the state enum itself
 */
public interface StateTransitions<S extends Enum<S> & StateTransitions<S>> {

    /** The states this one may be entered from. */
    Set<S> previousValidStates();

    /**
     * Checks a move.
     *
     * @param from the state the machine is in
     * @param to   the state it is about to enter
     * @return {@code to}
     * @throws IllegalStateException when {@code to} may not be entered from {@code from}
     */
    static <S extends Enum<S> & StateTransitions<S>> S check(S from, S to) {
        return check(null, from, to);
    }

    /**
     * Checks a move of one of many machines of a kind (one per partition, ...), naming it in the error.
     *
     * @param subject what moves (its {@code toString()} starts the message; null for none)
     * @param from    the state it is in
     * @param to      the state it is about to enter
     * @return {@code to}
     * @throws IllegalStateException when {@code to} may not be entered from {@code from}
     */
    static <S extends Enum<S> & StateTransitions<S>> S check(Object subject, S from, S to) {
        if (!to.previousValidStates().contains(from)) {
            throw new IllegalStateException((subject == null ? "" : subject + ": ") + "invalid state transition " + from
                    + " -> " + to + " (" + to.getDeclaringClass().getSimpleName() + "; " + to + " may follow only "
                    + to.previousValidStates() + ")");
        }
        return to;
    }
}
