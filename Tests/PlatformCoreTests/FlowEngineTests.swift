import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The answers that take a session from `basics` to `analysis` along the scenic route.
let basics: [String: JSONValue] = ["name": "Alex", "age": 30, "kind": "alpha", "hasPet": false]
let adultBirthdate: [String: JSONValue] = ["birthdate": "1990-05-01"]

func driver(_ plugin: FixturePlugin = FixturePlugin()) async throws -> FlowDriver {
    try await FlowDriver(plugin: plugin)
}

/// Starts a session and walks it to `basics`.
func atBasics(_ driver: FlowDriver, user: String = "u1", details: UserDetails? = nil) async throws -> SessionView {
    let view = try await driver.start(user, user: details)
    return try await driver.submit(view)
}

@Suite struct StartAndResume {
    @Test func startCreatesOneSessionPerUserAndFlow() async throws {
        let d = try await driver()
        let first = try await d.start("u1")
        #expect(first.stepId == "welcome")
        #expect(first.status == .active)
        #expect(first.revision == 0)
        let again = try await d.start("u1")
        #expect(again.sessionId == first.sessionId)
        let other = try await d.start("u2")
        #expect(other.sessionId != first.sessionId)
        let quick = try await d.start("u1", flow: "quick")
        #expect(quick.sessionId != first.sessionId)
    }

    @Test func unknownTenantFlowAndSessionAreNotFound() async throws {
        let d = try await driver()
        #expect(await d.error("flow.start", ["tenant": "nope", "userId": "u"])?.code == -32002)
        #expect(await d.error("flow.start", ["userId": "u", "flow": "nope"])?.code == -32002)
        #expect(await d.error("flow.get", ["sessionId": "missing"])?.code == -32002)
        #expect(await d.error("flow.get", ["userId": "nobody"])?.code == -32002)
    }

    @Test func savedStepPolicyResumesWhereTheUserWas() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.submit(view, basics)
        let resumed = try await d.start("u1")
        #expect(resumed.stepId == "route")
        #expect(resumed.revision == view.revision)
    }

    @Test func firstMissingPolicyResumesAtTheFirstUnansweredStep() async throws {
        let d = try await driver()
        var view = try await d.start("u1", flow: "quick")
        view = try await d.submit(view, ["oneAnswer": "a"])
        view = try await d.submit(view, ["twoAnswer": "b"])
        view = try await d.back(view)
        view = try await d.back(view)
        #expect(view.stepId == "one")
        let resumed = try await d.start("u1", flow: "quick")
        #expect(resumed.stepId == "three")
        #expect(resumed.revision == view.revision + 1)
        // The path was rebuilt, so back still walks the steps in order.
        let back = try await d.back(resumed)
        #expect(back.stepId == "two")
        #expect(back.value("twoAnswer") == "b")
    }

    @Test func displayNameRule() {
        #expect(UserDetails(firstName: "  Alex  Morgan", displayName: "AM").personalName(default: "X") == "Alex")
        #expect(UserDetails(firstName: "  ", displayName: "Ace").personalName(default: "X") == "Ace")
        #expect(UserDetails(email: "sam.k@example.com").personalName(default: "X") == "sam.k")
        #expect(UserDetails(email: "@example.com").personalName(default: "X") == "X")
        #expect(UserDetails().personalName(default: "Athlete") == "Athlete")
    }

    @Test func copyIsPersonalisedAndUserDetailsUpdateOnStart() async throws {
        let d = try await driver()
        let view = try await d.start("u1")
        #expect(view.title == "Hi Friend")
        let named = try await d.start("u1", user: UserDetails(firstName: "Jordan Lee"))
        #expect(named.title == "Hi Jordan")
        #expect(named.revision == view.revision)
        let kept = try await d.start("u1", user: UserDetails(email: "x@example.com"))
        #expect(kept.title == "Hi Jordan")
    }

    @Test func skippedStepsCountAsAnsweredOnResume() async throws {
        let d = try await driver()
        var view = try await d.start("u1", flow: "quick")
        view = try await d.submit(view, action: "skip")
        view = try await d.submit(view, ["twoAnswer": "b"])
        #expect(view.stepId == "three")
        let resumed = try await d.start("u1", flow: "quick")
        #expect(resumed.stepId == "three")
        #expect(resumed.revision == view.revision)
    }

    @Test func sensitiveValuesAreNeverKept() async throws {
        let d = try await driver()
        var view = try await d.start("u1", flow: "quick")
        view = try await d.walk(view, [["oneAnswer": "a"], ["twoAnswer": "b"], ["threeAnswer": "secret"]])
        view = try await d.back(view)
        #expect(view.stepId == "three")
        #expect(view.value("threeAnswer") == nil)
        // The step still counts as answered: resuming goes past it.
        #expect(try await d.start("u1", flow: "quick").stepId == "four")
    }

    @Test func laterDefersAndContinueReactivates() async throws {
        let d = try await driver()
        let view = try await d.start("u1")
        #expect(view.actions == ["continue", "later"])
        let deferred = try await d.submit(view, action: "later")
        #expect(deferred.status == .deferred)
        #expect(deferred.stepId == "welcome")
        let resumed = try await d.start("u1")
        #expect(resumed.status == .deferred)
        let active = try await d.submit(resumed)
        #expect(active.status == .active)
        #expect(active.stepId == "basics")
    }
}

