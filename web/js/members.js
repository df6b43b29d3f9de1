// Everyone on the board as the room reports them: the members (memberJoined, memberLeft,
// presence), their live drags (dragStarted, dragItems, dragHover, dragEnded) and their pointers
// (cursor). State only; the owner draws it when told through `handlers` (all optional):
//   members()             a member joined, left or changed presence
//   drags()               a peer's drag started, changed or ended
//   cursor(member, x, y)  a peer's pointer moved
//   left(memberId)        a member left
//   log(event)            notable events, for tests and debugging

export class Members {
  constructor(handlers = {}) {
    this.handlers = handlers;
    this.me = null;
    this.byId = new Map(); // member id → member, in join order
    this.drags = new Map(); // "member/session" → DragState of a peer's drag
  }

  #emit(name, ...args) {
    this.handlers[name]?.(...args);
  }

  /** From a welcome: who we are, who is there, and what they are dragging (not our own old drags). */
  welcome(w) {
    this.me = w.member;
    this.byId = new Map(w.members.map((m) => [m.id, m]));
    this.drags = new Map(w.drags.filter((d) => d.member !== w.member.id).map((d) => [`${d.member}/${d.session}`, d]));
  }

  /** The connection dropped: the room ended every drag it had sent; the next welcome resends them. */
  disconnected() {
    this.drags.clear();
  }

  /** The member color of a client id, when one of its connections is here. */
  colorOfClient(clientId) {
    for (const m of this.byId.values()) if (m.clientId === clientId) return m.color;
    return null;
  }

  /** Takes a message about members, their drags or pointers; returns false for any other. */
  receive(message) {
    const key = `${message.member}/${message.session}`;
    switch (message.type) {
      case "dragStarted":
        this.drags.set(key, message);
        this.#emit("log", { event: "remote-lift", member: message.member, items: message.items });
        this.#emit("drags");
        return true;
      case "dragItems": {
        const drag = this.drags.get(key);
        if (drag) drag.items = message.items;
        this.#emit("drags");
        return true;
      }
      case "dragHover": {
        const drag = this.drags.get(key);
        if (drag) {
          drag.target = message.target;
          drag.proposal = message.proposal;
        }
        this.#emit("drags");
        return true;
      }
      case "dragEnded":
        this.drags.delete(key);
        this.#emit("drags");
        return true;
      case "memberJoined":
        this.byId.set(message.id, message);
        this.#emit("members");
        this.#emit("drags");
        return true;
      case "memberLeft":
        this.byId.delete(message.member);
        for (const [k, drag] of this.drags) if (drag.member === message.member) this.drags.delete(k);
        this.#emit("left", message.member);
        this.#emit("members");
        this.#emit("drags");
        return true;
      case "cursor": {
        const m = this.byId.get(message.member);
        if (m) this.#emit("cursor", m, message.x, message.y);
        return true;
      }
      case "presence": {
        const m = this.byId.get(message.member);
        if (m) m.presence = message.state;
        this.#emit("members");
        return true;
      }
      default:
        return false;
    }
  }
}
