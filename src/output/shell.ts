// Values shown inside a command line a person may paste: quoted for a POSIX shell only when needed.
export const shellQuote = (value: string) => (/^[\w@%+=:,./-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`)

/** A command line to copy: `unipay` and the words, quoted for a shell where they must be. */
export const commandLine = (words: string[]) => ['unipay', ...words.map(shellQuote)].join(' ')
