import Metrics

/// The store's own metric families (`platformd_store_*`), recorded by whichever store commits:
/// SQLite's group commit and PostgreSQL's transactions report the same series.
public enum StoreMetrics {
    public static let commitDuration = "platformd_store_commit_duration_seconds"
    public static let commitBatchSize = "platformd_store_commit_batch_size"

    /// One commit of the store (a group commit's transaction, or one session's on PostgreSQL).
    public static func commit(duration: Duration, batchSize: Int) {
        commitTimer.record(duration: duration)
        commitBatch.record(batchSize)
    }

    /// Makes the series at zero before the first commit (a scrape sees them from the start).
    public static func prepare() {
        _ = commitTimer
        _ = commitBatch
    }

    private static let commitTimer = Metrics.Timer(label: commitDuration)
    private static let commitBatch = Recorder(label: commitBatchSize, aggregate: true)
}