@Suite struct Validation {
    func codes(_ error: RPCError?) -> [String: FieldErrorCode] {
        Dictionary((error?.fieldErrors ?? []).map { ($0.field ?? "", $0.code) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func everyInvalidFieldOfTheStepIsListed() async throws {
        let d = try await driver()
        let view = try await atBasics(d)
        let error = await d.refuse(view, ["name": "A", "age": 200, "kind": "delta", "hasPet": "yes"])
        #expect(error?.code == -32004)
        #expect(codes(error) == ["name": .tooShort, "age": .outOfRange, "kind": .notAnOption, "hasPet": .invalidType])
        #expect(error?.session?.stepId == "basics")
        #expect(error?.session?.revision == view.revision)
        let age = error?.fieldErrors.first { $0.field == "age" }
        #expect(age?.message == "Age must be between 1 and 120.")
    }

    @Test func blankStringsAreMissingWhateverTheType() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        let blank = await d.refuse(view, ["name": "", "age": 30, "kind": " ", "hasPet": false])
        #expect(codes(blank) == ["name": .required, "kind": .required])
        view = try await d.walk(view, [basics, ["route": "fast"]])
        #expect(codes(await d.refuse(view, ["birthdate": ""])) == ["birthdate": .required])
    }

    @Test func mistypedUserDetailsAreInvalidParams() async throws {
        let d = try await driver()
        let error = await d.error("flow.start", ["userId": "u1", "user": ["firstName": 5]])
        #expect(error?.code == -32602)
        #expect(error?.data?["param"] == "user.firstName")
        #expect(try await d.start("u1", user: UserDetails(firstName: "Ok")).title == "Hi Ok")
        #expect(await d.error("flow.start", ["userId": "  "])?.data?["param"] == "userId")
    }

    @Test func requiredTooLongLockedAndWrongTypes() async throws {
        let d = try await driver()
        let view = try await atBasics(d)
        let error = await d.refuse(view, ["name": "   ", "age": 30.5, "kind": "gamma", "hasPet": true, "petName": .string(String(repeating: "z", count: 31))])
        #expect(codes(error) == ["name": .required, "age": .invalidType, "kind": .locked, "petName": .tooLong])
        let locked = error?.fieldErrors.first { $0.code == .locked }
        #expect(locked?.message == "Gamma is coming soon. Pick Alpha or Beta for now.")
        let missing = await d.refuse(view, [:])
        #expect(Set(codes(missing).keys) == ["name", "age", "kind", "hasPet"])
        #expect(codes(missing).values.allSatisfy { $0 == .required })
    }

    @Test func nothingIsSavedWhenValidationFails() async throws {
        let d = try await driver()
        let view = try await atBasics(d)
        _ = await d.refuse(view, ["name": "Alex", "age": 0, "kind": "alpha", "hasPet": false])
        let current = try await d.get(view)
        #expect(current.revision == view.revision)
        #expect(current.value("name") == nil)
    }

    @Test func hiddenFieldsAreDroppedNotValidated() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.submit(view, basics.merging(["petName": 42]) { $1 })
        view = try await d.back(view)
        #expect(view.value("petName") == nil)
        #expect(view.value("name") == "Alex")
        let required = await d.refuse(view, basics.merging(["hasPet": true]) { $1 })
        #expect(codes(required) == ["petName": .required])
        view = try await d.submit(view, basics.merging(["hasPet": true, "petName": "  Rex "]) { $1 })
        view = try await d.back(view)
        #expect(view.value("petName") == "Rex")
    }

    @Test func collectionDateTimeSearchAndListRules() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.submit(view, basics)
        view = try await d.submit(view, ["route": "slow"])
        #expect(view.stepId == "extras")
        let bad = await d.refuse(
            view,
            [
                "tags": ["a1"], "city": "Atlantis", "since": "2023-02-29", "score": 11,
                "slots": [["day": 1, "start": "25:00", "end": "10:00"]],
            ])
        #expect(codes(bad) == ["tags": .count, "city": .unknownCity, "since": .invalidFormat, "score": .outOfRange, "slots": .invalidFormat])
        #expect(bad?.fieldErrors.first { $0.field == "tags" }?.message == "Pick exactly 2 choices (you have 1).")
        let duplicate = await d.refuse(view, ["tags": ["a1", "a1"]])
        #expect(codes(duplicate) == ["tags": .duplicate])
        let customDuplicate = await d.refuse(view, ["tags": [["title": "Run Fast"], ["title": "run  fast"]]])
        #expect(codes(customDuplicate) == ["tags": .duplicate])
        let overlap = await d.refuse(
            view,
            [
                "tags": ["a1", "a2"],
                "slots": [["day": 2, "start": "09:00", "end": "10:00"], ["day": 2, "start": "09:30", "end": "11:00"]],
            ])
        #expect(codes(overlap) == ["slots": .overlap])
        let step = await d.refuse(view, ["tags": ["a1", "a2"], "score": 2.5])
        #expect(codes(step) == ["score": .invalidFormat])
        view = try await d.submit(
            view,
            [
                "tags": ["a1", ["title": "My own"]], "city": "2", "since": "2024-02-29", "score": 7,
                "slots": [["day": 2, "start": "09:00", "end": "10:00"], ["day": 2, "start": "10:00", "end": "11:00"]],
            ])
        #expect(view.stepId == "birth")
        view = try await d.back(view)
        #expect(view.value("city")?["label"] == "Zürich, Switzerland")
        #expect(view.value("tags") == ["a1", ["title": "My own"]])
    }

