// What a job over many rows needs of its connection to the platform: the keys every signed call
// needs, checked before its journal is written, and one keep-alive pool for the whole run, so
// no row pays for a TCP (or TLS) handshake.
import {merchantKey, type ClientConfig} from '../../client/pipeline.js'
import {UsageError} from '../../errors.js'

/** Keys missing would fail every row after it was journalled: refused before. */
export function checkKeys(client: ClientConfig): void {
  merchantKey(client)
  if (client.verify && !client.platformKey) throw new UsageError('no platform public key to verify the answers with: set one in the profile, or pass --no-verify')
}

/** Runs the job with a client whose calls share one keep-alive pool, closed when the job ends. */
export async function withKeepAlive<T>(client: ClientConfig, job: (client: ClientConfig) => Promise<T>): Promise<T> {
  const [{Agent}, {Agent: HttpsAgent}] = await Promise.all([import('node:http'), import('node:https')])
  const agent = {http: new Agent({keepAlive: true}), https: new HttpsAgent({keepAlive: true})}
  try {
    return await job({...client, agent})
  } finally {
    agent.http.destroy()
    agent.https.destroy()
  }
}
