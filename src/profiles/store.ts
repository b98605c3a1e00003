// Profiles in one file under the CLI's config folder, written 0600 in a 0700 folder through conf.
import {chmodSync, existsSync, mkdirSync, readFileSync} from 'node:fs'
import {ConfigError} from '../errors.js'
import {dirname, join} from 'node:path'
import type {Profile} from './model.js'
import {LOCAL_PROFILE} from './model.js'

interface StoreShape {
  activeProfile?: string
  profiles: Record<string, Profile>
}

export class ProfileStore {
  private conf: import('conf').default<StoreShape> | undefined

  constructor(private readonly configDir: string) {}

  get path(): string {
    return join(this.configDir, 'config.json')
  }

  async list(): Promise<Record<string, Profile>> {
    return this.read().profiles ?? {}
  }

  async get(name: string): Promise<Profile | undefined> {
    return (await this.list())[name]
  }

  async activeName(): Promise<string> {
    return this.read().activeProfile ?? LOCAL_PROFILE
  }

  async save(name: string, profile: Profile): Promise<void> {
    const conf = await this.load()
    conf.set('profiles', {...conf.get('profiles'), [name]: profile})
    this.tighten()
  }

  async remove(name: string): Promise<boolean> {
    const conf = await this.load()
    const profiles = {...conf.get('profiles')}
    if (!(name in profiles)) return false
    delete profiles[name]
    conf.set('profiles', profiles)
    if (conf.get('activeProfile') === name) conf.delete('activeProfile')
    this.tighten()
    return true
  }

  async use(name: string): Promise<void> {
    const conf = await this.load()
    conf.set('activeProfile', name)
    this.tighten()
  }

  /** Reads go straight to the file (conf's format is plain JSON): every command reads, few write. */
  private read(): Partial<StoreShape> {
    if (this.conf) return this.conf.store
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch {
      return {}
    }
    try {
      return JSON.parse(text) as StoreShape
    } catch {
      throw new ConfigError(`${this.path} is not valid JSON; fix or remove it`)
    }
  }

  private tighten(): void {
    // conf keeps an existing file's mode, and earlier builds made the folder 0755 (conf's mkdir):
    // both owner-only, whatever they were.
    chmodSync(this.configDir, 0o700)
    if (existsSync(this.path)) chmodSync(this.path, 0o600)
  }

  private async load() {
    if (!this.conf) {
      // before conf, which would make the folders with the default mode (0755)
      makeOwnerOnlyDirs(this.configDir)
      const {default: Conf} = await import('conf')
      this.conf = new Conf<StoreShape>({
        cwd: this.configDir,
        configName: 'config',
        configFileMode: 0o600,
        defaults: {profiles: {}},
        projectSuffix: '',
      })
    }
    return this.conf
  }
}

/** mkdir -p, every new folder owner-only; one level at a time, as Node 20's recursive mkdir hangs in some folders (/proc). */
function makeOwnerOnlyDirs(dir: string): void {
  if (existsSync(dir)) return
  makeOwnerOnlyDirs(dirname(dir))
  mkdirSync(dir, {mode: 0o700})
}
