// corkboard-bot arrives with issue 6.
@main
struct Bot {
    static func main() { print("corkboard-bot: not built yet") }
}
