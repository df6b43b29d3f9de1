// How fast a drag near a scroller's edge scrolls it, as plain functions of numbers (no DOM, no
// clock: auto-scroll.js passes the frame's timestamp, node's tests pass their own).
//
// - Continuous scrolling (a collection's cards, a wide board): the speed grows with how deep the
//   pointer is into the edge zone, from 0 at its inner border to `maxSpeed` px/s at the edge, and
//   a frame moves `speed × elapsed time`, the elapsed time capped so a late frame never jumps.
// - Paged scrolling (a phone's board, one collection per screen, snapped): one collection per
//   deliberate dwell: the pointer has to stay in the edge zone for `dwellMs` before the board turns
//   one page, and then again for another `dwellMs` (counted once the page has turned) before the next.

/** Default bounds: the edge zone's depth (px), the fastest continuous speed (px/s), the longest frame counted (ms), the dwell before a page turns (ms), the speed a page turns at (px/s). */
export const EDGE_ZONE = 48;
export const MAX_SPEED = 600;
export const MAX_FRAME_MS = 50;
export const PAGE_DWELL_MS = 500;
export const PAGE_SPEED = 1200;

/**
 * Signed speed (px/s) for a pointer at `position` on an axis running from `start` to `end`:
 * negative towards `start`, positive towards `end`, 0 outside both edge zones. The zone shrinks to
 * a third of the scroller on a small one, so its two zones never overlap.
 */
export function edgeSpeed(position, start, end, zone = EDGE_ZONE, maxSpeed = MAX_SPEED) {
  const depthZone = Math.min(zone, (end - start) / 3);
  if (!(depthZone > 0)) return 0;
  const fromStart = position - start;
  const fromEnd = end - position;
  if (fromStart < depthZone) return -maxSpeed * depthOf(fromStart, depthZone);
  if (fromEnd < depthZone) return maxSpeed * depthOf(fromEnd, depthZone);
  return 0;
}

/** How deep (0…1) a pointer `distance` px from the edge is into a zone of `zone` px (beyond the edge counts as the edge). */
function depthOf(distance, zone) {
  return Math.min(1, Math.max(0, 1 - Math.max(0, distance) / zone));
}

/** The pixels a frame scrolls at `speed` px/s, `elapsedMs` after the last frame (capped at `maxFrameMs`; the first frame, with no last one, scrolls nothing). */
export function scrollStep(speed, elapsedMs, maxFrameMs = MAX_FRAME_MS) {
  if (!(elapsedMs > 0)) return 0;
  return (speed * Math.min(elapsedMs, maxFrameMs)) / 1000;
}

/**
 * The dwell of a paged scroller: `update(now, direction)` each frame with the edge the pointer is
 * in (-1, 0 or 1) returns the direction to turn a page in this frame, or 0. Leaving the zone or
 * moving to the other edge starts the dwell again; after a turn, `turned(now)` (called when the
 * page has finished turning) starts it again too.
 */
export class EdgeDwell {
  constructor(dwellMs = PAGE_DWELL_MS) {
    this.dwellMs = dwellMs;
    this.direction = 0;
    this.since = 0;
    this.turning = false;
  }

  update(now, direction) {
    if (direction !== this.direction) {
      this.direction = direction;
      this.since = now;
    }
    if (!direction || this.turning || now - this.since < this.dwellMs) return 0;
    this.turning = true;
    return direction;
  }

  /** The page has turned: the next turn needs a whole dwell from `now`. */
  turned(now) {
    this.turning = false;
    this.since = now;
  }
}

/** The next scroll offset on the way from `current` to `target` at `speed` px/s after `elapsedMs` (never past the target). */
export function approach(current, target, speed, elapsedMs, maxFrameMs = MAX_FRAME_MS) {
  const step = scrollStep(speed, elapsedMs, maxFrameMs);
  if (Math.abs(target - current) <= step) return target;
  return current + Math.sign(target - current) * step;
}
