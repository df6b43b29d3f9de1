// Everyone on the board as the room reports them: the members (welcome, membersChanged,
// memberList, presence), their live drags (dragStarted, dragItems, dragHover, dragEnded) and their
// pointers (cursor), who edits which card (welcome.edits, editStarted, editEnded: R12) and the names
// of the board's people for "Assign" (welcome.names and who joins since). State only; the owner draws it when told through `handlers` (all optional):
//   members()             a member joined, left or changed presence, or the count changed
//   drags()               a peer's drag started, changed or ended
//   edits()               someone began or stopped editing a card ("Ada is editing")
//   cursor(member, x, y, checklist)  a peer's pointer moved (`checklist`: the checklist item it drags, if any)
//   left(memberId)        a member left
//   need(ids)             members were mentioned that the page does not know yet: ask listMembers
//   log(event)            notable events, for tests and debugging
//
// On a big board the page knows only some members: a welcome lists up to 32 and each
// membersChanged up to 32 joins; `count` is how many are connected. A drag, pointer or presence of
// a member not known yet asks for it (`need`), once.
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

/** The most names of the board's people kept (the room's `KnownNames.limit`). */
const KNOWN_NAMES = 100;

export class Members {
  constructor(handlers = {}) {
    this.handlers = handlers;
    this.me = null;
    this.byId = new Map(); // member id → member, in join order
    this.drags = new Map(); // "member/session" → DragState of a peer's drag
    this.colors = new Map(); // client id → the colour it keeps for this visit
    this.count = 0; // members connected, this one included
    this.asked = new Set(); // member ids already asked for with listMembers
    this.edits = new Map(); // item id → member id editing it (R12), this member's own lease included
    this.known = []; // the board's people's names the room knows (welcome.names), most recent first
  }

  /**
   * The names of the board's people, for "Assign" (issue 41): those here now (in join order), then
   * the others the room remembers (who joined before, who the activity feed names), each once.
   */
  peopleNames() {
    return [...new Set([...[...this.byId.values()].map((m) => m.name), ...this.known])];
  }

  /** Notes names seen join (most recent first), bounded like the room's list. */
  #remember(names) {
    if (names.length === 0) return;
    this.known = [...new Set([...names.slice().reverse(), ...this.known])].slice(0, KNOWN_NAMES);
  }

  /** The member editing an item, other than this one: {id, name} (name "Someone" until known). */
  editorOf(itemId) {
    const id = this.edits.get(itemId);
    if (!id || id === this.me?.id) return null;
    return { id, name: this.byId.get(id)?.name || "Someone" };
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

  /** Adds the members not known yet, takes the room's count, and tells the views. */
  #addAll(members, count) {
    for (const m of members) {
      const known = this.byId.get(m.id);
      // A member seen again (an admin changed a person's role: same id) takes its new role and names.
      if (known) Object.assign(known, { role: m.role, name: m.name, alias: m.alias, person: m.person });
      else this.byId.set(m.id, this.#adopt(m));
    }
    this.count = count;
    this.#emit("members");
    this.#emit("drags");
  }

  #emit(name, ...args) {
    this.handlers[name]?.(...args);
  }

  /** From a welcome: who we are, who is there, and what they are dragging (not our own old drags). */
  welcome(w) {
    this.byId = new Map();
    this.asked = new Set();
    this.count = w.memberCount ?? w.members.length;
    for (const m of w.members) this.byId.set(m.id, this.#adopt(m));
    this.me = this.byId.get(w.member.id) || this.#adopt(w.member);
    this.drags = new Map(w.drags.filter((d) => d.member !== w.member.id).map((d) => [`${d.member}/${d.session}`, d]));
    this.edits = new Map((w.edits || []).map((e) => [e.item, e.member]));
    this.known = (w.names || []).slice(0, KNOWN_NAMES);
    this.#know([...this.edits.values()]);
    this.#emit("edits");
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

  /** Asks (once) for members mentioned but not known yet. */
  #know(ids) {
    const unknown = [...new Set(ids)].filter((id) => id && !this.byId.has(id) && !this.asked.has(id));
    if (unknown.length === 0) return;
    for (const id of unknown) this.asked.add(id);
    this.#emit("need", unknown);
  }

  /** Takes a message about members, their drags or pointers; returns false for any other. */
  receive(message) {
    const key = `${message.member}/${message.session}`;
    switch (message.type) {
      case "dragStarted":
        this.#know([message.member]);
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
      case "membersChanged":
        // Leaves first: a client resuming on a new connection is in both lists.
        for (const id of message.left) {
          this.byId.delete(id);
          this.asked.delete(id);
          for (const [k, drag] of this.drags) if (drag.member === id) this.drags.delete(k);
          this.#emit("left", id);
        }
        this.#remember(message.joined.map((m) => m.name));
        this.#addAll(message.joined, message.count);
        return true;
      case "memberList":
        this.#addAll(message.members, message.count);
        return true;
      case "editStarted":
        this.#know([message.member]);
        this.edits.set(message.item, message.member);
        this.#emit("edits");
        return true;
      case "editEnded":
        if (this.edits.get(message.item) === message.member) this.edits.delete(message.item);
        this.#emit("edits", message);
        return true;
      case "cursor": {
        this.#know([message.member]);
        const m = this.byId.get(message.member);
        if (m) this.#emit("cursor", m, message.x, message.y, message.checklist ?? null);
        return true;
      }
      case "presence": {
        this.#know([message.member]);
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
