// Text someone else chose (answers, callbacks, requests, files) made safe to print (notes §1,
// "Other people's bytes"): terminal controls (C0, DEL, C1) and the bidi controls become visible
// `\uXXXX`, so they can neither drive a terminal (retitle it, clear it, paint fake rows) nor
// reorder what it shows; so do the line and paragraph separators, which break a line where none
// is seen. Zero-width joiners stay: emoji are made of them. JSON text stays JSON with the same meaning: it holds no raw C0, and
// `\uXXXX` is JSON's own escape for the others.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
// eslint-disable-next-line no-control-regex -- as above, line feeds and tabs too
const UNSAFE_IN_A_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/** Line feeds and tabs kept (they are the layout of what is printed). */
export function printable(text: string): string {
  return text.replace(UNSAFE, escape)
}

/** For one value inside a line: its line feeds and tabs escaped too, so it cannot fake a line. */
export function printableValue(text: string): string {
  return text.replace(UNSAFE_IN_A_LINE, escape)
}
