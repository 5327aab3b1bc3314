import Logging
import Synchronization

/// One line a Logger wrote, as a test reads it.
public struct LoggedLine: Sendable {
    public var label: String
    public var level: Logger.Level
    public var message: String
    public var source: String
    /// The line's own metadata.
    public var metadata: Logger.Metadata
    /// The logger's metadata with the line's on top.
    public var allMetadata: Logger.Metadata

    /// ` key=value` for each of the line's own metadata, by key.
    public var metadataPairs: String {
        metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
    }
}

/// Hands every line a Logger writes to `record`, for tests that check what is (and is not)
/// logged; every level passes.
public struct RecordingLogHandler: LogHandler {
    public let label: String
    public let record: @Sendable (LoggedLine) -> Void
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(label: String, record: @escaping @Sendable (LoggedLine) -> Void) {
        self.label = label
        self.record = record
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let own = event.metadata ?? [:]
        record(
            LoggedLine(
                label: label, level: event.level, message: event.message.description, source: event.source,
                metadata: own, allMetadata: metadata.merging(own) { $1 }))
    }
}

/// Keeps every line written through its loggers, in order.
public final class LogRecorder: Sendable {
    private let storage = Mutex<[LoggedLine]>([])

    public init() {}

    public var lines: [LoggedLine] { storage.withLock { $0 } }

    /// A Logger labelled `label` whose lines this recorder keeps.
    public func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { label in RecordingLogHandler(label: label) { line in self.storage.withLock { $0.append(line) } } }
        logger.logLevel = .trace
        return logger
    }
}
