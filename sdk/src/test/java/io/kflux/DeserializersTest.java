package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.kafka.common.serialization.DoubleSerializer;
import org.apache.kafka.common.serialization.FloatSerializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.ShortSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.UUIDSerializer;
import org.junit.jupiter.api.Test;

class DeserializersTest {

    /** Places the bytes in the middle of a larger buffer, as a fetched batch would. */
    private static ByteBuffer embedded(byte[] bytes, boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(bytes.length + 6) : ByteBuffer.allocate(bytes.length + 6);
        b.put(new byte[] {9, 9, 9}).put(bytes).put(new byte[] {7, 7, 7});
        b.position(3).limit(3 + bytes.length);
        return b.slice().position(0);
    }

    private static <T> T read(Deserializer<T> d, byte[] bytes, boolean direct) {
        ByteBuffer b = embedded(bytes, direct);
        int pos = b.position();
        T out = d.deserialize("t", Headers.empty(), b);
        assertThat(b.position()).as("position untouched").isEqualTo(pos);
        return out;
    }

    @Test
    void roundTripsAgainstOfficialSerializers() {
        for (boolean direct : new boolean[] {false, true}) {
            try (StringSerializer s = new StringSerializer()) {
                for (String v : new String[] {"", "hello", "grüße 🚀"}) {
                    assertThat(read(Deserializers.string(), s.serialize("t", v), direct)).isEqualTo(v);
                }
            }
            try (LongSerializer s = new LongSerializer()) {
                for (long v : new long[] {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L}) {
                    assertThat(read(Deserializers.longs(), s.serialize("t", v), direct)).isEqualTo(v);
                }
            }
            try (IntegerSerializer s = new IntegerSerializer()) {
                for (int v : new int[] {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x01020304}) {
                    assertThat(read(Deserializers.integers(), s.serialize("t", v), direct)).isEqualTo(v);
                }
            }
            try (ShortSerializer s = new ShortSerializer()) {
                for (short v : new short[] {0, -1, Short.MIN_VALUE, Short.MAX_VALUE, 0x0102}) {
                    assertThat(read(Deserializers.shorts(), s.serialize("t", v), direct)).isEqualTo(v);
                }
            }
            try (DoubleSerializer s = new DoubleSerializer()) {
                for (double v : new double[] {0.0, -1.5, Math.PI, Double.MAX_VALUE, Double.NaN}) {
                    assertThat(Double.doubleToRawLongBits(read(Deserializers.doubles(), s.serialize("t", v), direct)))
                        .isEqualTo(Double.doubleToRawLongBits(v));
                }
            }
            try (FloatSerializer s = new FloatSerializer()) {
                assertThat(read(Deserializers.floats(), s.serialize("t", 2.5f), direct)).isEqualTo(2.5f);
            }
            try (UUIDSerializer s = new UUIDSerializer()) {
                UUID u = UUID.randomUUID();
                assertThat(read(Deserializers.uuid(), s.serialize("t", u), direct)).isEqualTo(u);
            }
            byte[] raw = {1, 2, 3};
            assertThat(read(Deserializers.byteArray(), raw, direct)).containsExactly(1, 2, 3);
            ByteBuffer copy = read(Deserializers.byteBuffer(), raw, direct);
            assertThat(copy.remaining()).isEqualTo(3);
            assertThat(copy.get(0)).isEqualTo((byte) 1);
        }
    }

    @Test
    void littleEndianBufferStillReadsBigEndian() {
        ByteBuffer b = ByteBuffer.wrap(new LongSerializer().serialize("t", 42L)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Deserializers.longs().deserialize("t", Headers.empty(), b)).isEqualTo(42L);
        ByteBuffer i = ByteBuffer.wrap(new IntegerSerializer().serialize("t", 42)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Deserializers.integers().deserialize("t", Headers.empty(), i)).isEqualTo(42);
    }

    @Test
    void byteCopiesAreIndependentOfTheSource() {
        byte[] raw = {1, 2, 3};
        ByteBuffer src = ByteBuffer.wrap(raw);
        byte[] out = Deserializers.byteArray().deserialize("t", Headers.empty(), src);
        ByteBuffer outBuf = Deserializers.byteBuffer().deserialize("t", Headers.empty(), src);
        raw[0] = 100;
        assertThat(out[0]).isEqualTo((byte) 1);
        assertThat(outBuf.get(0)).isEqualTo((byte) 1);
    }

    @Test
    void nullStaysNull() {
        for (Deserializer<?> d : new Deserializer<?>[] {Deserializers.string(), Deserializers.byteArray(),
            Deserializers.byteBuffer(), Deserializers.longs(), Deserializers.integers(), Deserializers.shorts(),
            Deserializers.doubles(), Deserializers.floats(), Deserializers.uuid(), Deserializers.voidDeserializer()}) {
            assertThat((Object) d.deserialize("t", Headers.empty(), null)).isNull();
        }
    }

    @Test
    void wrongSizesThrow() {
        ByteBuffer seven = ByteBuffer.allocate(7);
        assertThatThrownBy(() -> Deserializers.longs().deserialize("t", Headers.empty(), seven))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8").hasMessageContaining("7");
        assertThatThrownBy(() -> Deserializers.integers().deserialize("t", Headers.empty(), ByteBuffer.allocate(5)))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Deserializers.shorts().deserialize("t", Headers.empty(), ByteBuffer.allocate(0)))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Deserializers.voidDeserializer().deserialize("t", Headers.empty(), ByteBuffer.allocate(1)))
            .isInstanceOf(IllegalArgumentException.class);
        ByteBuffer shortUuid = ByteBuffer.wrap("1-2-3-4-5".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> Deserializers.uuid().deserialize("t", Headers.empty(), shortUuid))
            .isInstanceOf(IllegalArgumentException.class);
        ByteBuffer notUuid = ByteBuffer.wrap("zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> Deserializers.uuid().deserialize("t", Headers.empty(), notUuid))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
