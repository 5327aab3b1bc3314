import PlatformCore

/// The three posters of the onboarding carousel shown before sign-in (`flow.describe`'s `intro`).
/// `highlight` is the part of the headline the app shows in green.
enum Intro {
    static let posters: JSONValue = [
        [
            "id": "find_round", "headline": "Find Your Next Round", "highlight": "Next Round",
            "subheading": "Find nearby rounds and meet golfers who match your vibe",
        ],
        [
            "id": "host_round", "headline": "Host Like a Pro", "highlight": "Pro",
            "subheading": "Organize rounds and build the perfect group",
        ],
        [
            "id": "golf_together", "headline": "Golf is Better Together", "highlight": "Together",
            "subheading": "Connect, share your game, and build your golf circle",
        ],
    ]
}
