// libFuzzer target: the wire protocol's readers. Every input is decoded as a client message
// (FastJSON's one-pass reader, JSONPrecheck, JSONDecoder, MessageValidation) and as a server
// message; any outcome but a crash is fine, and a decoded client message must encode and decode
// to itself.
import CorkboardProtocol
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let message = try? WireCodec.decodeClientMessage(bytes) {
        let again = WireCodec.encode(message)
        guard let back = try? WireCodec.decodeClientMessage(again), back == message else {
            fatalError("a decoded client message does not survive encode and decode: \(message)")
        }
    }
    _ = try? WireCodec.decodeServerMessage(bytes)
    return 0
}
