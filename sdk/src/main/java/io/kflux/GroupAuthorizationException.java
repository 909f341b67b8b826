package io.kflux;

/**
 * The broker's ACLs do not let this client use its consumer group: error code 30, GROUP_AUTHORIZATION_FAILED,
 * in FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetCommit or OffsetFetch. Ends {@code receive()};
 * fails {@code commit()} and {@code committed()}.
 */
public class GroupAuthorizationException extends AuthorizationException {

    private static final long serialVersionUID = 1L;

    private final String groupId;

    /**
     * @param message what was refused
     * @param groupId the group refused
     */
    public GroupAuthorizationException(String message, String groupId) {
        super((short) 30, "GROUP_AUTHORIZATION_FAILED", message + " (group " + groupId + ")");
        this.groupId = groupId;
    }

    /**
     * The group the broker refused.
     *
     * @return the {@code group.id}
     */
    public String groupId() {
        return groupId;
    }
}
