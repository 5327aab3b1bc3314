import PlatformCore

extension JSONValue {
    /// A number as clients expect to read it: whole numbers without a fraction.
    static func wholeOrDecimal(_ value: Double) -> JSONValue {
        if let whole = Int64(exactly: value) { return .int(whole) }
        return .double(value)
    }
}
