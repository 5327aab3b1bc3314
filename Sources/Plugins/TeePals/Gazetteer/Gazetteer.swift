import Foundation
import Logging

/// A populated place of the GeoNames gazetteer.
struct Place: Sendable, Hashable {
    /// The GeoNames id, the value clients post back.
    var geonameId: Int
    var name: String
    var latitude: Double
    var longitude: Double
    /// ISO 3166-1 alpha-2.
    var countryCode: String
    /// The two-letter state code, for places in the United States only.
    var usState: String?
    var population: Int
}

struct Country: Sendable, Hashable {
    var code: String
    var code3: String
    var name: String
}

/// The words that name a country or a state in a query's qualifier, folded.
struct RegionQualifier: Sendable, Hashable {
    var codes: Set<String>
    var name: String

    init(codes: [String], name: String) {
        self.codes = Set(codes.map(NameFolding.fold))
        self.name = NameFolding.fold(name)
    }

    /// A code or the whole name; from three letters on, also the start of the name, so that
    /// "Paris, Fra" already narrows to France while the person types.
    func accepts(_ qualifier: String) -> Bool {
        codes.contains(qualifier) || name == qualifier || (qualifier.count >= 3 && name.hasPrefix(qualifier))
    }
}

/// The TeePals city gazetteer: GeoNames populated places (CC BY 4.0) with their Latin-script
/// alternate names, and a name index sorted for prefix search.
///
/// Loaded once per process from the plugin's resources on first use (`shared`), then immutable,
/// so every search and every test shares the same value without locks.
final class Gazetteer: Sendable {
    /// Places, most populous first: a place's position is its population rank.
    let places: [Place]
    /// Every searchable name, folded, in `String` order of `key`.
    let names: [IndexedName]
    let placeById: [Int: Int]
    let countries: [String: Country]
    /// State name by two-letter code.
    let usStates: [String: String]
    /// What a query's qualifier may say to mean a country, by ISO code.
    let countryQualifiers: [String: RegionQualifier]
    /// What a query's qualifier may say to mean a US state, by state code.
    let stateQualifiers: [String: RegionQualifier]

    struct IndexedName: Sendable, Hashable {
        /// The folded name (`NameFolding`).
        var key: String
        /// Position in `places`.
        var place: Int32
        /// False for the place's own name, true for one of its alternate names.
        var isAlternate: Bool
    }

    init(places: [Place], names: [IndexedName], countries: [Country], usStates: [String: String]) {
        self.places = places
        // String order (Unicode scalar order of the folded keys) keeps every prefix range contiguous.
        self.names = names.sorted { $0.key < $1.key }
        self.placeById = Dictionary(places.enumerated().map { ($1.geonameId, $0) }, uniquingKeysWith: { first, _ in first })
        self.countries = Dictionary(countries.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
        self.usStates = usStates
        var aliases: [String: [String]] = [:]
        for (alias, code) in Self.countryAliases { aliases[code, default: []].append(alias) }
        self.countryQualifiers = self.countries.mapValues { country in
            RegionQualifier(codes: [country.code, country.code3] + (aliases[country.code] ?? []), name: country.name)
        }
        self.stateQualifiers = Dictionary(uniqueKeysWithValues: usStates.map { code, name in
            (code, RegionQualifier(codes: [code], name: name))
        })
    }

    /// Everyday names of a country that are neither its ISO codes nor its GeoNames name.
    static let countryAliases: [String: String] = [
        "UK": "GB", "Great Britain": "GB", "Britain": "GB", "United States of America": "US",
    ]

    func place(id: Int) -> Place? {
        placeById[id].map { places[$0] }
    }
}

// MARK: - Loading

extension Gazetteer {
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// The gazetteer shipped with the plugin, loaded on first use.
    ///
    /// A missing or damaged resource is a broken build: it is logged as critical, and TeePals
    /// then finds no city (and accepts none) while the server keeps serving the other tenants.
    static let shared: Gazetteer = {
        let logger = Logger(label: "TeePals")
        let started = ContinuousClock.now
        do {
            let gazetteer = try load(from: .module)
            logger.info("gazetteer loaded", metadata: [
                "places": "\(gazetteer.places.count)", "names": "\(gazetteer.names.count)",
                "duration": "\(ContinuousClock.now - started)",
            ])
            return gazetteer
        } catch {
            logger.critical("gazetteer not loaded: city search finds nothing", metadata: ["error": "\(error)"])
            return Gazetteer(places: [], names: [], countries: [], usStates: [:])
        }
    }()

