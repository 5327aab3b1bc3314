import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The gazetteer as it ships (`gazetteer.bin`): built once by the `teepals-gazetteer` tool,
/// memory-mapped at run time and read in place, never parsed. Opening it checks the header (a
/// few dozen bytes); a search touches only the pages it reads.
///
/// Layout, every integer little-endian, offsets from the start of the file:
///
/// - **header** (64 bytes): 16 `UInt32` words — magic `"TPGZ"`, format version, `NameFolding`
///   version, place count, name count, names per block, block count, places per name offset,
///   then the offsets of the six sections below, the file size, and an FNV-1a hash of the
///   fifteen words before it.
/// - **places**: one 20-byte record per place, most populous first (a place's position is its
///   population rank): GeoNames id `UInt32`, latitude and longitude `Int32` in 1/100,000 degree,
///   population `UInt32`, ISO country code (2 ASCII bytes), US state code (2 ASCII bytes, zeros
///   outside the US).
/// - **name offsets**: for every `placesPerNameOffset`-th place, the offset of its name in the
///   strings section (the names in between follow it, one after another).
/// - **ids**: place positions (`UInt32`) in order of GeoNames id, for `placeIndex(ofId:)`.
/// - **blocks**: the offset (in the names section) of every block of `namesPerBlock` names.
/// - **names**: every searchable name of every place, folded (`NameFolding`) and sorted by their
///   UTF-8 bytes so that a prefix is one contiguous run. Each is front-coded against the one before
///   it in its block: the length of the prefix shared with it (varint, 0 at a block's start),
///   the length of the rest (varint), the rest's bytes, then `position << 1 | isAlternate` (varint).
///   A search binary-searches the blocks' first names, then reads on from there.
/// - **strings**: the places' own names as written (UTF-8), each ended by a zero byte, in place order.
///
/// Every read is bounds-checked: a damaged file gives wrong or no results, never a crash.
package struct GazetteerIndex: Sendable {
    package static let magic: UInt32 = 0x5A47_5054  // "TPGZ" read as a little-endian UInt32
    package static let formatVersion: UInt32 = 1
    package static let headerSize = 64
    package static let placeRecordSize = 20

    package struct FormatError: Error, CustomStringConvertible, Sendable {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// A place's fixed fields, as stored.
    package struct PlaceRecord: Sendable, Hashable {
        package var geonameId: Int
        /// In 1/100,000 degree: the source's precision, so `Double(latitudeE5) / 100_000` is
        /// exactly the number the source wrote.
        package var latitudeE5: Int32
        package var longitudeE5: Int32
        package var population: Int
        package var countryCode: String
        /// Empty outside the United States.
        package var usState: String

        package var latitude: Double { Double(latitudeE5) / 100_000 }
        package var longitude: Double { Double(longitudeE5) / 100_000 }
    }

    /// One indexed name of a place, as a prefix search meets it.
    package struct NameMatch: Sendable, Hashable {
        /// The place's position (its population rank).
        package var place: Int
        /// False for the place's own name, true for one of its alternate names.
        package var isAlternate: Bool
        /// The name is the query itself, not only longer and starting with it.
        package var isExact: Bool

        package var rank: MatchRank { MatchRank(isPrefixOnly: !isExact, isAlternate: isAlternate, place: place) }
    }

    /// How well a name answers a query; smaller is better. The order is the ranking rule: an
    /// exact name before one that only starts with the query, a place's own name before its
    /// alternate names, then population (the place's position). One integer, so a search can
    /// skip a name that cannot make its list with a single comparison.
    package struct MatchRank: Sendable, Hashable, Comparable {
        let value: Int

        package init(isPrefixOnly: Bool, isAlternate: Bool, place: Int) {
            value = (isPrefixOnly ? 1 << 41 : 0) | (isAlternate ? 1 << 40 : 0) | (place & 0xFF_FFFF_FFFF)
        }

        /// Below every rank: a scan given it as its bound passes no name on.
        package static let none = MatchRank(value: 0)
        /// Above every rank: a scan given it as its bound passes every name on.
        package static let any = MatchRank(value: Int.max)
        /// The best rank a name that only starts with the query can have.
        package static let bestPrefixOnly = MatchRank(isPrefixOnly: true, isAlternate: false, place: 0)

        private init(value: Int) { self.value = value }

        package var isPrefixOnly: Bool { value & (1 << 41) != 0 }
        package var isAlternate: Bool { value & (1 << 40) != 0 }
        package var place: Int { value & 0xFF_FFFF_FFFF }

        package static func < (lhs: MatchRank, rhs: MatchRank) -> Bool { lhs.value < rhs.value }
    }

    package let data: Data
    package let placeCount: Int
    package let nameCount: Int
    let namesPerBlock: Int
    let blockCount: Int
    let placesPerNameOffset: Int
    let places: Range<Int>
    let nameOffsets: Range<Int>
    let ids: Range<Int>
    let blocks: Range<Int>
    let names: Range<Int>
    let strings: Range<Int>

    /// Checks the header and the sections' bounds (not their content, which is read lazily).
    package init(data: Data) throws(FormatError) {
        self.data = data
        let words: [UInt32] = data.withUnsafeBytes { raw in
            guard raw.count >= Self.headerSize else { return [] }
            return (0..<16).map { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
        }
        guard words.count == 16 else { throw FormatError("the file is too short for a header (\(data.count) bytes)") }
        guard words[0] == Self.magic else { throw FormatError("not a gazetteer index (bad magic)") }
        guard Self.fnv1a(words[0..<15]) == words[15] else { throw FormatError("the header is damaged (hash mismatch)") }
        guard words[1] == Self.formatVersion else {
            throw FormatError("format version \(words[1]); this build reads version \(Self.formatVersion): rebuild the index")
        }
        guard words[2] == NameFolding.version else {
            throw FormatError(
                "names folded by NameFolding version \(words[2]); this build folds queries with version \(NameFolding.version): rebuild the index")
        }
        guard Int(words[14]) == data.count else {
            throw FormatError("the file has \(data.count) bytes; its header says \(words[14])")
        }
        placeCount = Int(words[3])
        nameCount = Int(words[4])
        namesPerBlock = Int(words[5])
        blockCount = Int(words[6])
        placesPerNameOffset = Int(words[7])
        guard namesPerBlock > 0, placesPerNameOffset > 0,
            blockCount == (nameCount + namesPerBlock - 1) / namesPerBlock
        else {
            throw FormatError("inconsistent counts in the header")
        }
        let offsets = words[8...13].map { Int($0) } + [data.count]
        let lengths = [
            placeCount * Self.placeRecordSize, (placeCount + placesPerNameOffset - 1) / placesPerNameOffset * 4,
            placeCount * 4, blockCount * 4,
        ]
        var sections: [Range<Int>] = []
        var end = Self.headerSize
        for (index, offset) in offsets.dropLast().enumerated() {
            let next = offsets[index + 1]
            guard offset >= end, next >= offset else { throw FormatError("section \(index) is out of place") }
            if index < lengths.count, next - offset < lengths[index] {
                throw FormatError("section \(index) is too short")
            }
            sections.append(offset..<(index < lengths.count ? offset + lengths[index] : next))
            end = sections[index].upperBound
        }
        (places, nameOffsets, ids, blocks, names, strings) = (sections[0], sections[1], sections[2], sections[3], sections[4], sections[5])
    }

    /// Maps the file read-only: its pages are read from disk when first touched and, being
    /// backed by the file, can be dropped by the kernel again under memory pressure.
    package static func mapped(contentsOf url: URL) throws -> GazetteerIndex {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw FormatError("cannot open \(url.path): errno \(errno)") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FormatError("cannot stat \(url.path): errno \(errno)") }
        let size = Int(status.st_size)
        guard size >= headerSize else { throw FormatError("\(url.lastPathComponent) is too short (\(size) bytes)") }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw FormatError("cannot map \(url.path): errno \(errno)")
        }
        return try GazetteerIndex(data: Data(bytesNoCopy: address, count: size, deallocator: .unmap))
    }

    static func fnv1a<Words: Sequence<UInt32>>(_ words: Words) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for word in words {
            for shift in stride(from: 0, to: 32, by: 8) {
                hash = (hash ^ ((word >> UInt32(shift)) & 0xFF)) &* 0x0100_0193
            }
        }
        return hash
    }

    // MARK: - Places

    /// The place at a position (0 is the most populous), or nil outside the table.
    package func place(at position: Int) -> PlaceRecord? {
        guard position >= 0, position < placeCount else { return nil }
        return data.withUnsafeBytes { raw in
            let offset = places.lowerBound + position * Self.placeRecordSize
            func word(_ at: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + at, as: UInt32.self)) }
            func code(_ at: Int) -> String {
                let bytes = [raw[offset + at], raw[offset + at + 1]].filter { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            return PlaceRecord(
                geonameId: Int(word(0)), latitudeE5: Int32(bitPattern: word(4)), longitudeE5: Int32(bitPattern: word(8)),
                population: Int(word(12)), countryCode: code(16), usState: code(18))
        }
    }

    /// The GeoNames id of the place at a position, without reading the rest of its record.
    func geonameId(at position: Int, _ raw: UnsafeRawBufferPointer) -> Int? {
        guard position >= 0, position < placeCount else { return nil }
        let offset = places.lowerBound + position * Self.placeRecordSize
        return Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// The place's own name as written ("Zürich").
    package func name(at position: Int) -> String? {
        guard position >= 0, position < placeCount else { return nil }
        return data.withUnsafeBytes { raw -> String? in
            let slot = nameOffsets.lowerBound + position / placesPerNameOffset * 4
            var offset = strings.lowerBound + Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: slot, as: UInt32.self)))
            guard offset < strings.upperBound else { return nil }
            // Skip the names between the one the offset gives and this one.
            for _ in 0..<(position % placesPerNameOffset) {
                guard let end = terminator(after: offset, raw) else { return nil }
                offset = end + 1
            }
            guard let end = terminator(after: offset, raw) else { return nil }
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<end]), as: UTF8.self)
        }
    }

    private func terminator(after offset: Int, _ raw: UnsafeRawBufferPointer) -> Int? {
        var index = offset
        while index < strings.upperBound {
            if raw[index] == 0 { return index }
            index += 1
        }
        return nil
    }

    /// The position of the place with this GeoNames id (binary search of the id table).
    package func placeIndex(ofId id: Int) -> Int? {
        data.withUnsafeBytes { raw -> Int? in
            var low = 0
            var high = placeCount
            while low < high {
                let middle = (low + high) / 2
                let position = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: ids.lowerBound + middle * 4, as: UInt32.self)))
                guard let found = geonameId(at: position, raw) else { return nil }
                if found == id { return position }
                if found < id { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    // MARK: - Names

    /// Calls `body` with the indexed names that start with `prefix` (folded UTF-8), in name order,
    /// and only those ranked below the bound `body` last returned (at first, every name): a search
    /// that keeps the best N places returns the rank of its Nth, and the names that cannot beat it
    /// cost a comparison. Stops when no name left can be below the bound (names equal to the prefix
    /// come first in the run, those that only start with it after them).
    package func forEachName(startingWith prefix: [UInt8], _ body: (NameMatch) -> MatchRank) {
        guard nameCount > 0 else { return }
        data.withUnsafeBytes { raw in
            prefix.withUnsafeBufferPointer { query in
                var bound = MatchRank.any
                let block = firstBlock(before: query, raw)
                guard let start = blockOffset(block, raw) else { return }
                var reader = NameReader(raw: raw, position: start, end: names.upperBound)
                var key: [UInt8] = []
                var remaining = nameCount - block * namesPerBlock
                // Up to the first name not below the query: decode whole names and compare.
                var inRange = false
                while remaining > 0, !inRange {
                    remaining -= 1
                    guard let entry = reader.next() else { return }
                    guard entry.shared <= key.count else { return }
                    key.removeSubrange(entry.shared...)
                    key.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[entry.suffix]))
                    switch Self.compare(key, query) {
                    case .below: continue
                    case .above: return
                    case .startsWith:
                        inRange = true
                        let exact = key.count == query.count
                        let place = entry.value >> 1
                        guard place < placeCount else { continue }
                        let match = NameMatch(place: place, isAlternate: entry.value & 1 == 1, isExact: exact)
                        if match.rank < bound { bound = body(match) }
                    }
                }
                guard inRange else { return }
                // From there on, a name is in range when it shares the query's length with the name
                // before it (which was in range), or when its own bytes continue the query.
                while remaining > 0 {
                    remaining -= 1
                    guard let entry = reader.next() else { return }
                    if entry.shared < query.count {
                        let needed = query.count - entry.shared
                        guard entry.suffix.count >= needed else { return }
                        var index = 0
                        while index < needed {
                            if raw[entry.suffix.lowerBound + index] != query[entry.shared + index] { return }
                            index += 1
                        }
                    }
                    let exact = entry.shared + entry.suffix.count == query.count
                    if !exact && bound <= MatchRank.bestPrefixOnly { return }
                    let place = entry.value >> 1
                    let rank = MatchRank(isPrefixOnly: !exact, isAlternate: entry.value & 1 == 1, place: place)
                    guard rank < bound, place < placeCount else { continue }
                    bound = body(NameMatch(place: place, isAlternate: entry.value & 1 == 1, isExact: exact))
                }
            }
        }
    }

    /// Every indexed name, decoded (for checks of a whole file, not for searching).
    package func allNames() -> [(key: [UInt8], place: Int, isAlternate: Bool)] {
        var all: [(key: [UInt8], place: Int, isAlternate: Bool)] = []
        data.withUnsafeBytes { raw in
            var reader = NameReader(raw: raw, position: names.lowerBound, end: names.upperBound)
            var key: [UInt8] = []
            for _ in 0..<nameCount {
                guard let entry = reader.next(), entry.shared <= key.count else { return }
                key.removeSubrange(entry.shared...)
                key.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[entry.suffix]))
                all.append((key, entry.value >> 1, entry.value & 1 == 1))
            }
        }
        return all
    }

    enum Order { case below, startsWith, above }

    /// How `key` stands to `query`: below it, starting with it (so not below), or above all
    /// that start with it.
    static func compare<Key: Collection<UInt8>>(_ key: Key, _ query: UnsafeBufferPointer<UInt8>) -> Order where Key.Index == Int {
        var index = 0
        var keyIndex = key.startIndex
        while index < query.count {
            guard keyIndex < key.endIndex else { return .below }
            let byte = key[keyIndex]
            if byte != query[index] { return byte < query[index] ? .below : .above }
            index += 1
            keyIndex += 1
        }
        return .startsWith
    }

    /// The last block whose first name is below the query (or the first block).
    func firstBlock(before query: UnsafeBufferPointer<UInt8>, _ raw: UnsafeRawBufferPointer) -> Int {
        var low = 0
        var high = blockCount
        // Invariant: blocks before `low` start below the query; blocks from `high` on do not.
        while low < high {
            let middle = (low + high) / 2
            guard let start = blockOffset(middle, raw) else { return 0 }
            var reader = NameReader(raw: raw, position: start, end: names.upperBound)
            guard let entry = reader.next() else { return 0 }
            if Self.compare(UnsafeRawBufferPointer(rebasing: raw[entry.suffix]), query) == .below {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return max(low - 1, 0)
    }

    func blockOffset(_ block: Int, _ raw: UnsafeRawBufferPointer) -> Int? {
        guard block >= 0, block < blockCount else { return nil }
        let offset = names.lowerBound + Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: blocks.lowerBound + block * 4, as: UInt32.self)))
        return offset < names.upperBound ? offset : nil
    }

    /// Decodes names one after another, every read bounds-checked.
    struct NameReader {
        let raw: UnsafeRawBufferPointer
        var position: Int
        let end: Int

        struct Entry {
            var shared: Int
            var suffix: Range<Int>
            /// The place's position << 1 | isAlternate.
            var value: Int
        }

        mutating func next() -> Entry? {
            guard let shared = varint(), let length = varint(), length <= end - position else { return nil }
            let suffix = position..<(position + length)
            position += length
            guard let value = varint() else { return nil }
            return Entry(shared: shared, suffix: suffix, value: value)
        }

        mutating func varint() -> Int? {
            var value = 0
            var shift = 0
            while position < end, shift < 35 {
                let byte = raw[position]
                position += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
    }
}
