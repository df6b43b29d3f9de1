import { test } from "node:test";
import assert from "node:assert/strict";
import { contrast, luminance, readableTextOn } from "../../web/js/ui/contrast.js";

test("luminance and contrast follow WCAG 2.x", () => {
  assert.equal(luminance("#000000"), 0);
  assert.equal(luminance("#fff"), 1);
  assert.equal(luminance("not a colour"), null);
  assert.equal(contrast(1, 0), 21);
  // #767676 is the lightest grey that reads at 4.5:1 on white.
  assert.ok(contrast(1, luminance("#767676")) >= 4.5);
  assert.ok(contrast(1, luminance("#777777")) < 4.5);
});

test("badge text is white on dark colours and near-black on light ones", () => {
  assert.equal(readableTextOn("#2f9e44"), "#000"); // a light green: white would read at about 3.3:1
  assert.equal(readableTextOn("#1864ab"), "#fff");
  assert.equal(readableTextOn("#ffd43b"), "#000");
  assert.equal(readableTextOn("bogus"), "#fff");
  assert.equal(readableTextOn("#d9480f"), "#000"); // a mid orange: white 4.3:1, #111 4.39:1, black 4.9:1
  for (const colour of ["#2f9e44", "#1864ab", "#ffd43b", "#e8590c", "#862e9c", "#d9480f", "#777777"]) {
    const text = readableTextOn(colour) === "#fff" ? 1 : 0;
    assert.ok(contrast(text, luminance(colour)) >= 4.5, colour);
  }
});
