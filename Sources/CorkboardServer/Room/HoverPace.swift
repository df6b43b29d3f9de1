/// How often one drag's hovers may reach its peers without waiting for the tick: one per tick on
/// average, with a burst of two, so a dragger hovering at the tick's own rate is never held back
/// by the jitter of its messages, while one hovering faster is coalesced to the tick's rate (the
/// latest hover at each tick), as the proposals contract asks.
///
/// A value kept in each `DragSession`, for `Drags.sendHovers`.
struct HoverPace {
    /// Hovers that may go at once; refills by one per tick, up to `burst`.
    private var credit = HoverPace.burst
    /// When `credit` was last brought up to date.
    private var updatedAt: BoardTime?

    /// Most hovers sent at once in a row after a quiet spell.
    static let burst = 2.0

    /// Whether a hover may go to peers now, taking its credit when it may. `force` (the tick's
    /// own send) always sends and leaves no credit behind it.
    mutating func admit(now: BoardTime, tick: Duration, force: Bool = false) -> Bool {
        if let updatedAt, tick > .zero {
            credit = min(Self.burst, credit + max(0, updatedAt.duration(to: now) / tick))
        }
        updatedAt = now
        if credit >= 1 {
            credit -= 1
            return true
        }
        if force { credit = 0 }
        return force
    }
}
