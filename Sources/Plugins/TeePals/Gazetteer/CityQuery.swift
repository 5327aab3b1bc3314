import TeePalsGazetteer

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

extension Gazetteer {
    /// Places whose name or an alternate name starts with the query's name and that match its
    /// qualifiers, best first (`GazetteerIndex.MatchRank`: exact names, then own names, then
    /// population), each once at its best match.
    ///
    /// Reads the index's run of names that start with the query, keeping the best `limit` places
    /// seen so far; the index skips the names that cannot beat the last of them.
    func search(_ query: CityQuery, limit: Int) -> [Place] {
        guard let index, !query.name.isEmpty, limit > 0 else { return [] }
        // Best first, each place once at its best rank, at most `limit`.
        var best: [GazetteerIndex.MatchRank] = []
        index.forEachName(startingWith: Array(query.name.utf8)) { name in
            let rank = name.rank
            if let known = best.firstIndex(where: { $0.place == name.place }) {
                guard rank < best[known] else { return best.count == limit ? best[limit - 1] : .any }
                best.remove(at: known)
            } else {
                guard let record = index.place(at: name.place), matches(record, query.qualifiers) else {
                    return best.count == limit ? best[limit - 1] : .any
                }
            }
            best.insert(rank, at: best.firstIndex { rank < $0 } ?? best.count)
            if best.count > limit { best.removeLast() }
            return best.count == limit ? best[limit - 1] : .any
        }
        return best.compactMap { place(at: $0.place) }
    }

    func matches(_ place: GazetteerIndex.PlaceRecord, _ qualifiers: [String]) -> Bool {
        qualifiers.allSatisfy { matches(countryCode: place.countryCode, usState: place.usState.isEmpty ? nil : place.usState, $0) }
    }

    func matches(_ place: Place, _ qualifiers: [String]) -> Bool {
        qualifiers.allSatisfy { matches(countryCode: place.countryCode, usState: place.usState, $0) }
    }

    /// A qualifier names the place's US state (code or name) or its country (ISO code, ISO3
    /// code, name or an everyday alias like "UK").
    func matches(countryCode: String, usState: String?, _ qualifier: String) -> Bool {
        if let usState, stateQualifiers[usState]?.accepts(qualifier) == true { return true }
        return countryQualifiers[countryCode]?.accepts(qualifier) ?? (qualifier == countryCode.lowercased())
    }

    /// "Austin, TX, United States" in the US, "Zürich, Switzerland" elsewhere; with `countryNames`
    /// in another language, its name of the country ("Zürich, Suiza").
    func label(of place: Place, countryNames: CountryNames? = nil) -> String {
        let country = countryNames?.name(of: place.countryCode) ?? countries[place.countryCode]?.name ?? place.countryCode
        if place.countryCode == "US", let state = place.usState {
            return "\(place.name), \(state), \(country)"
        }
        return "\(place.name), \(country)"
    }
}
