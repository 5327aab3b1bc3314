/// An aspiration as the offline analyzer reads it: lower-case words and numbers, in order.
/// "10,000" is one number, "5k" is 5 then "k", "sub-25" is "sub" then 25, "24:30" is a clock
/// reading of 24.5 minutes, and "twenty-five" is 25.
struct GoalText: Sendable {
    enum Token: Sendable, Equatable {
        case number(Double)
        /// `mm:ss` or `h:mm:ss`, in minutes.
        case clock(minutes: Double)
        case word(String)
    }

    let tokens: [Token]

    init(_ text: String) {
        tokens = Self.joiningNumberWords(Self.tokenize(text))
    }

    var indices: Range<Int> { tokens.indices }

    func word(at index: Int) -> String? {
        guard tokens.indices.contains(index), case .word(let word) = tokens[index] else { return nil }
        return word
    }

    func number(at index: Int) -> Double? {
        guard tokens.indices.contains(index), case .number(let value) = tokens[index] else { return nil }
        return value
    }

    func contains(_ words: Set<String>) -> Bool {
        tokens.contains { token in
            if case .word(let word) = token { return words.contains(word) }
            return false
        }
    }

    /// How many words of the text are in `words` (repeats count).
    func count(_ words: Set<String>) -> Int {
        tokens.reduce(0) { total, token in
            if case .word(let word) = token, words.contains(word) { return total + 1 }
            return total
        }
    }

    /// Whether the words of `phrase` appear one after the other.
    func contains(phrase: String) -> Bool {
        firstIndex(ofPhrase: phrase) != nil
    }

    func firstIndex(ofPhrase phrase: String) -> Int? {
        let words = phrase.split(separator: " ").map(String.init)
        guard !words.isEmpty, tokens.count >= words.count else { return nil }
        for start in 0...(tokens.count - words.count)
        where words.indices.allSatisfy({ word(at: start + $0) == words[$0] }) {
            return start
        }
        return nil
    }

    // MARK: - tokenizing

    private static func tokenize(_ text: String) -> [Token] {
        let characters = Array(text.lowercased().replacingOccurrences(of: "’", with: "'"))
        var tokens: [Token] = []
        var index = 0
        func isDigit(_ offset: Int) -> Bool {
            characters.indices.contains(offset) && characters[offset].isASCII && characters[offset].isWholeNumber
        }
        while index < characters.count {
            let character = characters[index]
            if isDigit(index) {
                var digits = ""
                var clockParts: [String] = []
                var hasFraction = false
                while index < characters.count {
                    let current = characters[index]
                    if isDigit(index) {
                        digits.append(current)
                        index += 1
                    } else if current == ",", clockParts.isEmpty, !hasFraction,
                        isDigit(index + 1), isDigit(index + 2), isDigit(index + 3), !isDigit(index + 4)
                    {
                        index += 1  // a thousands separator
                    } else if current == ".", clockParts.isEmpty, !hasFraction, isDigit(index + 1) {
                        hasFraction = true
                        digits.append(current)
                        index += 1
                    } else if current == ":", !hasFraction, clockParts.count < 2, isDigit(index + 1), isDigit(index + 2) {
                        clockParts.append(digits)
                        digits = ""
                        index += 1
                    } else {
                        break
                    }
                }
                if clockParts.isEmpty {
                    if let value = Double(digits) { tokens.append(.number(value)) }
                } else {
                    let parts = (clockParts + [digits]).compactMap(Double.init)
                    let minutes =
                        parts.count == 3
                        ? parts[0] * 60 + parts[1] + parts[2] / 60
                        : parts[0] + parts[1] / 60
                    tokens.append(.clock(minutes: minutes))
                }
            } else if character.isLetter {
                var word = ""
                while index < characters.count {
                    let current = characters[index]
                    if current.isLetter {
                        word.append(current)
                    } else if current == "'", index + 1 < characters.count, characters[index + 1].isLetter {
                        word.append(current)
                    } else {
                        break
                    }
                    index += 1
                }
                if word.hasSuffix("'s") { word.removeLast(2) }
                tokens.append(.word(word))
            } else {
                if character == "%" { tokens.append(.word("%")) }
                index += 1
            }
        }
        return tokens
    }

    private static let units: [String: Double] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
        "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
        "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    ]
    private static let tens: [String: Double] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]

    /// Number words become numbers; "one rep max" and "six pack" keep their words.
    private static func joiningNumberWords(_ tokens: [Token]) -> [Token] {
        var joined: [Token] = []
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            guard case .word(let word) = tokens[index] else {
                joined.append(tokens[index])
                continue
            }
            let next = index + 1 < tokens.count ? tokens[index + 1] : nil
            if word == "six", next == .word("pack") || next == .word("packs") {
                joined.append(tokens[index])
            } else if word == "one", next == .word("rep") {
                joined.append(tokens[index])
            } else if let ten = tens[word] {
                if case .word(let following)? = next, let unit = units[following], unit < 10 {
                    joined.append(.number(ten + unit))
                    index += 1
                } else {
                    joined.append(.number(ten))
                }
            } else if let unit = units[word] {
                joined.append(.number(unit))
            } else {
                joined.append(tokens[index])
            }
        }
        return joined
    }
}
