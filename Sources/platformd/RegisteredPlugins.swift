import AFLFantasy
import AirFit
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import StatLocker
import TeePals

/// The plugins this server can host. A new app is one more line here; without a tenants file
/// each is served as one tenant under its default id.
enum RegisteredPlugins {
    static let registrations: [PluginRegistration] = [
        StatLockerPlugin.registration,
        TeePalsPlugin.registration,
        AirFitPlugin.registration,
        AFLFantasyPlugin.registration,
    ]

    /// The default tenants: one per plugin, default settings (version 1's set-up), handed the
    /// server's HTTP client for what a plugin sends outside.
    static var defaultTenants: [HostedTenant] {
        TenantsConfiguration.defaults(registrations, environment: ProcessInfo.processInfo.environment, outbound: ServerOutboundHTTP())
    }
}
