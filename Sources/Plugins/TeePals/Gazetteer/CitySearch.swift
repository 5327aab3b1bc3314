import PlatformCore

/// `flow.search` for the `location` field, over the GeoNames gazetteer.
///
/// A result's `value` is the GeoNames id; choosing it stores the city as `cityId`, `label`,
/// `latitude`, `longitude` and `countryCode`. Anything that is not an id of the gazetteer
/// (free text, an unknown id) is refused with `unknown_city`.
struct CitySearch: SearchProvider {
    private let given: Gazetteer?

    /// `gazetteer` nil: the shipped one, opened on first use (so a server that never sees a
    /// TeePals search or city never opens it).
    init(gazetteer: Gazetteer? = nil) {
        given = gazetteer
    }

    var gazetteer: Gazetteer { given ?? Gazetteer.shared }

    func search(_ query: String, limit: Int) -> [SearchResult] {
        search(query, limit: limit, locale: "en")
    }

    /// Labels name the country in the session's language ("Sevilla, España" in Spanish).
    func search(_ query: String, limit: Int, locale: String) -> [SearchResult] {
        let gazetteer = self.gazetteer
        let names = CountryNames(locale)
        let query = CityQuery(query)
        var places = gazetteer.search(query, limit: limit)
        if places.isEmpty, let relaxed = query.lastWordAsQualifier {
            places = gazetteer.search(relaxed, limit: limit)
        }
        return places.map { place in
            SearchResult(
                value: String(place.geonameId), label: gazetteer.label(of: place, countryNames: names),
                extra: [
                    "latitude": .double(place.latitude), "longitude": .double(place.longitude),
                    "countryCode": .string(place.countryCode),
                ])
        }
    }

    func resolve(_ id: String) -> JSONValue? {
        // Only the canonical spelling of an id: "0123" or " 123" is not a value a result gave.
        guard let number = Int(id), String(number) == id else { return nil }
        let gazetteer = self.gazetteer
        guard let place = gazetteer.place(id: number) else { return nil }
        return [
            "cityId": .string(id), "label": .string(gazetteer.label(of: place)),
            "latitude": .double(place.latitude), "longitude": .double(place.longitude),
            "countryCode": .string(place.countryCode),
        ]
    }

    func unknownValueError(field: String) -> FieldError {
        FieldError(field: field, code: .unknownCity, message: "Choose your city from the search results.")
    }

    var emptyMessage: String { "No results found" }

    func id(ofStored value: JSONValue) -> String? {
        value["cityId"]?.stringValue
    }
}
