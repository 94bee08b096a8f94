/**
 * The receipt as plain text, two ways, both the till receipt's own lines (layout.ts) so that they
 * never disagree, with no control bytes and no QR code (a chat cannot scan its own message):
 * - `chat`, for WhatsApp or SMS, whose fonts are proportional: column padding would not line up, so
 *   none is added; each amount ends its line (`Espèces : 5 000 FCFA`) and the total is *bold*;
 * - `fixed`, the printer's 32 columns, for a monospace block or a printer.
 */
import type { ReceiptInput } from '../sales/schemas.ts';
import { centre, type ReceiptLocale } from './format.ts';
import { COLUMNS, receiptLayout } from './layout.ts';

export const TEXT_COLUMNS = COLUMNS[58];
export type TextStyle = 'chat' | 'fixed';

/** Laid out this wide, no line of a chat receipt wraps: a label and its amount stay on one line. */
const CHAT_COLUMNS = 400;

/** A chat line: a row's label and amount joined, a rule shortened, centring and indentation dropped. */
function chatLine(text: string, bold: boolean, locale: ReceiptLocale): string {
  const trimmed = text.trim();
  if (/^-+$/.test(trimmed)) return '----------';
  // A line to sign on: underscores would turn the next line into italics in WhatsApp.
  if (/^_+$/.test(trimmed)) return '.'.repeat(24);
  const row = /^(.*\S)\s{2,}(\S.*)$/.exec(trimmed);
  const line = row ? `${row[1]}${locale === 'fr' ? ' : ' : ': '}${row[2]}` : trimmed;
  return bold && line ? `*${line}*` : line;
}

export function renderText(input: ReceiptInput, locale: ReceiptLocale, style: TextStyle = 'fixed'): string {
  const lines: string[] = [];
  const columns = style === 'chat' ? CHAT_COLUMNS : TEXT_COLUMNS;
  for (const block of receiptLayout(input, columns, locale)) {
    if (block.kind !== 'line') continue;
    const text =
      style === 'chat'
        ? chatLine(block.text, Boolean(block.bold), locale)
        : (block.centred ? centre(block.text, TEXT_COLUMNS)[0]! : block.text).trimEnd();
    if (text === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(text);
  }
  while (lines[lines.length - 1] === '') lines.pop();
  return `${lines.join('\n')}\n`;
}
