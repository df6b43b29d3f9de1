// Text that stays readable on a coloured background: WCAG 2.x relative luminance and contrast.
// Member badges take their background from the server's palette; some of its colours are too
// light for white text (4.5:1 is the bar for normal text), and those get dark text instead.

/** The relative luminance of a `#rrggbb` (or `#rgb`) colour, or null when it is not one. */
export function luminance(hex) {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(hex).trim());
  if (!m) return null;
  const digits = m[1].length === 3 ? [...m[1]].map((d) => d + d).join("") : m[1];
  const channel = (i) => {
    const c = parseInt(digits.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** The contrast ratio of two luminances (1 to 21). */
export function contrast(a, b) {
  const [hi, lo] = a > b ? [a, b] : [b, a];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * White when it reads at 4.5:1 or better on `background`, else black (unknown colours: white).
 * One of the two always reads at 4.58:1 or better; a near-black would not on mid-tone oranges.
 */
export function readableTextOn(background) {
  const l = luminance(background);
  if (l === null) return "#fff";
  return contrast(1, l) >= 4.5 ? "#fff" : "#000";
}
