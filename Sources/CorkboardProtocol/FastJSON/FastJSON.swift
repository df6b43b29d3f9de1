import CorkboardModel

/// Hand-written JSON for the messages a busy room reads and writes most: `dropUpdate`, `drop`,
/// `dragBegin` of board items and `submit` of a `move` in, `proposal`, `dragHover`, `dragStarted`,
/// `dragGranted`, `dragEnded` and the committed `move` (as `op` and `ack`) out.
///
/// Foundation's `JSONDecoder` and `JSONEncoder` pay generic Codable machinery, metadata lookups
/// and one allocation per value for every small message, which made JSON most of a room's CPU
/// time under load. These paths produce exactly the values
/// the Codable ones do:
/// - decoding accepts only a plain subset of JSON (no escapes, `null`, fractions, exponents or
///   repeated keys; only the message's own keys) and returns `nil` for anything else, which then
///   goes through `JSONDecoder` as before, so errors and unusual input are handled in one place;
/// - encoding writes the same keys and values as the synthesized `Encodable` conformances (keys in
///   declaration order, absent optionals left out).
enum FastJSON {}
