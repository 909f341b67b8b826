package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.INT8;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.Schema;
import java.util.List;

/**
 * One batch of share acknowledgements (KIP-932), the same struct in ShareFetch and ShareAcknowledge requests:
 * offsets {@code firstOffset..lastOffset} inclusive, and either one type for all of them or one type per offset.
 * Types: 0 gap (an offset with no record, e.g. a compacted one or a transaction marker), 1 accept, 2 release,
 * 3 reject, 4 renew (KIP-1222, ShareFetch/ShareAcknowledge v2+).
 */
public record AcknowledgementBatch(long firstOffset, long lastOffset, List<Byte> acknowledgeTypes) {

    public static final byte GAP = 0;

    static final Schema<AcknowledgementBatch> SCHEMA = Schema.of(AcknowledgementBatch.class,
            field("firstOffset", INT64),
            field("lastOffset", INT64),
            field("acknowledgeTypes", array(INT8)));
}
