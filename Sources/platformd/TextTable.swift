import PlatformCore
import PlatformServer
import PlatformStorage

/// The CLI's tables: a header, a rule of dashes, the rows; columns two spaces apart, no
/// trailing spaces.
enum TextTable {
    /// Columns from `rightAlignedFrom` on are right-aligned (figures); the others left-aligned.
    static func lines(_ header: [String], _ rows: [[String]], rightAlignedFrom: Int = .max) -> [String] {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            var text = cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column >= rightAlignedFrom ? pad + cell : cell + pad
            }.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)
    }
}
