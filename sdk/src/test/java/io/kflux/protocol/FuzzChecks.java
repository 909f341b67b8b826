package io.kflux.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

/**
 * What every fuzz target of the decoders asserts besides "only typed errors": that decoding {@code n} input bytes
 * allocates in proportion to {@code n}, never in proportion to a length field. A length claiming 2 GB must be
 * refused against the bytes left before anything is allocated for it.
 *
 * <p>Measured with the JDK's per-thread allocation counter ({@code com.sun.management.ThreadMXBean}), so the bound
 * covers every allocation of the decode, not one array: {@link #PER_INPUT_BYTE} bytes per input byte (a one-byte
 * array element becomes a record, its argument array and a list slot) plus {@link #FIXED} (buffers of the codecs,
 * iterators).
 */
public final class FuzzChecks {
    /** Heap bytes a decoder may allocate per input byte. */
    public static final long PER_INPUT_BYTE = 512;
    /** Heap bytes any decode may allocate besides. */
    public static final long FIXED = 1L << 20;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private FuzzChecks() {
    }

    /** Heap bytes the current thread allocated so far. */
    public static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Runs {@code decode} twice and asserts the second run's allocations stayed within the bound for
     * {@code inputBytes} (plus {@code extraAllowance}, for output whose size the data itself proves, such as
     * decompressed records). The first run is not measured: it pays for class loading, method handles spun by
     * {@code Schema} and codec contexts created once, none of which depend on the input. A first run that allocates
     * what a length field claims is repeated by the second, so nothing escapes.
     */
    public static <T> T withinAllocationBound(int inputBytes, Supplier<Long> extraAllowance, Supplier<T> decode) {
        try {
            release(decode.get());
        } catch (RuntimeException e) {
            // the measured run below throws it again
        }
        long before = allocatedBytes();
        T result;
        try {
            result = decode.get();
        } finally {
            long allocated = allocatedBytes() - before;
            long bound = PER_INPUT_BYTE * inputBytes + FIXED + extraAllowance.get();
            assertThat(allocated).as("bytes allocated decoding %d input bytes", inputBytes).isLessThanOrEqualTo(bound);
        }
        return result;
    }

    private static void release(Object message) {
        ReferenceCounting.releaseAll(message);
    }

    /**
     * Asserts that {@code e} is one of the decoders' typed errors and that every cause inside it is too, a read past
     * the end of the input (a plain {@link IndexOutOfBoundsException}, which {@link MessageSpec#read} reports as
     * truncation), or a compression codec's own report of bad data (an {@code IOException} of the JDK's gzip stream,
     * the errors of zstd-jni, snappy-java and lz4-java). Any other JDK exception inside (a
     * {@code NegativeArraySizeException}, an {@code IllegalArgumentException} from a length, an array index out of
     * bounds) is a decoder bug that a catch-all merely hid: reported as a finding.
     */
    @SafeVarargs
    public static void assertTyped(RuntimeException e, Class<? extends RuntimeException>... typed) {
        boolean top = false;
        for (Class<? extends RuntimeException> t : typed) {
            top |= t.isInstance(e);
        }
        if (!top) {
            throw e;
        }
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            boolean ok = c.getClass() == IndexOutOfBoundsException.class || c instanceof java.io.IOException
                    || !c.getClass().getName().startsWith("java.");
            for (Class<? extends RuntimeException> t : typed) {
                ok |= t.isInstance(c);
            }
            if (!ok) {
                throw new AssertionError("typed error " + e.getClass().getSimpleName() + " wraps an untyped one", c);
            }
        }
    }

    /** Releases every buffer a decoded message holds (record sets are retained slices of the frame). */
    public static void releaseAll(Object message) {
        ReferenceCounting.releaseAll(message);
    }

    /** {@code Supplier<Long>} of zero, for decoders with no output of their own size. */
    public static Supplier<Long> none() {
        return () -> 0L;
    }
}
