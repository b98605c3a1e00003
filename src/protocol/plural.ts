// Counts in messages, for every layer that words one ("1 row", "2 rows").

/** "1 row", "2 rows". */
export const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`
