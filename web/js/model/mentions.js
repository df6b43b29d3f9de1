// @Name mentions in a comment (issue 41): "@Ada", "@Grace Hopper". A mention is an "@" at the start
// of the text or after anything but a letter, digit or "@" (so "ada@example.com" mentions nobody),
// followed by one of the board's names, whole: the next character is not a letter or digit. The
// longest name that fits wins ("@Grace Hopper" over "@Grace"); case is ignored, the name is kept
// as the board spells it. Pure: no DOM, so node tests load it.

const WORD = /[\p{L}\p{N}_]/u;

/**
 * The text cut into runs: {text} for plain text and {text, mention} where `text` (with its "@")
 * mentions the person `mention`. `names` are the board's people; blank names are ignored.
 */
export function mentionSegments(text, names) {
  const people = [...new Set((names || []).filter((n) => typeof n === "string" && n.trim()))]
    .sort((a, b) => b.length - a.length);
  const lowered = people.map((n) => n.toLowerCase());
  const segments = [];
  let plainFrom = 0;
  let at = text.indexOf("@");
  while (at >= 0) {
    let next = at + 1;
    const before = at > 0 ? text[at - 1] : "";
    if (!before || !(WORD.test(before) || before === "@")) {
      const rest = text.slice(at + 1).toLowerCase();
      const found = lowered.findIndex((name) => rest.startsWith(name) && !WORD.test(text[at + 1 + name.length] || ""));
      if (found >= 0) {
        if (at > plainFrom) segments.push({ text: text.slice(plainFrom, at) });
        next = at + 1 + people[found].length;
        segments.push({ text: text.slice(at, next), mention: people[found] });
        plainFrom = next;
      }
    }
    at = text.indexOf("@", next);
  }
  if (plainFrom < text.length) segments.push({ text: text.slice(plainFrom) });
  return segments;
}

/** The people a text mentions, each once, in the order they first appear. */
export function mentionsIn(text, names) {
  return [...new Set(mentionSegments(text, names).filter((s) => s.mention).map((s) => s.mention))];
}
