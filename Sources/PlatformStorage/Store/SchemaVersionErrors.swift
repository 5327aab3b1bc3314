/// A database a newer `platformd` migrated: this binary does not know some of its schema's
/// changes (a table rebuilt, a column moved), and serving from it would fail part of the time or
/// write what the newer binary no longer reads. Refused at open, before it is migrated or served
/// from; a rollback goes with the backup taken before the upgrade.
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

/// A database this version has migrations for that a command beside the server was asked to
/// open: the command does not migrate it, since a server of the older version may be serving
/// from it (a table rebuilt under it would fail its next writes). The server of this version
/// migrates it as it starts.
public struct SchemaNotMigrated: Error, CustomStringConvertible, Sendable, Equatable {
    public var database: String
    /// This version's migrations the file lacks, in order.
    public var pendingMigrations: [String]

    public init(database: String, pendingMigrations: [String]) {
        self.database = database
        self.pendingMigrations = pendingMigrations
    }

    public var description: String {
        "the database \(database) is not migrated to this version of platformd (\(pendingMigrations.joined(separator: ", "))): "
            + "stop the server that uses it, then start this version's platformd serve on it, which migrates it"
    }
}
