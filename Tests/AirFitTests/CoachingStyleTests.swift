import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AirFit

@Suite struct CoachingStyleSliders {
    @Test func oneSliderPerStyleWithEveryBand() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .coachingStyle)
        let ids = view.step?["fields"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(ids == ["authoritativeDirect", "empatheticEncouraging", "analyticalInsightful", "playfullyProvocative"])
        for style in CoachingStyle.allCases {
            let field = try #require(view.field(style.rawValue))
            #expect(field["type"] == "slider")
            #expect(field["label"] == .string(style.label))
            #expect(field["min"] == 0)
            #expect(field["max"] == 100)
            #expect(field["step"] == 1)
            #expect(field["required"] == false)
            #expect(field["default"] == .int(Int64(style.defaultValue)))
            let bands = try #require(field["bands"]?.arrayValue)
            #expect(bands == style.bands.map(\.json))
            #expect(bands.allSatisfy { $0["description"]?.stringValue?.isEmpty == false })
        }
    }

    /// Every slider value has exactly one band, so a client always has a line to show.
    @Test func bandsCoverZeroToHundredOnce() {
        for style in CoachingStyle.allCases {
            for value in 0...100 {
                #expect(style.bands.filter { $0.range.contains(value) }.count == 1, "\(style) at \(value)")
            }
            #expect(Set(style.bands.map(\.description)).count == style.bands.count)
        }
        #expect(CoachingStyle.authoritativeDirect.band(for: 85)?.description == "Uncompromising. Clear orders, high standards, no excuses.")
        #expect(CoachingStyle.playfullyProvocative.band(for: 0)?.description == "Composed and serious. No jokes at your expense.")
    }

    @Test func slidersTakeWholeNumbersFromZeroToHundred() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .coachingStyle)
        let error = await d.refuse(
            view,
            [
                "authoritativeDirect": 101, "empatheticEncouraging": -1, "analyticalInsightful": 50.5, "playfullyProvocative": "high",
            ])
        #expect(
            codes(error) == [
                "authoritativeDirect": .outOfRange, "empatheticEncouraging": .outOfRange,
                "analyticalInsightful": .invalidFormat, "playfullyProvocative": .invalidType,
            ])
        #expect(error?.fieldErrors.first { $0.field == "authoritativeDirect" }?.message == "Set Authoritative & Direct anywhere from 0 to 100.")
        #expect(error?.fieldErrors.first { $0.field == "analyticalInsightful" }?.message == "Set Analytical & Insightful to a whole number from 0 to 100.")
    }

    @Test func untouchedSlidersKeepTheirDefaults() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .coachingStyle)
        view = try await d.submit(view, ["playfullyProvocative": 0])
        view = try await d.back(view)
        #expect(view.value("authoritativeDirect") == 40)
        #expect(view.value("empatheticEncouraging") == 60)
        #expect(view.value("analyticalInsightful") == 60)
        #expect(view.value("playfullyProvocative") == 0)
    }
}

@Suite struct CoachingBlendShares {
    func blend(_ a: Int, _ e: Int, _ n: Int, _ p: Int) -> [Int] {
        CoachingBlend([.authoritativeDirect: a, .empatheticEncouraging: e, .analyticalInsightful: n, .playfullyProvocative: p])
            .shares.map(\.percent)
    }

    @Test func allZeroIsAnEvenSplit() {
        #expect(blend(0, 0, 0, 0) == [25, 25, 25, 25])
    }

    @Test func oneNonZeroTakesEverything() {
        #expect(blend(0, 0, 1, 0) == [0, 0, 100, 0])
        #expect(blend(100, 0, 0, 0) == [100, 0, 0, 0])
    }

    @Test func tiedRemaindersGoToTheEarlierStyle() {
        // 100/3 each: one point is left over, and the first style gets it.
        #expect(blend(1, 1, 1, 0) == [34, 33, 33, 0])
        #expect(blend(0, 50, 50, 50) == [0, 34, 33, 33])
        // 40/180, 60/180, 60/180, 20/180: remainders .22, .33, .33, .11; empathetic is earlier.
        #expect(blend(40, 60, 60, 20) == [22, 34, 33, 11])
        // Two points left over across three equal remainders go to the first two.
        #expect(blend(0, 1, 1, 1).reduce(0, +) == 100)
        #expect(blend(2, 1, 1, 1) == [40, 20, 20, 20])
        #expect(blend(1, 1, 1, 1) == [25, 25, 25, 25])
        #expect(blend(3, 3, 1, 0) == [43, 43, 14, 0])
    }

    @Test func theLargestRemainderWinsOverOrder() {
        // 10/61 = 16.39, 17/61 = 27.87, 17/61 = 27.87, 17/61 = 27.87: 97 given out, three left;
        // the .87s take them, the earlier .39 does not.
        #expect(blend(10, 17, 17, 17) == [16, 28, 28, 28])
    }

    @Test func sharesAlwaysSumToExactly100() {
        var failures: [[Int]] = []
        let grid = Array(stride(from: 0, through: 100, by: 9)) + [1, 100]
        for a in grid {
            for e in grid {
                for n in grid {
                    for p in grid {
                        let values = [a, e, n, p]
                        let shares = blend(a, e, n, p)
                        let zeroStaysZero = values.allSatisfy { $0 == 0 } || zip(values, shares).allSatisfy { $0 > 0 || $1 == 0 }
                        if shares.reduce(0, +) != 100 || !zeroStaysZero { failures.append(values) }
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test func summaryNamesTheLeaderTheBalanceAndTheTouches() {
        let blend = CoachingBlend([.authoritativeDirect: 10, .empatheticEncouraging: 60, .analyticalInsightful: 80, .playfullyProvocative: 20])
        #expect(blend.shares.map(\.percent) == [6, 35, 47, 12])
        #expect(
            blend.summary == "Primarily Analytical & Insightful, balanced with Empathetic & Encouraging, "
                + "with a touch of Playful & Provocative and Authoritative & Direct. Expect data-led guidance with the reasoning shown.")
        #expect(
            CoachingBlend([:]).summary == "An even blend of Authoritative & Direct, Empathetic & Encouraging, "
                + "Analytical & Insightful and Playful & Provocative. Expect clear direction and high standards.")
        #expect(CoachingBlend([.playfullyProvocative: 5]).summary == "Primarily Playful & Provocative. Expect friendly challenges and a lighter touch.")
    }
}
