// Types of build.mjs, for test/helpers/fresh-dist.ts.
export const STAMP: string
export function build(root: string, options?: {keepComplete?: boolean; output?: 'inherit' | 'pipe'}): {status: number; report: string}
