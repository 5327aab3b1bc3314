import Foundation
import Logging
import PlatformTesting
import TeePalsGazetteer
import Testing

@testable import TeePals

/// The index format on small gazetteers built here, and what a damaged or missing index does.
@Suite("Gazetteer index")
struct GazetteerIndexTests {
    static let countries = Data("# iso\tiso3\tname\nUS\tUSA\tUnited States\nCH\tCHE\tSwitzerland\nRU\tRUS\tRussia\n".utf8)
    static let states = Data("TX\tTexas\nID\tIdaho\n".utf8)

    typealias Source = GazetteerIndexWriter.SourcePlace

    static let places: [Source] = [
        Source(
            geonameId: 524901, name: "Moscow", latitude: 55.75204, longitude: 37.61781, countryCode: "RU",
            population: 10_381_222, alternateNames: ["Moskva", "Москва", "Moscou", "モスクワ", "莫斯科"]),
        Source(
            geonameId: 4_671_654, name: "Austin", latitude: 30.26715, longitude: -97.74306, countryCode: "US",
            usState: "TX", population: 974_447, alternateNames: ["Waterloo", "Ostin", "Остин", "Austin"]),
        Source(
            geonameId: 2_657_896, name: "Zürich", latitude: 47.36667, longitude: 8.55, countryCode: "CH",
            population: 415_367, alternateNames: ["Zurich", "Turicum", "Цюрих", "チューリッヒ"]),
        Source(
            geonameId: 5_601_538, name: "Moscow", latitude: 46.73239, longitude: -117.00017, countryCode: "US",
            usState: "ID", population: 25_060, alternateNames: ["Москва"]),
        Source(geonameId: 1, name: "Waterloo", latitude: 1.5, longitude: -2.5, countryCode: "CH", population: 10),
    ]

    func gazetteer(_ places: [Source] = Self.places) throws -> Gazetteer {
        let index = try GazetteerIndex(data: try GazetteerIndexWriter.build(places))
        return try Gazetteer.load(index: index, countries: Self.countries, usStates: Self.states)
    }

    func ids(_ gazetteer: Gazetteer, _ query: String) -> [Int] {
        gazetteer.search(CityQuery(query), limit: 10).map(\.geonameId)
    }

