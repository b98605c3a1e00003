// One launcher for every browser test. Debian's chromium when it is installed; otherwise the
// Chromium that the @sparticuz/chromium devDependency ships, so a fresh machine runs the browser
// tests too. UNIPAY_TEST_BROWSER=npm forces the npm-shipped one (CI runs it that way once, so
// the fallback cannot rot).
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, renameSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {chromium, type Browser, type Page} from 'playwright-core'
import {privateFolders} from './env.js'

const DEBIAN_CHROMIUM = '/usr/bin/chromium'
/** Version of the npm browser, so an upgrade unpacks afresh instead of reusing an old binary. */
const NPM_BROWSER_VERSION = '153.0.0'
/** No network on CI machines: nothing in the browser may call home. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url))

export type BrowserKind = 'debian' | 'npm'

/** Which browser this run uses. */
export function browserKind(): BrowserKind {
  const forced = process.env.UNIPAY_TEST_BROWSER
  if (forced === 'npm' || forced === 'debian') return forced
  if (forced) throw new Error(`UNIPAY_TEST_BROWSER must be npm or debian, not ${forced}`)
  return existsSync(DEBIAN_CHROMIUM) ? 'debian' : 'npm'
}

/**
 * Unpacks the npm-shipped Chromium once per machine into its own folder under the temp folder.
 * The package unpacks into `tmpdir()` and trusts any file already there, so two test files
 * starting together would each see the other's half-written binary: unpack into a private
 * staging folder, then rename it into place (the first complete one wins).
 */
async function npmChromium(): Promise<{executablePath: string; args: string[]}> {
  const {default: Chromium} = await import('@sparticuz/chromium')
  const home = join(tmpdir(), `unipay-chromium-${NPM_BROWSER_VERSION}`)
  const binary = join(home, 'chromium')
  if (!existsSync(binary)) {
    mkdirSync(tmpdir(), {recursive: true})
    const staging = mkdtempSync(join(tmpdir(), `unipay-chromium-${NPM_BROWSER_VERSION}-staging-`))
    // The package reads TMPDIR synchronously when it starts unpacking, so the override stays local.
    const saved = process.env.TMPDIR
    process.env.TMPDIR = staging
    let unpacking: Promise<string>
    try {
      unpacking = Chromium.executablePath()
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
    }
    await unpacking
    try {
      renameSync(staging, home)
    } catch {
      // another test file finished first: use its copy
      rmSync(staging, {recursive: true, force: true})
    }
  }
  // The package's own flags, but not its headless-shell switch (playwright sets headless) nor
  // single-process mode, where closing one page's context takes the whole browser down.
  const args = Chromium.args.filter((arg) => !arg.startsWith('--headless') && arg !== '--single-process')
  return {executablePath: binary, args}
}

/** Starts a headless browser; close it in afterAll. */
export async function launchBrowser(): Promise<Browser> {
  // a HOME of its own (Chromium keeps crash reports and settings there), removed when it closes
  const home = mkdtempSync(join(tmpdir(), 'unipay-browser-'))
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  Object.assign(env, privateFolders(home))
  let launching: Promise<Browser>
  if (browserKind() === 'debian') {
    if (!existsSync(DEBIAN_CHROMIUM)) throw new Error(`UNIPAY_TEST_BROWSER=debian but ${DEBIAN_CHROMIUM} is missing: apt-get install chromium fonts-wqy-zenhei`)
    launching = chromium.launch({executablePath: DEBIAN_CHROMIUM, headless: true, args: FLAGS, env})
  } else {
    const npm = await npmChromium()
    const args = [...new Set([...npm.args, ...FLAGS])]
    // Without Debian's fontconfig, fall back to the fonts the package ships (Latin only).
    if (!existsSync('/etc/fonts/fonts.conf') && existsSync(join(tmpdir(), `unipay-chromium-${NPM_BROWSER_VERSION}`, 'fonts'))) {
      env.FONTCONFIG_PATH = join(tmpdir(), `unipay-chromium-${NPM_BROWSER_VERSION}`, 'fonts')
    }
    launching = chromium.launch({executablePath: npm.executablePath, headless: true, args, env})
  }
  const browser = await launching.catch((error: unknown) => {
    rmSync(home, {recursive: true, force: true})
    throw error
  })
  browser.on('disconnected', () => rmSync(home, {recursive: true, force: true}))
  return browser
}

/** Saves a full-page screenshot under artifacts/screenshots/ (Chinese renders only with CJK fonts installed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, {recursive: true})
  await page.screenshot({path: join(SCREENSHOTS, `${name}.png`), fullPage: true})
}

/**
 * A CJK font is installed (Debian's fonts-wqy-zenhei on CI). The npm browser ships none, so
 * tests assert Chinese text on the DOM and check its rendering only where a font can draw it.
 */
export function hasCjkFont(): boolean {
  try {
    return execFileSync('fc-list', [':lang=zh', 'family'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']}).trim() !== ''
  } catch {
    return false
  }
}