    static func load(from bundle: Bundle) throws -> Gazetteer {
        try load { name in
            guard let url = bundle.url(forResource: name, withExtension: "tsv") else {
                throw LoadError(description: "\(name).tsv is missing from the TeePals resources")
            }
            return try Data(contentsOf: url)
        }
    }

    /// Builds the gazetteer from the three TSV files, given by name without extension.
    static func load(_ resource: (String) throws -> Data) throws -> Gazetteer {
        let countries = try TSV.rows(resource("countries")).map { fields in
            guard fields.count == 3 else { throw LoadError(description: "countries.tsv: bad row \(fields)") }
            return Country(code: fields[0], code3: fields[1], name: fields[2])
        }
        var usStates: [String: String] = [:]
        for fields in try TSV.rows(resource("us_states")) {
            guard fields.count == 2 else { throw LoadError(description: "us_states.tsv: bad row \(fields)") }
            usStates[fields[0]] = fields[1]
        }
        var places: [Place] = []
        var names: [IndexedName] = []
        var problem: String?
        TSV.forEachRow(try resource("gazetteer")) { fields in
            func text(_ field: Int) -> String { String(decoding: fields[field], as: UTF8.self) }
            guard problem == nil else { return }
            guard fields.count == 8, let id = Int(text(0)), let latitude = Double(text(2)),
                  let longitude = Double(text(3)), let population = Int(text(6)) else {
                problem = "bad row \(text(0))"
                return
            }
            // Ranking reads a place's position as its population rank.
            if let previous = places.last, previous.population < population {
                problem = "row \(id) is more populous than the row before it; places must be most populous first"
                return
            }
            let position = Int32(places.count)
            let usState = text(5)
            places.append(Place(
                geonameId: id, name: text(1), latitude: latitude, longitude: longitude,
                countryCode: text(4), usState: usState.isEmpty ? nil : usState, population: population))
            let own = NameFolding.fold(utf8: fields[1])
            names.append(IndexedName(key: own, place: position, isAlternate: false))
            var seen: Set<String> = [own]
            for alternate in TSV.split(fields[7], on: UInt8(ascii: "|")) {
                let key = NameFolding.fold(utf8: alternate)
                guard !key.isEmpty, seen.insert(key).inserted else { continue }
                names.append(IndexedName(key: key, place: position, isAlternate: true))
            }
        }
        if let problem { throw LoadError(description: "gazetteer.tsv: \(problem)") }
        return Gazetteer(places: places, names: names, countries: countries, usStates: usStates)
    }
}

/// The resources' format: UTF-8 lines of tab-separated fields; `#` lines are comments.
enum TSV {
    static func rows(_ data: Data) -> [[String]] {
        var rows: [[String]] = []
        forEachRow(data) { fields in rows.append(fields.map { String(decoding: $0, as: UTF8.self) }) }
        return rows
    }

    /// Calls `body` with the fields of each row, as slices of `data` valid during the call.
    static func forEachRow(_ data: Data, _ body: ([UnsafeBufferPointer<UInt8>]) -> Void) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != 0x0A { lineEnd += 1 }
                if lineEnd > lineStart && bytes[lineStart] != UInt8(ascii: "#") {
                    body(split(UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), on: 0x09))
                }
                lineStart = lineEnd + 1
            }
        }
    }

    static func split(_ bytes: UnsafeBufferPointer<UInt8>, on separator: UInt8) -> [UnsafeBufferPointer<UInt8>] {
        guard !bytes.isEmpty else { return [] }
        var pieces: [UnsafeBufferPointer<UInt8>] = []
        var start = 0
        var index = 0
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == separator {
                pieces.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
            }
            index += 1
        }
        return pieces
    }
}
