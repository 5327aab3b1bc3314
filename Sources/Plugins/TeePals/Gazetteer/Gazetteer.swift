import Foundation
import Logging
import TeePalsGazetteer

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

/// The TeePals city gazetteer: GeoNames populated places (CC BY 4.0) with their alternate names
/// in every script, in a prebuilt index (`gazetteer.bin`, see `GazetteerIndex`) that is
/// memory-mapped, not parsed: opening it costs a header check, and a search reads only the pages
/// it touches.
///
/// Opened once per process from the plugin's resources on first use (`shared`), then immutable,
/// so every search and every test shares the same value without locks.
final class Gazetteer: Sendable {
    /// Places (most populous first) and their folded names, sorted for prefix search.
    let index: GazetteerIndex?
    let countries: [String: Country]
    /// State name by two-letter code.
    let usStates: [String: String]
    /// What a query's qualifier may say to mean a country, by ISO code.
    let countryQualifiers: [String: RegionQualifier]
    /// What a query's qualifier may say to mean a US state, by state code.
    let stateQualifiers: [String: RegionQualifier]

    /// `index` nil: a gazetteer that finds nothing (the resource is missing or damaged).
    init(index: GazetteerIndex?, countries: [Country], usStates: [String: String]) {
        self.index = index
        self.countries = Dictionary(countries.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
        self.usStates = usStates
        var aliases: [String: [String]] = [:]
        for (alias, code) in Self.countryAliases { aliases[code, default: []].append(alias) }
        self.countryQualifiers = self.countries.mapValues { country in
            RegionQualifier(codes: [country.code, country.code3] + (aliases[country.code] ?? []), name: country.name)
        }
        self.stateQualifiers = Dictionary(
            uniqueKeysWithValues: usStates.map { code, name in
                (code, RegionQualifier(codes: [code], name: name))
            })
    }

    /// Everyday names of a country that are neither its ISO codes nor its GeoNames name.
    static let countryAliases: [String: String] = [
        "UK": "GB", "Great Britain": "GB", "Britain": "GB", "United States of America": "US",
    ]

    var placeCount: Int { index?.placeCount ?? 0 }

    /// The place at a position (its population rank, 0 the most populous).
    func place(at position: Int) -> Place? {
        guard let index, let record = index.place(at: position), let name = index.name(at: position) else { return nil }
        return Place(
            geonameId: record.geonameId, name: name, latitude: record.latitude, longitude: record.longitude,
            countryCode: record.countryCode, usState: record.usState.isEmpty ? nil : record.usState,
            population: record.population)
    }

    /// The place with this GeoNames id: a binary search of the index's id table.
    func place(id: Int) -> Place? {
        guard let position = index?.placeIndex(ofId: id) else { return nil }
        return place(at: position)
    }
}

// MARK: - Loading

extension Gazetteer {
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// The gazetteer shipped with the plugin, opened on first use.
    ///
    /// A missing or damaged resource is a broken build: it is logged once, as critical, and TeePals
    /// then finds no city (and accepts none) while the server keeps serving the other tenants.
    static let shared: Gazetteer = opened(from: .module, logger: Logger(label: "TeePals"))

    /// The gazetteer in `bundle`, or one that finds nothing, with a log line saying which.
    static func opened(from bundle: Bundle, logger: Logger) -> Gazetteer {
        let started = ContinuousClock.now
        do {
            let gazetteer = try load(from: bundle)
            logger.info(
                "gazetteer opened",
                metadata: [
                    "places": "\(gazetteer.placeCount)", "names": "\(gazetteer.index?.nameCount ?? 0)",
                    "bytes": "\(gazetteer.index?.data.count ?? 0)", "duration": "\(ContinuousClock.now - started)",
                ])
            return gazetteer
        } catch {
            logger.critical("gazetteer not loaded: city search finds nothing", metadata: ["error": "\(error)"])
            return Gazetteer(index: nil, countries: [], usStates: [:])
        }
    }

    /// Maps `gazetteer.bin` and reads the two small tables beside it.
    static func load(from bundle: Bundle) throws -> Gazetteer {
        func url(_ name: String, _ type: String) throws -> URL {
            guard let url = bundle.url(forResource: name, withExtension: type) else {
                throw LoadError(description: "\(name).\(type) is missing from the TeePals resources")
            }
            return url
        }
        let index: GazetteerIndex
        do {
            index = try GazetteerIndex.mapped(contentsOf: try url("gazetteer", "bin"))
        } catch let error as GazetteerIndex.FormatError {
            throw LoadError(description: "gazetteer.bin: \(error)")
        }
        return try load(
            index: index, countries: try Data(contentsOf: try url("countries", "tsv")),
            usStates: try Data(contentsOf: try url("us_states", "tsv")))
    }

    /// The gazetteer over `index`, with the country table (ISO code, ISO3 code, name) and the US
    /// state table (code, name) as tab-separated lines.
    static func load(index: GazetteerIndex, countries: Data, usStates: Data) throws -> Gazetteer {
        let countries = try TSV.rows(countries).map { fields in
            guard fields.count == 3 else { throw LoadError(description: "countries.tsv: bad row \(fields)") }
            return Country(code: fields[0], code3: fields[1], name: fields[2])
        }
        var states: [String: String] = [:]
        for fields in TSV.rows(usStates) {
            guard fields.count == 2 else { throw LoadError(description: "us_states.tsv: bad row \(fields)") }
            states[fields[0]] = fields[1]
        }
        return Gazetteer(index: index, countries: countries, usStates: states)
    }
}

/// The small tables' format: UTF-8 lines of tab-separated fields; `#` lines are comments.
enum TSV {
    static func rows(_ data: Data) -> [[String]] {
        String(decoding: data, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
}