    @Test func searchReturnsResultsOrAMessage() async throws {
        let d = try await driver()
        let view = try await d.start("u1")
        let found = try await d.call("flow.search", ["sessionId": .string(view.sessionId), "field": "city", "query": "zurich"])
        #expect(found["results"]?.arrayValue?.first?["value"] == "2")
        #expect(found["message"] == nil)
        let none = try await d.call("flow.search", ["sessionId": .string(view.sessionId), "field": "city", "query": "xyz"])
        #expect(none["results"] == [])
        #expect(none["message"] == "No results found")
        #expect(await d.error("flow.search", ["sessionId": .string(view.sessionId), "field": "name", "query": "a"])?.code == -32602)
        #expect(await d.error("flow.search", ["sessionId": "nope", "field": "city", "query": "a"])?.code == -32002)
        #expect(await d.error("flow.search", ["sessionId": .string(view.sessionId), "field": "city", "query": "a", "limit": 51])?.code == -32602)
    }
}

@Suite struct Navigation {
    @Test func backAndGotoKeepAnswers() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.submit(view, basics)
        view = try await d.submit(view, ["route": "slow"])
        view = try await d.back(view)
        #expect(view.stepId == "route")
        #expect(view.value("route") == "slow")
        #expect(view.actions.contains("back"))
        view = try await d.goto(view, "basics")
        #expect(view.stepId == "basics")
        #expect(view.value("age") == 30)
        // A step not on the path (ahead of it now) cannot be a goto target.
        let ahead = await d.error("flow.goto", ["sessionId": .string(view.sessionId), "stepId": "route", "revision": .int(Int64(view.revision))])
        #expect(ahead?.code == -32005)
        view = try await d.submit(view, basics)
        #expect(view.value("route") == "slow")
    }

    @Test func backOnTheFirstStepAndResentMovesAreRefused() async throws {
        let d = try await driver()
        let start = try await d.start("u1")
        #expect(start.actions.contains("back") == false)
        #expect(await d.error("flow.back", ["sessionId": .string(start.sessionId), "revision": 0])?.code == -32005)
        let view = try await d.submit(start)
        let back = try await d.back(view)
        let resent = await d.error("flow.back", ["sessionId": .string(view.sessionId), "revision": .int(Int64(view.revision))])
        #expect(resent?.code == -32005)  // on the first step again: state is checked before revision
        let next = try await d.submit(back)
        _ = try await d.back(next)
        let stale = await d.error("flow.goto", ["sessionId": .string(next.sessionId), "stepId": "welcome", "revision": .int(Int64(next.revision))])
        #expect(stale?.code == -32003)
    }

    @Test func branchesFollowTheAnswer() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.submit(view, basics)
        view = try await d.submit(view, ["route": "fast"])
        #expect(view.stepId == "birth")
        view = try await d.back(view)
        #expect(view.stepId == "route")
        view = try await d.submit(view, ["route": "slow"])
        #expect(view.stepId == "extras")
    }

    @Test func answersAheadThatNoLongerFitAreCleared() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.submit(view, basics)
        view = try await d.submit(view, ["route": "slow"])
        view = try await d.submit(view, ["tags": ["a1", ["title": "Custom"]], "city": "1"])
        view = try await d.goto(view, "basics")
        // Same kind: the tags stay.
        view = try await d.submit(view, basics)
        view = try await d.goto(view, "basics")
        view = try await d.submit(view, basics.merging(["kind": "beta"]) { $1 })
        view = try await d.submit(view, ["route": "slow"])
        #expect(view.stepId == "extras")
        #expect(view.value("tags") == [["title": "Custom"]])
        #expect(view.value("city")?["value"] == "1")
        #expect(view.field("tags")?["options"]?.arrayValue?.count == 2)
    }

    @Test func skipOnlyWhereOffered() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        let error = await d.refuse(view, basics, action: "skip")
        #expect(error?.code == -32005)
        #expect(await d.refuse(view, basics, action: "edit")?.code == -32005)
        view = try await d.submit(view, basics)
        view = try await d.submit(view, ["route": "slow"])
        view = try await d.submit(view, action: "skip")
        #expect(view.stepId == "birth")
    }
}

