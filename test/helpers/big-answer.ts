// A server whose every answer is 50 MB of JSON-looking bytes, written with back-pressure, that
// counts what it managed to send before the client hung up.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export const BIG_ANSWER_BYTES = 50 * 1024 * 1024

export interface BigAnswerServer {
  url: string
  /** Bytes handed to the socket for the latest request, once it ended or was cut. */
  sent(): Promise<number>
  close(): Promise<void>
}

export async function bigAnswerServer(options: {declareLength: boolean}): Promise<BigAnswerServer> {
  let done: Promise<number> = Promise.resolve(0)
  const server: Server = createServer((req, res) => {
    req.resume()
    done = new Promise((resolve) => {
      let written = 0
      const chunk = Buffer.alloc(64 * 1024, 'a')
      res.writeHead(200, {'content-type': 'application/json', ...(options.declareLength ? {'content-length': BIG_ANSWER_BYTES} : {})})
      res.write('{"code":0,"data":"')
      const pump = () => {
        while (written < BIG_ANSWER_BYTES && !res.destroyed) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        if (!res.destroyed) res.end('"}')
        resolve(written)
      }
      res.on('close', () => resolve(written))
      pump()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => done,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
