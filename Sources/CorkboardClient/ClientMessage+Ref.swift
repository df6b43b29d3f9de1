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
        case .hello(let m): .hello(setting(ref, at: \.ref, in: m))
        case .submit(let m): .submit(setting(ref, at: \.ref, in: m))
        case .dragBegin(let m): .dragBegin(setting(ref, at: \.ref, in: m))
        case .dragAdd(let m): .dragAdd(setting(ref, at: \.ref, in: m))
        case .dropUpdate(let m): .dropUpdate(setting(ref, at: \.ref, in: m))
        case .drop(let m): .drop(setting(ref, at: \.ref, in: m))
        case .dragEnd(let m): .dragEnd(setting(ref, at: \.ref, in: m))
        case .sync(let m): .sync(setting(ref, at: \.ref, in: m))
        case .ping(let m): .ping(setting(ref, at: \.ref, in: m))
        case .editBegin(let m): .editBegin(setting(ref, at: \.ref, in: m))
        case .editEnd(let m): .editEnd(setting(ref, at: \.ref, in: m))
        case .undo(let m): .undo(setting(ref, at: \.ref, in: m))
        case .redo(let m): .redo(setting(ref, at: \.ref, in: m))
        case .listMembers(let m): .listMembers(setting(ref, at: \.ref, in: m))
        case .activity(let m): .activity(setting(ref, at: \.ref, in: m))
        case .people(let m): .people(m.withRef(ref))
        case .cursor, .presence: self
        }
    }
}

extension PeopleRequest {
    /// The same request with `ref` set.
    func withRef(_ ref: String) -> PeopleRequest {
        switch self {
        case .listPeople(let m): .listPeople(setting(ref, at: \.ref, in: m))
        case .createInvite(let m): .createInvite(setting(ref, at: \.ref, in: m))
        case .updateInvite(let m): .updateInvite(setting(ref, at: \.ref, in: m))
        case .setRole(let m): .setRole(setting(ref, at: \.ref, in: m))
        case .removePerson(let m): .removePerson(setting(ref, at: \.ref, in: m))
        case .setLinks(let m): .setLinks(setting(ref, at: \.ref, in: m))
        case .rotateLinks(let m): .rotateLinks(setting(ref, at: \.ref, in: m))
        }
    }
}

/// `message` with `ref` at `key` (a message's own `ref`).
private func setting<M>(_ ref: String, at key: WritableKeyPath<M, String?>, in message: M) -> M {
    var message = message
    message[keyPath: key] = ref
    return message
}
