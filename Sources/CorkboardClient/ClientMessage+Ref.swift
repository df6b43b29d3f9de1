import CorkboardProtocol

extension ClientMessage {
    /// The opId of a submit, drop, undo or redo.
    var opID: String? {
        switch self {
        case .submit(let m): m.opId
        case .drop(let m): m.opId
        case .undo(let m), .redo(let m): m.opId
        default: nil
        }
    }

    /// The same message with `ref` set (messages without a ref are returned unchanged).
    func withRef(_ ref: String) -> ClientMessage {
        switch self {
        case .hello(var m):
            m.ref = ref
            return .hello(m)
        case .submit(var m):
            m.ref = ref
            return .submit(m)
        case .dragBegin(var m):
            m.ref = ref
            return .dragBegin(m)
        case .dragAdd(var m):
            m.ref = ref
            return .dragAdd(m)
        case .dropUpdate(var m):
            m.ref = ref
            return .dropUpdate(m)
        case .drop(var m):
            m.ref = ref
            return .drop(m)
        case .dragEnd(var m):
            m.ref = ref
            return .dragEnd(m)
        case .sync(var m):
            m.ref = ref
            return .sync(m)
        case .ping(var m):
            m.ref = ref
            return .ping(m)
        case .editBegin(var m):
            m.ref = ref
            return .editBegin(m)
        case .editEnd(var m):
            m.ref = ref
            return .editEnd(m)
        case .undo(var m):
            m.ref = ref
            return .undo(m)
        case .redo(var m):
            m.ref = ref
            return .redo(m)
        case .listMembers(var m):
            m.ref = ref
            return .listMembers(m)
        case .cursor, .presence:
            return self
        }
    }
}
