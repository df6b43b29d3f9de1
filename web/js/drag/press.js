// A press that may become a drag, for card drags (drag.js) and collection drags (collection-drag.js):
// a mouse or pen lifts once it moves past `mouseSlop` pixels, a touch once it rests `longPressMs`
// (a finger that moves past `touchSlop` first is scrolling the page: the press is abandoned).

export class Press {
  /**
   * @param {object} options
   *   mouseSlop, touchSlop  pixels a press may move before it lifts (mouse, pen) or is abandoned (touch)
   *   longPressMs           how long a touch rests before it lifts
   *   lift(press, x, y)     makes the drag of a press, the pointer being at (x, y)
   */
  constructor({ mouseSlop, touchSlop, longPressMs, lift }) {
    Object.assign(this, { mouseSlop, touchSlop, longPressMs, lift });
    this.current = null; // {pointerId, type, x, y, timer, …what the drag needs}
  }

  /** Starts a press at a pointerdown, carrying `fields` (what the drag needs) to `lift`. */
  start(event, fields) {
    this.current = { pointerId: event.pointerId, type: event.pointerType, x: event.clientX, y: event.clientY, timer: null, ...fields };
    if (event.pointerType === "touch") {
      this.current.timer = setTimeout(() => this.current && this.#lift(this.current.x, this.current.y), this.longPressMs);
    }
  }

  /** Whether an event is the press's pointer. */
  owns(event) {
    return !!this.current && event.pointerId === this.current.pointerId;
  }

  /** Follows a pointermove; whether it was the press's pointer. */
  move(event) {
    if (!this.owns(event)) return false;
    const distance = Math.hypot(event.clientX - this.current.x, event.clientY - this.current.y);
    if (this.current.type === "touch") {
      if (distance > this.touchSlop) this.abandon();
    } else if (distance > this.mouseSlop) {
      this.#lift(event.clientX, event.clientY);
    }
    return true;
  }

  /** A pointerup or pointercancel: the press's pointer let go before it lifted. */
  end(event) {
    if (this.owns(event)) this.abandon();
  }

  abandon() {
    clearTimeout(this.current?.timer);
    this.current = null;
  }

  #lift(x, y) {
    const press = this.current;
    this.abandon();
    this.lift(press, x, y);
  }
}