@Suite struct RevisionsAndRetries {
    @Test func staleRevisionOrStepIsAConflict() async throws {
        let d = try await driver()
        let view = try await atBasics(d)
        let moved = try await d.submit(view, basics)
        let stale = await d.refuse(view, basics.merging(["age": 31]) { $1 })
        #expect(stale?.code == -32003)
        #expect(stale?.session?.stepId == "route")
        var wrongStep = d.submitParams(moved, ["route": "slow"], action: "continue")
        wrongStep["stepId"] = "basics"
        #expect(await d.error("flow.submit", wrongStep)?.code == -32003)
    }

    @Test func identicalRetryReturnsTheCurrentView() async throws {
        let d = try await driver()
        let view = try await atBasics(d)
        let moved = try await d.submit(view, ["age": 30, "name": "Alex", "kind": "alpha", "hasPet": false])
        // Same values, other key order and 30.0 for 30: the same JSON value.
        let retried = try await d.submit(view, ["hasPet": false, "kind": "alpha", "age": 30.0, "name": "Alex"])
        #expect(retried.revision == moved.revision)
        #expect(retried.stepId == "route")
    }

    @Test func sensitiveValuesCannotBeRecoveredFromTheRetryDigest() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let d = try await FlowDriver(plugin: FixturePlugin(), store: store)
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics, ["route": "fast"]])
        let rejected = try await d.submit(view, ["birthdate": "2020-02-02"])
        #expect(rejected.status == .rejected)
        let digest = try #require(try await store.session(tenant: "fixture", key: .id(view.sessionId))?.lastSubmitDigest)
        // Every date of the years around it, hashed the way a plain digest would: none matches.
        var candidates: [String] = []
        for year in 2018...2022 {
            for month in 1...12 {
                for day in 1...CalendarDate.daysIn(month: month, year: year) {
                    candidates.append(CalendarDate(year: year, month: month, day: day)!.description)
                }
            }
        }
        #expect(candidates.contains("2020-02-02"))
        let recovered = candidates.filter {
            FlowEngine.Submit(stepId: "birth", revision: view.revision, values: ["birthdate": .string($0)]).digest == digest
        }
        #expect(recovered.isEmpty)
        // Within the process the retry rule still holds, values compared exactly.
        #expect(try await d.submit(view, ["birthdate": "2020-02-02"]).status == .rejected)
        #expect(await d.refuse(view, ["birthdate": "2020-02-03"])?.code == -32005)
    }

    @Test func retryOfACompletingSubmitReturnsTheCompletedView() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics, ["route": "fast"], adultBirthdate])
        let last = view
        let done = try await d.submit(last)
        #expect(done.status == .completed)
        let again = try await d.submit(last)
        #expect(again.status == .completed)
        #expect(again.revision == done.revision)
        let other = await d.refuse(last, ["x": 1])
        #expect(other?.code == -32005)
    }

    @Test func missingOrMistypedParams() async throws {
        let d = try await driver()
        let view = try await d.start("u1")
        var params = d.submitParams(view, [:], action: "continue")
        params["revision"] = "0"
        #expect(await d.error("flow.submit", params)?.data?["param"] == "revision")
        params["revision"] = 0
        params["values"] = [1]
        #expect(await d.error("flow.submit", params)?.data?["param"] == "values")
        params["values"] = nil
        params["stepId"] = nil
        #expect(await d.error("flow.submit", params)?.code == -32602)
        // Unknown keys are ignored.
        params["stepId"] = "welcome"
        params["color"] = "blue"
        #expect(try await d.call("flow.submit", params)["step"]?["id"] == "basics")
    }
}

