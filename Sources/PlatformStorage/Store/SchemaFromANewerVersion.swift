/// A database a newer `platformd` migrated: this binary does not know some of its schema's
/// changes (a table rebuilt, a column moved), and serving from it would fail part of the time or
/// write what the newer binary no longer reads. Refused at open, before anything is read or
/// written; a rollback goes with the backup taken before the upgrade.
public struct SchemaFromANewerVersion: Error, CustomStringConvertible, Sendable, Equatable {
    public var database: String
    /// The migrations applied to it that this binary does not have, in name order.
    public var unknownMigrations: [String]

    public init(database: String, unknownMigrations: [String]) {
        self.database = database
        self.unknownMigrations = unknownMigrations
    }

    public var description: String {
        "the database \(database) was migrated by a newer platformd (\(unknownMigrations.joined(separator: ", "))): "
            + "run that version or a later one, or restore the backup taken before the upgrade"
    }
}