    @Test func placesNamesAndIdsReadBackAsWritten() throws {
        let gazetteer = try gazetteer()
        let index = try #require(gazetteer.index)
        #expect(index.placeCount == 5)
        for (position, source) in Self.places.enumerated() {
            let place = try #require(gazetteer.place(at: position))
            #expect(
                place
                    == Place(
                        geonameId: source.geonameId, name: source.name, latitude: source.latitude, longitude: source.longitude,
                        countryCode: source.countryCode, usState: source.usState.isEmpty ? nil : source.usState,
                        population: source.population))
            #expect(gazetteer.place(id: source.geonameId) == place)
        }
        #expect(gazetteer.place(id: 2) == nil)
        #expect(gazetteer.place(id: 0) == nil)
        #expect(gazetteer.place(id: 99_999_999) == nil)
        // Every name folded once per place: Austin's own name is not repeated by its alternate,
        // "Zurich" folds like Zürich's own name.
        let names = index.allNames().map { (String(decoding: $0.key, as: UTF8.self), $0.place, $0.isAlternate) }
        #expect(names.filter { $0.1 == 2 }.map(\.0).sorted() == ["turicum", "zurich", "цюрих", "チューリッヒ"])
        #expect(names.filter { $0.1 == 1 }.count == 4)
        #expect(names.filter { !$0.2 }.map(\.1).sorted() == [0, 1, 2, 3, 4])
    }

    @Test func searchRanksExactOwnNamesThenAlternatesThenPopulation() throws {
        let gazetteer = try gazetteer()
        #expect(ids(gazetteer, "waterloo") == [1, 4_671_654])
        #expect(ids(gazetteer, "Waterloo, Texas") == [4_671_654])
        #expect(ids(gazetteer, "москва") == [524901, 5_601_538])
        #expect(ids(gazetteer, "МОСК") == [524901, 5_601_538])
        #expect(ids(gazetteer, "Москва, Idaho") == [5_601_538])
        #expect(ids(gazetteer, "mos") == [524901, 5_601_538])
        #expect(ids(gazetteer, "モスクワ") == [524901])
        #expect(ids(gazetteer, "チュ") == [2_657_896])
        #expect(ids(gazetteer, "zzz").isEmpty)
        #expect(ids(gazetteer, "a") == [4_671_654])
        #expect(gazetteer.search(CityQuery("m"), limit: 1).map(\.geonameId) == [524901])
        #expect(gazetteer.label(of: gazetteer.place(id: 4_671_654)!) == "Austin, TX, United States")
        #expect(gazetteer.label(of: gazetteer.place(id: 2_657_896)!) == "Zürich, Switzerland")
    }

    /// Enough names for many blocks, so a search starts in the middle of the file.
    @Test func aPrefixRunAcrossBlocksIsReadWhole() throws {
        var places: [Source] = []
        for number in 0..<500 {
            places.append(
                Source(
                    geonameId: 10_000 + number, name: "Town \(String(number, radix: 7))", latitude: 1, longitude: 1,
                    countryCode: "CH", population: 100_000 - number, alternateNames: ["Stadt \(number)", "Город \(number)"]))
        }
        let gazetteer = try gazetteer(places)
        let index = try #require(gazetteer.index)
        #expect(index.nameCount == 1500)
        var seen: [Int] = []
        index.forEachName(startingWith: Array("город 1".utf8)) { name in
            seen.append(name.place)
            return .any
        }
        // 1, 10-19, 100-199: 111 places, each once.
        #expect(seen.count == 111)
        #expect(Set(seen) == Set([1] + Array(10...19) + Array(100...199)))
        #expect(ids(gazetteer, "stadt 42").first == 10_042)
        #expect(ids(gazetteer, "town 0") == [10_000])
        #expect(gazetteer.search(CityQuery("stadt"), limit: 50).map(\.geonameId) == Array(10_000..<10_050))
    }

    @Test func theWriterRefusesWhatTheIndexCannotHold() {
        func refuses(_ places: [Source]) -> Bool {
            (try? GazetteerIndexWriter.build(places)) == nil
        }
        let austin = Self.places[1]
        // Out of population order, the ranking would be wrong.
        #expect(refuses([Self.places[4], austin]))
        #expect(refuses([austin, austin]))
        var precise = austin
        precise.latitude = 30.267151
        #expect(refuses([precise]))
        var badCountry = austin
        badCountry.countryCode = "USA"
        #expect(refuses([badCountry]))
        #expect(!refuses([austin]))
        #expect(!refuses([]))
    }

    // MARK: - Damage

    /// The header's words, rewritten with a valid hash so only the change under test is wrong.
    func withHeaderWord(_ word: Int, _ value: UInt32, in data: Data) -> Data {
        var data = data
        var words = (0..<16).map { index in
            data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)) }
        }
        words[word] = value
        var hash: UInt32 = 0x811C_9DC5
        for word in words[0..<15] {
            for shift in stride(from: 0, to: 32, by: 8) { hash = (hash ^ ((word >> UInt32(shift)) & 0xFF)) &* 0x0100_0193 }
        }
        words[15] = hash
        for (index, word) in words.enumerated() {
            withUnsafeBytes(of: word.littleEndian) { data.replaceSubrange((index * 4)..<(index * 4 + 4), with: $0) }
        }
        return data
    }

    func refusal(_ data: Data) -> String? {
        do {
            _ = try GazetteerIndex(data: data)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func theHeaderIsChecked() throws {
        let good = try GazetteerIndexWriter.build(Self.places)
        #expect(refusal(good) == nil)
        #expect(refusal(Data()) != nil)
        #expect(refusal(good.prefix(63)) != nil)
        #expect(refusal(good.prefix(good.count - 1))?.contains("bytes") == true)
        #expect(refusal(good + [0])?.contains("bytes") == true)
        var badMagic = good
        badMagic[0] = UInt8(ascii: "X")
        #expect(refusal(badMagic)?.contains("magic") == true)
        var badHash = good
        badHash[12] ^= 1
        #expect(refusal(badHash)?.contains("hash") == true)
        #expect(refusal(withHeaderWord(1, GazetteerIndex.formatVersion + 1, in: good))?.contains("format version") == true)
        #expect(refusal(withHeaderWord(2, NameFolding.version + 1, in: good))?.contains("NameFolding version") == true)
        #expect(refusal(withHeaderWord(3, 1_000_000, in: good)) != nil)
        #expect(refusal(withHeaderWord(5, 0, in: good)) != nil)
        #expect(refusal(withHeaderWord(8, 10, in: good)) != nil)
        #expect(refusal(withHeaderWord(13, UInt32(good.count + 1), in: good)) != nil)
    }

    /// Bytes flipped all over the sections (the header left valid): searches and id look-ups give
    /// whatever they give, but never crash or read outside the file.
    @Test func damagedSectionsNeverCrash() throws {
        let good = try GazetteerIndexWriter.build(Self.places)
        var generator = SplitMix(seed: 13)
        for _ in 0..<300 {
            var data = good
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let offset = Int.random(in: GazetteerIndex.headerSize..<data.count, using: &generator)
                data[offset] = UInt8.random(in: 0...255, using: &generator)
            }
            let index = try GazetteerIndex(data: data)
            let gazetteer = try Gazetteer.load(index: index, countries: Self.countries, usStates: Self.states)
            for query in ["m", "москва", "waterloo, tx", "z", "チ", "a"] {
                _ = CitySearch(gazetteer: gazetteer).search(query, limit: 10)
            }
            for id in [524901, 4_671_654, 2_657_896, 1, 7] {
                _ = CitySearch(gazetteer: gazetteer).resolve(String(id))
            }
            _ = index.allNames()
        }
    }

    /// The shipped index with its names section damaged: still no crash.
    @Test func theShippedIndexDamagedNeverCrashes() throws {
        let shipped = try #require(Gazetteer.shared.index)
        var generator = SplitMix(seed: 4)
        var data = shipped.data
        for _ in 0..<2_000 {
            let offset = Int.random(in: GazetteerIndex.headerSize..<data.count, using: &generator)
            data[offset] = UInt8.random(in: 0...255, using: &generator)
        }
        let gazetteer = Gazetteer(index: try GazetteerIndex(data: data), countries: [], usStates: [:])
        for query in ["s", "paris", "москва", "東", "portland, me", "q"] {
            _ = CitySearch(gazetteer: gazetteer).search(query, limit: 50)
        }
        for id in ["4671654", "2657896", "524901", "1"] {
            _ = CitySearch(gazetteer: gazetteer).resolve(id)
        }
    }

    @Test func aMissingOrDamagedResourceFindsNothingAndIsLoggedOnce() throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try GazetteerIndexWriter.build(Self.places)
        /// A resource folder with these files, opened as the plugin opens its own.
        func open(_ name: String, index: Data?) throws -> (Gazetteer, [String]) {
            let folder = directory.appendingPathComponent("\(name).resources")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.countries.write(to: folder.appendingPathComponent("countries.tsv"))
            try Self.states.write(to: folder.appendingPathComponent("us_states.tsv"))
            try index?.write(to: folder.appendingPathComponent("gazetteer.bin"))
            let logs = LogRecorder()
            let gazetteer = Gazetteer.opened(from: try #require(Bundle(path: folder.path)), logger: logs.logger)
            return (gazetteer, logs.all)
        }

        for (name, index, reason) in [
            ("Missing", nil, "gazetteer.bin is missing"), ("Empty", Data(), "too short"),
            ("OtherVersion", withHeaderWord(1, 99, in: good), "format version 99"),
            ("Truncated", good.prefix(good.count / 2), "bytes"),
        ] as [(String, Data?, String)] {
            let (gazetteer, logs) = try open(name, index: index)
            #expect(gazetteer.index == nil)
            #expect(CitySearch(gazetteer: gazetteer).search("zurich", limit: 10).isEmpty)
            #expect(CitySearch(gazetteer: gazetteer).resolve("2657896") == nil)
            #expect(logs.count == 1, "\(name)")
            #expect(logs.first?.hasPrefix("critical gazetteer not loaded") == true, "\(name)")
            #expect(logs.first?.contains(reason) == true, "\(name): \(logs)")
        }

        // Whole: mapped from the file and found.
        let (gazetteer, logs) = try open("Whole", index: good)
        #expect(CitySearch(gazetteer: gazetteer).search("moscow", limit: 10).map(\.value) == ["524901", "5601538"])
        #expect(CitySearch(gazetteer: gazetteer).resolve("2657896")?["label"] == "Zürich, Switzerland")
        #expect(logs.count == 1)
        #expect(logs.first?.hasPrefix("info gazetteer opened") == true)
    }
}

/// A seeded generator, so a failing damage test fails the same way every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
