import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import TeePals

@Suite("Age verification")
struct AgeVerificationTests {
    /// Submits `birthdate` on a fresh session whose clock reads `now`; returns the view or the error.
    func check(_ birthdate: JSONValue, on now: Date = testDay) async throws -> (view: SessionView?, error: RPCError?) {
        let d = try await teePals(now: now)
        let view = try await d.session(at: "birthdate")
        do {
            return (try await d.submit(view, ["birthdate": birthdate]), nil)
        } catch let error as RPCError {
            return (nil, error)
        }
    }

    @Test func theDayBeforeTheThirteenthBirthdayIsRejectedOnAndAfterAccepted() async throws {
        let before = try await check("2013-06-16")
        #expect(before.view?.status == .rejected)
        #expect(before.view?.rejection == Rejection(code: "underage", message: "You must be 13+ to use TeePals"))
        let on = try await check("2013-06-15")
        #expect(on.view?.stepId == "location")
        let after = try await check("2013-06-14")
        #expect(after.view?.stepId == "location")
    }

    @Test func ageIsCountedOnTheUTCDate() async throws {
        // 23:30 UTC on the 14th is already the 15th east of Greenwich; the rule uses UTC.
        let lateOnThe14th = try await check("2013-06-15", on: utc(2026, 6, 14, 23, 30))
        #expect(lateOnThe14th.view?.status == .rejected)
        let earlyOnThe15th = try await check("2013-06-15", on: utc(2026, 6, 15, 0, 30))
        #expect(earlyOnThe15th.view?.stepId == "location")
    }

    @Test func aLeapDayBirthdayFallsOnTheFirstOfMarchInCommonYears() async throws {
        // Born 2012-02-29: the 13th birthday in 2025 (a common year) is 1 March.
        #expect(try await check("2012-02-29", on: utc(2025, 2, 28)).view?.status == .rejected)
        #expect(try await check("2012-02-29", on: utc(2025, 3, 1)).view?.stepId == "location")
        // In a leap year the birthday is 29 February itself.
        #expect(AgeCheck.age(bornOn: CalendarDate("2012-02-29")!, on: CalendarDate("2028-02-28")!) == 15)
        #expect(AgeCheck.age(bornOn: CalendarDate("2012-02-29")!, on: CalendarDate("2028-02-29")!) == 16)
        #expect(AgeCheck.age(bornOn: CalendarDate("2012-02-29")!, on: CalendarDate("2027-02-28")!) == 14)
        #expect(AgeCheck.age(bornOn: CalendarDate("2012-02-29")!, on: CalendarDate("2027-03-01")!) == 15)
        // A 1 March birthday is not moved.
        #expect(AgeCheck.age(bornOn: CalendarDate("2012-03-01")!, on: CalendarDate("2025-02-28")!) == 12)
        #expect(AgeCheck.age(bornOn: CalendarDate("2012-03-01")!, on: CalendarDate("2025-03-01")!) == 13)
    }

    @Test(arguments: [
        "2013-02-30", "2011-02-29", "2013-13-01", "2013-00-10", "2013-06-31", "15/06/2000", "2000-6-1", "20000601", "2000-06-01T00:00:00Z", " 2000-06-01",
        "yesterday",
    ])
    func datesThatDoNotExistOrAreMalformedAreRefused(_ text: String) async throws {
        let result = try await check(.string(text))
        #expect(result.error?.code == -32004)
        #expect(result.error?.fieldErrors.map(\.code) == [.invalidFormat])
        #expect(result.error?.fieldErrors.first?.message == "Enter a real date written YYYY-MM-DD (year, month, day).")
    }

    @Test func aDateMustBeAString() async throws {
        #expect(try await check(20_000_601).error?.fieldErrors.map(\.code) == [.invalidType])
        #expect(try await check(nil).error?.fieldErrors.map(\.code) == [.required])
    }

