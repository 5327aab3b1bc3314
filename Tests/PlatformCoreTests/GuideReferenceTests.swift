import Foundation
import Testing

/// Docs/plugins.md's "Reference: what a plugin implements and calls" shows initializers as
/// Sources/PlatformCore declares them: for every type it shows an initializer of, each public
/// initializer the source declares for that type (in its body or an extension, not a nested
/// type's) is shown with the same argument labels in the same order, and none that the source
/// lacks. A parameter added to an initializer fails here until the reference shows it too.
@Suite struct GuideReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// The reference's Swift code: its section of the guide, up to the next `## ` heading.
    static func reference() throws -> String {
        let guide = try String(contentsOf: root.appendingPathComponent("Docs/plugins.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "\n## Reference: what a plugin implements and calls\n"))
        let rest = guide[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// Every public initializer in Sources/PlatformCore, as argument labels by type.
    static func sourceInitializers() throws -> [String: [[String]]] {
        let directory = root.appendingPathComponent("Sources/PlatformCore")
        let walker = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        var found: [String: [[String]]] = [:]
        for case let file as URL in walker where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            found.merge(initializers(in: text)) { $0 + $1 }
        }
        return found
    }

    /// The argument labels of each `public init` declared as a member of a top-level type or
    /// extension (indented four spaces under a declaration that starts its line), by type name.
    static func initializers(in text: String) -> [String: [[String]]] {
        let code = text.split(separator: "\n", omittingEmptySubsequences: false).map(withoutComment).joined(separator: "\n")
        var found: [String: [[String]]] = [:]
        var type: String?
        for line in code.split(separator: "\n", omittingEmptySubsequences: false) {
            // The regular expressions only where they can match: they are slow in a debug build.
            if let first = line.first, first.isLetter,
                let declared = line.firstMatch(of: #/^(?:public |package )?(?:final |indirect )?(?:struct|enum|class|actor|protocol|extension) (\w+)/#)
            {
                type = String(declared.1)
            }
            guard let type, line.hasPrefix("    public init"), let start = line.firstMatch(of: #/^    public init[?!]?\(/#) else { continue }
            // The line is a slice of `code`: the parameters read on past its end.
            found[type, default: []].append(labels(ofParameters: code[start.range.upperBound...]))
        }
        return found
    }

    /// The line without a `//` comment outside a string literal.
    static func withoutComment(_ line: Substring) -> Substring {
        var inString = false
        var previous: Character?
        for index in line.indices {
            let character = line[index]
            if character == "\"" && previous != "\\" { inString.toggle() }
            if !inString && character == "/" && previous == "/" {
                return line[..<line.index(before: index)]
            }
            previous = character
        }
        return line
    }

    /// The argument labels of a parameter list, read from just after its `(` to its `)`: each
    /// parameter's first word (`_` for none), parameters being split at commas outside brackets,
    /// parentheses and strings.
    static func labels(ofParameters text: Substring) -> [String] {
        var parameters: [String] = []
        var current = ""
        var depth = 0
        var inString = false
        for character in text {
            if character == "\"" { inString.toggle() }
            if !inString {
                if "([{".contains(character) { depth += 1 }
                if ")]}".contains(character) {
                    if depth == 0 { break }
                    depth -= 1
                }
                if character == "," && depth == 0 {
                    parameters.append(current)
                    current = ""
                    continue
                }
            }
            current.append(character)
        }
        parameters.append(current)
        return parameters.compactMap { parameter in
            let name = parameter.split(separator: ":", maxSplits: 1).first ?? ""
            return name.split(whereSeparator: \.isWhitespace).first.map(String.init)
        }
    }

    @Test func everyInitializerTheReferenceShowsHasTheSourcesLabels() throws {
        let shown = Self.initializers(in: try Self.reference())
        // The types the reference shows initializers of, so a change to its layout that hides
        // them from this reading fails here instead of passing with nothing compared.
        for type in [
            "Flow", "FlowMigration", "FlowBranch", "StepCopy", "StepWork", "CompletionResult", "ReviewStep", "FieldSpec", "FieldOption", "FieldPattern",
        ] {
            #expect(shown[type] != nil, "the reference shows no init of \(type)")
        }
        let declared = try Self.sourceInitializers()
        #expect(declared["FieldSpec"]?.first?.contains("earliest") == true, "Sources/PlatformCore read as expected")
        for (type, inits) in shown.sorted(by: { $0.key < $1.key }) {
            let source = try #require(declared[type], "Sources/PlatformCore declares no public init of \(type)")
            for labels in source {
                #expect(inits.contains(labels), "Docs/plugins.md's reference lacks \(type).init(\(labels.map { "\($0):" }.joined()))")
            }
            for labels in inits where !source.contains(labels) {
                Issue.record("Docs/plugins.md's reference shows \(type).init(\(labels.map { "\($0):" }.joined())), which Sources/PlatformCore lacks")
            }
        }
    }

    /// The reading itself: labels across lines, defaults with commas and closures' own parameters.
    @Test func labelsAreReadAsTheCompilerReadsThem() {
        let text = """
            public struct Sample {
                public init(_ source: String, if condition: @escaping @Sendable (_ reason: String, Int) -> Bool,
                            values: [String: Int] = [:],   // a comment: with, commas(and: labels)
                            title: String = "a, b: c", actions: [Int] = [.init()]) throws
                struct Nested {
                    public init(hidden: Int) {}
                }
            }
            extension Sample {
                public init?(other: Int) {}
            }
            """
        #expect(Self.initializers(in: text) == ["Sample": [["_", "if", "values", "title", "actions"], ["other"]]])
    }
}
