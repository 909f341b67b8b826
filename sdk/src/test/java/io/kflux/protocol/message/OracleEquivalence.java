package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.MessageSpec;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * Field-by-field comparison of a kflux message record with an official kafka-clients message
 * object: each record component against the official getter of the same name, recursively. Used
 * on what both sides read from the same bytes, it checks that fields absent in a version take the
 * official defaults (-1 epochs, "" vs null strings, empty vs null arrays).
 */
public final class OracleEquivalence {
    private OracleEquivalence() {
    }

    /** {@link OracleCodec#assertSameBytes} plus: what kflux reads equals, field by field, what kafka-clients reads. */
    public static <T, O extends ApiMessage> void check(MessageSpec<T> spec, T ours, O official, short version,
                                                       Function<ByteBufferAccessor, O> officialReader) {
        OracleCodec.assertSameBytes(spec, ours, official, version, officialReader);
        byte[] bytes = OracleCodec.officialBytes(official, version);
        T oursRead = OracleCodec.kfluxRead(spec, bytes, version);
        O officialRead = officialReader.apply(new ByteBufferAccessor(ByteBuffer.wrap(bytes)));
        assertEquivalent(oursRead, officialRead, spec.apiKey() + " v" + version);
    }

    public static void assertEquivalent(Object ours, Object official, String path) {
        if (ours == null || official == null) {
            assertThat(ours).as(path + " (null on one side only: ours=%s, official=%s)", ours, official).isEqualTo(official);
            return;
        }
        if (ours instanceof Record record) {
            for (RecordComponent c : record.getClass().getRecordComponents()) {
                Object mine;
                Object theirs;
                try {
                    mine = c.getAccessor().invoke(record);
                    Method getter = official.getClass().getMethod(c.getName());
                    theirs = getter.invoke(official);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(path + "." + c.getName() + ": no matching official getter", e);
                }
                assertEquivalent(mine, theirs, path + "." + c.getName());
            }
            return;
        }
        if (ours instanceof List<?> list) {
            assertThat(official).as(path).isInstanceOf(Collection.class);
            Collection<?> coll = (Collection<?>) official;
            assertThat(list.size()).as(path + " size").isEqualTo(coll.size());
            Iterator<?> it = coll.iterator();
            for (int i = 0; i < list.size(); i++) {
                assertEquivalent(list.get(i), it.next(), path + "[" + i + "]");
            }
            return;
        }
        if (ours instanceof UUID uuid) {
            Uuid u = (Uuid) official;
            assertThat(new UUID(u.getMostSignificantBits(), u.getLeastSignificantBits())).as(path).isEqualTo(uuid);
            return;
        }
        if (ours instanceof byte[] bytes) {
            byte[] theirs = official instanceof ByteBuffer bb ? toArray(bb) : (byte[]) official;
            assertThat(bytes).as(path).isEqualTo(theirs);
            return;
        }
        assertThat(ours).as(path).isEqualTo(official);
    }

    private static byte[] toArray(ByteBuffer bb) {
        ByteBuffer d = bb.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    /** Versions lowest..highest of a spec, for loops. */
    public static List<Short> versions(MessageSpec<?> spec) {
        List<Short> out = new ArrayList<>();
        for (short v = spec.lowestVersion(); v <= spec.highestVersion(); v++) {
            out.add(v);
        }
        return out;
    }
}