@Suite struct CompletionRejectionAndWork {
    @Test func completionWritesRecordsAndClearsProgress() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: FixturePlugin(), clock: clock)
        var view = try await atBasics(d, details: UserDetails(firstName: "Sam"))
        view = try await d.walk(view, [basics, ["route": "slow"]])
        clock.advance(seconds: 42)
        view = try await d.submit(view, ["tags": ["a1", "a2"]])
        view = try await d.submit(view, adultBirthdate)
        #expect(view.stepId == "analysis")
        #expect(view.progressLabel == "Step 4 of 5")
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(done.step == nil)
        #expect(done.progressIndex == 5)
        #expect(done.json["progress"]?["fraction"] == 1)
        #expect(done.completion?["message"] == "Welcome, Sam!")
        #expect(done.completion?["records"] == ["account", "settings"])
        #expect(done.completion?["screen"]?["title"] == "All set")
        let profile = try await d.profile("u1")
        #expect(profile["records"]?["account"]?["name"] == "Alex")
        #expect(profile["records"]?["account"]?["analysis"]?["letters"] == 4)
        #expect(profile["records"]?["account"]?["secondsOnExtras"] == 42)
        #expect(profile["completedAt"]?.stringValue.flatMap(Timestamp.date) == clock.now)
        // Saved progress is gone: the completed session keeps no answers.
        let again = try await d.start("u1")
        #expect(again.status == .completed)
        #expect(await d.error("flow.back", ["sessionId": .string(again.sessionId), "revision": .int(Int64(again.revision))])?.code == -32005)
    }

    @Test func aThrowingCompletionHandlerLeavesTheSessionActiveAndWritesNothing() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics.merging(["name": "Crash"]) { $1 }, ["route": "fast"], adultBirthdate])
        let error = await d.refuse(view)
        #expect(error?.code == -32603)
        #expect(error?.message == "Internal error")
        let current = try await d.get(view)
        #expect(current.status == .active)
        #expect(current.stepId == "analysis")
        #expect(current.revision == view.revision)
        #expect(await d.error("profile.get", ["userId": "u1"])?.code == -32002)
    }

    @Test func aCompletionHandlerRefusalAnswersWithTheStoredSession() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics.merging(["name": "Invalid"]) { $1 }, ["route": "fast"], adultBirthdate])
        let error = await d.refuse(view)
        #expect(error?.code == -32004)
        #expect(error?.fieldErrors.first?.message == "That name cannot finish.")
        #expect(error?.session?.revision == view.revision)
        #expect(error?.session?.stepId == "analysis")
        #expect(try await d.get(view).revision == view.revision)
    }

    @Test func completingASecondFlowKeepsTheFirstFlowsRecords() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics, ["route": "fast"], adultBirthdate, [:]])
        #expect(view.status == .completed)
        var quick = try await d.start("u1", flow: "quick")
        quick = try await d.walk(quick, [["oneAnswer": "a"], ["twoAnswer": "b"], ["threeAnswer": "c"], ["fourAnswer": "d"]])
        #expect(quick.status == .completed)
        let records = try await d.profile("u1")["records"]
        #expect(records?.objectValue?.keys.sorted() == ["account", "quick", "settings"])
        #expect(records?["quick"] == ["four": "d"])
    }

    @Test func underageIsRejectedErasedAndFinal() async throws {
        let d = try await driver()
        var view = try await atBasics(d, details: UserDetails(firstName: "Kid", email: "kid@example.com"))
        view = try await d.walk(view, [basics, ["route": "fast"]])
        let rejected = try await d.submit(view, ["birthdate": "2020-01-01"])
        #expect(rejected.status == .rejected)
        #expect(rejected.rejection == Rejection(code: "underage", message: "You must be 13+ to use Fixture"))
        #expect(rejected.step == nil)
        let retried = try await d.submit(view, ["birthdate": "2020-01-01"])
        #expect(retried.status == .rejected)
        #expect(await d.refuse(view, ["birthdate": "1990-01-01"])?.code == -32005)
        let later = try await d.start("u1", user: UserDetails(firstName: "Kid"))
        #expect(later.status == .rejected)
        #expect(later.sessionId == rejected.sessionId)
        #expect(await d.error("profile.get", ["userId": "u1"])?.code == -32002)
    }

    @Test func failingWorkFallsBack() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics.merging(["name": "Broken"]) { $1 }, ["route": "fast"], adultBirthdate])
        view = try await d.submit(view)
        #expect(view.status == .completed)
        #expect(try await d.profile("u1")["records"]?["account"]?["analysis"] == ["accepted": true, "fallback": true])
    }

    @Test func hangingWorkTimesOutToTheFallback() async throws {
        let d = try await driver(FixturePlugin(workTimeout: .milliseconds(200)))
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics.merging(["name": "Slow"]) { $1 }, ["route": "fast"], adultBirthdate])
        view = try await d.submit(view)
        #expect(view.status == .completed)
        #expect(try await d.profile("u1")["records"]?["account"]?["analysis"]?["fallback"] == true)
    }

    @Test func workThatBlamesAnAnswerSendsTheUserBackWithReasons() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics.merging(["name": "Refuse"]) { $1 }, ["route": "fast"], adultBirthdate])
        view = try await d.submit(view)
        #expect(view.status == .active)
        #expect(view.stepId == "basics")
        #expect(view.stepErrors.first?.message == "That name is taken.")
        #expect(view.value("name") == "Refuse")
        view = try await d.submit(view, basics)
        #expect(view.stepErrors.isEmpty)
        view = try await d.walk(view, [["route": "fast"], adultBirthdate, [:]])
        #expect(view.status == .completed)
    }

    @Test func progressSkipsUncountedStepsAndSharesNumbers() async throws {
        let d = try await driver()
        let start = try await d.start("u1")
        #expect(start.progressIndex == 0)
        #expect(start.progressLabel == "")
        var view = try await d.submit(start)
        #expect(view.progressLabel == "Step 1 of 5")
        #expect(view.json["progress"]?["fraction"] == 0.2)
        view = try await d.walk(view, [basics, ["route": "slow"]])
        #expect(view.progressLabel == "Step 3 of 5")
        view = try await d.submit(view, ["tags": ["a1", "a2"]])
        #expect(view.progressLabel == "Step 3 of 5")
    }
}

