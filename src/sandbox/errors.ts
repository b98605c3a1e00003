// A platform answer with a non-zero code (protocol-notes section 2).
export class PlatformFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

export const fail = (code: number, message: string): never => {
  throw new PlatformFailure(code, message)
}
