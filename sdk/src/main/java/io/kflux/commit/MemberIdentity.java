package io.kflux.commit;

/**
 * The member's identity as OffsetCommit carries it: generation (-1 without membership), member id
 * ("" without membership) and {@code group.instance.id} (null unless static, KIP-345).
 */
public record MemberIdentity(int generationId, String memberId, String groupInstanceId) {
    public static final MemberIdentity NONE = new MemberIdentity(-1, "", null);
}
