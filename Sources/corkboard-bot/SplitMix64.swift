/// A small seeded random number generator, so a bot's choices repeat for the same `--seed`.
///
/// Only the choices repeat: which action, which items, which targets. The interleaving with other
/// bots and the server's answers still vary from run to run, and choices follow the board each bot
/// sees, so two runs diverge once their boards do.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    init(seed: UInt64) { state = seed }

    /// The generator of bot `index` in a run seeded with `seed`: independent streams per bot.
    static func forBot(_ index: Int, seed: UInt64) -> SplitMix64 {
        SplitMix64(seed: seed &+ UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Whether an event of probability `p` happens.
    mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double.random(in: 0..<1, using: &self) < p
    }
}
