/// A wire type that writes its own JSON text, byte for byte what
/// `JSONValue(encoding: self).serializedBytes()` gives (keys in UTF-8 byte order, the same nulls,
/// numbers and escapes), without building a `JSONValue` tree first.
///
/// The server answers every flow command with a `SessionView`; through `Codable` each of its
/// objects became a tree of nodes, then a dictionary, then a sorted key list, so a step with two
/// state pickers (51 options each) took ~250 µs and ~1,500 mallocs to render. Written directly,
/// the view is one growing byte buffer. It is the type's only encoder: its `Encodable`
/// conformance is derived from it (`JSONWritable.encode(to:)`).
public protocol JSONRenderable: Encodable {
    /// The value's JSON text.
    func renderedJSON() -> [UInt8]
}

/// What a type writes into a `JSONWriter`; its `renderedJSON()` comes for free.
protocol JSONWritable: JSONRenderable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    public func renderedJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        write(to: &writer)
        return writer.output
    }

    /// The type's one encoder is its writer: `Codable` callers (`JSONValue(encoding:)`, a
    /// JSONEncoder) get the text it writes, read back as a `JSONValue`. The synthesized encoding
    /// was a second encoder kept in step by a debug assertion; the writer is the faster
    /// (Docs/performance.md: the review step's view in ~a fifth of the time, a tenth of the
    /// mallocs), so it is the one kept. Decoding stays synthesized; tests hold it to the writer.
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.parse(renderedJSON()).encode(to: encoder)
    }
}

extension JSONWriter {
    /// Writes the members of one object, in the order they are given: callers give them sorted
    /// by key (UTF-8 byte order), as `serialized()` writes them.
    package struct Members {
        var first = true
    }

    /// Opens an object; `close` ends it.
    package mutating func open() -> Members {
        output.append(UInt8(ascii: "{"))
        return Members()
    }

    package mutating func close(_ members: Members) {
        output.append(UInt8(ascii: "}"))
    }

    /// The key of the next member (a literal key: plain ASCII, nothing to escape).
    package mutating func key(_ key: StaticString, _ members: inout Members) {
        if !members.first { output.append(UInt8(ascii: ",")) }
        members.first = false
        output.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: "\""))
        output.append(UInt8(ascii: ":"))
    }

    /// The key of the next member, escaped as any string.
    package mutating func key(_ key: String, _ members: inout Members) {
        if !members.first { output.append(UInt8(ascii: ",")) }
        members.first = false
        writeString(key)
        output.append(UInt8(ascii: ":"))
    }

    package mutating func member(_ key: StaticString, _ value: String, _ members: inout Members) {
        self.key(key, &members)
        writeString(value)
    }

    mutating func member(_ key: StaticString, _ value: String?, _ members: inout Members) {
        guard let value else { return }
        member(key, value, &members)
    }

    mutating func member(_ key: StaticString, _ value: Bool, _ members: inout Members) {
        self.key(key, &members)
        append(value ? "true" : "false")
    }

    package mutating func member(_ key: StaticString, _ value: Int, _ members: inout Members) {
        self.key(key, &members)
        append(String(value))
    }

    package mutating func member(_ key: StaticString, _ value: Int?, _ members: inout Members) {
        guard let value else { return }
        member(key, value, &members)
    }

    /// A `Double` member as the encoder writes one: whole values as integers, non-finite as null.
    mutating func member(_ key: StaticString, _ value: Double, _ members: inout Members) {
        self.key(key, &members)
        write(JSONValueEncoder.number(value))
    }

    mutating func member(_ key: StaticString, _ value: JSONValue?, _ members: inout Members) {
        guard let value else { return }
        self.key(key, &members)
        write(value)
    }

    mutating func member<Value: JSONWritable>(_ key: StaticString, _ value: Value?, _ members: inout Members) {
        guard let value else { return }
        self.key(key, &members)
        value.write(to: &self)
    }

    mutating func member<Value: JSONWritable>(_ key: StaticString, _ values: [Value]?, _ members: inout Members) {
        guard let values else { return }
        self.key(key, &members)
        writeArray(values)
    }

    /// A member the contract writes even when it has no value: `null` then.
    mutating func nullableMember<Value: JSONWritable>(_ key: StaticString, _ value: Value?, _ members: inout Members) {
        self.key(key, &members)
        if let value { value.write(to: &self) } else { append("null") }
    }

    mutating func nullableMember(_ key: StaticString, _ value: String?, _ members: inout Members) {
        self.key(key, &members)
        if let value { writeString(value) } else { append("null") }
    }

    mutating func writeArray<Value: JSONWritable>(_ values: [Value]) {
        output.append(UInt8(ascii: "["))
        for (offset, value) in values.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            value.write(to: &self)
        }
        output.append(UInt8(ascii: "]"))
    }

    package mutating func writeArray(_ values: [String]) {
        output.append(UInt8(ascii: "["))
        for (offset, value) in values.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            writeString(value)
        }
        output.append(UInt8(ascii: "]"))
    }
}

// MARK: - the SessionView and what it holds

