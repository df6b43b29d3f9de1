import Foundation

/// Where the run talks to the person watching: notices and the live progress line on stderr (the
/// summary alone goes to stdout, so it can be piped).
public struct Console: Sendable {
    /// Print nothing but the summary.
    var quiet: Bool
    /// Show the live progress line.
    var showsProgress: Bool
    /// Whether stderr is a terminal: the progress line then redraws itself in place; otherwise it
    /// prints a new line each time.
    var progressIsTerminal: Bool

    /// A console; the progress line redraws itself in place when `progressIsTerminal`.
    public init(quiet: Bool, showsProgress: Bool, progressIsTerminal: Bool) {
        self.quiet = quiet
        self.showsProgress = showsProgress
        self.progressIsTerminal = progressIsTerminal
    }

    /// A notice on its own line, unless quiet.
    public func notice(_ text: String) {
        guard !quiet else { return }
        write((showsProgress && progressIsTerminal ? "\r\u{1B}[2K" : "") + text + "\n")
    }

    /// Redraws the progress line.
    func progress(_ line: String) {
        guard showsProgress else { return }
        write(progressIsTerminal ? "\r\u{1B}[2K" + line : line + "\n")
    }

    /// Clears the progress line before the summary.
    func endProgress() {
        guard showsProgress, progressIsTerminal else { return }
        write("\r\u{1B}[2K")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
