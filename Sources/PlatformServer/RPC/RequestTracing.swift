import Synchronization

/// Whether requests get spans: from the moment a tracer is bootstrapped (`enable()`, by the
/// server that sets one up). With none, `withSpan` would still read the global tracer under its
/// lock and make and end a no-op span for every request. A program embedding `RPCServer` that
/// bootstraps its own tracer (`InstrumentationSystem.bootstrap`) calls `enable()` after it.
public enum RequestTracing {
    private static let enabled = Atomic<Bool>(false)

    public static func enable() { enabled.store(true, ordering: .relaxed) }

    static var isEnabled: Bool { enabled.load(ordering: .relaxed) }
}
