// Everyone on the board as the room reports them: the members (memberJoined, memberLeft,
// presence), their live drags (dragStarted, dragItems, dragHover, dragEnded) and their pointers
// (cursor). State only; the owner draws it when told through `handlers` (all optional):
//   members()             a member joined, left or changed presence
//   drags()               a peer's drag started, changed or ended
//   cursor(member, x, y)  a peer's pointer moved
//   left(memberId)        a member left
//   log(event)            notable events, for tests and debugging
//
// A person keeps one colour for the whole visit: the room picks colours in join order, so a
// reconnect brings a new one and the eleventh member repeats the first's. The page keeps the first
// colour it saw for each client id, and when that colour is already someone else's here it takes
// the first free one of a wider palette.

/** The room's palette (Room+Membership.swift) and ten more, for when those are taken. */
const PALETTE = [
  "#d9480f", "#1971c2", "#2f9e44", "#ae3ec9", "#e8590c", "#0c8599", "#c2255c", "#5c940d", "#6741d9", "#f08c00",
  "#364fc7", "#087f5b", "#a61e4d", "#862e9c", "#e67700", "#1098ad", "#495057", "#d6336c", "#74b816", "#5f3dc4",
];

export class Members {
  constructor(handlers = {}) {
    this.handlers = handlers;
    this.me = null;
    this.byId = new Map(); // member id → member, in join order
    this.drags = new Map(); // "member/session" → DragState of a peer's drag
    this.colors = new Map(); // client id → the colour it keeps for this visit
  }

  /** Gives a member the colour its person keeps (the room's colour is kept as `roomColor`). */
  #adopt(member) {
    member.roomColor ??= member.color;
    let color = this.colors.get(member.clientId);
    if (!color) {
      const taken = new Set([...this.byId.values()].filter((m) => m.clientId !== member.clientId).map((m) => m.color));
      color = !taken.has(member.roomColor) ? member.roomColor : PALETTE.find((c) => !taken.has(c)) ?? member.roomColor;
      this.colors.set(member.clientId, color);
    }
    member.color = color;
    return member;
  }

  #emit(name, ...args) {
    this.handlers[name]?.(...args);
  }

  /** From a welcome: who we are, who is there, and what they are dragging (not our own old drags). */
  welcome(w) {
    this.byId = new Map();
    for (const m of w.members) this.byId.set(m.id, this.#adopt(m));
    this.me = this.byId.get(w.member.id) || this.#adopt(w.member);
    this.drags = new Map(w.drags.filter((d) => d.member !== w.member.id).map((d) => [`${d.member}/${d.session}`, d]));
  }

  /** The connection dropped: the room ended every drag it had sent; the next welcome resends them. */
  disconnected() {
    this.drags.clear();
  }

  /** The member color of a client id, when one of its connections is here. */
  colorOfClient(clientId) {
    return this.colors.get(clientId) || null;
  }

  /** The name of a client id's person, when one of its connections is here. */
  nameOfClient(clientId) {
    for (const m of this.byId.values()) if (m.clientId === clientId) return m.name;
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
        this.byId.set(message.id, this.#adopt(message));
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
