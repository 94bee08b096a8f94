/**
 * The receipt as plain text for WhatsApp or SMS: the till receipt's lines at 32 columns (a phone
 * screen in a monospace block), no control bytes, no QR code (a chat cannot scan its own message).
 */
import type { ReceiptInput } from '../sales/schemas.ts';
import { centre, type ReceiptLocale } from './format.ts';
import { COLUMNS, receiptLayout } from './layout.ts';

export const TEXT_COLUMNS = COLUMNS[58];

export function renderText(input: ReceiptInput, locale: ReceiptLocale): string {
  const lines: string[] = [];
  for (const block of receiptLayout(input, TEXT_COLUMNS, locale)) {
    if (block.kind !== 'line') continue;
    const text = (block.centred ? centre(block.text, TEXT_COLUMNS)[0]! : block.text).trimEnd();
    if (text === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(text);
  }
  while (lines[lines.length - 1] === '') lines.pop();
  return `${lines.join('\n')}\n`;
}
