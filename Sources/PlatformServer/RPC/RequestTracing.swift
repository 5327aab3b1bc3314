import Synchronization

/// Whether requests get spans: from the moment a tracer is bootstrapped (`enable()`, by the
/// server that sets one up). With none, `withSpan` would still read the global tracer under its
/// lock and make and end a no-op span for every request.
public enum RequestTracing {
    private static let enabled = Atomic<Bool>(false)

    public static func enable() { enabled.store(true, ordering: .relaxed) }

    static var isEnabled: Bool { enabled.load(ordering: .relaxed) }
}
