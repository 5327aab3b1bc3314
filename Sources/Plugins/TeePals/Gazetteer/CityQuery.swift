/// A city search as a person types it: a name, then optional qualifiers after commas
/// ("Portland, ME", "Paris, France", "Austin, TX, United States").
struct CityQuery: Sendable, Hashable {
    /// The folded name (`NameFolding`), matched as a prefix of a place's names.
    var name: String
    /// Folded qualifiers; a place must match every one (a US state or a country, by code or name).
    var qualifiers: [String]

    init(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(NameFolding.fold)
        name = parts.first ?? ""
        qualifiers = parts.dropFirst().filter { !$0.isEmpty }
    }

    init(name: String, qualifiers: [String]) {
        self.name = name
        self.qualifiers = qualifiers
    }

    /// "Portland ME" read as "Portland, ME": the last word as a qualifier, for a query that
    /// found nothing as written and has no comma of its own.
    var lastWordAsQualifier: CityQuery? {
        guard qualifiers.isEmpty, let space = name.lastIndex(of: " ") else { return nil }
        return CityQuery(name: String(name[..<space]), qualifiers: [String(name[name.index(after: space)...])])
    }
}

/// How well a place answers a query; smaller is better. The order is the ranking rule:
/// an exact name before a prefix, a place's own name before its alternate names, then population.
struct MatchRank: Sendable, Hashable, Comparable {
    var isPrefixOnly: Bool
    var isAlternate: Bool
    /// The place's position in the gazetteer, which is most populous first.
    var populationRank: Int32

    static func < (lhs: MatchRank, rhs: MatchRank) -> Bool {
        (!lhs.isPrefixOnly ? 0 : 1, !lhs.isAlternate ? 0 : 1, lhs.populationRank)
            < (!rhs.isPrefixOnly ? 0 : 1, !rhs.isAlternate ? 0 : 1, rhs.populationRank)
    }
}

extension Gazetteer {
    /// Places whose name or an alternate name starts with the query's name and that match its
    /// qualifiers, best first, each once.
    func search(_ query: CityQuery, limit: Int) -> [Place] {
        guard !query.name.isEmpty, limit > 0 else { return [] }
        var best: [Int32: MatchRank] = [:]
        var index = firstName(notBefore: query.name)
        while index < names.count, names[index].key.hasPrefix(query.name) {
            let entry = names[index]
            index += 1
            let rank = MatchRank(
                isPrefixOnly: entry.key != query.name, isAlternate: entry.isAlternate, populationRank: entry.place)
            if let known = best[entry.place], known <= rank { continue }
            guard best[entry.place] != nil || matches(places[Int(entry.place)], query.qualifiers) else { continue }
            best[entry.place] = rank
        }
        return best.sorted { $0.value < $1.value }.prefix(limit).map { places[Int($0.key)] }
    }

    /// The position of the first indexed name that is not less than `key` (binary search).
    func firstName(notBefore key: String) -> Int {
        var low = 0
        var high = names.count
        while low < high {
            let middle = (low + high) / 2
            if names[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func matches(_ place: Place, _ qualifiers: [String]) -> Bool {
        qualifiers.allSatisfy { matches(place, $0) }
    }

    /// A qualifier names the place's US state (code or name) or its country (ISO code, ISO3
    /// code, name or an everyday alias like "UK").
    func matches(_ place: Place, _ qualifier: String) -> Bool {
        if let state = place.usState, stateQualifiers[state]?.accepts(qualifier) == true { return true }
        return countryQualifiers[place.countryCode]?.accepts(qualifier) ?? (qualifier == place.countryCode.lowercased())
    }

    /// "Austin, TX, United States" in the US, "Zürich, Switzerland" elsewhere.
    func label(of place: Place) -> String {
        let country = countries[place.countryCode]?.name ?? place.countryCode
        if place.countryCode == "US", let state = place.usState {
            return "\(place.name), \(state), \(country)"
        }
        return "\(place.name), \(country)"
    }
}
