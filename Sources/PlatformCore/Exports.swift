// Plugins and hosts see the wire types (JSONValue, FieldError, SessionView …) through
// PlatformCore, as they did before those types moved to the Foundation-only module.
@_exported import PlatformProtocol