    @Test func futureDatesAndDatesBefore1900AreOutOfRange() async throws {
        let tomorrow = try await check("2026-06-16")
        #expect(
            tomorrow.error?.fieldErrors.first
                == FieldError(
                    field: "birthdate", code: .outOfRange, message: "Your birthday can't be in the future."))
        #expect(try await check("2031-01-01").error?.fieldErrors.map(\.code) == [.outOfRange])
        let old = try await check("1899-12-31")
        #expect(old.error?.fieldErrors.map(\.code) == [.outOfRange])
        #expect(old.error?.fieldErrors.first?.message == "Birthdays before 1900 aren't accepted. Please check the year.")
        #expect(try await check("1900-01-01").view?.stepId == "location")
        // Born today is a real date, and far too young.
        #expect(try await check("2026-06-15").view?.status == .rejected)
    }

    @Test func onlyTheFactOfVerificationIsKept() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let d = try await teePals(store: store)
        var view = try await d.session(at: "birthdate")
        view = try await d.submit(view, Answers.birthdate)
        #expect(!view.json.serialized().contains(Answers.adultBirthdate))
        view = try await d.back(view)
        #expect(view.stepId == "birthdate")
        #expect(view.field("birthdate")?["value"] == .null)
        let state = try #require(try await store.session(tenant: "teepals", key: .id(view.sessionId)))
        #expect(state.answers["birthdate"] == ["ageVerified": true, "ageVerifiedAt": "2026-06-15T12:00:00Z"])
    }
}

@Suite("Underage rejection")
struct RejectionTests {
    @Test func rejectionIsFinalForThatUser() async throws {
        let d = try await teePals()
        let view = try await d.session(at: "birthdate")
        let rejected = try await d.submit(view, ["birthdate": "2015-01-01"])
        #expect(rejected.status == .rejected)
        #expect(rejected.step == nil)
        #expect(rejected.progressIndex == 0)
        #expect(rejected.rejection?["code"] == "underage")
        #expect(rejected.rejection?["message"] == "You must be 13+ to use TeePals")

        // Coming back, with or without new details, shows the same rejected session.
        let again = try await d.start("u1", user: UserDetails(firstName: "Older"))
        #expect(again.sessionId == rejected.sessionId)
        #expect(again.status == .rejected)
        #expect(again.rejection == rejected.rejection)
        // A different birthdate, any step, any move: invalid state.
        for stepId in ["birthdate", "nickname", "location"] {
            let error = await d.error(
                "flow.submit",
                [
                    "sessionId": .string(rejected.sessionId), "stepId": .string(stepId),
                    "revision": .int(Int64(rejected.revision)), "values": ["birthdate": "1990-01-01"],
                ])
            #expect(error?.code == -32005)
            #expect(error?.session?.status == .rejected)
        }
        #expect(await d.error("flow.back", ["sessionId": .string(rejected.sessionId), "revision": .int(Int64(rejected.revision))])?.code == -32005)
        #expect(
            await d.error(
                "flow.goto",
                [
                    "sessionId": .string(rejected.sessionId), "stepId": "nickname", "revision": .int(Int64(rejected.revision)),
                ])?.code == -32005)
        // No profile, and the app stays gated.
        #expect(await d.error("profile.get", ["userId": "u1"])?.code == -32002)
        #expect(try await d.gate("u1", "browse_rounds")["gate"] == "tier1")
        #expect(try await d.gate("u1", "browse_rounds")["allowed"] == false)
    }

    @Test func rejectionErasesEveryAnswer() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let d = try await teePals(store: store)
        var view = try await d.session(at: "gender")
        view = try await d.back(view)
        view = try await d.back(view)
        #expect(view.stepId == "birthdate")
        view = try await d.submit(view, ["birthdate": "2014-03-03"])
        #expect(view.status == .rejected)
        let state = try #require(try await store.session(tenant: "teepals", key: .id(view.sessionId)))
        #expect(state.answers.isEmpty)
        #expect(state.path.isEmpty)
        #expect(state.user == .empty)
        #expect(!view.json.serialized().contains("Birdie"))
    }

    /// The contract's erasure: with `secure_delete` and a WAL truncated after the erasure, no byte
    /// of the answers is left in the database file or its WAL.
    @Test func noByteOfTheAnswersIsLeftInTheDatabaseFiles() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("teepals.sqlite").path)
        let d = try await teePals(store: store)
        let nickname = "Quokkagolfer"
        // Zürich's label is written in the stored city; its id and coordinates too.
        let cityMarkers = ["Switzerland", "2657896", "47.36667"]
        let underage = "2014-03-03"

        var view = try await d.start("u1", user: UserDetails(firstName: "Quokkafirst", email: "quokka@example.com"))
        view = try await d.submit(view, ["nickname": .string(nickname)])
        view = try await d.submit(view, Answers.birthdate)
        view = try await d.submit(view, ["location": "2657896"])
        // Another user's session, which must survive the erasure.
        let other = try await d.start("u2")
        _ = try await d.submit(other, ["nickname": "Keepmegolfer"])

        let markers = [nickname, "Quokkafirst", "quokka@example.com"] + cityMarkers
        for marker in markers {
            #expect(try !filesContaining(marker, in: directory).isEmpty, "\(marker) should be on disk before the rejection")
        }

        view = try await d.back(view)
        view = try await d.back(view)
        #expect(view.stepId == "birthdate")
        let rejected = try await d.submit(view, ["birthdate": .string(underage)])
        #expect(rejected.status == .rejected)
        for marker in markers + [underage, Answers.adultBirthdate] {
            #expect(try filesContaining(marker, in: directory).isEmpty, "\(marker) must not be on disk after the rejection")
        }
        #expect(try !filesContaining("Keepmegolfer", in: directory).isEmpty)
        try await store.close()
    }

    /// The database files (main, WAL, shared memory) that contain `marker`.
    func filesContaining(_ marker: String, in directory: URL) throws -> [String] {
        let needle = Data(marker.utf8)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { name in
            try Data(contentsOf: directory.appendingPathComponent(name)).range(of: needle) != nil
        }
    }
}

