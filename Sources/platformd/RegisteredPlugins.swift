import AFLFantasy
import AirFit
import PlatformCore
import StatLocker
import TeePals

/// The plugins this server hosts, one tenant each. A new app is one more line here.
enum RegisteredPlugins {
    static var all: [any OnboardingPlugin] {
        [
            StatLockerPlugin(),
            TeePalsPlugin(),
            AirFitPlugin(),
            AFLFantasyPlugin(),
        ]
    }
}
