/// One flag of the seed's `LifeSnapshotSelections`: a fact about the person's week that
/// shapes when and how the coach plans. Any combination is valid, including none.
enum LifeSnapshotFlag: String, ChoiceOption, CodingKeyRepresentable {
    case deskBound
    case onFeet
    case frequentTravel
    case hasChildren
    case unpredictableSchedule
    case prefersMorning
    case prefersEvening

    var label: String {
        switch self {
        case .deskBound: "Mostly at a desk"
        case .onFeet: "On my feet most of the day"
        case .frequentTravel: "Travel often"
        case .hasChildren: "Children at home"
        case .unpredictableSchedule: "Unpredictable schedule"
        case .prefersMorning: "Morning sessions"
        case .prefersEvening: "Evening sessions"
        }
    }

    var detail: String {
        switch self {
        case .deskBound: "Long stretches of sitting on a typical day."
        case .onFeet: "Standing, walking or lifting through the day."
        case .frequentTravel: "Hotels, time zones and unfamiliar gyms."
        case .hasChildren: "Family time shapes the week."
        case .unpredictableSchedule: "Plans often change at short notice."
        case .prefersMorning: "Training early suits you best."
        case .prefersEvening: "Training later in the day suits you best."
        }
    }
}
