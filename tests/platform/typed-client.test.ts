import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import t from 'tap';
import { launch } from '../support/processes.ts';
import { startService } from '../support/service.ts';

/**
 * The document as a client developer meets it (issue 29, item 8): openapi-typescript generates the
 * types from the running service's GET /openapi.json, and tests/platform/typed-client/program.ts, a
 * till's day through openapi-fetch (register, a product with stock, a shift, a sale, an offline push
 * of a customer, a sale, an expense and a cash movement with typed records, the receipt as text and
 * as ESC/POS, a partial refund, the Z), must type-check under `tsc --strict` with no cast and no
 * `any`, then run against the service and find every answer it expects. A document whose push
 * records generate as `unknown` fails the type-check (the program asserts them typed).
 *
 * The program is checked in a temporary directory as a client's own project: an ES module package,
 * its generated `openapi.ts`, this project's node_modules linked (openapi-fetch, typescript, tsx,
 * @types/node), skipLibCheck for node_modules only (the generated file is checked).
 */
const PROGRAM = path.resolve('tests/platform/typed-client/program.ts');
const TSC = path.resolve('node_modules/typescript/bin/tsc');

const api = await startService(t);

/** The program's source without its comments and the text of its strings, for what it must never contain. */
function code(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''")
    .replace(/\/\/.*$/gm, '');
}

t.test('a typed client generated from /openapi.json type-checks under tsc --strict and runs a till\'s day against the service', async (t) => {
  const source = readFileSync(PROGRAM, 'utf8');
  t.notMatch(code(source), /\bany\b/, 'the program never says any');
  t.notMatch(code(source), /\sas\s+(?!const\b)/, 'nor casts');
  t.notMatch(source, /@ts-(ignore|expect-error|nocheck)/, 'nor silences the compiler');

  const document = await api.raw('GET', '/openapi.json');
  t.equal(document.status, 200, 'GET /openapi.json');

  const dir = mkdtempSync(path.join(tmpdir(), 'typed-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const started = Date.now();
  writeFileSync(path.join(dir, 'openapi.ts'), astToString(await openapiTS(document.body, { silent: true })));
  const generatedMs = Date.now() - started;
  copyFileSync(PROGRAM, path.join(dir, 'program.ts'));
  symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'till', private: true, type: 'module' }));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: true,
      },
      files: ['program.ts'],
    }),
  );

  const typeCheck = await promisify(execFile)(process.execPath, [TSC, '-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).then(
    () => ({ code: 0, output: '' }),
    (failure: { code?: number; stdout?: string; stderr?: string }) => ({ code: failure.code ?? 1, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` }),
  );
  const checkedMs = Date.now() - started - generatedMs;
  t.equal(typeCheck.code, 0, `tsc --strict on the program: ${typeCheck.output || 'no error'}`);

  // Run whatever the type-check said: a runtime failure tells apart a wrong answer from a wrong type.
  const run = launch(t, path.join(dir, 'program.ts'), { BASE_URL: api.baseUrl });
  const exit = await run.exited;
  t.equal(exit, 0, `the program ran against the service: ${run.output.stderr || run.output.stdout}`);
  t.match(run.output.stdout, /"ok":true/, 'and reached its end');
  t.comment(`generated in ${generatedMs} ms, type-checked in ${checkedMs} ms, ran in ${Date.now() - started - generatedMs - checkedMs} ms`);
});
