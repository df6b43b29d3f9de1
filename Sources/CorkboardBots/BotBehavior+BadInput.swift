import CorkboardClient
import CorkboardModel
import CorkboardProtocol

extension BotBehavior {
    /// Sends the next bad message of the catalog and checks the `error` it gets: an expected code,
    /// echoing the ref when the server can read one. What else answered it is checked after the run
    /// (``BotMonitor``).
    mutating func sendBadInput() async throws(BoardClientError) {
        lastBadInput = ContinuousClock.now
        let catalog = BadInput.catalog
        let badCase = catalog[(index + badInputCount) % catalog.count]
        badInputCount += 1
        let ref = "\(BadInput.prefix)\(index + 1)-\(badInputCount)"
        let c = choices
        let place = c.places.first ?? Place(collection: "none", section: "none")
        let context = BadInput.Context(
            ref: ref, item: c.draggable.first ?? ItemID("\(ref)-item"), collection: place.collection,
            section: place.section, board: settings.board)
        let before = connection.state.errorCount
        guard connection.sendUnchecked(badCase.frame(context), isText: badCase.isText) else {
            throw BoardClientError(.notJoined, "Cannot send bad input \"\(badCase.name)\": the link is down.")
        }
        badRefs.append(ref)
        tally.update {
            $0.badInput.sent += 1
            $0.badInput.cases[badCase.name, default: 0] += 1
        }
        let state: BoardState
        do {
            state = try await connection.wait(
                "the error answering bad input \"\(badCase.name)\"", timeout: min(settings.timeout, .seconds(5))
            ) { $0.errorCount > before }
        } catch  where error.code == .timedOut {
            tally.update { $0.badInput.unanswered.append(badCase.name) }
            return
        }
        guard let error = state.lastError else { return }
        let codeFits = badCase.expected.contains(error.code)
        let refFits = !badCase.echoesRef || error.ref == ref
        tally.update { tally in
            if codeFits && refFits {
                tally.badInput.answered += 1
            } else if tally.badInput.wrongAnswers.count < 20 {
                let expected = badCase.expected.map(\.rawValue).sorted().joined(separator: " or ")
                tally.badInput.wrongAnswers.append(
                    "\(badCase.name): expected \(expected)\(badCase.echoesRef ? " answering \(ref)" : ""), got "
                        + "\(error.code.rawValue) answering \(error.ref ?? "nothing")")
            }
        }
    }
}
