// Values shown inside a command line a person may paste: quoted for a POSIX shell only when needed.
export const shellQuote = (value: string) => (/^[\w@%+=:,./-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`)