extension SessionView: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.nullableMember("completion", completion, &members)
        writer.member("experiment", experiment, &members)
        writer.member("flow", flow, &members)
        if let flowVersion { writer.member("flowVersion", flowVersion, &members) }
        if let locale { writer.member("locale", locale, &members) }
        writer.member("progress", progress, &members)
        writer.nullableMember("rejection", rejection, &members)
        writer.member("revision", revision, &members)
        writer.member("sessionId", sessionId, &members)
        writer.member("status", status.rawValue, &members)
        writer.nullableMember("step", step, &members)
        writer.member("tenant", tenant, &members)
        writer.member("userId", userId, &members)
        writer.close(members)
    }
}

extension SessionProgress: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("fraction", fraction, &members)
        writer.member("index", index, &members)
        writer.member("label", label, &members)
        writer.member("total", total, &members)
        writer.close(members)
    }
}

extension StepView: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("actions", actions, &members)
        writer.member("content", JSONValue.object(content), &members)
        writer.member("errors", errors, &members)
        writer.member("fields", fields, &members)
        writer.member("helper", helper, &members)
        writer.member("id", id, &members)
        writer.member("kind", kind.rawValue, &members)
        writer.member("subtitle", subtitle, &members)
        writer.member("title", title, &members)
        writer.close(members)
    }
}

extension StepAction: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("id", id, &members)
        writer.member("label", label, &members)
        writer.close(members)
    }
}

extension FieldError: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("code", code.rawValue, &members)
        writer.nullableMember("field", field, &members)
        writer.member("message", message, &members)
        writer.close(members)
    }
}

extension OptionView: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("badge", badge, &members)
        writer.member("detail", detail, &members)
        writer.member("label", label, &members)
        writer.member("link", link, &members)
        writer.member("locked", locked, &members)
        writer.member("value", value, &members)
        writer.close(members)
    }
}

extension FieldCondition: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.write(json)
    }
}

extension FieldView: JSONWritable {
    /// The known keys in the order they are written (UTF-8 byte order).
    static let writtenKeys: [CodingKeys] = CodingKeys.allCases.sorted { $0.stringValue.utf8.lexicographicallyPrecedes($1.stringValue.utf8) }

    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        // The type-specific extras sit among the known keys, in key order; known names in
        // `extra` are not written (as `encodeExtra` skips them).
        var extras: [(key: String, value: JSONValue)] = []
        if !extra.isEmpty {
            extras = extra.filter { !Self.knownKeys.contains($0.key) }
                .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        }
        var nextExtra = 0
        for key in Self.writtenKeys {
            while nextExtra < extras.count, extras[nextExtra].key.utf8.lexicographicallyPrecedes(key.stringValue.utf8) {
                writer.key(extras[nextExtra].key, &members)
                writer.write(extras[nextExtra].value)
                nextExtra += 1
            }
            write(key, to: &writer, &members)
        }
        for (key, value) in extras[nextExtra...] {
            writer.key(key, &members)
            writer.write(value)
        }
        writer.close(members)
    }

    private func write(_ key: CodingKeys, to writer: inout JSONWriter, _ members: inout Members) {
        switch key {
        case .id: writer.member("id", id, &members)
        case .type: writer.member("type", type.rawValue, &members)
        case .label: writer.member("label", label, &members)
        case .required: writer.member("required", required, &members)
        case .placeholder: writer.member("placeholder", placeholder, &members)
        case .options: writer.member("options", options, &members)
        case .min: writer.member("min", min, &members)
        case .max: writer.member("max", max, &members)
        case .step: writer.member("step", step, &members)
        case .minLength: writer.member("minLength", minLength, &members)
        case .maxLength: writer.member("maxLength", maxLength, &members)
        case .minItems: writer.member("minItems", minItems, &members)
        case .maxItems: writer.member("maxItems", maxItems, &members)
        case .default: writer.member("default", `default`, &members)
        case .value: writer.member("value", value ?? .null, &members)
        case .visibleWhen: writer.member("visibleWhen", visibleWhen, &members)
        case .requiredWhen: writer.member("requiredWhen", requiredWhen, &members)
        case .allowCustom: if let allowCustom { writer.member("allowCustom", allowCustom, &members) }
        case .itemFields: writer.member("itemFields", itemFields, &members)
        case .pattern: writer.member("pattern", pattern, &members)
        }
    }

    typealias Members = JSONWriter.Members
}

extension CompletionView: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("message", message, &members)
        writer.key("records", &members)
        writer.writeArray(records)
        writer.member("screen", screen, &members)
        writer.close(members)
    }
}

extension CompletionScreen: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("actions", actions, &members)
        writer.member("body", body, &members)
        writer.member("summary", summary.map(JSONValue.array), &members)
        writer.member("title", title, &members)
        writer.close(members)
    }
}

extension ExperimentMembership: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("id", id, &members)
        writer.member("variant", variant, &members)
        writer.close(members)
    }
}

extension Rejection: JSONWritable {
    func write(to writer: inout JSONWriter) {
        var members = writer.open()
        writer.member("code", code, &members)
        writer.member("message", message, &members)
        writer.close(members)
    }
}
