package io.kflux.metadata;

/** A broker of the cluster as Metadata describes it. */
public record Node(int id, String host, int port, String rack) {
    @Override
    public String toString() {
        return host + ":" + port + " (id " + id + ")";
    }
}
