import Foundation
import TeePalsGazetteer

// Builds the TeePals gazetteer index (`gazetteer.bin`) from the places file that
// scripts/teepals/make_gazetteer.py writes, folding every name with the plugin's own `NameFolding`,
// so the index and the queries can never be folded differently.
//
//     swift run -c release teepals-gazetteer PLACES.tsv Sources/Plugins/TeePals/Resources/gazetteer.bin
//
// PLACES.tsv: UTF-8, `#` lines are comments, one place a line, most populous first: geonameid,
// name, latitude, longitude, country code, US state code (empty outside the US), population,
// alternate names joined by `|`.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("teepals-gazetteer: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let input = arguments.first, let output = arguments.last else {
    fail("usage: teepals-gazetteer PLACES.tsv OUTPUT.bin")
}
let started = ContinuousClock.now
guard let text = try? String(contentsOfFile: input, encoding: .utf8) else { fail("cannot read \(input) as UTF-8") }

var places: [GazetteerIndexWriter.SourcePlace] = []
for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
    if line.hasPrefix("#") { continue }
    let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard fields.count == 8, let id = Int(fields[0]), let latitude = Double(fields[2]), let longitude = Double(fields[3]),
        let population = Int(fields[6])
    else {
        fail("\(input):\(number + 1): expected 8 fields (id, name, latitude, longitude, country, state, population, alternates)")
    }
    places.append(
        GazetteerIndexWriter.SourcePlace(
            geonameId: id, name: fields[1], latitude: latitude, longitude: longitude, countryCode: fields[4],
            usState: fields[5], population: population,
            alternateNames: fields[7].split(separator: "|").map(String.init)))
}

let data: Data
do {
    data = try GazetteerIndexWriter.build(places)
} catch {
    fail(error.description)
}

// Read it back before writing it: every place, every id, the names in order.
let index: GazetteerIndex
do {
    index = try GazetteerIndex(data: data)
} catch {
    fail("the index does not read back: \(error)")
}
for (position, place) in places.enumerated() {
    guard let record = index.place(at: position), record.geonameId == place.geonameId,
        record.latitude == place.latitude, record.longitude == place.longitude,
        record.population == place.population, record.countryCode == place.countryCode,
        record.usState == place.usState, index.name(at: position) == place.name,
        index.placeIndex(ofId: place.geonameId) == position
    else {
        fail("place \(place.geonameId) does not read back as written")
    }
}
let names = index.allNames()
guard names.count == index.nameCount,
    zip(names, names.dropFirst()).allSatisfy({ !$1.key.lexicographicallyPrecedes($0.key) })
else {
    fail("the names do not read back in order")
}

do {
    try data.write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    fail("cannot write \(output): \(error)")
}
let alternates = names.count { $0.isAlternate }
// The result is the file; the summary goes to stderr, like the tool's other messages.
FileHandle.standardError.write(
    Data(
        """
        teepals-gazetteer: \(places.count) places, \(names.count) names (\(alternates) alternate), \(data.count) bytes -> \(output) \
        in \(ContinuousClock.now - started)

        """.utf8))