@Suite struct GatesAndProfiles {
    @Test func onboardingGateThenPluginGate() async throws {
        let d = try await driver()
        let before = try await d.gate("u1", "post")
        #expect(before["allowed"] == false)
        #expect(before["gate"] == "tier1")
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics, ["route": "fast"], adultBirthdate, [:]])
        #expect(view.status == .completed)
        let browse = try await d.gate("u1", "browse")
        #expect(browse["allowed"] == true)
        let post = try await d.gate("u1", "post")
        #expect(post["allowed"] == false)
        #expect(post["gate"] == "tier2")
        #expect(post["requirements"] == [["id": "photo", "label": "Profile photo", "satisfied": false]])
        let updated = try await d.call("profile.update", ["userId": "u1", "values": ["photoUrl": "https://x.test/p.png"]])
        #expect(updated["records"]?["account"]?["photoUrl"] == "https://x.test/p.png")
        let after = try await d.gate("u1", "post")
        #expect(after["allowed"] == true)
    }

    @Test func profileUpdateRules() async throws {
        let d = try await driver()
        #expect(await d.error("profile.update", ["userId": "u1", "values": ["photoUrl": "https://x"]])?.code == -32002)
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics, ["route": "fast"], adultBirthdate, [:]])
        let notEditable = await d.error("profile.update", ["userId": "u1", "values": ["name": "Bob"]])
        #expect(notEditable?.code == -32004)
        #expect(notEditable?.fieldErrors.first?.code == .notEditable)
        #expect(notEditable?.fieldErrors.first?.message == "Name can't be changed after onboarding.")
        let invalid = await d.error("profile.update", ["userId": "u1", "values": ["photoUrl": "http://x"]])
        #expect(invalid?.fieldErrors.first?.code == .invalidFormat)
        #expect(try await d.profile("u1")["records"]?["account"]?["photoUrl"] == nil)
    }

    @Test func describeListsStepsEdgesAndIntro() async throws {
        let d = try await driver()
        let description = try await d.call("flow.describe", [:])
        let steps = description["steps"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(steps == ["welcome", "basics", "route", "extras", "birth", "analysis"])
        let edges = description["edges"]?.arrayValue ?? []
        #expect(edges.contains(["from": "route", "to": "extras", "when": "route = slow"]))
        #expect(edges.contains(["from": "route", "to": "birth", "when": "otherwise"]))
        #expect(edges.contains(["from": "extras", "to": "birth"]))
        #expect(description["mermaid"]?.stringValue?.hasPrefix("flowchart TD\n") == true)
        #expect(description["intro"] == [["headline": "Hello"]])
    }
}
