/// How a request the application refuses for now (``AdmissionRefusal``) is answered:
/// `429 Too Many Requests` with `Retry-After`, and a body saying why and how long to wait: a
/// readable HTML page for a browser (a request whose `Accept` names `text/html`), else one line.
enum RefusalAnswer {
    /// Whether an `Accept` header asks for HTML (a browser loading a page).
    static func wantsHTML(_ accept: String?) -> Bool {
        guard let accept else { return false }
        return accept.lowercased().contains("text/html")
    }

    /// The response for a refused page.
    static func response(_ refusal: AdmissionRefusal, html: Bool) -> HTTPResponse {
        let headers = [
            HTTPHeader("retry-after", "\(refusal.retryAfter)"), HTTPHeader("cache-control", "no-store"),
        ]
        if html {
            return HTTPResponse(
                status: 429, contentType: "text/html; charset=utf-8", body: Array(page(refusal).utf8), headers: headers)
        }
        return HTTPResponse(
            status: 429, contentType: "text/plain; charset=utf-8", body: Array("\(refusal.sentence)\n".utf8),
            headers: headers)
    }

    /// The HTML page: the reason as a sentence, the wait, what else to know, and a reload when
    /// the wait is over.
    static func page(_ refusal: AdmissionRefusal) -> String {
        let wait = refusal.retryAfter
        let seconds = wait == 1 ? "1 second" : "\(wait) seconds"
        var message = escape(refusal.message)
        if let first = message.first { message = first.uppercased() + message.dropFirst() }
        let detail = refusal.detail.map { "<p>\(escape($0))</p>\n" } ?? ""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="refresh" content="\(wait)">
            <title>Please wait \(seconds)</title>
            <style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;\
            line-height:1.5;color:#222}h1{font-size:1.5rem}</style>
            </head>
            <body>
            <h1>Please wait \(seconds)</h1>
            <p>\(message).</p>
            <p>Try again in \(seconds): this page reloads itself then.</p>
            \(detail)</body>
            </html>

            """
    }

    /// Text made safe to put between HTML tags.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
