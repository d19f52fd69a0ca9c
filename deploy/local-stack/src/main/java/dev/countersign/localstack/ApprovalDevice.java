package dev.countersign.localstack;

/** Where the approval device (deploy/approval-device, second-device approvals) is built and how the stack names it. */
final class ApprovalDevice {

    static final String MODULE = "deploy/approval-device";
    static final String NAME = "approval-device";
    /** Keycloak's CIBA HTTP authentication channel posts here. */
    static final String CHANNEL_PATH = "/channel";

    private ApprovalDevice() {
    }
}