@Suite("Birthdate privacy")
struct BirthdatePrivacyTests {
    /// Every reply (result or error) of a walk that accepts one birthdate, refuses others and
    /// rejects one, and every log line of the plugin: none holds a birthdate.
    @Test func noReplyOrLogLineContainsABirthdate() async throws {
        let logs = LogRecorder()
        let d = try await teePals(logs: logs)
        var replies: [String] = []
        func record(_ view: SessionView) -> SessionView {
            replies.append(view.json.serialized())
            return view
        }
        func refuse(_ view: SessionView, _ birthdate: String) async {
            let error = await d.refuse(view, ["birthdate": .string(birthdate)])
            #expect(error?.code == -32004)
            replies.append(error?.object.wireJSON.serialized() ?? "")
        }
        let birthdates = [Answers.adultBirthdate, "2026-06-16", "1899-12-31", "2013-02-30", "2014-03-03", "2013-06-15"]

        // Adult: accepted, then the whole wizard, the profile and a gate check.
        var view = record(try await d.start("adult"))
        view = record(try await d.submit(view, Answers.nickname))
        await refuse(view, "2026-06-16")
        await refuse(view, "1899-12-31")
        await refuse(view, "2013-02-30")
        view = record(try await d.submit(view, Answers.birthdate))
        view = record(try await d.back(view))
        view = record(try await d.submit(view, ["birthdate": "2013-06-15"]))
        view = record(try await d.submit(view, Answers.location))
        view = record(try await d.submit(view, Answers.gender))
        replies.append(try await d.profile("adult").serialized())
        replies.append(try await d.gate("adult", "join_round").serialized())
        replies.append(try await d.update("adult", ["skillLevel": "expert"]).serialized())

        // Child: rejected, then coming back.
        var child = record(try await d.session("child", at: "birthdate"))
        child = record(try await d.submit(child, ["birthdate": "2014-03-03"]))
        #expect(child.status == .rejected)
        _ = record(try await d.start("child"))
        replies.append(await d.refuse(child, ["birthdate": "2014-03-03"])?.object.wireJSON.serialized() ?? "")

        #expect(replies.count >= 15)
        #expect(logs.all.contains { $0.contains("age verified") })
        #expect(logs.all.contains { $0.contains("session rejected") })
        for birthdate in birthdates {
            for reply in replies {
                #expect(!reply.contains(birthdate), "a reply contains \(birthdate): \(reply)")
            }
            for line in logs.all {
                #expect(!line.contains(birthdate), "a log line contains \(birthdate): \(line)")
            }
        }
    }
}
