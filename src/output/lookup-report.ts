// `lookup --report FILE`: the story as Markdown for a support ticket. Every value that came from
// outside (a title, an errorMsg, a callback's address) is written inside a code span, where
// Markdown makes no link, no emphasis and no HTML of it, and on one line; the tool's own words
// are plain text. No key, token or password is ever part of a story.
import type {Notification} from '../protocol/notifications.js'
import {printableValue} from '../protocol/printable.js'
import type {Story, StoryRecord} from '../services/lookup/story.js'
import {display} from './format.js'
import {matchedLines} from './lookup.js'

/** A value as a code span: a fence longer than any run of backticks in it, so nothing closes it early. */
function code(value: string): string {
  const text = printableValue(value)
  if (text === '') return '(empty)'
  let longest = 0
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length)
  const fence = '`'.repeat(longest + 1)
  // a space inside each fence when the value starts or ends with a backtick or a space (CommonMark strips one each side)
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

const STATES: Record<StoryRecord['state'], string> = {
  verified: 'verified (signature checked with the platform key)',
  'failed verification': '**FAILED VERIFICATION**',
  unsigned: 'unsigned (this source signs nothing)',
}

function recordSection(record: StoryRecord): string[] {
  const label = {payment: 'Payment order', gateway: 'Gateway order', refund: 'Refund', transfer: 'Transfer', alloc: 'Split', callback: 'Callback'}[record.kind]
  const number = {payment: 'orderNo', gateway: 'orderNo', refund: 'refundNo', transfer: 'transferNo', alloc: 'allocNo', callback: 'id'}[record.kind]
  const lines = [`## ${label} ${code(display(record.data[number]))}`, '', `- answer: ${STATES[record.state]}${record.problem ? `: ${code(record.problem)}` : ''}`, `- source: ${code(record.source)}`]
  let data: Record<string, unknown> = record.data
  if (record.kind === 'callback') {
    // its fields, not its signed body
    const {id, event, url, state, createdAt, attempts} = record.data as unknown as Notification
    data = {id, event, url, state, createdAt, attempts: attempts.length}
  }
  for (const [field, value] of Object.entries(data)) lines.push(`- ${code(field)}: ${code(display(value))}`)
  return [...lines, '']
}

/** The report: the number asked, when, against which profile and address, every record with its answer's state, the timeline. */
export function storyReport(story: Story, asked: {at: string; profile: string; baseUrl: string; mchNo?: string}): string {
  const lines = [
    `# unipay lookup ${code(story.number)}`,
    '',
    `- asked: ${code(asked.at)} (GMT+8)`,
    `- profile: ${code(asked.profile)} at ${code(asked.baseUrl)}${asked.mchNo ? `, merchant ${code(asked.mchNo)}` : ''}`,
    ...matchedLines(story).map((text) => `- matched: ${code(text)}`),
    ...story.tried.map((text) => `- tried before: ${code(text)}`),
    '',
  ]
  for (const record of story.records) lines.push(...recordSection(record))
  if (story.timeline.length) {
    lines.push('## Timeline (GMT+8)', '')
    for (const event of story.timeline) lines.push(`- ${code(event.time)} ${code(event.event)}${event.due ? ' (due)' : ''}`)
    lines.push('')
  }
  if (story.nextSteps.length) {
    lines.push('## Next steps', '')
    for (const step of story.nextSteps) lines.push(`- ${code(step.why)}${step.command ? `: ${code(step.command)}` : ''}`)
    lines.push('')
  }
  const warnings = [...story.warnings, ...story.unbelievable.map((text) => `failed verification: ${text}`)]
  if (warnings.length) {
    lines.push('## Warnings', '')
    for (const warning of warnings) lines.push(`- ${code(warning)}`)
    lines.push('')
  }
  return lines.join('\n')
}
