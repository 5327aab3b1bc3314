import PlatformStorage

/// Wakes the delivery worker: the platform rings after a commit that wrote an event, and a
/// finished delivery rings that a slot is free.
public typealias OutboxSignal = Wakeup
