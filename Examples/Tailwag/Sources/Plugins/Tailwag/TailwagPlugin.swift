import PlatformCore

/// Tailwag's onboarding, served under tenant `tailwag`: pet owners list their pets, sitters describe
/// their home, everyone reviews their answers, and bookings wait for an ID check after completion.
/// (Written by `platformd scaffold plugin` from its example: replace the steps, the records, the
/// gate and Docs/plugins/tailwag.md with the app's own.)
public struct TailwagPlugin: OnboardingPlugin {
    public let id = "tailwag"
    public let name = "Tailwag"
    public let version = "0.1.0"
    public init() {}

    /// How the host registers Tailwag (one line in Sources/platformd/RegisteredPlugins.swift).
    public static let registration = PluginRegistration(name: "Tailwag", defaultTenant: "tailwag", make: { _ in TailwagPlugin() })

    public var flows: [Flow] {
        [
            Flow(
                // scaffold-omit-begin: the flow's version history. A plugin the scaffold writes starts at
                // version 1 (the default) with nothing to migrate: it leaves out the lines to scaffold-omit-end.
                version: "3",
                // scaffold-omit-end
                steps: [WelcomeStep(), RoleStep(), AreaStep(), review], completion: AccountCompletion(),
                // scaffold-omit-begin: the flow's version history.
                // Version 1 called the area step `location` and its field `zip`. People who were on
                // it when version 2 was deployed move here with their answer (Docs/plugins.md,
                // "Changing a flow"); without this they would lose it and go back a step. Version 3
                // asks owners for their first sit: nothing to declare, its answers are all kept.
                migrations: [FlowMigration(from: "1", renamedSteps: ["location": "area"], renamedFields: ["zip": "postcode"])],
                // scaffold-omit-end
            )
        ]
    }

    public var gates: [any Gate] { [VerificationGate()] }
    public var onboardingGate: OnboardingGate { OnboardingGate(title: "Finish joining Tailwag") }
    /// `profile.update` validates it and writes it into the `verification` record; no code needed.
    public var editableFields: [FieldSpec] { [Field.idDocument] }
}

enum Field {
    static let role = FieldSpec(
        id: "role", type: .choice, label: "I am",
        options: [
            FieldOption(value: "owner", label: "A pet owner"), FieldOption(value: "sitter", label: "A pet sitter"),
        ])
    static let pets = FieldSpec(
        id: "pets", type: .list, label: "Your pets", minItems: 1, maxItems: 5,
        itemFields: [
            FieldSpec(id: "name", type: .text, label: "Name", maxLength: 30),
            FieldSpec(id: "species", type: .choice, label: "Species", options: ["dog", "cat", "other"].map { FieldOption(value: $0, label: $0.capitalized) }),
            // Asked per pet, only of an "other": required then, dropped from a dog or a cat.
            FieldSpec(id: "kind", type: .text, label: "What kind", maxLength: 30, visibleWhen: .field("species", equals: "other")),
            FieldSpec(id: "age", type: .integer, label: "Age", required: false, min: 0, max: 40),
            // Optional, but required of a pet 10 or older (the core decides, per pet).
            FieldSpec(id: "care", type: .text, label: "Care notes", maxLength: 200, requiredWhen: .field("age", atLeast: 10)),
        ])
    /// The first day an owner needs a sitter: from today to the end of the month after next
    /// (checked by the core, shown to clients as min and max).
    static let firstSit = FieldSpec(id: "firstSit", type: .date, label: "First sit", earliest: .today, latest: .endOfMonth(monthsFromToday: 2))
    static let yearsSitting = FieldSpec(id: "yearsSitting", type: .integer, label: "Years of experience", min: 0, max: 60)
    /// Asked only of sitters with less than two years of experience.
    static let firstAid = FieldSpec(
        id: "firstAid", type: .boolean, label: "I've done a pet first-aid course", visibleWhen: .field("yearsSitting", lessThan: 2))
    static let hasYard = FieldSpec(id: "hasYard", type: .boolean, label: "I have a yard")
    /// Asked only of sitters with a yard.
    static let yardFenced = FieldSpec(
        id: "yardFenced", type: .boolean, label: "The yard is fenced", visibleWhen: .field("hasYard", equals: true))
    static let postcode = FieldSpec(
        id: "postcode", type: .text, label: "Postcode", placeholder: "12345",
        pattern: try! FieldPattern("[0-9]{5}", message: "Enter your five-digit postcode."))
    static let idDocument = FieldSpec(
        id: "idDocumentUrl", type: .text, label: "Photo of your ID", required: false, maxLength: 2048,
        pattern: try! FieldPattern(#"https://\S+"#, message: "Upload your ID and paste its https link."), record: "verification")
}

struct WelcomeStep: FlowStep {
    let id = "welcome"
    let kind = StepKind.content
    let countsInProgress = false

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "Welcome to Tailwag, \(context.displayName)!", subtitle: "Happy pets, trusted sitters.", actions: [.continue("Get Started")])
    }
}

/// The branch: owners list their pets, sitters describe their home; both rejoin at `area`.
struct RoleStep: FlowStep {
    let id = "role"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] { [Field.role] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "How will you use Tailwag?") }

    var branches: [FlowBranch] {
        [
            FlowBranch(when: "role = owner", if: { $0["role"] == "owner" }, steps: [PetsStep()]),
            FlowBranch(when: "role = sitter", if: { $0["role"] == "sitter" }, steps: [SitterStep()]),
        ]
    }
}

struct PetsStep: FlowStep {
    let id = "pets"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] { [Field.pets, Field.firstSit] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Tell us about your pets") }
}

struct SitterStep: FlowStep {
    let id = "sitter_home"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] { [Field.yearsSitting, Field.firstAid, Field.hasYard, Field.yardFenced] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Your experience and home") }
}

struct AreaStep: FlowStep {
    let id = "area"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] { [Field.postcode] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Where are you?", helper: "We match owners and sitters nearby.") }
}

/// Every answer on the path, a section per step with its Edit target, re-checked before the
/// account is made (the core's ``ReviewStep``).
let review = ReviewStep(
    copy: { StepCopy(title: "All good, \($0.displayName)?", actions: [.continue("Create my account")]) },
    sectionTitles: ["role": "You", "pets": "Your pets", "sitter_home": "Your home", "area": "Where"])

struct AccountCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        var account: [String: JSONValue] = ["userId": .string(context.userId)]
        for id in ["role", "pets", "firstSit", "yearsSitting", "firstAid", "hasYard", "yardFenced", "postcode"] {
            account[id] = context.value(of: id)
        }
        return CompletionResult(
            records: ["account": .object(account), "verification": [:]], message: "Welcome to Tailwag, \(context.displayName)!")
    }
}

/// After onboarding, bookings wait for an ID document (`profile.update` of `idDocumentUrl`).
struct VerificationGate: Gate {
    let id = "verified"

    func decide(action: String, profile: Profile) -> GateDecision? {
        guard ["book_sitter", "accept_booking"].contains(action) else { return nil }
        let verified = profile.records["verification"]?["idDocumentUrl"]?.stringValue != nil
        let requirement = GateRequirement(id: "idDocument", label: "Photo of your ID", satisfied: verified)
        return verified
            ? GateDecision(action: action, allowed: true, requirements: [requirement])
            : GateDecision(
                action: action, allowed: false, gate: id, title: "Verify your identity",
                message: "Bookings need a photo of your ID.", cta: "Add ID", requirements: [requirement])
    }
}
