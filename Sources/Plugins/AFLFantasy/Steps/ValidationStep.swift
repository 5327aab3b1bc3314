import PlatformCore

/// Validation, step 5 of 6 and the last step (processing): the client submits it with no values;
/// the server runs the TeamValidator, then either completes the session or sends the user back to
/// `credentials` with the validator's reason. A refusal is logged when the submit that applies it
/// commits (in `transition`), not while the validator runs.
struct ValidationStep: FlowStep {
    let id = StepID.validation
    let kind = StepKind.processing
    let validator: any TeamValidator
    let timeout: Duration

    func copy(in context: StepContext) -> StepCopy {
        let teamId = context.value(of: FieldID.teamId)?.stringValue
        var content: [String: JSONValue] = ["symbol": "checkmark.shield"]
        if let teamId { content["teamId"] = .string(teamId) }
        if let name = context.value(of: FieldID.teamName)?.stringValue { content["teamName"] = .string(name) }
        return StepCopy(
            title: "Checking your team",
            subtitle: teamId.map { "Connecting team \($0) to AFL Fantasy…" } ?? "Connecting your team to AFL Fantasy…",
            content: content,
            actions: [.continue("Connect Team")])
    }

    func work(for values: [String: JSONValue], in context: StepContext) -> StepWork? {
        let teamId = context.value(of: FieldID.teamId)?.stringValue ?? ""
        let teamName = context.value(of: FieldID.teamName)?.stringValue
        let validator = self.validator
        return StepWork(
            name: "AFL Fantasy team validation", timeout: timeout,
            perform: {
                let validation = try await validator.validate(teamId: teamId, teamName: teamName)
                return TeamCheck(validation: validation, source: .validator).json
            },
            fallback: { _ in
                // The core logs the reason; an outage must not block a well-formed ID.
                TeamCheck.fallback(teamId: teamId).json
            })
    }

    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] { [:] }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        guard let check = TeamCheck(json: context.computed(for: id)),
            case .invalid(let reason) = check.validation.verdict
        else { return .next }
        context.log(.info, "team validator refused a Team ID", metadata: ["step": StepID.validation])
        return .returnTo(
            StepID.credentials,
            errors: [FieldError(field: FieldID.teamId, code: .notAnOption, message: reason)])
    }

    /// The way back for a refused team; completion is drawn by the diagram itself.
    var edges: [FlowEdge] {
        [FlowEdge(to: StepID.credentials, when: "team refused by the validator")]
    }
}
