// The management API's routes (/token/*, /mch/*): each answers Result {code, message, data},
// unsigned; the login token travels in the Accesstoken header.
import {HttpFailure, type Management} from './management.js'
import {PlatformFailure} from './errors.js'

interface ManagementRoute {
  method: 'GET' | 'POST'
  path: string
  handle(url: URL, rawText: string, token: string | undefined): unknown
}

export function createManagementApi(management: Management) {
  const routes: ManagementRoute[] = [
    {method: 'GET', path: '/token/public-key', handle: () => management.publicKey()},
    {method: 'POST', path: '/token/login', handle: (_, rawText) => management.login(new URLSearchParams(rawText))},
    {method: 'GET', path: '/mch/order/refund/page', handle: (url, _, token) => management.refundPage(token, url.searchParams)},
    {method: 'GET', path: '/mch/order/refund/get-by-id', handle: (url, _, token) => management.refundById(token, url.searchParams)},
  ]

  return {
    handle(method: string, url: URL, rawText: string, token: string | undefined): {status: number; body: unknown} {
      const found = routes.find((route) => route.method === method && route.path === url.pathname)
      if (!found) return {status: 404, body: {code: 10404, message: `no route ${method} ${url.pathname}`, data: null}}
      try {
        return {status: 200, body: {code: 0, message: 'success', data: found.handle(url, rawText, token)}}
      } catch (error) {
        if (error instanceof HttpFailure) return {status: error.httpStatus, body: {code: error.code, message: error.message, data: null}}
        if (error instanceof PlatformFailure) return {status: 200, body: {code: error.code, message: error.message, data: null}}
        throw error
      }
    },
  }
}

export type ManagementApi = ReturnType<typeof createManagementApi>
