import Foundation

/// Writes `gazetteer.bin` (the layout is `GazetteerIndex`'s) from places and their names.
package enum GazetteerIndexWriter {
    /// A place as the source gives it.
    package struct SourcePlace: Sendable, Hashable {
        package var geonameId: Int
        package var name: String
        package var latitude: Double
        package var longitude: Double
        package var countryCode: String
        /// Empty outside the United States.
        package var usState: String
        package var population: Int
        /// In every script; folded here, and those that fold like the own name or an earlier
        /// alternate are indexed once.
        package var alternateNames: [String]

        package init(
            geonameId: Int, name: String, latitude: Double, longitude: Double, countryCode: String,
            usState: String = "", population: Int, alternateNames: [String] = []
        ) {
            self.geonameId = geonameId
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.countryCode = countryCode
            self.usState = usState
            self.population = population
            self.alternateNames = alternateNames
        }
    }

    package static let namesPerBlock = 32
    package static let placesPerNameOffset = 16

    /// The index of `places`, which must be most populous first (their order is the ranking).
    package static func build(_ places: [SourcePlace]) throws(GazetteerIndex.FormatError) -> Data {
        typealias Failure = GazetteerIndex.FormatError
        guard places.count < Int(UInt32.max >> 2) else { throw Failure("too many places") }
        var placeRecords = Data()
        var strings = Data()
        var nameOffsets = Data()
        var names: [(key: [UInt8], value: UInt32)] = []
        var seenIds: Set<Int> = []
        for (position, place) in places.enumerated() {
            let what = "place \(place.geonameId) (\(place.name))"
            if position > 0, places[position - 1].population < place.population {
                throw Failure("\(what) is more populous than the place before it; places must be most populous first")
            }
            guard (1...Int(UInt32.max)).contains(place.geonameId), seenIds.insert(place.geonameId).inserted else {
                throw Failure("\(what): the id is out of range or not unique")
            }
            guard (0...Int(UInt32.max)).contains(place.population) else { throw Failure("\(what): population out of range") }
            let latitude = try scaled(place.latitude, within: 90, what)
            let longitude = try scaled(place.longitude, within: 180, what)
            let country = Array(place.countryCode.utf8)
            let state = Array(place.usState.utf8)
            guard country.count == 2, country.allSatisfy({ $0 > 0 && $0 < 0x80 }),
                state.isEmpty || (state.count == 2 && state.allSatisfy { $0 > 0 && $0 < 0x80 })
            else {
                throw Failure("\(what): a country code and a state code are two ASCII characters")
            }
            let name = Array(place.name.utf8)
            guard !name.isEmpty, !name.contains(0) else { throw Failure("\(what): an empty name or a zero byte in it") }

            append(UInt32(place.geonameId), to: &placeRecords)
            append(UInt32(bitPattern: latitude), to: &placeRecords)
            append(UInt32(bitPattern: longitude), to: &placeRecords)
            append(UInt32(place.population), to: &placeRecords)
            placeRecords.append(contentsOf: country)
            placeRecords.append(contentsOf: state.isEmpty ? [0, 0] : state)

            if position % placesPerNameOffset == 0 { append(UInt32(strings.count), to: &nameOffsets) }
            strings.append(contentsOf: name)
            strings.append(0)

            let own = NameFolding.fold(place.name)
            var seen: Set<String> = []
            for (index, text) in ([place.name] + place.alternateNames).enumerated() {
                let key = index == 0 ? own : NameFolding.fold(text)
                guard !key.isEmpty, seen.insert(key).inserted else { continue }
                names.append((Array(key.utf8), UInt32(position) << 1 | (index == 0 ? 0 : 1)))
            }
        }
        guard names.count < Int(UInt32.max) else { throw Failure("too many names") }
        // Byte order of the folded UTF-8: every prefix is one contiguous run. Ties by own name
        // first, then population, so that the file depends only on its input.
        names.sort { left, right in
            if left.key != right.key { return left.key.lexicographicallyPrecedes(right.key) }
            return (left.value & 1, left.value >> 1) < (right.value & 1, right.value >> 1)
        }

        var nameData = Data()
        var blockOffsets = Data()
        var previous: [UInt8] = []
        for (index, name) in names.enumerated() {
            var shared = 0
            if index % namesPerBlock == 0 {
                append(UInt32(nameData.count), to: &blockOffsets)
            } else {
                while shared < min(previous.count, name.key.count), previous[shared] == name.key[shared] { shared += 1 }
            }
            appendVarint(shared, to: &nameData)
            appendVarint(name.key.count - shared, to: &nameData)
            nameData.append(contentsOf: name.key[shared...])
            appendVarint(Int(name.value), to: &nameData)
            previous = name.key
        }

        let ids = places.indices.sorted { places[$0].geonameId < places[$1].geonameId }
        var idTable = Data()
        for position in ids { append(UInt32(position), to: &idTable) }

        var sections = [placeRecords, nameOffsets, idTable, blockOffsets, nameData, strings]
        var offsets: [UInt32] = []
        var size = GazetteerIndex.headerSize
        for index in sections.indices {
            // Four-byte aligned, for tidiness: the reader does not rely on it.
            let padding = (4 - size % 4) % 4
            sections[index].insert(contentsOf: [UInt8](repeating: 0, count: padding), at: 0)
            offsets.append(UInt32(size + padding))
            size += sections[index].count
        }
        guard size <= Int(UInt32.max) else { throw Failure("the index would exceed 4 GiB") }
        var header: [UInt32] = [
            GazetteerIndex.magic, GazetteerIndex.formatVersion, NameFolding.version,
            UInt32(places.count), UInt32(names.count), UInt32(namesPerBlock),
            UInt32((names.count + namesPerBlock - 1) / namesPerBlock), UInt32(placesPerNameOffset),
        ]
        header += offsets
        header.append(UInt32(size))
        header.append(GazetteerIndex.fnv1a(header))
        var file = Data(capacity: size)
        for word in header { append(word, to: &file) }
        for section in sections { file.append(section) }
        return file
    }

    /// Degrees in 1/100,000, checked to give back exactly the number given.
    static func scaled(_ degrees: Double, within limit: Double, _ what: String) throws(GazetteerIndex.FormatError) -> Int32 {
        guard degrees.isFinite, abs(degrees) <= limit else { throw .init("\(what): coordinate \(degrees) out of range") }
        let scaled = Int32((degrees * 100_000).rounded())
        guard Double(scaled) / 100_000 == degrees else {
            throw .init("\(what): coordinate \(degrees) has more than five decimals")
        }
        return scaled
    }

    static func append(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    static func appendVarint(_ value: Int, to data: inout Data) {
        var value = value
        while value >= 0x80 {
            data.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        data.append(UInt8(value))
    }
}
