import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A PDF read back as a person's reader shows it, with poppler-utils (pdftotext, pdfinfo, pdffonts,
 * pdfimages): its text laid out as printed, its pages, its fonts and its images. Nothing here trusts
 * the code that wrote the PDF.
 */

function withFile<T>(pdf: Uint8Array, read: (file: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-'));
  try {
    const file = path.join(dir, 'document.pdf');
    writeFileSync(file, pdf);
    return read(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', timeout: 60_000 });

/** The text of every page (or of page `page` only), each page's lines laid out as printed (`pdftotext -layout`). */
export const pdfText = (pdf: Uint8Array, page?: number): string =>
  withFile(pdf, (file) => run('pdftotext', ['-layout', '-enc', 'UTF-8', ...(page ? ['-f', String(page), '-l', String(page)] : []), file, '-']));

/** The text of each page, in order. */
export function pdfPages(pdf: Uint8Array): string[] {
  const pages = pdfInfo(pdf).pages;
  return Array.from({ length: pages }, (_, index) => pdfText(pdf, index + 1));
}

/** What pdfinfo says: the page count, the title, the first page's size in points. */
export function pdfInfo(pdf: Uint8Array): { pages: number; title: string; width: number; height: number } {
  const info = withFile(pdf, (file) => run('pdfinfo', ['-enc', 'UTF-8', file]));
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(info)?.[1]?.trim() ?? '';
  const [width, height] = /([\d.]+) x ([\d.]+) pts/.exec(field('Page size'))!.slice(1).map(Number);
  return { pages: Number(field('Pages')), title: field('Title'), width: width!, height: height! };
}

/** Each font of the PDF: its name and whether it is embedded (pdffonts' `emb` column). */
export function pdfFonts(pdf: Uint8Array): { name: string; embedded: boolean }[] {
  const lines = withFile(pdf, (file) => run('pdffonts', [file])).trimEnd().split('\n').slice(2);
  return lines.map((line) => {
    const [name, ...rest] = line.trim().split(/\s+/);
    // The columns after the name: type (one or two words), encoding, emb, sub, uni, object, id.
    return { name: name!, embedded: rest.at(-5) === 'yes' };
  });
}

/** The images the PDF draws (`pdfimages -list`), each with its size in pixels. */
export function pdfImages(pdf: Uint8Array): { width: number; height: number }[] {
  const lines = withFile(pdf, (file) => run('pdfimages', ['-list', file])).trimEnd().split('\n').slice(2);
  return lines.map((line) => {
    const [, , , width, height] = line.trim().split(/\s+/);
    return { width: Number(width), height: Number(height) };
  });
}

/** The bytes of a message's attachment named `filename` (base64, as nodemailer writes a binary part), from the raw message. */
export function attachmentBytes(raw: string, filename: string): Buffer {
  const named = raw.indexOf(`filename=${filename}`);
  if (named < 0) throw new Error(`no attachment named ${filename}`);
  const body = /\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(raw.slice(named));
  if (!body) throw new Error(`no body for ${filename}`);
  return Buffer.from(body[1]!.replace(/\s+/g, ''), 'base64');
}
