public import CorkboardProtocol
public import CorkboardStorage
import Dispatch
import Logging

/// The catalog's side of a board's people (issue 45): a `hello` that claims an invite or presents
/// a device is resolved here, in one catalog transaction, before it reaches the room; an admin's
/// change is saved here for the room (`BoardAccessWriter`). Both run on the directory's access
/// queue, never on a transport thread or a room's.
extension BoardDirectory: BoardAccessWriter {
    /// Claims `hello.invite` for `hello.device`, or finds the device's person, in one transaction
    /// of the catalog (a one-use invite cannot be claimed twice, also by two nodes at once);
    /// their `lastSeen` becomes now.
    ///
    /// - Returns: the person and the board's people as saved, or the `hello`'s error: an
    ///   invite's or device's refusal (`invite-unknown`, `invite-expired`, `invite-used`,
    ///   `invite-revoked`, `removed`, `bad-key` for a device without a person), `bad-key` for an
    ///   unknown board (answered like a wrong key), `internal` when the catalog fails.
    public func resolvePerson(_ hello: ClientMessage.Hello) async -> Result<PersonJoin, ProtocolError> {
        await withCheckedContinuation { continuation in
            accessQueue.async { continuation.resume(returning: self.resolvePersonNow(hello)) }
        }
    }

    private func resolvePersonNow(_ hello: ClientMessage.Hello) -> Result<PersonJoin, ProtocolError> {
        guard let device = hello.device else {
            return .failure(
                ProtocolError(.missingField, "Send device with an invite.", field: "device", ref: hello.ref))
        }
        let digest = DeviceKey.digest(device)
        let now = clock.now.secondsSince1970
        var person: Person?
        do {
            let record = try catalog.updateRecord(hello.board) { record in
                if let token = hello.invite {
                    person = try record.people.claim(token: token, device: digest, now: now)
                } else {
                    person = try record.people.arrive(device: digest, now: now, board: record.id)
                }
            }
            adopt(record)
            if let person { return .success(PersonJoin(person: person, people: record.people)) }
            return .failure(ProtocolError(.internalError, "The claim found nobody; try again.", ref: hello.ref))
        } catch let refusal as PeopleRefusal {
            return .failure(ProtocolError(refusal, ref: hello.ref))
        } catch is CatalogError {
            // No such board (the catalog's only error here): like a wrong key: the answer does not tell which board ids exist.
            return .failure(
                ProtocolError(
                    .badKey, "The key opens neither editing nor viewing \(hello.board); check the share link.",
                    field: "key", ref: hello.ref))
        } catch {
            logger.error(
                "cannot resolve a person's hello", metadata: ["board": "\(hello.board)", "error": "\(error)"])
            return .failure(
                ProtocolError(.internalError, "The board's people could not be read; try again.", ref: hello.ref))
        }
    }

    /// Saves an admin's change of a board's people in one catalog transaction, on the access queue.
    public func change(
        board: String, _ change: PeopleChange,
        completion: @escaping @Sendable (Result<(BoardRecord, Invite?), any Error>) -> Void
    ) {
        accessQueue.async {
            let now = self.clock.now.secondsSince1970
            do {
                var created: Invite?
                let record = try self.catalog.updateRecord(board) { record in
                    created = try record.apply(change, now: now)
                }
                self.adopt(record)
                completion(.success((record, created)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
