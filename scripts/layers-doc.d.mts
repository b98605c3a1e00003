// Types of layers-doc.mjs, for test/architecture.test.ts.
export const DOC: string
export function layersSection(): string
export function withSection(doc: string): string
